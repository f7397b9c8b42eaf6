// Batches: many trajectories on one event loop, at most `concurrency` at a
// time, each with its own agent, user model and sink; progress as records
// arrive; one failing run never stops the others; a summary that counts the
// agent's passes apart from the simulator's and the harness's faults.
// Inlined into generate.js (scripts/assemble.mjs) as `makeBatch(lib)`.
function makeBatch({ fail, why, shown, ours, isObject, isArray, checkOptions, runTrajectory, toArtifacts, createTrajectory }) {
  const VERDICTS = ['pass', 'agent', 'simulator', 'harness', 'aborted'];
  const place = 'runTrajectories(items, opts)';
  // How many records a run made: runTrajectory puts it on the result under this symbol.
  const RECORDS = Symbol.for('agent-trajectories.records');

  /** A fork's own id, as runTrajectory names it (so a parent and its forks need no ids of their own); undefined when not a fork or not readable. */
  function forkId(options) {
    try {
      const { resumeFrom, runId } = options;
      const parent = resumeFrom?.result?.conversationId;
      if (typeof parent !== 'string' || !Number.isInteger(resumeFrom.atTurn)) return undefined;
      return typeof runId === 'string' && runId !== parent ? runId : `${parent}-fork-${resumeFrom.atTurn}`;
    } catch {
      return undefined; // a throwing getter: the run reports it
    }
  }

  function readItem(item, i) {
    const where = `${place}: items[${i}]`;
    if (!isObject(item) || isArray(item)) throw fail('INVALID_ARGUMENT', `${where} must be { trajectory, options, id? }, got ${why(item)}`);
    checkOptions(item, ['trajectory', 'options', 'id'], where);
    if (!isObject(item.trajectory)) throw fail('INVALID_ARGUMENT', `${where}.trajectory must be a trajectory (createTrajectory(def, agent)), got ${why(item.trajectory)}`);
    if (item.id !== undefined && typeof item.id !== 'string') throw fail('INVALID_ARGUMENT', `${where}.id must be a string, got ${why(item.id)}`);
    if (!isObject(item.options)) throw fail('INVALID_ARGUMENT', `${where}.options must be runTrajectory's options ({ userModel, ... }), got ${why(item.options)}`);
    return { id: item.id ?? forkId(item.options) ?? item.trajectory.conversationId ?? `run-${i + 1}`, trajectory: item.trajectory, options: item.options };
  }

  /**
   * Runs `items` ({ trajectory, options, id? }) at most `concurrency` (default
   * 4) at a time. Resolves once every run has ended, never rejects for a
   * run's failure: bad options or a throwing onProgress end that run alone.
   */
  async function runTrajectories(items, opts) {
    if (!isArray(items)) throw fail('INVALID_ARGUMENT', `${place}: items must be an array of { trajectory, options, id? }, got ${why(items)}`);
    checkOptions(opts, ['concurrency', 'signal', 'onProgress'], `${place}: opts`);
    const { concurrency = 4, signal, onProgress } = opts ?? {};
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) {
      throw fail('INVALID_ARGUMENT', `${place}: opts.concurrency must be a whole number from 1 to 10000, got ${shown(concurrency)}`);
    }
    if (onProgress !== undefined && typeof onProgress !== 'function') throw fail('INVALID_ARGUMENT', `${place}: opts.onProgress must be a function, got ${why(onProgress)}`);
    if (signal !== undefined && !(isObject(signal) && typeof signal.aborted === 'boolean')) throw fail('INVALID_ARGUMENT', `${place}: opts.signal must be an AbortSignal, got ${why(signal)}`);
    const jobs = items.map(readItem);
    const ids = new Set();
    for (const j of jobs) {
      if (ids.has(j.id)) throw fail('INVALID_ARGUMENT', `${place}: two items have the id ${JSON.stringify(j.id)}; ids name runs in the summary`);
      ids.add(j.id);
    }
    const started = Date.now();
    const runs = new Array(jobs.length);
    let next = 0;
    let done = 0;
    const tell = (event) => onProgress?.({ ...event, done, total: jobs.length });

    async function one(k) {
      const { id, trajectory, options } = jobs[k];
      const run = { id, index: k, result: null, error: null, reason: null, verdict: null, turns: 0, tokens: 0, records: 0 };
      runs[k] = run;
      if (signal?.aborted) Object.assign(run, { reason: 'aborted', verdict: 'aborted' }); // never started
      else await go(run, trajectory, options);
      done++;
      try {
        tell({ type: 'end', id, run: view(run) });
      } catch (e) {
        // The run happened; its report failed: said on the run, never dropped.
        run.error = fail('CALLBACK_FAILED', `${place}: opts.onProgress threw at the end of ${JSON.stringify(id)}: ${why(e)}`, e);
      }
    }

    async function go(run, trajectory, options) {
      const { id } = run;
      let own;
      // Records reach JS one by one only for onProgress: made into objects,
      // they cost a run about a third of its time (measured in the batch
      // benchmark). Counts and tokens come from the result instead.
      const onRecord = (record) => {
        try {
          tell({ type: 'record', id, record });
        } catch (e) {
          // Ends this run (as a throwing onRecord would), named as the caller wrote it.
          throw fail('CALLBACK_FAILED', `${place}: opts.onProgress threw on a record of ${JSON.stringify(id)}: ${why(e)}`, e);
        }
        return own?.(record);
      };
      try {
        // (Read in here: a getter that throws ends this run alone.)
        own = options.onRecord;
        // A fork's kept turns cost it nothing: their turns and tokens are its parent's.
        const kept = options.resumeFrom?.atTurn ?? 0;
        // The batch's signal reaches every run whose options have none of their own.
        const result = await runTrajectory(trajectory, { ...options, ...(onProgress ? { onRecord } : {}), ...(signal && options.signal === undefined ? { signal } : {}) });
        const end = result.steps.at(-1)?.end ?? result.end;
        const tokens = result.steps.slice(kept).reduce((sum, s) => sum + (s.tokens ?? 0), 0);
        Object.assign(run, { result, reason: end?.reason ?? null, verdict: end?.verdict ?? null, turns: Math.max(0, result.steps.length - kept), tokens, records: result[RECORDS] ?? 0 });
      } catch (e) {
        // Refused before it ran (bad options, a trajectory that is not one): the harness's doing.
        run.error = ours(e) ? e : fail('CALLBACK_FAILED', `${place}: run ${JSON.stringify(id)} threw: ${why(e)}`, e);
        Object.assign(run, { reason: 'error', verdict: 'harness' });
      }
    }

    const view = (run) => ({
      ...run,
      /** toArtifacts(result, trajectory), written when asked. */
      artifacts: () => (run.result ? toArtifacts(run.result, jobs[run.index].trajectory) : null),
    });
    const worker = async () => {
      while (next < jobs.length) await one(next++);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
    const all = runs.map(view);
    return { runs: all, summary: summarize(all, Date.now() - started) };
  }

  /**
   * The batch summary of runs reported elsewhere (say, by Queue consumers):
   * each `{ reason, verdict, turns?, tokens? }`, as a batch's runs have them.
   */
  function summarizeBatch(runs) {
    const where = 'summarizeBatch(runs)';
    if (!isArray(runs)) throw fail('INVALID_ARGUMENT', `${where}: runs must be an array of { reason, verdict, turns?, tokens? }, got ${why(runs)}`);
    return summarize(runs.map((r, i) => {
      if (!isObject(r)) throw fail('INVALID_ARGUMENT', `${where}: runs[${i}] must be { reason, verdict, turns?, tokens? }, got ${why(r)}`);
      if (!(r.verdict === null || VERDICTS.includes(r.verdict))) {
        throw fail('INVALID_ARGUMENT', `${where}: runs[${i}].verdict must be one of ${VERDICTS.join(', ')} or null, got ${shown(r.verdict)}`);
      }
      const n = (k) => {
        if (r[k] === undefined) return 0;
        if (Number.isFinite(r[k]) && r[k] >= 0) return r[k];
        throw fail('INVALID_ARGUMENT', `${where}: runs[${i}].${k} must be a number >= 0, got ${shown(r[k])}`);
      };
      return { reason: typeof r.reason === 'string' ? r.reason : null, verdict: r.verdict, turns: n('turns'), tokens: n('tokens') };
    }), null);
  }

  /** Counts per stop reason and verdict, pass rates with and without the simulator's and harness's faults, turns and tokens. */
  function summarize(runs, ms) {
    const byVerdict = Object.fromEntries(VERDICTS.map((v) => [v, 0]));
    const byReason = {};
    let turns = 0;
    let tokens = 0;
    for (const r of runs) {
      if (r.verdict) byVerdict[r.verdict]++;
      if (r.reason) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
      turns += r.turns;
      tokens += r.tokens;
    }
    const judged = byVerdict.pass + byVerdict.agent;
    const rate = (n, d) => (d ? n / d : null);
    return {
      runs: runs.length, byVerdict, byReason,
      // Every run counts against the agent; then only the runs the agent decided (pass or agent).
      passRate: rate(byVerdict.pass, runs.length), agentPassRate: rate(byVerdict.pass, judged),
      excluded: { simulator: byVerdict.simulator, harness: byVerdict.harness, aborted: byVerdict.aborted },
      turns, tokens, turnsPerRun: rate(turns, runs.length), tokensPerRun: rate(tokens, runs.length), ms,
    };
  }

  /**
   * Items for runTrajectories: every scenario × persona × agent, each named
   * "scenario/persona/agent". `scenarios`, `personas`, `agents`: objects by
   * name. `options(cell)` gives each run's options (its own sink, say).
   */
  function trajectoryMatrix(m) {
    const where = 'trajectoryMatrix(m)';
    if (!isObject(m)) throw fail('INVALID_ARGUMENT', `${where}: m must be { scenarios, personas, agents, options }, got ${why(m)}`);
    checkOptions(m, ['scenarios', 'personas', 'agents', 'options'], where);
    const named = (k) => {
      const v = m[k];
      if (!isObject(v) || isArray(v) || !Object.keys(v).length) throw fail('INVALID_ARGUMENT', `${where}: ${k} must be an object of named entries (at least one), got ${why(v)}`);
      const slash = Object.keys(v).find((name) => name.includes('/'));
      if (slash !== undefined) throw fail('INVALID_ARGUMENT', `${where}: ${k} name ${JSON.stringify(slash)} holds "/", which separates the parts of an id`);
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
          const id = `${scenario}/${persona}/${agent}`;
          const cell = { id, scenario, persona, agent };
          let trajectory;
          try {
            trajectory = createTrajectory({ ...def, persona: p, conversationId: id }, a);
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

  return { runTrajectories, trajectoryMatrix, summarizeBatch };
}
