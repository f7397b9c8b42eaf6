// Simulations to trust, runtime-agnostic (see capture-scenario.mjs): the
// simulated user's faults told apart from the agent's (reply checks,
// retries, simulator_issue records, verdicts), and minTurns; through the
// installed tarball in Node (ESM, CJS), Chromium and workerd.
import { assert, eq } from './capture-scenario.mjs';
import { scriptedUser } from './generate-scenario.mjs';

const clock = () => 1_700_000_000_000;

/** A user model answering `replies` in order, then numbered messages. */
const user = (replies = []) => scriptedUser({ replies: [...replies] });

const agent = (fail = false) => {
  const a = { calls: 0, async respond() { a.calls++; if (fail) throw new TypeError('agent exploded'); return { messages: [{ role: 'assistant', content: 'ok' }] }; } };
  return a;
};

const def = (extra = {}) => ({
  goal: 'book a table', persona: { description: 'a diner' }, conversationId: 'sim',
  steps: { steps: [{ id: 'ask', instruction: 'ask for a table' }, { id: 'confirm', instruction: 'confirm', preconditions: [{ type: 'stepSatisfied', stepId: 'ask' }] }], start: 'ask', terminals: ['confirm'] },
  ...extra,
});

const end = (r) => r.steps.at(-1)?.end ?? r.end;
const issues = (sink) => sink.records().filter((r) => r.payload.kind === 'simulator_issue').map((r) => r.payload);

