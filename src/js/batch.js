// Batches: many trajectories on one event loop, at most `concurrency` at a
// time, each with its own agent, user model and sink; progress as records
// arrive; one failing run never stops the others; a summary that counts the
// agent's passes apart from the simulator's and the harness's faults.

import { wasm } from './binding.js';
import { runTrajectory, toArtifacts } from './generate.js';
import { fail, why, shown, ours, isObject, isArray, isThenable } from './util.js';

const place = 'runTrajectories(items, opts)';
// How many records a run made: runTrajectory puts it on the result under this symbol.
const RECORDS = Symbol.for('agent-trajectories.records');

/**
 * A run of the batch as it goes (BatchRun without artifacts()).
 * @typedef {Omit<import('./generate-types').BatchRun, 'artifacts'>} Run
 */

/**
 * A fork's parent, turn and run id, read for the core's id rule; undefined when not a fork or not readable.
 * @param {any} options
 * @returns {{ parent: string, atTurn: number, runId: string | undefined } | undefined}
 */
function forkOf(options) {
  try {
    const { resumeFrom, runId } = options;
    const parent = resumeFrom?.result?.conversationId;
    if (typeof parent !== 'string' || !Number.isInteger(resumeFrom.atTurn)) return undefined;
    return { parent, atTurn: resumeFrom.atTurn, runId: typeof runId === 'string' ? runId : undefined };
  } catch {
    return undefined; // a throwing getter: the run reports it
  }
}

/**
 * @param {any} item
 * @param {number} i
 * @returns {{ id: string, trajectory: any, options: any, fork: boolean }}
 */
function readItem(item, i) {
  const where = `${place}: items[${i}]`;
  if (!isObject(item) || isArray(item)) throw fail('INVALID_ARGUMENT', `${where} must be { trajectory, options, id? }, got ${why(item)}`);
  wasm.checkOptions(item, ['trajectory', 'options', 'id'], where);
  if (!isObject(item.trajectory)) throw fail('INVALID_ARGUMENT', `${where}.trajectory must be a trajectory (createTrajectory(def, agent)), got ${why(item.trajectory)}`);
  if (item.id !== undefined && (typeof item.id !== 'string' || !item.id)) throw fail('INVALID_ARGUMENT', `${where}.id must be a non-empty string, got ${shown(item.id)}`);
  if (!isObject(item.options)) throw fail('INVALID_ARGUMENT', `${where}.options must be runTrajectory's options ({ userModel, ... }), got ${why(item.options)}`);
  const fork = forkOf(item.options);
  // The id the run would take by itself (not a fork's): the trajectory's
  // conversationId, else its options' runId, as runTrajectory takes it.
  const conversation = item.trajectory.conversationId;
  let runId;
  try {
    runId = fork ? undefined : item.options.runId;
  } catch {} // a throwing getter: the run reports it
  const own = typeof conversation === 'string' ? conversation : typeof runId === 'string' ? runId : undefined;
  const id = wasm.batchItemId(item.id, fork?.parent, fork?.atTurn, fork?.runId, own, i);
  return { id, trajectory: item.trajectory, options: item.options, fork: fork !== undefined };
}

/**
 * Runs `items` ({ trajectory, options, id? }) at most `concurrency` (default
 * 4) at a time. Resolves once every run has ended, never rejects for a
 * run's failure: bad options or a throwing onProgress end that run alone.
 * @type {typeof import('./generate-types').runTrajectories}
 */
