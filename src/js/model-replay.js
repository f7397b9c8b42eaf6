// Record/replay of models (the simulated user, the ranker, and through
// agent-replay.js the agent): recordingModel keeps each request and its
// answer, replayModel answers from them, matching the whole request.

import { wasm } from './binding.js';
import { asModel } from './generate.js';
import { fail, why, ours, guard, sealed, isObject, isArray, plain } from './util.js';

/** @typedef {import('./generate-types').ModelRecording} ModelRecording */
/** @typedef {import('./generate-types').Model} Model */

// Record/replay. The core owns the recording's format, a request's
// canonical form and key, matching and the words of a miss
// (core::generate::replay); here a request becomes plain JSON. Only plain
// JSON is a request: cycles, BigInts and throwing getters are refused,
// naming the place.
/**
 * @param {any} v
 * @param {string} path
 * @param {Set<object>} [seen]
 * @returns {any}
 */
const canonical = (v, path, seen = new Set()) => {
  if (typeof v === 'bigint') throw fail('INVALID_ARGUMENT', `${path} is a BigInt; a model request must be plain JSON`);
  // What JSON would write: a Date's or any toJSON's value, a boxed
  // primitive's value (so a request keys as it travels to a model).
  if (isObject(v) && typeof v.toJSON === 'function') v = v.toJSON();
  if (v instanceof String || v instanceof Number || v instanceof Boolean) v = v.valueOf();
  // A lone surrogate (a cut emoji) the core reads as U+FFFD, on both sides of a replay alike.
  if (!isObject(v)) return v;
  if (seen.has(v)) throw fail('INVALID_ARGUMENT', `${path} refers back to an object that contains it (a cycle); a model request must be plain JSON`);
  seen.add(v);
  /** @type {any} */
  let out;
  if (isArray(v)) out = v.map((x, i) => canonical(x, `${path}[${i}]`, seen));
  else {
    out = {};
    for (const k of Object.keys(v)) {
      const x = guard(`${path}.${k}: reading it threw`, () => v[k]);
      // Defined, not assigned: a key named `__proto__` (JSON.parse makes one) stays a key.
      if (x !== undefined) Object.defineProperty(out, k, { value: canonical(x, `${path}.${k}`, seen), enumerable: true, writable: true, configurable: true });
    }
  }
  seen.delete(v);
  return out;
};
/**
 * A request as JSON text (judged as JSON sees it, after any toJSON, which
 * is what gets recorded) and its key, by the core's rule.
 * @param {unknown} request
 * @param {string} path
 * @returns {{ text: string, key: string }}
 */
const keyed = (request, path) => guard(path, () => {
  const text = JSON.stringify(canonical(request, path)) ?? 'null';
  return { text, key: wasm.requestKey(text, path) };
});
/** @type {typeof import('./generate-types').modelRequestKey} */
export const modelRequestKey = (request) => keyed(request, 'modelRequestKey: request').key;

/** @type {typeof import('./generate-types').recordingModel} */
export function recordingModel(model) {
  const call = asModel(model, 'recordingModel(model)');
  /** @type {ModelRecording['entries']} */
  const entries = [];
  // Checked, then read again for what is kept: a request that changes as
  // it is read (a getter) is kept as it reads now, as a replay will read it.
  const read = sealed('recordingModel', async (/** @type {unknown} */ req) => (keyed(req, 'recordingModel: request'), keyed(req, 'recordingModel: request')));
  /** @type {Model} */
  const recording = async (req, options) => {
    const { text } = await read(req);
    let response;
    try {
      response = await call(req, options);
    } catch (e) {
      // Kept too, and passed on coded but with the model's own message
      // (so a run's records read as without recording): a replay fails the same way.
      const err = ours(e) ? e : fail('CALLBACK_FAILED', why(e), e);
      entries.push(wasm.recordingEntry(text, JSON.stringify({ error: { message: err.message, code: err.code } })));
      throw err;
    }
    // An answer of nothing is kept as null, so the entry still has its response.
    const kept = guard('recordingModel: the model answered something that is not JSON', () => plain(response), 'CALLBACK_FAILED');
    entries.push(wasm.recordingEntry(text, JSON.stringify({ response: kept === undefined ? null : kept })));
    return response;
  };
  Object.defineProperty(recording, 'recording', {
    get: () => ({ ...wasm.recordingFormat(), entries: entries.map((e) => ({ ...e })) }),
  });
  return /** @type {Model & { readonly recording: ModelRecording }} */ (recording);
}

/** @type {typeof import('./generate-types').replayModel} */
export function replayModel(recording) {
  const rec = guard('replayModel(recording)', () => (typeof recording === 'string' ? JSON.parse(recording) : recording));
  // As plain JSON (a cycle or a throwing getter named where it is); the core reads the recording.
  const replay = new wasm.ModelReplay(guard('replayModel(recording)', () => JSON.stringify(canonical(rec, 'replayModel(recording)')) ?? 'null'));
  const answer = sealed('replayModel', async (/** @type {unknown} */ req) => replay.answer(keyed(req, 'replayModel: request').text));
  // Outside `sealed` (which would name it a fault of the request): a recorded failure is thrown again as it was.
  return async (req) => {
    const { response, error } = await answer(req);
    if (!error) return response;
    const err = fail('CALLBACK_FAILED', error.message);
    // The code it was recorded with, which may be the model's own rather than one of ours.
    if (typeof error.code === 'string') /** @type {{ code: string }} */ (err).code = error.code;
    throw err;
  };
}
