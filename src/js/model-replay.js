// Record/replay of models (the simulated user, the ranker, and through
// agent-replay.js the agent): recordingModel keeps each request and its
// answer, replayModel answers from them, matching the whole request. Inlined
// into generate.js (scripts/assemble.mjs) as `makeModelReplay(lib)`.
function makeModelReplay({ fail, why, ours, guard, sealed, isObject, isArray, plain, asModel }) {
  // Record/replay. A request's key hashes its canonical JSON (object keys
  // sorted), so key order does not matter. Only plain JSON is a request:
  // cycles, BigInts and throwing getters are refused, naming the place.
  const canonical = (v, path, seen = new Set()) => {
    if (typeof v === 'bigint') throw fail('INVALID_ARGUMENT', `${path} is a BigInt; a model request must be plain JSON`);
    // What JSON would write: a Date's or any toJSON's value, a boxed
    // primitive's value (so a request keys as it travels to a model).
    if (isObject(v) && typeof v.toJSON === 'function') v = v.toJSON();
    if (v instanceof String || v instanceof Number || v instanceof Boolean) v = v.valueOf();
    if (!isObject(v)) return v;
    if (seen.has(v)) throw fail('INVALID_ARGUMENT', `${path} refers back to an object that contains it (a cycle); a model request must be plain JSON`);
    seen.add(v);
    let out;
    if (isArray(v)) out = v.map((x, i) => canonical(x, `${path}[${i}]`, seen));
    else {
      out = {};
      for (const k of Object.keys(v).sort()) {
        const x = guard(`${path}.${k}: reading it threw`, () => v[k]);
        if (x !== undefined) out[k] = canonical(x, `${path}.${k}`, seen);
      }
    }
    seen.delete(v);
    return out;
  };
  // The canonical JSON text of a request (what replay matches on) and its key.
  const keyed = (request, path) => guard(path, () => {
    // Judged as JSON sees it (after any toJSON), which is what gets recorded.
    const c = canonical(request, path);
    if (!isObject(c) || isArray(c)) throw fail('INVALID_ARGUMENT', `${path} must be a model request object`);
    const text = JSON.stringify(c);
    return { text, key: hash(text) };
  });
  function hash(text) {
    // Two independent 32-bit FNV-1a style lanes over the UTF-16 text: 16 hex digits.
    let a = 0x811c9dc5, b = 0x01000193 ^ text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193) >>> 0;
      b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
      // `^` yields a signed 32-bit value: back to unsigned, or the hex gets a minus sign.
      b = (b ^ (b >>> 15)) >>> 0;
    }
    return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
  }
  const modelRequestKey = (request) => keyed(request, 'modelRequestKey: request').key;
  const show = (v) => {
    const s = JSON.stringify(v) ?? 'undefined';
    return s.length > 80 ? `${s.slice(0, 80)}…` : s;
  };
  // Where two JSON values differ, as `path: recorded X, requested Y` lines;
  // long strings are shown at their first differing line.
  function diff(a, b, path, out) {
    if (a && b && typeof a === 'object' && typeof b === 'object' && isArray(a) === isArray(b)) {
      if (isArray(a)) {
        if (a.length !== b.length) out.push(`${path}: recorded ${a.length} item${a.length === 1 ? '' : 's'}, requested ${b.length}`);
        for (let i = 0; i < Math.min(a.length, b.length); i++) diff(a[i], b[i], `${path}[${i}]`, out);
      } else {
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
          if (!(k in b)) out.push(`${path}.${k}: recorded ${show(a[k])}, requested (missing)`);
          else if (!(k in a)) out.push(`${path}.${k}: recorded (missing), requested ${show(b[k])}`);
          else diff(a[k], b[k], `${path}.${k}`, out);
        }
      }
    } else if (typeof a === 'string' && typeof b === 'string' && a !== b) {
      const la = a.split('\n'), lb = b.split('\n');
      let i = 0;
      while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
      out.push(`${path} line ${i + 1}: recorded ${show(la[i] ?? '(no such line)')}, requested ${show(lb[i] ?? '(no such line)')}`);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push(`${path}: recorded ${show(a)}, requested ${show(b)}`);
    }
    return out;
  }

  const FORMAT = 'agent-trajectories/model-recording';
  function recordingModel(model) {
    const call = asModel(model, 'recordingModel(model)');
    const entries = [];
    const read = sealed('recordingModel', async (req) => ({ key: keyed(req, 'recordingModel: request').key, request: plain(req) }));
    const recording = async (req, options) => {
      const { key, request } = await read(req);
      let response;
      try {
        response = await call(req, options);
      } catch (e) {
        // Kept too, and passed on coded but with the model's own message
        // (so a run's records read as without recording): a replay fails the same way.
        const err = ours(e) ? e : fail('CALLBACK_FAILED', why(e), e);
        entries.push({ key, request, error: { message: err.message, code: err.code } });
        throw err;
      }
      // An answer of nothing is kept as null, so the entry still has its response.
      const kept = guard('recordingModel: the model answered something that is not JSON', () => plain(response), 'CALLBACK_FAILED');
      entries.push({ key, request, response: kept === undefined ? null : kept });
      return response;
    };
    Object.defineProperty(recording, 'recording', {
      get: () => ({ format: FORMAT, version: 1, entries: entries.map((e) => ({ ...e })) }),
    });
    return recording;
  }

  function replayModel(recording) {
    const notOne = `replayModel: not a model recording (expected format ${JSON.stringify(FORMAT)} with entries)`;
    const rec = guard('replayModel(recording)', () => (typeof recording === 'string' ? JSON.parse(recording) : recording));
    const { format, version, entries } = guard('replayModel(recording)', () => ({ format: rec?.format, version: rec?.version, entries: rec?.entries }));
    if (format !== FORMAT || !isArray(entries)) throw fail('INVALID_ARGUMENT', notOne);
    if (typeof version !== 'number' || Number.isNaN(version)) throw fail('INVALID_ARGUMENT', `replayModel: recording version must be a number, got ${why(version)}`);
    if (!(version <= 1)) throw fail('UNSUPPORTED_SCHEMA_VERSION', `replayModel: recording version ${version}; this build reads up to 1`);
    // Matched by the request's canonical JSON itself, not only its key, so
    // two requests whose keys collide never share an answer. Keys are
    // recomputed, so a hand-edited request still matches.
    const byText = new Map();
    const recorded = guard('replayModel(recording).entries', () => [...entries]).map((e, i) => {
      const at = `replayModel: entries[${i}]`;
      const { request, response, error, has } = guard(at, () => ({ request: e?.request, response: e?.response, error: e?.error, has: isObject(e) && 'request' in e && ('response' in e || 'error' in e) }));
      if (!has) throw fail('INVALID_ARGUMENT', `${at} needs request and response (or error)`);
      const { text } = keyed(request, `${at}.request`);
      if (error !== undefined && typeof error?.message !== 'string') throw fail('INVALID_ARGUMENT', `${at}.error must be { message, code? }`);
      // A recorded failure is thrown again as it was: coded errors with their code, others as a plain Error.
      const answer = error !== undefined ? { error } : guard(`${at}.response is not JSON`, () => ({ response: plain(response) }));
      if (!byText.has(text)) byText.set(text, { list: [], next: 0 });
      byText.get(text).list.push(answer);
      return JSON.parse(text);
    });
    const answer = sealed('replayModel', async (req) => {
      const { text, key } = keyed(req, 'replayModel: request');
      const asked = JSON.parse(text);
      const purpose = typeof asked.purpose === 'string' ? asked.purpose : why(asked.purpose);
      const hit = byText.get(text);
      if (hit) {
        if (hit.next < hit.list.length) {
          const { response, error } = hit.list[hit.next++];
          return error ? { error } : { response: plain(response) };
        }
        throw fail('REPLAY_MISS', `replayModel: this ${purpose} request (key ${key}) was recorded ${hit.list.length} time${hit.list.length === 1 ? '' : 's'}; this is call ${++hit.next} of it`);
      }
      const diffs = recorded.filter((r) => JSON.stringify(r.purpose) === JSON.stringify(asked.purpose)).map((r) => diff(r, asked, 'request', []));
      // The closest: fewest differences, a list of another length counting as many (so a later turn's conversation is compared with its own turn).
      const score = (d) => d.length + 100 * d.filter((l) => / items?, requested \d+$/.test(l)).length;
      diffs.sort((x, y) => score(x) - score(y));
      throw fail('REPLAY_MISS', diffs.length
        ? `replayModel: no recorded answer for this ${purpose} request (key ${key}). Closest recorded request differs at:\n${diffs[0].slice(0, 8).join('\n')}`
        : `replayModel: no recorded answer for this ${purpose} request (key ${key}); the recording has no ${purpose} requests`);
    });
    // Outside `sealed` (which would name it a fault of the request): a recorded failure is thrown again as it was.
    return async (req) => {
      const { response, error } = await answer(req);
      if (error) throw fail(typeof error.code === 'string' ? error.code : 'CALLBACK_FAILED', error.message);
      return response;
    };
  }

  return { recordingModel, replayModel, modelRequestKey };
}
