// The JS side of generation: runTrajectory's option normalisation (the run
// itself is the core's), DefaultPolicy, toArtifacts, and the main entries'
// AI SDK adapters, which get `ai` where the entry can (Node by name;
// elsewhere the caller passes `generateText`, since no entry may name `ai`
// for bundlers).

import { wasm, importAi, asOption } from './binding.js';
import { aiSdkAdapters } from './models.js';
import { fail, ours, guard, why, isObject, isArray, readOptions, macrotask, callSignal } from './util.js';

/** @typedef {import('./generate-types').Trajectory} Trajectory */
/** @typedef {import('./generate-types').TrajectoryResult} TrajectoryResult */
/** @typedef {import('./generate-types').Policy} Policy */

/** The main entries' AI SDK adapters, with `ai` from the entry (binding.js). */
export const { withAISdkAgent, fromAISdkModel, asModel } = aiSdkAdapters(() => importAi);

/**
 * The declared overloads (generate-types.d.ts) in one: `opts.userModel`
 * may be left out when the trajectory has its own.
 * @param {import('./generate-types').BoundTrajectory} trajectory
 * @param {Partial<import('./generate-types').RunTrajectoryOptions>} [opts]
 * @returns {Promise<TrajectoryResult>}
 */
export async function runTrajectory(trajectory, opts = {}) {
  const place = 'runTrajectory options';
  if (!isObject(opts) || isArray(opts)) throw fail('INVALID_ARGUMENT', `runTrajectory(trajectory, opts): opts must be an object ({ userModel, ... })`);
  // Every key goes on to the core, which refuses the unknown ones (naming
  // the nearest); here the values are only read (a getter that throws is
  // named) and the model and observers adapted.
  const given = readOptions(opts, place);
  // Missing, it is the core's to report (after any misspelt key, such as
  // `usermodel`); a bad one is named where it was given.
  const fromTrajectory = given.userModel == null;
  const model = fromTrajectory ? guard('runTrajectory(trajectory): reading trajectory.userModel threw', () => /** @type {any} */ (trajectory)?.userModel) : given.userModel;
  const userModel = model === undefined ? undefined : asModel(model, fromTrajectory ? 'trajectory.userModel' : `${place}.userModel`);
  let observers = given.observers;
  if (observers != null && typeof guard(`${place}.observers.recordToolCall: reading it threw`, () => observers.recordToolCall) !== 'function') {
    // Options, not a pipeline: it takes the run's clock (unless they name
    // their own), so assessments are stamped as the records are.
    const o = isArray(observers) ? { observers } : observers;
    const runClock = isObject(o) && given.clock !== undefined && guard(`${place}.observers.clock: reading it threw`, () => o.clock) === undefined;
    const withClock = runClock ? guard(`${place}.observers: reading its options threw`, () => ({ ...o, clock: given.clock })) : o;
    observers = asOption(`${place}.observers`, isArray(observers), () => new wasm.ObserverPipeline(withClock));
  }
  // The judge's model, adapted like the user model; the rest of `judge` is the core's to read.
  const judge = isObject(given.judge) && !isArray(given.judge)
    ? guard(`${place}.judge: reading it threw`, () => ({ ...given.judge, ...(given.judge.model === undefined ? {} : { model: asModel(given.judge.model, `${place}.judge.model`) }) }))
    : given.judge;
  return wasm.runTrajectory(trajectory, { ...given, userModel, ...(observers == null ? {} : { observers }), ...(judge === undefined ? {} : { judge }) }, { macrotask, callSignal });
}

/**
 * The built-in stop rules, as a policy object: a replacement policy can
 * defer to it. Its answer is the one the core computed for this context
 * (`ctx.defaultDecision`).
 * @implements {Policy}
 */
export class DefaultPolicy {
  /**
   * @param {import('./generate-types').PolicyContext} ctx
   * @returns {import('./generate-types').PolicyDecision}
   */
  evaluate(ctx) {
    const decision = guard('DefaultPolicy.evaluate(ctx): reading ctx.defaultDecision threw', () => ctx?.defaultDecision);
    if (!isObject(decision)) throw fail('INVALID_ARGUMENT', 'DefaultPolicy.evaluate needs the context runTrajectory passes to policies (with defaultDecision)');
    // A copy: what goes back is plain data, whatever the context held.
    return guard('DefaultPolicy.evaluate(ctx): reading ctx.defaultDecision threw', () => ({ ...decision }));
  }
}

/**
 * `conversation.jsonl`, `stepTraces.json` and `trajectory.meta.json` of a run, as strings.
 * @type {typeof import('./generate-types').toArtifacts}
 */
export function toArtifacts(result, def) {
  const where = 'toArtifacts(result, def)';
  if (!isObject(result)) throw fail('INVALID_ARGUMENT', `${where}: result must be what runTrajectory resolved with`);
  if (!isObject(def)) throw fail('INVALID_ARGUMENT', `${where}: def must be the trajectory definition`);
  // The definition read as createTrajectory reads it (the core's rules), with an agent that is never called.
  try {
    wasm.createTrajectory(def, { respond: async () => [] });
  } catch (e) {
    if (!ours(e)) throw e;
    throw fail('INVALID_ARGUMENT', `${where}: def is not a trajectory definition: ${e.message}`, e.cause ?? e);
  }
  // The steps read once: the three files are of the same steps, whatever a getter answers next.
  const steps = guard(`${where}: reading result.steps threw`, () => result.steps);
  if (!isArray(steps)) throw fail('INVALID_ARGUMENT', `${where}: result.steps must be the run's step traces (an array), got ${why(steps)}`);
  const lines = wasm.toJSONL(guard(where, () => ({ ...result, steps })));
  return guard(where, () => {
    const end = result.end ?? steps[steps.length - 1]?.end;
    // The definition as data: live objects left out, callbacks named.
    const definition = JSON.parse(JSON.stringify(def, function (key, value) {
      if (this === def && (key === 'agent' || key === 'userModel')) return undefined;
      return typeof value === 'function' ? `[function ${value.name || key}]` : value;
    }));
    const meta = {
      trajectoryId: result.conversationId ?? def.conversationId ?? null,
      createdAt: steps[0]?.timestamp ?? null,
      turns: steps.length,
      end: end ?? null,
      stepStates: result.stepStates ?? null,
      definition,
    };
    return {
      'conversation.jsonl': lines.length ? `${lines.join('\n')}\n` : '',
      'stepTraces.json': `${JSON.stringify(steps, null, 2)}\n`,
      'trajectory.meta.json': `${JSON.stringify(meta, null, 2)}\n`,
    };
  });
}
