// What every record means, decided once in the core: the same stream read
// by the parser and the index gives the same faults and the same tokens;
// run_ended's status agrees with the end; a run's stream always ends with
// run_ended; wrong objects are refused where they are passed; no call waits
// forever. Runtime-agnostic (see capture-scenario.mjs).
import { assert, eq, expectCode } from './capture-scenario.mjs';
import { scriptedUser, agent, chain, clock, expectRejects } from './generate-scenario.mjs';

const line = (seq, payload, run = 'r') => JSON.stringify({ schema_version: 1, seq, run_id: run, depth: 0, recorded_at_unix_ms: 1000 + seq, payload });
const note = { kind: 'custom', name: 'note', data: {} };

export const recordChecks = {
  'a record\'s strings are written as JSON.stringify writes them: every escape, at every place in 16-byte runs, and non-ASCII'(at) {
    // Seeded: each string mixes characters that need escaping with plain
    // runs shorter and longer than the 16 bytes the module scans at a time.
    let seed = 20261126;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const parts = ['a', ' ', '"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', 'é', '€', '😀', 'x'.repeat(15), 'y'.repeat(16), 'z'.repeat(17)];
    const lines = [];
    const sink = new at.JsonlSink((l) => { lines.push(l); });
    const recorder = new at.TrajectoryRecorder(sink, { clock: () => 0, runId: 'r' });
    const texts = [];
    for (let k = 0; k < 300; k++) {
      let text = '';
      for (let n = Math.floor(next() * 40); n > 0; n--) text += parts[Math.floor(next() * parts.length)];
      texts.push(text);
      recorder.record({ kind: 'custom', name: text, data: { [text]: [text] } });
    }
    recorder.free();
    sink.free();
    texts.forEach((text, k) => {
      const want = `"payload":{"kind":"custom","name":${JSON.stringify(text)},"data":${JSON.stringify({ [text]: [text] })}}`;
      assert(lines[k].includes(want), `record ${k}: ${JSON.stringify(text)} written as ${lines[k]}`);
    });
  },

  'the parser and the index report the same seq faults, on the same lines, in the same words'(at) {
    const text = [
      ...[0, 1, 2, 1, 3].map((s) => line(s, note, 'r')),
      ...[2, 3].map((s) => line(s, note, 'late')),
      ...[0, 2].map((s) => line(s, note, 'gap')),
    ].join('\n');
    const parsed = at.parseTrajectoryJsonl(text, { lenient: true }).errors.filter((e) => e.code === 'SEQ_GAP');
    const index = at.TrajectoryIndex.fromJsonl(text);
    const indexed = index.errors().filter((e) => e.code === 'SEQ_GAP');
    index.free();
    // The parser's words, which start with the line; the index lists the line beside them, as for its every error.
    eq(indexed.map((e) => [e.line, `line ${e.line}: ${e.message}`]), parsed.map((e) => [e.line, e.message]), 'index errors equal parser errors');
    // 0,1,2,1,3: one fault, at line 4; a run's first seq is checked too.
    eq(parsed.map((e) => e.line), [4, 6, 9], 'fault lines');
    assert(parsed[1].message.includes('starts at seq 2'), parsed[1].message);
    expectCode(() => at.parseTrajectoryJsonl(text), 'SEQ_GAP', 'strict parsing');
  },

  'model_usage in either spelling: the index counts the tokens of both (old streams still read)'(at) {
    const turn = (run, usage) => [
      line(0, { kind: 'run_started', identity: { run_id: run } }, run),
      line(1, { kind: 'turn_started', turn_index: 0 }, run),
      line(2, { kind: 'custom', name: 'model_usage', data: usage }, run),
      line(3, { kind: 'turn_ended', turn_index: 0, assistant: { role: 'assistant', content: 'ok' }, tool_results: [] }, run),
    ];
    const text = [
      ...turn('old', { input_tokens: 5, output_tokens: 2, finish_reason: 'stop' }),
      ...turn('new', { inputTokens: 5, outputTokens: 2, totalTokens: 7, finishReason: 'stop' }),
    ].join('\n');
    const index = at.TrajectoryIndex.fromJsonl(text);
    eq(['old', 'new'].map((r) => index.turns(r).map((t) => t.tokens)), [[7], [7]], 'tokens per turn');
    eq(['old', 'new'].map((r) => index.budget(r).turns.map((t) => t.tokens)), [[7], [7]], 'budget tokens');
    index.free();
  },

  async 'run_ended.status, end.completed, the reason and the verdict agree: max-turns is stopped, a reached goal completed'(at) {
    const sink = new at.MemorySink();
    const limited = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 2 }, agent()), { userModel: scriptedUser(), clock, sink });
    eq([limited.end.reason, limited.end.completed, limited.end.verdict], ['max-turns', false, 'agent'], 'the end');
    const ended = sink.records().at(-1).payload;
    eq([ended.kind, ended.outcome.status, ended.outcome.reason, ended.outcome.verdict], ['run_ended', 'stopped', 'max-turns', 'agent'], 'run_ended says stopped');
    const done = new at.MemorySink();
    const reached = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, sink: done });
    eq([reached.end.completed, done.records().at(-1).payload.outcome.status, done.records().at(-1).payload.outcome.verdict], [true, 'completed', 'pass'], 'goal reached');
  },

  async 'an onRecord that throws ends the run with error, and the sink still gets every record up to run_ended'(at) {
    const sink = new at.MemorySink();
    let calls = 0;
    const r = await at.runTrajectory(at.createTrajectory(chain(), agent()), {
      userModel: scriptedUser(), clock, sink,
      onRecord: () => { if (++calls === 4) throw new RangeError('my tap broke'); },
    });
    eq([r.end.reason, r.end.verdict, r.end.error?.code], ['error', 'harness', 'CALLBACK_FAILED'], 'the run ends in error');
    const kinds = sink.records().map((x) => x.payload.kind);
    eq(kinds.at(-1), 'run_ended', 'run_ended reached the sink');
    eq(sink.records().at(-1).payload.outcome.status, 'error', 'with status error');
    eq(sink.records().map((x) => x.seq), kinds.map((_, i) => i), 'no record lost');
    eq(calls, 4, 'onRecord is not called again once it failed');
  },

  'a recorder where a sink goes is refused, in words, not by a binding internal'(at) {
    const e = expectCode(() => new at.TrajectoryRecorder(new at.TrajectoryRecorder(new at.MemorySink())), 'INVALID_ARGUMENT', 'a recorder as a sink');
    assert(e.message.includes('sink is a TrajectoryRecorder') && !e.message.includes('__wbg'), e.message);
  },

  'a sink where a pipeline\'s recorder goes is refused at once, not at the first assessment'(at) {
    const e = expectCode(() => new at.ObserverPipeline({ observers: [{ observer: 'stall', trigger: { onEveryCall: true } }], recorder: new at.MemorySink() }), 'INVALID_ARGUMENT', 'a sink as the recorder');
    assert(e.message.includes('recorder must be a TrajectoryRecorder, got a sink'), e.message);
  },

  'serializeTrajectoryJsonl writes records as given; strict parsing refuses the order it would not accept, lenient reading lists it'(at) {
    const sink = new at.MemorySink();
    const rec = new at.TrajectoryRecorder(sink, { runId: 'w' });
    for (let i = 0; i < 3; i++) rec.record(note);
    const [a, b, c] = sink.records();
    eq(at.parseTrajectoryJsonl(at.serializeTrajectoryJsonl([a, b, c])).length, 3, 'in order');
    const text = at.serializeTrajectoryJsonl([a, c, b]);
    const e = expectCode(() => at.parseTrajectoryJsonl(text), 'SEQ_GAP', 'out of order');
    assert(e.message.startsWith('line 2: run "w" jumps from seq 0 to 2'), e.message);
    eq(at.parseTrajectoryJsonl(text, { lenient: true }).errors.map((x) => x.line), [2, 3], 'lenient lists each fault');
  },

  'readOutcome: one reading of any end; a contradictory one is no pass; what is no outcome is refused'(at) {
    const r = (o) => { const x = at.readOutcome(o); return [x.status, x.verdict, x.passed]; };
    eq(r({ status: 'completed', reason: 'goal-reached', verdict: 'pass' }), ['completed', 'pass', true], 'a pass');
    eq(r({ status: 'completed', reason: 'max-turns' }), ['stopped', 'agent', false], 'an old max-turns end');
    eq(r({ status: 'error', verdict: 'pass' }), ['error', 'pass', false], 'contradictory');
    eq(r({ status: 'aborted' }), ['aborted', 'aborted', false], 'aborted');
    for (const bad of [null, 7, [1]]) expectCode(() => at.readOutcome(bad), 'INVALID_ARGUMENT', `readOutcome(${JSON.stringify(bad)})`);
  },

  'the index: a failed model call is an error record, every model call counts in the run\'s tokens, and a call the run ended without finishing failed'(at) {
    const text = [
      line(0, { kind: 'run_started', identity: { run_id: 'r' } }),
      line(1, { kind: 'turn_started', turn_index: 0 }),
      line(2, { kind: 'custom', name: 'model_usage', data: { inputTokens: 10, outputTokens: 2, totalTokens: 12 } }),
      line(3, { kind: 'tool_started', tool_call_id: 'c', tool_name: 'slow', args: {} }),
      line(4, { kind: 'turn_ended', turn_index: 0, assistant: { role: 'assistant', content: '' }, tool_results: [] }),
      line(5, { kind: 'custom', name: 'model_error', data: { message: 'provider down' } }),
      line(6, { kind: 'custom', name: 'model_usage', data: { inputTokens: 3, outputTokens: 1, totalTokens: 4, source: 'summarize' } }),
      line(7, { kind: 'run_ended', outcome: { status: 'error', reason: 'error', verdict: 'agent' } }),
    ].join('\n');
    const index = at.TrajectoryIndex.fromJsonl(text);
    const [run] = index.runs();
    eq([run.tokens, index.turns('r')[0].tokens], [16, 12], 'the run\'s tokens and its turn\'s');
    eq([run.toolCalls, run.failedCalls], [1, 1], 'the unfinished call failed with the run');
    eq(index.info(5).isError, true, 'model_error is an error');
    eq([...index.filter({ errorsOnly: true })], [5, 7], 'errors only');
    index.free();
  },

  'a custom observer given bare is refused, showing the entry it goes in'(at) {
    const e = expectCode(() => new at.ObserverPipeline({ observers: [{ name: 'mine', observe: () => null }] }), 'INVALID_ARGUMENT', 'a bare observer');
    assert(e.message.includes('observers[0]') && e.message.includes('{ observer: { name, observe }, trigger'), e.message);
  },

  async 'no call waits forever: callTimeoutMs ends a silent user model with TIMEOUT; a bad value is refused; false turns it off'(at) {
    const never = () => new Promise(() => {});
    const r = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: never, clock, callTimeoutMs: 30 });
    eq([r.end.reason, r.end.error?.code, r.end.verdict], ['error', 'TIMEOUT', 'simulator'], 'the silent user model times out');
    assert(r.end.error.message.includes('callTimeoutMs (30 ms)'), r.end.error.message);
    const silentAgent = { respond: never };
    const a = await at.runTrajectory(at.createTrajectory(chain(), silentAgent), { userModel: scriptedUser(), clock, callTimeoutMs: 30 });
    eq([a.end.error?.code, a.end.verdict], ['TIMEOUT', 'agent'], 'the silent agent times out');
    for (const bad of [0, -5, 'soon', true, Number.NaN]) {
      await expectRejects(at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, callTimeoutMs: bad }), 'INVALID_ARGUMENT', `callTimeoutMs ${String(bad)}`);
    }
    // A sink that never takes the last records gets the same deadline.
    const stuck = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, callTimeoutMs: 30, sink: { record: () => new Promise(() => {}) } });
    eq([stuck.end.reason, stuck.end.error?.code, stuck.end.error?.side, stuck.end.verdict], ['error', 'TIMEOUT', 'recorder', 'harness'], 'a sink that never settles');
    const off = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, callTimeoutMs: false });
    eq(off.end.reason, 'goal-reached', 'false: no deadline, the run goes on');
  },
};