export const checks = {
  async 'a reply that is not the user is retried with a reminder, recorded, and not shown to the agent'(at) {
    const sink = new at.MemorySink();
    const u = user(['<think>they want a table</think> A table, please.', 'A table for two, please.', 'A table for two,   please.']);
    const a = agent();
    const r = await at.runTrajectory(at.createTrajectory(def({ simulator: { checks: { repeat: true } } }), a), { userModel: u, clock, sink });
    eq(r.steps.map((s) => s.userMessage.content), ['A table for two, please.', 'user message 1'], 'accepted messages');
    eq(issues(sink).map((p) => [p.turn_index, p.issue, p.attempt, p.retried]), [[0, 'reasoning', 1, true], [1, 'repeat', 1, true]], 'simulator_issue records');
    eq(issues(sink)[0].text, '<think>they want a table</think> A table, please.', 'the rejected reply, kept');
    assert(u.requests[1].messages[0].content.endsWith("Answer with the user's message only, nothing else."), 'the reminder names the problem');
    eq([end(r).reason, end(r).verdict], ['goal-reached', 'pass'], 'the run itself passed');
    eq(a.calls, 2, 'the agent saw only accepted messages');
  },

  async 'a persisting fault ends the run as the simulator\'s, in every export'(at) {
    const sink = new at.MemorySink();
    const a = agent();
    const t = at.createTrajectory(def({ simulator: { retries: 2 } }), a);
    const r = await at.runTrajectory(t, { userModel: user(['Assistant: how can I help?', 'How can I help you today?', 'AI: hello']), clock, sink });
    const e = end(r);
    eq([e.reason, e.verdict, e.error.side, e.error.code], ['error', 'simulator', 'user-simulator', 'SIMULATOR_ISSUE'], 'end');
    eq(e.error.message, "turn 0: the user model's replies were not the user speaking (3 times, each retry with a reminder): role, role, role", 'message');
    eq(issues(sink).map((p) => p.retried), [true, true, false], 'each rejected reply recorded; the last not retried');
    eq(a.calls, 0, 'the agent was never called');
    const outcome = sink.records().at(-1).payload.outcome;
    eq([outcome.status, outcome.verdict], ['error', 'simulator'], 'run_ended outcome');
    eq(at.toConversation(r).metadata.verdict, 'simulator', 'Conversation metadata');
    assert(at.summarize(r).includes("\nVerdict: simulator (the simulated user's fault, not the agent's)"), at.summarize(r));
    // The agent's own failure, and a failing callback of the harness, are told apart.
    const mine = await at.runTrajectory(at.createTrajectory(def(), agent(true)), { userModel: user(), clock });
    eq([end(mine).error.side, end(mine).verdict, JSON.parse(at.toJSONL(mine)[0]).metadata.verdict], ['agent', 'agent', 'agent'], 'agent fault');
    const harness = await at.runTrajectory(at.createTrajectory(def(), agent()), { userModel: user(), clock, policy: () => { throw new Error('policy bug'); } });
    eq([end(harness).error.side, end(harness).verdict], ['policy', 'harness'], 'harness fault');
    const ranker = await at.runTrajectory(at.createTrajectory(def({ steps: { steps: [{ id: 'a', instruction: 'x' }, { id: 'b', instruction: 'y' }, { id: 'c', instruction: 'z' }], start: 'a', terminals: ['c'] } }), agent()),
      { userModel: async (req) => { if (req.purpose === 'rank-steps') throw new Error('ranker down'); return 'hello there'; }, clock });
    eq([end(ranker).error.side, end(ranker).verdict], ['ranker', 'simulator'], 'ranker fault');
  },

  async 'checks can be turned off; bad simulator options are refused with the key'(at) {
    const r = await at.runTrajectory(at.createTrajectory(def({ maxTurns: 2 }), agent()), { userModel: user(['yes', 'yes']), clock });
    eq(r.steps.map((s) => s.userMessage.content), ['yes', 'yes'], 'a repeat let through by default (repeat is opt-in)');
    const off = await at.runTrajectory(at.createTrajectory(def({ maxTurns: 1, simulator: { checks: { role: false } } }), agent()), { userModel: user(['Assistant: hi']), clock });
    eq(off.steps[0].userMessage.content, 'Assistant: hi', 'the role check turned off');
    const refused = (extra, re) => {
      try {
        at.createTrajectory(def(extra), agent());
      } catch (e) {
        assert(e instanceof Error && e.code === 'INVALID_TRAJECTORY' && re.test(e.message), `${e.code}: ${e.message}`);
        return;
      }
      throw new Error(`not refused: ${JSON.stringify(extra)}`);
    };
    refused({ simulator: { retries: -1 } }, /simulator\.retries must be an integer >= 0, got -1/);
    refused({ simulator: { retries: 11 } }, /simulator\.retries must be at most 10, got 11/);
    refused({ simulator: { checks: { roles: false } } }, /simulator\.checks: unknown option "roles".*did you mean "role"/);
    refused({ simulator: { checks: { role: 'no' } } }, /simulator\.checks\.role must be true or false, got a string/);
    refused({ minTurns: 30 }, /minTurns \(30\) must not exceed maxTurns \(20\)/);
    refused({ minTurn: 3 }, /did you mean "minTurns"/);
  },

  async 'minTurns keeps a reached goal talking until then, and maxTurns still caps'(at) {
    const quick = { steps: { steps: [{ id: 'hi', instruction: 'say hello' }], start: 'hi', terminals: ['hi'] } };
    let r = await at.runTrajectory(at.createTrajectory(def(quick), agent()), { userModel: user(), clock });
    eq([r.steps.length, end(r).reason], [1, 'goal-reached'], 'without minTurns');
    r = await at.runTrajectory(at.createTrajectory(def({ ...quick, minTurns: 3 }), agent()), { userModel: user(), clock });
    eq([r.steps.length, end(r).reason, end(r).verdict], [3, 'goal-reached', 'pass'], 'with minTurns 3');
    eq(r.steps.map((s) => s.selection.method), ['start', 'none', 'none'], 'the later turns have no step');
  },
};

