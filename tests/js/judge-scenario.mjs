// Judging runs, in every runtime: matchTrajectory over each shape a run
// comes in, checkRun over a run's own facts, runTrajectories' repeat with
// pass@k / pass^k, and compareBatches. Runtime-agnostic (see
// capture-scenario.mjs).
import { assert, eq } from './capture-scenario.mjs';
import { scriptedUser, chain, clock, throws, rejects } from './generate-scenario.mjs';

/** An agent that calls `search` then `book` on its first turn, and answers after. */
function toolAgent(city = 'Paris') {
  let n = 0;
  return {
    async respond() {
      n++;
      if (n > 1) return { messages: [{ role: 'assistant', content: `done ${n}` }], usage: { inputTokens: 10, outputTokens: 5 } };
      return {
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: city, n: 2 } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'json', value: ['a'] } }] },
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'book', input: { city } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'book', output: { type: 'error-text', value: 'full' } }] },
          { role: 'assistant', content: 'booked' },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      };
    },
  };
}

async function judgedRun(at, city) {
  const sink = new at.MemorySink();
  const result = await at.runTrajectory(at.createTrajectory(chain(), toolAgent(city)), { userModel: scriptedUser(), clock, sink });
  return { result, records: sink.records() };
}

export const judgeChecks = {
  async 'matchTrajectory reads a result, its records, their JSONL and an index the same way, in every mode'(at) {
    const { result, records } = await judgedRun(at, 'Paris');
    const jsonl = records.map((r) => JSON.stringify(r)).join('\n');
    const index = at.TrajectoryIndex.fromJsonl(jsonl);
    const expected = ['search', { toolName: 'book', input: { city: 'Paris' } }];
    for (const run of [result, records, jsonl, new TextEncoder().encode(jsonl), index]) {
      const m = at.matchTrajectory(run, expected);
      assert(m.pass, m.message);
      eq([m.score, m.matched, m.mismatches], [1, 2, []], 'all matched');
    }
    index.free();
    eq(at.matchTrajectory(result, ['book'], { mode: 'superset' }).pass, true, 'superset');
    eq(at.matchTrajectory(result, ['book'], { mode: 'subset' }).pass, false, 'subset: search was not expected');
    eq(at.matchTrajectory(result, ['book', 'search'], { mode: 'unordered' }).pass, true, 'unordered');
    const m = at.matchTrajectory(result, ['book', 'search'], { mode: 'in-order' });
    eq([m.pass, m.score], [false, 0.5], 'in-order: out of order');
    const wrong = at.matchTrajectory(result, [{ toolName: 'search', input: { q: 'paris' } }, 'book'], { mode: 'in-order', args: 'subset' });
    eq(wrong.mismatches.map((x) => [x.kind, x.expectedIndex, x.nearest]), [['missing', 0, 0]], 'the nearest call is named');
    eq(wrong.mismatches[0].message, 'expected call 1 search({"q":"paris"}) was not made; nearest: call 1 search({"q":"Paris","n":2}) (argument q: expected "paris", got "Paris")', 'in words');
    assert(wrong.message.startsWith('the calls do not match (in-order, score 0.5): 1 of 2 matched\n- expected call 1'), wrong.message);
  },

  async 'matchTrajectory: per-tool argument functions, and their faults, coded with the cause kept'(at) {
    const { result } = await judgedRun(at, 'Rome');
    const seen = [];
    const m = at.matchTrajectory(result, [{ toolName: 'search', input: { q: 'rome' } }, 'book'], {
      args: { search: (e, a) => (seen.push([e, a]), a.q.toLowerCase() === e.q), book: 'ignore' },
    });
    assert(m.pass, m.message);
    eq(seen, [[{ q: 'rome' }, { q: 'Rome', n: 2 }]], 'the function sees expected and actual arguments');
    const boom = new Error('boom');
    throws(() => at.matchTrajectory(result, [{ toolName: 'search', input: {} }], { args: { search: () => { throw boom; } } }), 'CALLBACK_FAILED', 'a throwing function', boom);
    const e = throws(() => at.matchTrajectory(result, [{ toolName: 'search', input: {} }], { args: { search: () => 'yes' } }), 'CALLBACK_FAILED', 'a non-boolean answer');
    eq(e.message, 'matchTrajectory: options.args["search"] must return true or false, returned "yes"', 'says what came back');
    const slip = throws(() => at.matchTrajectory(result, ['search', 'book'], { args: { serach: 'ignore' } }), 'INVALID_ARGUMENT', 'an args tool a slip away from a called one');
    eq(slip.message, 'matchTrajectory: options.args["serach"]: no call is to tool "serach"; did you mean "search"?', 'names the tool it meant');
    const bad = throws(() => at.matchTrajectory(result, [], { mod: 'strict' }), 'INVALID_ARGUMENT', 'a misspelt option');
    assert(bad.message.includes('did you mean "mode"'), bad.message);
    throws(() => at.matchTrajectory(result, [3]), 'INVALID_ARGUMENT', 'an expected call that is not one');
    throws(() => at.matchTrajectory({ nope: 1 }, []), 'INVALID_ARGUMENT', 'a run that is not one');
    const gap = throws(() => at.matchTrajectory('{"schema_version":1,"seq":1,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}', []), 'SEQ_GAP', 'a hole in the records');
    eq(gap.line, 1, 'the line is named');
  },

  async 'checkRun: the end, findings, failed calls, tokens, turns and steps, each with a reason'(at) {
    const { result, records } = await judgedRun(at, 'Paris');
    const ok = at.checkRun(result);
    assert(ok.pass, ok.message);
    const r = at.checkRun(records, { maxFailedCalls: 0, maxTokens: 10, maxTurns: 5, reachedSteps: ['greet', 'nowhere'] });
    eq(r.checks.map((c) => [c.check, c.pass]), [['verdict', true], ['maxFailedCalls', false], ['maxTokens', false], ['maxTurns', true], ['reachedSteps', true], ['reachedSteps', false]], 'each check');
    eq(r.checks[1].message, '1 failed call(s), maxFailedCalls 0: call 2 book at turn 0', 'the failed call is named');
    eq(at.checkRun(result, { maxTokens: 10 }).checks[1].message, at.checkRun(records, { maxTokens: 10 }).checks[1].message, 'a result and its records count the same tokens');
    assert(r.message.startsWith('run "conv-1" fails 3 of 6 check(s)\n- maxFailedCalls'), r.message);
    const limited = await at.runTrajectory(at.createTrajectory({ ...chain(), maxTurns: 1 }, toolAgent()), { userModel: scriptedUser(), clock });
    eq(at.checkRun(limited).pass, false, 'max-turns is not a pass');
    eq(at.checkRun(limited, { verdict: ['pass', 'agent'], reason: 'max-turns' }).pass, true, 'unless allowed');
    throws(() => at.checkRun(result, { maxTurn: 1 }), 'INVALID_ARGUMENT', 'a misspelt option');
    throws(() => at.checkRun(result, { maxSeverity: 'high' }), 'INVALID_ARGUMENT', 'an unknown severity');
    // A slip of a reason the package writes passes no run: refused, naming it; a run's own reason is matched as written.
    const slip = throws(() => at.checkRun(limited, { verdict: null, reason: 'max-turn' }), 'INVALID_ARGUMENT', 'a slipped reason');
    assert(slip.message.endsWith('options.reason: "max-turn" is no stop reason this package writes; did you mean "max-turns"? (a run\'s own reason is matched as written)'), slip.message);
    eq(at.checkRun(limited, { verdict: null, reason: 'done' }).pass, false, "a run's own reason, matched as written");
  },

  async 'checkRun fails a run whose observers warned'(at) {
    const sink = new at.MemorySink();
    const observers = { observers: [{ observer: 'stall', trigger: { onEveryCall: true }, options: { repeatThreshold: 2 } }], clock };
    const looping = { async respond() { return { messages: [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'poll', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'poll', output: { type: 'text', value: 'same' } }] },
      { role: 'assistant', content: 'waiting' },
    ] }; } };
    const result = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 4 }, looping), { userModel: scriptedUser(), clock, sink, observers });
    const severities = sink.records().filter((r) => r.payload.kind === 'assessment_produced').map((r) => r.payload.assessment.severity);
    eq(severities, ['info', 'caution', 'warning'], 'the stall observer spoke, then escalated (the last turn\'s warning, shown to no call, recorded at the end)');
    const r = at.checkRun(sink.records(), { verdict: null, maxSeverity: 'info' });
    eq(r.pass, false, 'a caution fails maxSeverity info');
    assert(r.message.includes('2 finding(s) above maxSeverity info: caution Stall (Possible stall'), r.message);
    eq(at.checkRun(result, { verdict: null, maxSeverity: 'info' }).message, r.message, 'the result carries the same findings');
    eq(at.checkRun(result, { verdict: null, maxSeverity: 'caution' }).message, at.checkRun(sink.records(), { verdict: null, maxSeverity: 'caution' }).message, 'the warning too');
    eq(at.checkRun(result, { verdict: null, maxSeverity: 'warning' }).pass, true, 'nothing above warning');
  },

  async 'runTrajectories repeat: k runs per item with ids of their own, pass@k and pass^k by the formulas'(at) {
    let calls = 0;
    // Fails every third turn-1 answer: some repeats pass, some do not.
    const flaky = { async respond() { calls++; if (calls % 3 === 0) throw new Error('flaky'); return { messages: [{ role: 'assistant', content: 'ok' }] }; } };
    const items = [
      { id: 'steady', trajectory: at.createTrajectory(chain(), { async respond() { return { messages: [{ role: 'assistant', content: 'ok' }] }; } }), options: { userModel: scriptedUser(), clock } },
      { id: 'flaky', trajectory: at.createTrajectory(chain(), flaky), options: { userModel: scriptedUser(), clock } },
    ];
    const { runs, summary } = await at.runTrajectories(items, { repeat: 3, concurrency: 1 });
    eq(runs.map((r) => [r.id, r.item, r.repeat]), [['steady#1', 'steady', 1], ['steady#2', 'steady', 2], ['steady#3', 'steady', 3], ['flaky#1', 'flaky', 1], ['flaky#2', 'flaky', 2], ['flaky#3', 'flaky', 3]], 'ids');
    eq(runs.map((r) => r.result.conversationId), runs.map((r) => r.id), 'each run is its own conversation');
    const rel = summary.reliability;
    const c = runs.filter((r) => r.item === 'flaky' && r.verdict === 'pass').length;
    const choose = (n, k) => (k > n ? 0 : Array.from({ length: k }, (_, i) => (n - i) / (i + 1)).reduce((a, b) => a * b, 1));
    eq(rel.k, 3, 'k');
    eq(rel.items.map((i) => [i.id, i.runs, i.decided]), [['steady', 3, 3], ['flaky', 3, 3]], 'items');
    const near = (a, b, what) => assert(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);
    near(rel.items[1].passHatK, choose(c, 3) / choose(3, 3), 'pass^3 of flaky');
    near(rel.items[1].passAtK, 1 - choose(3 - c, 3) / choose(3, 3), 'pass@3 of flaky');
    near(rel.byK[0].passHatK, (1 + c / 3) / 2, 'pass^1 is the mean pass rate');
    near(rel.passHatK, (1 + choose(c, 3)) / 2, 'overall pass^3');
    await rejects(at.runTrajectories(items, { repeat: 0 }), 'INVALID_ARGUMENT', 'repeat 0');
  },

  async 'compareBatches: regressions first, improvements, added and removed, per-run changes, markdown'(at) {
    const ok = { async respond() { return { messages: [{ role: 'assistant', content: 'ok' }] }; } };
    const down = { async respond() { throw new Error('down'); } };
    const batch = (agents) => at.runTrajectories(Object.entries(agents).map(([id, a]) => ({ id, trajectory: at.createTrajectory(chain(), a), options: { userModel: scriptedUser(), clock } })));
    const baseline = await batch({ a: ok, b: down, gone: ok });
    const current = await batch({ a: down, b: ok, fresh: ok });
    const c = at.compareBatches(baseline, current);
    eq([c.regressed, c.improved, c.added, c.removed], [['a'], ['b'], ['fresh'], ['gone']], 'what changed');
    eq(c.items.map((i) => i.status), ['regressed', 'added', 'removed', 'improved'], 'regressions first');
    eq(typeof c.items[0].turns, 'number', 'turn change');
    assert(c.markdown.includes('**1 regressed**, 1 improved, 1 added, 1 removed'), c.markdown);
    eq(at.compareBatches(JSON.parse(JSON.stringify(baseline)), JSON.parse(JSON.stringify(current))).regressed, ['a'], 'a batch read back from its JSON');
    // An id is one cell of its row, whatever it holds: markdown's punctuation escaped, a line break as <br>, a control character shown.
    const odd = { runs: [{ id: 'a`b|c', verdict: 'pass' }, { id: 'x\ny', verdict: 'pass' }, { id: 'bell\u0007', verdict: 'pass' }] };
    const rows = at.compareBatches(odd, odd).markdown.split('\n').filter((l) => l.startsWith('| same'));
    eq(rows.map((r) => r.split(' | ')[1]), ['a\\`b\\|c', 'x<br>y', 'bell\\\\u0007'], 'odd ids, one cell each (a shown backslash escaped: it renders as \\u0007)');
    throws(() => at.compareBatches(3, current), 'INVALID_ARGUMENT', 'a baseline that is not a batch');
    eq(throws(() => at.compareBatches(undefined, current), 'INVALID_ARGUMENT', 'no baseline').message, 'compareBatches: baseline is missing or not JSON data', 'missing, not null');
    // A run passes as checkRun reads it: the judge's last word failing fails it, a later pass stands.
    const judged = (verdict, failed = []) => ({ verdict, criteria: failed.map((name) => ({ name, verdict: 'fail' })) });
    const judgedRuns = [
      { id: 'failed-last', verdict: 'pass', judgements: [judged('pass'), judged('fail', ['polite'])] },
      { id: 'passed-last', verdict: 'pass', judgements: [judged('fail', ['brief']), judged('pass')] },
    ];
    const j = at.compareBatches(judgedRuns.map(({ id }) => ({ id, verdict: 'pass' })), judgedRuns);
    eq([j.regressed, j.newlyFailedJudges], [['failed-last'], [{ id: 'failed-last', criterion: 'polite' }]], 'the last judgement decides');
    // What the caller got wrong is said as they wrote it: a slipped field, a NaN, a whole file's text.
    const slip = throws(() => at.compareBatches([{ id: 'a', verdic: 'pass' }], []), 'INVALID_ARGUMENT', 'a slipped field');
    eq(slip.message, 'compareBatches: baseline.runs[0]: unknown field "verdic"; did you mean "verdict"?', 'the slip named');
    const nan = throws(() => at.compareBatches([{ id: 'a', verdict: 'pass', turns: NaN }], []), 'INVALID_ARGUMENT', 'NaN turns');
    assert(nan.message.endsWith('turns must be a number >= 0, got NaN'), nan.message);
    const text = throws(() => at.compareBatches(JSON.stringify(baseline), current), 'INVALID_ARGUMENT', 'a batch\'s JSON text');
    assert(text.message.length < 300 && /characters\)$/.test(text.message), text.message);
  },

  async 'judge(): a malformed or empty answer is asked again once, then inconclusive; a throwing model rejects, coded, its error the cause'(at) {
    const { records } = await judgedRun(at, 'Paris');
    const asked = [];
    const answers = ['not json', '{"criteria": []}'];
    const j = await at.judge(records, { model: async (req) => (asked.push(req), answers.shift()), criteria: ['polite'] });
    eq([j.verdict, j.attempts, j.error.code, asked.length], ['inconclusive', 2, 'CALLBACK_FAILED', 2], 'asked twice, then inconclusive');
    eq(j.error.message, 'judge model: asked twice, the answer does not grade "polite"', 'why');
    assert(asked[1].messages.at(-1).content.startsWith('Your answer could not be read: the answer holds no JSON object.'), 'the problem is named when asked again');
    eq(asked[0].purpose, 'judge', 'purpose');
    const empty = await at.judge(records, { model: async () => '', criteria: ['polite'] });
    eq([empty.verdict, empty.criteria[0].reasoning], ['inconclusive', "the judge's answer could not be read: the answer was empty"], 'an empty answer');
    const boom = new Error('rate limited');
    const e = await rejects(at.judge(records, { model: async () => { throw boom; }, criteria: ['polite'] }), 'CALLBACK_FAILED', 'a throwing judge', boom);
    eq(e.message, 'judge.model (judge) threw: rate limited', 'names the judge');
    const late = await rejects(at.judge(records, { model: () => new Promise(() => {}), criteria: ['polite'], timeoutMs: 20 }), 'TIMEOUT', 'a judge that never answers');
    eq(late.message, 'judge: no answer within timeoutMs (20 ms)', 'whose deadline it was');
    await rejects(at.judge(records, { model: async () => '{}', criteria: [] }), 'INVALID_ARGUMENT', 'no criteria');
    await rejects(at.judge(records, { model: async () => '{}', criteria: ['a'], criterion: 1 }), 'INVALID_ARGUMENT', 'a misspelt option');
  },

  async 'the judge of a run: garbage is inconclusive and the run goes on; a throwing judge ends it with error, side judge, every record kept'(at) {
    const sink = new at.MemorySink();
    const garbage = await at.runTrajectory(at.createTrajectory({ ...chain(), maxTurns: 2, steps: undefined }, toolAgent()), {
      userModel: scriptedUser(), clock, sink, judge: { model: async () => 'sure!', criteria: ['polite'] },
    });
    eq([garbage.end.reason, garbage.steps.length, garbage.steps.map((s) => s.judgement.verdict)], ['max-turns', 2, ['inconclusive', 'inconclusive']], 'never ended by an inconclusive judge');
    eq(sink.records().filter((r) => r.payload.kind === 'custom' && r.payload.name === 'judgement').map((r) => [r.payload.data.attempts, r.payload.data.final]), [[2, false], [2, false], [2, true]], 'each judgement recorded, the last at the end');
    const boom = new Error('judge down');
    const failing = new at.MemorySink();
    const r = await at.runTrajectory(at.createTrajectory({ ...chain(), maxTurns: 3 }, toolAgent()), {
      userModel: scriptedUser(), clock, sink: failing, judge: { model: async () => { throw boom; }, criteria: ['polite'] },
    });
    eq([r.end.reason, r.end.verdict, r.end.error.side, r.end.error.code, r.steps.length], ['error', 'harness', 'judge', 'CALLBACK_FAILED', 1], 'the harness failed, not the agent');
    assert(r.end.error.cause === boom, 'the judge model\'s own error is the cause');
    eq(failing.records().at(-1).payload.kind, 'run_ended', 'ended in the records too');
    assert(failing.records().some((x) => x.payload.kind === 'turn_ended'), 'the turn before the fault is kept');
  },

  async 'a run\'s tokens read the same from its result and its records: the judge\'s count in the turn it judged'(at) {
    const sink = new at.MemorySink();
    const judge = { model: async () => ({ text: 'sure!', usage: { inputTokens: 1000, outputTokens: 10 } }), criteria: ['polite'] };
    const r = await at.runTrajectory(at.createTrajectory({ ...chain(), maxTurns: 2, steps: undefined }, toolAgent()), { userModel: scriptedUser(), clock, sink, judge });
    const recorded = sink.records().filter((x) => x.payload.kind === 'custom' && x.payload.name === 'model_usage').reduce((n, x) => n + x.payload.data.totalTokens, 0);
    eq(r.steps.reduce((n, s) => n + s.tokens, 0), recorded, 'the steps\' tokens are every model_usage record\'s, the judge\'s included');
    assert(recorded >= 3 * 2 * 1010, `three judgements of two attempts each: ${recorded}`);
    const said = (run) => at.checkRun(run, { verdict: null, maxTokens: 1 }).message;
    eq(said(r), said(sink.records()), 'checkRun says the same of the result and of the records');
    const batch = await at.runTrajectories([{ id: 'judged', trajectory: at.createTrajectory({ ...chain(), maxTurns: 2, steps: undefined }, toolAgent()), options: { userModel: scriptedUser(), clock, judge } }]);
    eq([batch.runs[0].tokens, batch.summary.tokens], [recorded, recorded], 'and a batch counts them');
  },

  async 'a judge that passes every criterion ends the run goal-reached, but not before minTurns'(at) {
    const pass = async () => JSON.stringify({ criteria: [{ name: 'answers', verdict: 'pass', reasoning: 'ok' }] });
    const run = (minTurns) => at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 5, ...(minTurns ? { minTurns } : {}) }, toolAgent()), { userModel: scriptedUser(), clock, judge: { model: pass, criteria: ['answers'] } });
    const once = await run(0);
    eq([once.end.reason, once.steps.length], ['goal-reached', 1], 'the first pass ends it');
    const held = await run(3);
    eq([held.end.reason, held.end.verdict, held.steps.length, held.end.summary], ['goal-reached', 'pass', 3, 'the judge passed every criterion after turn 2'], 'held to minTurns, as a policy\'s goal is');
  },

  async 'a judged run replays byte for byte with its recording, and a fail ends it as judge-failed'(at) {
    const grade = at.recordingModel(async (req) => {
      const turn = Number(/after turn (\d+)/.exec(req.messages[0].content)?.[1] ?? -1);
      return JSON.stringify({ criteria: [{ name: 'books', verdict: turn >= 1 ? 'fail' : 'inconclusive', reasoning: `turn ${turn}` }] });
    });
    const run = async (model) => {
      const sink = new at.MemorySink();
      const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 4, conversationId: 'judged' }, toolAgent()), { userModel: scriptedUser(), clock, sink, judge: { model, criteria: ['books'] } });
      return { r, text: sink.toJsonl() };
    };
    const first = await run(grade);
    eq([first.r.end.reason, first.r.end.verdict, first.r.end.summary], ['judge-failed', 'agent', 'the judge failed "books" after turn 1'], 'a fail ends the run');
    const again = await run(at.replayModel(JSON.parse(JSON.stringify(grade.recording))));
    eq(again.text, first.text, 'the same records, byte for byte, with no model');
    // The step export keeps the judgements and tokens: read back as records, the index and checkRun see them.
    const exported = at.stepsToJsonl(at.toJSONL(first.r).map((l) => JSON.parse(l)));
    const index = at.TrajectoryIndex.fromJsonl(exported);
    eq(index.counts().custom > 0 && exported.split('\n').filter((l) => l.includes('"name":"judgement"')).length, 2, 'both judgements, as records of the export');
    index.free();
    eq(at.checkRun(exported, { verdict: null }).checks.map((c) => [c.check, c.pass]), [['judge', false]], 'the export fails the judge check too');
    const checks = at.checkRun(first.r);
    eq(checks.checks.map((c) => [c.check, c.pass]), [['verdict', false], ['judge', false]], 'checkRun reads the judgement');
    eq(checks.checks[1].message, 'the judge failed "books" (turn 1) after turn 1', 'and says which criterion, when');
  },

  async 'records before a late run id are that run\'s: one run for the index and checkRun, as for the parser'(at) {
    // A recorder given no runId stamps the records before run_started
    // without one; the run's seq goes on from them.
    const sink = new at.MemorySink();
    const rec = new at.TrajectoryRecorder(sink, { clock: () => 1 });
    rec.record({ kind: 'custom', name: 'setup', data: 1 });
    rec.record({ kind: 'run_started', identity: { run_id: 'late' } });
    rec.record({ kind: 'turn_started', turn_index: 0 });
    rec.record({ kind: 'run_ended', outcome: { status: 'completed' } });
    const text = sink.toJsonl();
    eq(at.parseTrajectoryJsonl(text).map((r) => [r.seq, r.run_id ?? null]), [[0, null], [1, 'late'], [2, 'late'], [3, 'late']], 'the parser takes the seq as one run\'s');
    const index = at.TrajectoryIndex.fromJsonl(text);
    eq(index.errors(), [], 'no seq gap');
    eq(index.runs().map((r) => [r.runId, r.first, r.records, r.turns]), [['late', 0, 4, 1]], 'one run, from its first record');
    eq(index.filter({ runId: 'late' }).length, 4, 'the first record is found by the run\'s id');
    index.free();
    const c = at.checkRun(text);
    eq([c.pass, c.checks.map((x) => x.message)], [true, ['run "late" ended with verdict pass, reason completed; passing: pass']], 'checkRun sees one run, named');
  },
};
