// Forks from any turn, runtime-agnostic (see capture-scenario.mjs): a fork
// keeps the first `atTurn` turns of a recorded result, replays them without
// a model (step states, attempts, loop detection and observers rebuilt),
// then goes on live; through the installed tarball in Node (ESM, CJS),
// Chromium and workerd.
import { assert, eq } from './capture-scenario.mjs';

const clock = () => 1_700_000_000_000;

/**
 * Answers from the request alone, so two runs of the same conversation get
 * the same words; as the ranker, it picks the first eligible step.
 */
const pureUser = () => {
  const u = async (req) => {
    u.calls++;
    const text = req.messages.map((m) => m.content).join('\n');
    if (req.purpose === 'rank-steps') return { text: JSON.stringify({ candidates: [{ stepId: /^- (\w+):/m.exec(text)[1], score: 0.9 }] }), usage: { inputTokens: 20, outputTokens: 5 } };
    return `please go on (${text.length})`;
  };
  u.calls = 0;
  return u;
};

/**
 * Answers from the history alone: a failing lint call every turn (the
 * error-cascade observer fires on them), `done` every other turn (a step
 * takes two attempts), and the tokens it used.
 */
const pureAgent = () => {
  const a = {
    calls: 0,
    shown: [],
    async respond(history) {
      a.calls++;
      a.shown.push(history.at(-1).content);
      const n = history.length;
      const id = `lint-${n}`;
      return {
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'lint', input: { file: 'a.ts' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'lint', output: { type: 'error-text', value: 'lint failed: a.ts:3' } }] },
          { role: 'assistant', content: n % 8 === 5 ? `done (${n})` : `working (${n})` },
        ],
        usage: { inputTokens: 40 + n, outputTokens: 10 },
      };
    },
  };
  return a;
};

const chain = (extra = {}) => ({
  goal: 'ship the fix', persona: { description: 'a maintainer' }, conversationId: 'parent',
  steps: {
    steps: ['read', 'patch', 'test', 'merge'].map((id, i, all) => ({
      id, instruction: `${id} it`,
      isSatisfied: ({ stepTraces }) => /^done/.test(stepTraces.at(-1)?.agentMessages.at(-1)?.content ?? ''),
      ...(i > 0 ? { preconditions: [{ type: 'stepSatisfied', stepId: all[i - 1] }] } : {}),
    })),
    start: 'read', terminals: ['merge'],
  },
  ...extra,
});

const observers = () => ({
  budget: { maxTokens: 2_000, maxToolCalls: 40 },
  observers: [{ observer: 'error-cascade', trigger: { afterConsecutiveErrors: 3 } }, { observer: 'resources', trigger: { everyNCalls: 2 } }],
});

const end = (r) => r.steps.at(-1)?.end ?? r.end;
/** The parts of a result that must not depend on how it was reached. */
const shape = (r) => ({ steps: r.steps.map(({ end: _, ...s }) => s), end: end(r), stepStates: r.stepStates });

async function caught(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('did not reject');
}