export const batchChecks = {
  async 'runTrajectories: concurrency bounded, progress per record, failures kept apart, a summary that excludes the simulator'(at) {
    let running = 0;
    let peak = 0;
    const slow = (fail = false) => ({
      async respond() {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 1));
        running--;
        if (fail) throw new Error('agent down');
        return { messages: [{ role: 'assistant', content: 'ok' }], usage: { inputTokens: 10, outputTokens: 5 } };
      },
    });
    const sinks = [];
    const item = (id, agentOf, userModel, extra = {}) => {
      const sink = new at.MemorySink();
      sinks.push(sink);
      return { id, trajectory: at.createTrajectory(def(extra), agentOf), options: { userModel, clock, sink } };
    };
    const items = [
      item('pass-1', slow(), user()),
      item('pass-2', slow(), user()),
      item('agent-fails', slow(true), user()),
      item('simulator-fails', slow(), user(['Assistant: hello', 'AI: hello'])),
      item('max-turns', slow(), user(), { maxTurns: 1, steps: undefined }),
      { id: 'bad-options', trajectory: at.createTrajectory(def(), slow()), options: { userModel: user(), clock, sinc: 1 } },
    ];
    const progress = [];
    const { runs, summary } = await at.runTrajectories(items, { concurrency: 2, onProgress: (p) => progress.push([p.type, p.id]) });
    assert(peak <= 2, `at most 2 runs at a time (saw ${peak})`);
    eq(runs.map((r) => [r.id, r.reason, r.verdict]), [
      ['pass-1', 'goal-reached', 'pass'], ['pass-2', 'goal-reached', 'pass'], ['agent-fails', 'error', 'agent'],
      ['simulator-fails', 'error', 'simulator'], ['max-turns', 'max-turns', 'agent'], ['bad-options', 'error', 'harness'],
    ], 'each run, in item order');
    eq([runs[5].error?.code, /did you mean "sink"/.test(runs[5].error?.message)], ['INVALID_ARGUMENT', true], 'a refused run says why');
    eq(summary.byVerdict, { pass: 2, agent: 2, simulator: 1, harness: 1, aborted: 0 }, 'verdicts');
    eq([summary.passRate, summary.agentPassRate], [2 / 6, 2 / 4], 'pass rate over all runs, and over the runs the agent decided');
    eq(summary.byReason, { 'goal-reached': 2, error: 3, 'max-turns': 1 }, 'reasons');
    eq(runs[0].tokens, 30, 'tokens from the records: two turns of 15');
    eq(summary.turns, runs.reduce((n, r) => n + r.turns, 0), 'turns');
    eq(progress.filter(([t]) => t === 'end').length, 6, 'an end per run');
    eq(progress.filter(([t, id]) => t === 'record' && id === 'pass-1').length, sinks[0].records().length, 'a record event per record');
    eq(JSON.parse(runs[0].artifacts()['trajectory.meta.json']).trajectoryId, 'pass-1', 'artifacts on demand, under the run\'s id');
    eq(sinks.slice(0, 5).map((k) => [...new Set(k.records().map((r) => r.run_id))]), runs.slice(0, 5).map((r) => [r.id]), 'each run\'s records carry its id, not the trajectory\'s shared one');
    eq(runs[5].artifacts(), null, 'no artifacts without a run');
    // The same sums from results reported elsewhere (a Queue consumer's).
    const again = at.summarizeBatch(runs.map(({ reason, verdict, turns, tokens }) => ({ reason, verdict, turns, tokens })));
    eq([again.byVerdict, again.agentPassRate, again.tokens, again.ms], [summary.byVerdict, summary.agentPassRate, summary.tokens, null], 'summarizeBatch agrees');
    for (const [bad, re] of [['x', /runs must be an array/], [[{ verdict: 'won' }], /runs\[0\]\.verdict must be one of pass, agent, simulator, harness, aborted or null/], [[{ verdict: 'pass', turns: -1 }], /runs\[0\]\.turns must be a number >= 0/]]) {
      let e;
      try { at.summarizeBatch(bad); } catch (x) { e = x; }
      assert(e?.code === 'INVALID_ARGUMENT' && re.test(e.message), e?.message);
    }
  },

  async 'runTrajectories: runs with no ids of their own get the batch\'s, so their records make one stream'(at) {
    const sinks = [];
    const items = Array.from({ length: 12 }, () => {
      const sink = new at.MemorySink();
      sinks.push(sink);
      return { trajectory: at.createTrajectory({ goal: 'g', persona: { description: 'p' }, maxTurns: 2 }, { respond: async () => [{ role: 'assistant', content: 'ok' }] }), options: { userModel: async () => 'hello', sink } };
    });
    const { runs } = await at.runTrajectories(items, { concurrency: 12 });
    eq(runs.map((r) => [r.id, r.result?.conversationId]), items.map((_, i) => [`run-${i + 1}`, `run-${i + 1}`]), 'the batch\'s ids, not the runs\' start times');
    const records = at.parseTrajectoryJsonl(sinks.map((k) => k.toJsonl()).join(''));
    eq(new Set(records.map((r) => r.run_id)).size, 12, 'one stream, a run id per run');
  },

  async 'a usage count that is NaN or Infinity is refused, as -5 or 1.5 is, not read as no count'(at) {
    for (const [agentUsage, userAnswer, message] of [
      [{ inputTokens: NaN }, 'hi', 'agent.respond.usage.inputTokens must be a number of tokens, got NaN'],
      [{ outputTokens: -Infinity }, 'hi', 'agent.respond.usage.outputTokens must be a number of tokens, got -Infinity'],
      [undefined, { text: 'hi', usage: { inputTokens: NaN } }, 'userModel (user-message): model answer.usage.inputTokens must be a number of tokens, got NaN'],
    ]) {
      const agent = { respond: async () => ({ messages: [{ role: 'assistant', content: 'ok' }], ...(agentUsage ? { usage: agentUsage } : {}) }) };
      const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'p' }, maxTurns: 1 }, agent), { userModel: async () => userAnswer, clock });
      eq([r.end.reason, r.end.error?.code, r.end.error?.message], ['error', 'CALLBACK_FAILED', message], message);
    }
  },

  async 'runTrajectories: an aborted batch starts nothing more; a throwing onProgress ends that run only; bad input is refused'(at) {
    const ac = new AbortController();
    const items = ['a', 'b', 'c'].map((id) => ({ id, trajectory: at.createTrajectory(def(), agent()), options: { userModel: user(), clock } }));
    const { runs, summary } = await at.runTrajectories(items, { concurrency: 1, onProgress: (p) => { if (p.type === 'end') ac.abort(); }, signal: ac.signal });
    eq(runs.map((r) => r.verdict), ['pass', 'aborted', 'aborted'], 'after the abort nothing starts');
    eq(summary.excluded.aborted, 2, 'counted apart');
    const r2 = await at.runTrajectories(items.slice(0, 2), { onProgress: (p) => { if (p.type === 'record' && p.id === 'a') throw new Error('progress bug'); } });
    eq(r2.runs.map((r) => [r.reason, r.verdict]), [['error', 'harness'], ['goal-reached', 'pass']], 'the other run went on');
    eq(r2.runs[0].result.end.error.message, 'runTrajectories(items, opts) opts.onProgress threw: progress bug', 'named as the caller wrote it');
    // An async onProgress: a rejection on a record ends that run as a throw
    // does (its records before it kept); one at a run's end is said on the run.
    const bug = new Error('async progress bug');
    const r3 = await at.runTrajectories(items.slice(0, 2), { onProgress: async (p) => { if (p.type === 'record' && p.id === 'a' && p.record.seq === 3) throw bug; } });
    eq(r3.runs.map((r) => [r.reason, r.verdict]), [['error', 'harness'], ['goal-reached', 'pass']], 'a rejected onProgress ends its run only');
    const end3 = r3.runs[0].result.end;
    eq(end3.error.message, 'runTrajectories(items, opts) opts.onProgress threw: async progress bug', 'a rejection, named as the caller wrote it');
    // Beside onProgress, a run's own onRecord is named as itself.
    const mine = new Error('my onRecord');
    const r5 = await at.runTrajectories([{ ...items[0], options: { ...items[0].options, onRecord: () => { throw mine; } } }], { onProgress: () => {} });
    eq([r5.runs[0].result.end.error.message, r5.runs[0].result.end.error.cause], ['onRecord threw: my onRecord', mine], 'its own onRecord, by name');
    eq(end3.error.cause, bug, 'the rejection reason is kept as the cause');
    assert(r3.runs[0].records > 3, 'the records before it kept');
    const r4 = await at.runTrajectories(items.slice(0, 2), { onProgress: async (p) => { if (p.type === 'end' && p.id === 'b') throw bug; } });
    eq(r4.runs.map((r) => [r.reason, r.verdict, r.error?.code ?? null]), [['goal-reached', 'pass', null], ['goal-reached', 'pass', 'CALLBACK_FAILED']], 'a rejection at the end is on that run');
    assert(/opts\.onProgress rejected at the end of "b": async progress bug/.test(r4.runs[1].error.message), r4.runs[1].error.message);
    eq(r4.runs[1].error.cause, bug, 'kept as the cause');
    const rejects = async (p, re) => {
      try { await p; } catch (e) { assert(e instanceof Error && e.code === 'INVALID_ARGUMENT' && re.test(e.message), e.message); return; }
      throw new Error('not refused');
    };
    await rejects(at.runTrajectories('x'), /items must be an array/);
    await rejects(at.runTrajectories(items, { concurency: 2 }), /did you mean "concurrency"/);
    await rejects(at.runTrajectories(items, { concurrency: 0 }), /concurrency must be a whole number from 1 to 10000, got 0/);
    await rejects(at.runTrajectories(items, { concurrency: NaN }), /got NaN$/);
    await rejects(at.runTrajectories(items, { concurrency: '2' }), /got "2"$/);
    await rejects(at.runTrajectories([items[0], items[0]]), /two items have the id "a"; ids name runs in the summary: give each item its own id/);
    await rejects(at.runTrajectories([{ ...items[0], id: '' }]), /items\[0\]\.id must be a non-empty string, got ""/);
    await rejects(at.runTrajectories([{ trajectory: items[0].trajectory }]), /items\[0\]\.options must be runTrajectory's options/);
  },

  async 'trajectoryMatrix: scenarios × personas × agents, named, each with its own options'(at) {
    const cells = [];
    const items = at.trajectoryMatrix({
      scenarios: { book: { goal: 'book a table', maxTurns: 2 }, cancel: { goal: 'cancel a booking', maxTurns: 2 } },
      personas: { terse: { description: 'terse' }, chatty: { description: 'chatty' } },
      agents: { v1: agent(), v2: agent() },
      options: (cell) => { cells.push(cell.id); return { userModel: user(), clock }; },
    });
    eq(items.map((i) => i.id), ['book/terse/v1', 'book/terse/v2', 'book/chatty/v1', 'book/chatty/v2', 'cancel/terse/v1', 'cancel/terse/v2', 'cancel/chatty/v1', 'cancel/chatty/v2'], 'ids');
    eq(cells, items.map((i) => i.id), 'options per cell');
    const { summary } = await at.runTrajectories(items, { concurrency: 3 });
    eq([summary.runs, summary.byReason['max-turns']], [8, 8], 'all ran');
    let e;
    try { at.trajectoryMatrix({ scenarios: { s: { goal: '' } }, personas: { p: { description: 'd' } }, agents: { a: agent() }, options: () => ({}) }); } catch (err) { e = err; }
    assert(e?.code === 'INVALID_TRAJECTORY' && e.message.startsWith('trajectoryMatrix(m): s/p/a: '), e?.message);
    for (const [m, re] of [
      [{ scenarios: { 'a/b': { goal: 'g' } }, personas: { p: { description: 'd' } }, agents: { a: agent() }, options: () => ({}) }, /scenarios name "a\/b" holds "\/"/],
      [{ scenarios: { s: { goal: 'g', persona: { description: 'x' } } }, personas: { p: { description: 'd' } }, agents: { a: agent() }, options: () => ({}) }, /scenarios\.s\.persona: the matrix sets it/],
    ]) {
      e = undefined;
      try { at.trajectoryMatrix(m); } catch (err) { e = err; }
      assert(e?.code === 'INVALID_ARGUMENT' && re.test(e.message), e?.message);
    }
  },
};

