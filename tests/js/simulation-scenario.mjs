// Simulations to trust, runtime-agnostic (see capture-scenario.mjs): the
// simulated user's faults told apart from the agent's (reply checks,
// retries, simulator_issue records, verdicts), and minTurns; through the
// installed tarball in Node (ESM, CJS), Chromium and workerd.
import { assert, eq } from './capture-scenario.mjs';

const clock = () => 1_700_000_000_000;

/** A user model answering `replies` in order, then numbered messages. */
function user(replies = []) {
  let n = 0;
  const model = async (req) => {
    model.requests.push(req);
    if (req.purpose === 'rank-steps') return '{"candidates":[]}';
    return replies.length ? replies.shift() : `user message ${++n}`;
  };
  model.requests = [];
  return model;
}

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