export async function runTrajectories(items, opts) {
  if (!isArray(items)) throw fail('INVALID_ARGUMENT', `${place}: items must be an array of { trajectory, options, id? }, got ${why(items)}`);
  wasm.checkOptions(opts, ['concurrency', 'signal', 'onProgress', 'repeat'], `${place}: opts`);
  const { concurrency = 4, signal, onProgress, repeat = 1 } = opts ?? {};
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 1000) {
    throw fail('INVALID_ARGUMENT', `${place}: opts.repeat must be a whole number from 1 to 1000, got ${shown(repeat)}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) {
    throw fail('INVALID_ARGUMENT', `${place}: opts.concurrency must be a whole number from 1 to 10000, got ${shown(concurrency)}`);
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') throw fail('INVALID_ARGUMENT', `${place}: opts.onProgress must be a function, got ${why(onProgress)}`);
  if (signal !== undefined && !(isObject(signal) && typeof signal.aborted === 'boolean')) throw fail('INVALID_ARGUMENT', `${place}: opts.signal must be an AbortSignal, got ${why(signal)}`);
  const given = items.map(readItem);
  const ids = new Set();
  for (const j of given) {
    if (ids.has(j.id)) throw fail('INVALID_ARGUMENT', `${place}: two items have the id ${JSON.stringify(j.id)}; ids name runs in the summary: give each item its own id`);
    ids.add(j.id);
  }
  // Each item `repeat` times, each run with an id (and records) of its own:
  // the batch's id is the run's conversation id and its records' run_id
  // (a fork's id is the fork rule's already). Left to itself, a run with
  // no id takes its start time, which runs started in the same millisecond
  // share, and items made from one trajectory share its conversationId.
  const jobs = given.flatMap((j) => Array.from({ length: repeat }, (_, r) => {
    const id = wasm.repeatId(j.id, r + 1, repeat);
    const own = repeat > 1 || !j.fork ? { trajectory: { ...j.trajectory, conversationId: id }, options: repeat > 1 ? { ...j.options, runId: id } : j.options } : j;
    return { ...own, id, item: j.id, repeat: r + 1 };
  }));
  const started = Date.now();
  const runs = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const tell = (/** @type {any} */ event) => onProgress?.({ ...event, done, total: jobs.length });
  // An async onProgress's failures at runs' ends, said on those runs before the batch resolves.
  /** @type {Promise<void>[]} */
  const reports = [];

  /** @param {number} k */
  async function one(k) {
    const { id, item, repeat, trajectory, options } = jobs[k];
    /** @type {Run} */
    const run = { id, item, repeat, index: k, result: null, error: null, reason: null, verdict: null, turns: 0, tokens: 0, records: 0, judgements: [] };
    runs[k] = run;
    if (signal?.aborted) Object.assign(run, wasm.batchTally('unstarted', undefined, undefined, [], 0)); // never started
    else await go(run, trajectory, options);
    done++;
    // The run happened; its report failed: said on the run, never dropped.
    const failed = (/** @type {unknown} */ e, /** @type {string} */ how) => {
      run.error = fail('CALLBACK_FAILED', `${place}: opts.onProgress ${how} at the end of ${JSON.stringify(id)}: ${why(e)}`, e);
    };
    try {
      const told = tell({ type: 'end', id, run: view(run) });
      if (isThenable(told)) reports.push(Promise.resolve(told).then(() => {}, (e) => failed(e, 'rejected')));
    } catch (e) {
      failed(e, 'threw');
    }
  }

  /**
   * @param {Run} run
   * @param {any} trajectory
   * @param {any} options
   */
  async function go(run, trajectory, options) {
    const { id } = run;
    // Records reach JS one by one only for onProgress: made into objects,
    // they cost a run about a third of its time (measured in the batch
    // benchmark). Counts and tokens come from the result instead.
    // What onProgress throws or rejects with ends this run, as a failing
    // onRecord would. Alone, it is named as the caller wrote it (the core
    // reads that name from the function); beside the run's own onRecord,
    // its errors say it.
    const onRecordFor = (/** @type {((record: unknown) => unknown) | undefined} */ own) => {
      const failed = (/** @type {unknown} */ e, /** @type {string} */ how) => (own ? fail('CALLBACK_FAILED', `${place}: opts.onProgress ${how} on a record of ${JSON.stringify(id)}: ${why(e)}`, e) : e);
      const onRecord = (/** @type {import('./records').TrajectoryRecord} */ record) => {
        let told;
        try {
          told = tell({ type: 'record', id, record });
        } catch (e) {
          throw failed(e, 'threw');
        }
        const mine = own?.(record);
        if (!isThenable(told)) return mine;
        const reported = Promise.resolve(told).then(() => {}, (e) => {
          throw failed(e, 'rejected');
        });
        return isThenable(mine) ? Promise.all([reported, mine]) : reported;
      };
      return own ? onRecord : Object.defineProperty(onRecord, Symbol.for('agent-trajectories.name'), { value: `${place} opts.onProgress` });
    };
    try {
      // (Read in here: a getter that throws ends this run alone.)
      const own = options.onRecord;
      // A fork's kept turns cost it nothing: their turns and tokens are its parent's.
      const kept = options.resumeFrom?.atTurn ?? 0;
      // The batch's signal reaches every run whose options have none of their own.
      const result = await runTrajectory(trajectory, { ...options, ...(onProgress ? { onRecord: onRecordFor(own) } : {}), ...(signal && options.signal === undefined ? { signal } : {}) });
      const end = result.steps.at(-1)?.end ?? result.end;
      const tally = wasm.batchTally('finished', end?.reason ?? undefined, end?.verdict ?? undefined, Float64Array.from(result.steps, (s) => s.tokens ?? 0), kept);
      // The judge's judgements, after each turn, then at the end (when not the last turn's).
      const judgements = result.steps.flatMap((s) => (s.judgement ? [s.judgement] : []));
      if (result.judgement && result.judgement !== judgements.at(-1) && result.judgement.final) judgements.push(result.judgement);
      Object.assign(run, { result, ...tally, records: /** @type {any} */ (result)[RECORDS] ?? 0, judgements });
    } catch (e) {
      // Refused before it ran (bad options, a trajectory that is not one): the harness's doing.
      run.error = ours(e) ? e : fail('CALLBACK_FAILED', `${place}: run ${JSON.stringify(id)} threw: ${why(e)}`, e);
      Object.assign(run, wasm.batchTally('thrown', undefined, undefined, [], 0));
    }
  }

  const view = (/** @type {Run} */ run) => ({
    ...run,
    /** toArtifacts(result, trajectory), written when asked. */
    artifacts: () => (run.result ? toArtifacts(run.result, jobs[run.index].trajectory) : null),
  });
  const worker = async () => {
    while (next < jobs.length) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  await Promise.all(reports);
  const all = runs.map(view);
  return { runs: all, summary: wasm.batchSummary(all.map(({ item, reason, verdict, turns, tokens }) => ({ item, reason, verdict, turns, tokens })), Date.now() - started, place) };
}

/**
 * The batch summary of runs reported elsewhere (say, by Queue consumers):
 * each `{ reason, verdict, turns?, tokens? }`, as a batch's runs have them.
 * Counted and checked by the core's batch rules.
 * @type {typeof import('./generate-types').summarizeBatch}
 */
export function summarizeBatch(runs) {
  return wasm.batchSummary(runs, undefined, 'summarizeBatch(runs)');
}

/**
 * Items for runTrajectories: every scenario × persona × agent, each named
 * "scenario/persona/agent". `scenarios`, `personas`, `agents`: objects by
 * name. `options(cell)` gives each run's options (its own sink, say).
 * @type {typeof import('./generate-types').trajectoryMatrix}
 */
export function trajectoryMatrix(m) {
  const where = 'trajectoryMatrix(m)';
  if (!isObject(m)) throw fail('INVALID_ARGUMENT', `${where}: m must be { scenarios, personas, agents, options }, got ${why(m)}`);
  wasm.checkOptions(m, ['scenarios', 'personas', 'agents', 'options'], where);
  const named = (/** @type {string} */ k) => {
    const v = /** @type {Record<string, unknown>} */ (m)[k];
    if (!isObject(v) || isArray(v) || !Object.keys(v).length) throw fail('INVALID_ARGUMENT', `${where}: ${k} must be an object of named entries (at least one), got ${why(v)}`);
    return Object.entries(v);
  };
  const [scenarios, personas, agents] = ['scenarios', 'personas', 'agents'].map(named);
  if (typeof m.options !== 'function') throw fail('INVALID_ARGUMENT', `${where}: options must be a function (cell) => runTrajectory options, got ${why(m.options)}`);
  const items = [];
  for (const [scenario, def] of scenarios) {
    const own = ['persona', 'conversationId'].find((key) => isObject(def) && key in def);
    if (own) throw fail('INVALID_ARGUMENT', `${where}: scenarios.${scenario}.${own}: the matrix sets it (personas, and the id "scenario/persona/agent")`);
    for (const [persona, p] of personas) {
      for (const [agent, a] of agents) {
        const id = wasm.matrixId(scenario, persona, agent, where);
        const cell = { id, scenario, persona, agent };
        let trajectory;
        try {
          trajectory = wasm.createTrajectory({ ...def, persona: p, conversationId: id }, a);
        } catch (e) {
          throw ours(e) ? Object.assign(e, { message: `${where}: ${id}: ${e.message}` }) : fail('INVALID_ARGUMENT', `${where}: ${id}: ${why(e)}`, e);
        }
        let options;
        try {
          options = m.options(cell);
        } catch (e) {
          throw fail('CALLBACK_FAILED', `${where}: options(${JSON.stringify(id)}) threw: ${why(e)}`, e);
        }
        items.push({ id, trajectory, options });
      }
    }
  }
  return items;
}