export const replayChecks = {
  async 'a whole run replays offline: user model and agent recorded, then neither called, the same bytes'(at) {
    const toolAgent = {
      calls: 0,
      async respond(history) {
        toolAgent.calls++;
        const id = `c${history.length}`;
        return { messages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'search', input: { q: history.at(-1).content } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'search', output: { type: 'json', value: { hits: history.length } } }] },
          { role: 'assistant', content: `found ${history.length}` },
        ], usage: { inputTokens: 7, outputTokens: 3 } };
      },
    };
    const t = (a) => at.createTrajectory(def({ maxTurns: 3 }), a);
    const userModel = at.recordingModel(user());
    const agentRec = at.recordingAgent(toolAgent);
    const live = new at.MemorySink();
    const observers = () => ({ observers: [{ observer: 'error-cascade', trigger: { onEveryCall: true } }] });
    const first = await at.runTrajectory(t(agentRec), { userModel, clock, sink: live, observers: observers() });
    const calls = toolAgent.calls;
    // Through JSON, as a recording is stored.
    const replayed = new at.MemorySink();
    const again = await at.runTrajectory(t(at.replayAgent(JSON.stringify(agentRec.recording))), {
      userModel: at.replayModel(JSON.stringify(userModel.recording)), clock, sink: replayed, observers: observers(),
    });
    eq(toolAgent.calls, calls, 'the agent is not called on replay');
    eq(at.toJSONL(again), at.toJSONL(first), 'the same toJSONL');
    eq(replayed.toJsonl(), live.toJsonl(), 'the same record stream');
    // A different conversation misses, naming the turn and the difference.
    const other = user(['Something else entirely']);
    const miss = await at.runTrajectory(t(at.replayAgent(agentRec.recording)), { userModel: other, clock });
    const err = end(miss).error;
    eq([err.code, err.side, end(miss).verdict], ['REPLAY_MISS', 'agent', 'harness'], 'a miss ends the run on the agent side, as the harness\'s doing (an outdated recording)');
    assert(/replayAgent: turn 0: no recorded answer for this agent call/.test(err.message) && err.message.includes('Something else entirely'), err.message);
    // A failing call is recorded too: the replay fails the same way, with the same bytes.
    const flaky = { async respond(history) { if (history.length > 2) throw new Error('upstream 503'); return { messages: [{ role: 'assistant', content: 'ok' }] }; } };
    const [u2, a2] = [at.recordingModel(user()), at.recordingAgent(flaky)];
    const [s1, s2] = [new at.MemorySink(), new at.MemorySink()];
    const failed = await at.runTrajectory(t(a2), { userModel: u2, clock, sink: s1 });
    eq([end(failed).error.message, end(failed).verdict], ['agent.respond threw: upstream 503', 'agent'], 'recording changes nothing of the live run');
    await at.runTrajectory(t(at.replayAgent(JSON.stringify(a2.recording))), { userModel: at.replayModel(u2.recording), clock, sink: s2 });
    eq(s2.toJsonl(), s1.toJsonl(), 'the failure replayed byte for byte');
    let e;
    try { at.recordingAgent({ reply() {} }); } catch (x) { e = x; }
    assert(e?.code === 'INVALID_ARGUMENT' && /recordingAgent\(agent\): agent must be an AgentHandle/.test(e.message), e?.message);
    e = undefined;
    try { at.replayAgent('not json'); } catch (x) { e = x; }
    assert(e?.code === 'INVALID_ARGUMENT' && /^replayAgent\(recording\)/.test(e.message), e?.message);
  },
};