export const forkChecks = {
  async 'a fork at the last turn of a finished run, continued, is the run made longer; at 0, a fresh run'(at) {
    const run = (maxTurns, a, u, more = {}) => at.runTrajectory(at.createTrajectory(chain({ maxTurns }), a), { userModel: u, clock, observers: observers(), ...more });
    const longer = await run(7, pureAgent(), pureUser());
    eq([longer.steps.length, end(longer).reason], [7, 'max-turns'], 'the long run (the chain takes two tries a step)');
    assert(longer.steps.some((s) => s.assessment?.includes('Error Cascade')), 'observers spoke during it');
    const [shortUser, longUser] = [pureUser(), pureUser()];
    await run(7, pureAgent(), longUser);
    const short = await run(4, pureAgent(), shortUser);
    eq(end(short).reason, 'max-turns', 'the short run stopped at its cap');
    eq(short.steps.map((s) => s.selection.method), ['start', 'llm-ranked', 'preconditions-ordered', 'llm-ranked'], 'the ranker chose some kept turns');

    const [a, u, sink] = [pureAgent(), pureUser(), new at.MemorySink()];
    const forked = await run(7, a, u, { sink, resumeFrom: { result: short, atTurn: 4 } });
    eq(shape(forked), shape(longer), 'turns, assessments shown, tokens, step states and end: as if it had run longer');
    eq([a.calls, u.calls], [3, longUser.calls - shortUser.calls], 'the kept turns asked no model (user, ranker or agent)');
    eq(forked.conversationId, 'parent-fork-4', 'a run of its own, named after its parent');

    const records = sink.records();
    eq([records[0].payload.kind, records[0].run_id, records[0].parent_run_id], ['run_started', 'parent-fork-4', 'parent'], 'run_started names the parent');
    assert(records.every((r) => r.parent_run_id === 'parent'), 'every record carries the parent');
    const fork = records.find((r) => r.payload.kind === 'custom' && r.payload.name === 'fork');
    eq(fork.payload.data, { parentRunId: 'parent', atTurn: 4 }, 'the fork record');
    eq(records.filter((r) => r.payload.kind === 'turn_started').length, 7, 'the kept turns are in the stream too: it reads whole');
    const usage = records.filter((r) => r.payload.kind === 'custom' && r.payload.name === 'model_usage');
    eq(usage.map((r) => r.payload.data.source), ['agent', 'ranker', 'agent', 'agent'], 'tokens are recorded only where they were spent (turn 5 asked the ranker)');
    // Each turn's records hold its tokens (the ranker's too, recorded after its turn began): the index counts them per turn.
    if (at.TrajectoryIndex) {
      const index = at.TrajectoryIndex.fromJsonl(sink.toJsonl());
      eq(index.turns().slice(4).map((t) => t.tokens), forked.steps.slice(4).map((s) => s.tokens), 'per-turn tokens in the index');
      index.free?.();
    }

    const fresh = await run(7, pureAgent(), pureUser(), { resumeFrom: { result: short, atTurn: 0 } });
    eq(shape(fresh), shape(longer), 'a fork at 0 is a fresh run');

    // In a batch, a fork counts the turns and tokens it spent, not its parent's.
    // Without ids, the parent and its forks are named as runTrajectory names them.
    const item = (resumeFrom) => ({ trajectory: at.createTrajectory(chain({ maxTurns: 7 }), pureAgent()), options: { userModel: pureUser(), clock, ...(resumeFrom ? { resumeFrom } : {}) } });
    const { runs } = await at.runTrajectories([item(), item({ result: short, atTurn: 4 }), item({ result: short, atTurn: 0 })]);
    eq(runs.map((r) => r.id), ['parent', 'parent-fork-4', 'parent-fork-0'], 'default ids');
    eq(runs.map((r) => r.result.conversationId), ['parent', 'parent-fork-4', 'parent-fork-0'], 'as the runs name themselves');
    const spent = (steps) => steps.reduce((n, s) => n + s.tokens, 0);
    eq(runs.slice(1).map((r) => [r.turns, r.tokens]), [[3, spent(longer.steps.slice(4))], [7, spent(longer.steps)]], 'turns and tokens per fork');
  },

  async 'a fork from the middle goes another way; one of a failed run retries the turn it failed in'(at) {
    const t = (a) => at.createTrajectory(chain({ maxTurns: 6 }), a);
    const parent = await at.runTrajectory(t(pureAgent()), { userModel: pureUser(), clock });
    const other = async () => 'Actually, stop everything.';
    const forked = await at.runTrajectory(t(pureAgent()), { userModel: other, clock, runId: 'what-if', resumeFrom: { result: parent, atTurn: 2 } });
    eq(forked.conversationId, 'what-if', 'runId names a fork');
    eq(forked.steps.slice(0, 2).map((s) => s.userMessage.content), parent.steps.slice(0, 2).map((s) => s.userMessage.content), 'the kept turns');
    eq(forked.steps[2].userMessage.content, 'Actually, stop everything.', 'then live');
    eq(forked.stepStates.find((s) => s.stepId === 'read').status, 'satisfied', 'kept progress');

    let failing = true;
    const flaky = pureAgent();
    const respond = flaky.respond;
    flaky.respond = async (history) => {
      if (failing && history.length > 8) throw new Error('upstream 503');
      return respond(history);
    };
    const failed = await at.runTrajectory(t(flaky), { userModel: pureUser(), clock });
    eq([failed.steps.length, end(failed).reason, end(failed).verdict], [3, 'error', 'agent'], 'failed in turn 2');
    const e = await caught(at.runTrajectory(t(pureAgent()), { userModel: pureUser(), clock, resumeFrom: { result: failed, atTurn: 3 } }));
    assert(e.code === 'INVALID_ARGUMENT' && e.message.includes('the recorded run ended in turn 2 (error), which may be incomplete; atTurn 2 keeps the turns before it'), e.message);
    failing = false;
    const retried = await at.runTrajectory(t(flaky), { userModel: pureUser(), clock, resumeFrom: { result: failed, atTurn: 2 } });
    eq(shape(retried), shape(parent), 'retried from the turn it failed in, it runs as the parent would have');
    // Through JSON, as a result is stored (stepTraces.json).
    const stored = JSON.parse(JSON.stringify(parent));
    const fromFile = await at.runTrajectory(t(pureAgent()), { userModel: pureUser(), clock, resumeFrom: { result: stored, atTurn: 6 } });
    eq(shape(fromFile), shape(parent), 'a stored result forks the same way');
  },

  async 'bad resumeFrom input is refused, naming the key'(at) {
    const t = at.createTrajectory(chain({ maxTurns: 3 }), pureAgent());
    const parent = await at.runTrajectory(t, { userModel: pureUser(), clock });
    const refused = async (resumeFrom, re, what) => {
      const e = await caught(at.runTrajectory(t, { userModel: pureUser(), clock, resumeFrom }));
      assert(e instanceof Error && e.code === 'INVALID_ARGUMENT' && re.test(e.message), `${what}: ${e.code}: ${e.message}`);
    };
    await refused({ result: parent, atTurn: -1 }, /resumeFrom\.atTurn must be a whole number from 0 to 3 \(how many of the result's turns to keep\), got -1/, 'negative');
    await refused({ result: parent, atTurn: 1.5 }, /atTurn must be a whole number from 0 to 3 .*got 1\.5/, 'fraction');
    await refused({ result: parent, atTurn: NaN }, /atTurn .*got NaN/, 'NaN');
    await refused({ result: parent, atTurn: 4 }, /got 4/, 'past the result');
    await refused({ result: parent, atTurn: '2' }, /got "2"/, 'a string');
    await refused({ result: parent }, /atTurn .*got nothing/, 'missing');
    await refused({ result: parent, atturn: 1 }, /resumeFrom: unknown option "atturn"; did you mean "atTurn"\?/, 'misspelt');
    await refused({ result: { steps: [] }, atTurn: 0 }, /resumeFrom\.result\.conversationId must be the id of the run forked from, got nothing/, 'no conversationId');
    await refused({ result: 'x', atTurn: 0 }, /resumeFrom\.result must be a result runTrajectory resolved with/, 'not a result');
    await refused('parent', /resumeFrom must be \{ result, atTurn \}, got a string/, 'not an object');
    const other = { ...parent, steps: parent.steps.map((s, i) => (i === 1 ? { ...s, stepId: 'deploy' } : s)) };
    await refused({ result: other, atTurn: 2 }, /resumeFrom\.result\.steps\[1\]\.stepId: "deploy" is not a step of this trajectory/, 'another trajectory\'s result');
    // A kept turn this trajectory would not have run there ends the fork, before any model is asked.
    const edited = JSON.parse(JSON.stringify(parent));
    edited.steps[1].stepId = 'merge';
    const [a, u] = [pureAgent(), pureUser()];
    const wrong = await at.runTrajectory(at.createTrajectory(chain({ maxTurns: 3 }), a), { userModel: u, clock, resumeFrom: { result: edited, atTurn: 3 } });
    eq([end(wrong).reason, end(wrong).verdict, end(wrong).error.code, a.calls + u.calls], ['error', 'harness', 'INVALID_ARGUMENT', 0], 'refused at the turn');
    assert(end(wrong).error.message.includes('resumeFrom.result.steps[1] ran step "merge", which this trajectory would not have run there'), end(wrong).error.message);
    const shortT = at.createTrajectory(chain({ maxTurns: 2 }), pureAgent());
    const e = await caught(at.runTrajectory(shortT, { userModel: pureUser(), clock, resumeFrom: { result: parent, atTurn: 3 } }));
    assert(/atTurn \(3\) is past the trajectory's maxTurns \(2\)/.test(e.message), e.message);
  },
};
