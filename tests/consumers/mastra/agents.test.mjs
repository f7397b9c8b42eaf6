// observeMastra in a real @mastra/core Agent over a scripted model:
// agents.ts is compiled by `tsc --strict` (tsc --init settings), then its
// runs are checked here through the installed tarball.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseTrajectoryJsonl, observeMastra, TrajectoryRecorder, JsonlSink, TrajectoryIndex } from 'agent-trajectories';

const dir = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const built = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });

test('agents.ts compiles under tsc --strict against the real @mastra/core types: the processors spread into Agent, generate and stream', () => {
  assert.equal(built.status, 0, `tsc failed:\n${built.stdout}${built.stderr}`);
});

if (built.status === 0) copyFileSync(`${dir}model.mjs`, `${dir}.out/model.mjs`);
const s = built.status === 0 ? await import(pathToFileURL(`${dir}.out/agents.js`).href) : null;
const STALL = /Trajectory Assessment[\s\S]*stall/i;
const records = (lines) => parseTrajectoryJsonl(lines.join('\n'));
const kinds = (lines) => records(lines).map((r) => r.payload.kind);

/** The first model call whose prompt carries the stall assessment. */
function firstNudge(calls) {
  const i = calls.findIndex((c) => c.some((m) => STALL.test(m.text)));
  return { i, at: i < 0 ? -1 : calls[i].findIndex((m) => STALL.test(m.text)) };
}

test('generate: after the same call failed three times, the next model call has the stall assessment, as a system message after the instructions, once', { skip: !s }, async (t) => {
  const run = await s.generateRun();
  const { i, at } = firstNudge(run.calls);
  assert.equal(i, 3, 'the call after the third failure');
  const prompt = run.calls[i];
  assert.equal(prompt[at].role, 'system');
  assert.equal(prompt[0].text, s.INSTRUCTIONS, 'the agent\'s instructions stay first');
  assert.ok(prompt.slice(0, at + 1).every((m) => m.role === 'system'), 'among the leading system messages, where every provider takes them');
  for (const c of run.calls.slice(0, 3)) assert.ok(!c.some((m) => STALL.test(m.text)), 'nothing before there was an assessment');
  for (const c of run.calls) assert.ok(c.filter((m) => STALL.test(m.text)).length <= 1, 'one assessment per call: never stacked, never stored in the messages');
  t.diagnostic(`report: the prompt after the stall: ${JSON.stringify(prompt[at].text)}`);
  assert.equal(run.steps, 7, 'without stopOn the run goes on to the model\'s answer');
  assert.equal(run.text, 'Could not book.');
  assert.equal(run.mine, 7, 'your own input processor ran at every step');
});

test('generate: the recorded stream is ordered, complete and reads back', { skip: !s }, async () => {
  const run = await s.generateRun();
  const rs = records(run.lines);
  assert.deepEqual(rs.map((r) => r.seq), rs.map((_, i) => i));
  const k = rs.map((r) => r.payload.kind);
  assert.equal(k[0], 'run_started');
  assert.equal(rs[0].payload.identity.agent, 'mastra');
  assert.equal(k.at(-1), 'run_ended');
  assert.deepEqual(rs.at(-1).payload.outcome, { status: 'completed', reason: 'stop', verdict: 'pass' });
  assert.equal(k.filter((x) => x === 'provider_request_prepared').length, 7);
  // Each step is a turn, its tool calls inside it.
  assert.equal(k.filter((x) => x === 'turn_started').length, 7);
  assert.equal(k.filter((x) => x === 'turn_ended').length, 7);
  const index = TrajectoryIndex.fromJsonl(run.lines.join('\n'));
  const turns = index.turns(index.runs()[0].runId);
  assert.equal(turns.length, 7);
  assert.equal(turns.reduce((n, t) => n + t.toolCalls, 0), 6);
  assert.ok(turns.every((t) => t.tokens > 0), 'every turn has its tokens');
  assert.equal(k.filter((x) => x === 'tool_started').length, 6);
  const ended = rs.filter((r) => r.payload.kind === 'tool_ended');
  assert.equal(ended.length, 6);
  assert.ok(ended.every((r) => r.payload.is_error && /no tables in Lisbon/.test(JSON.stringify(r.payload.result))), 'a failing tool is a failure, with its message');
  assert.ok(ended.every((r) => r.payload.tool_name === 'book' && /^call-\d$/.test(r.payload.tool_call_id)));
  // each call starts before it ends, and a step's message comes before its calls
  for (const e of ended) {
    const started = rs.findIndex((r) => r.payload.kind === 'tool_started' && r.payload.tool_call_id === e.payload.tool_call_id);
    assert.ok(started >= 0 && started < e.seq);
    const said = rs.findIndex((r) => r.payload.kind === 'message_appended' && JSON.stringify(r.payload.message).includes(e.payload.tool_call_id));
    assert.ok(said >= 0 && said < started);
  }
  const assessed = rs.filter((r) => r.payload.kind === 'assessment_produced');
  assert.ok(assessed.length >= 1 && assessed[0].payload.assessment.observerName === 'Stall');
  assert.equal(assessed[0].payload.call_index, 3, 'the assessment cites the call where it fired');
  const prepared = rs.filter((r) => r.payload.kind === 'provider_request_prepared').map((r) => r.payload);
  assert.deepEqual(prepared[0].tools, ['book']);
  assert.deepEqual(prepared.map((p) => p.iteration), [0, 1, 2, 3, 4, 5, 6]);
  assert.ok(prepared[3].system_prompt_chars > prepared[0].system_prompt_chars, 'the assessment counted in the system text the model got');
  const last = rs.findLast((r) => r.payload.kind === 'message_appended').payload.message;
  assert.deepEqual(last, { role: 'assistant', content: [{ type: 'text', text: 'Could not book.' }] });
});

test('stopOn warning: the run stops (a Mastra tripwire) once the stall warns, with every step before it recorded', { skip: !s }, async () => {
  const run = await s.generateRun('warning');
  const rs = records(run.lines);
  const warned = rs.find((r) => r.payload.kind === 'assessment_produced' && r.payload.assessment.severity === 'warning');
  assert.ok(warned, 'a warning was produced');
  assert.match(run.tripwire ?? '', /Stall/, 'the tripwire says which observer stopped it');
  assert.ok(run.steps < 7, `stopped before the model's answer (${run.steps} steps)`);
  const end = rs.at(-1).payload;
  assert.equal(end.kind, 'run_ended');
  assert.equal(end.outcome.reason, 'stopped-on-warning');
  assert.match(end.outcome.message, /Stall/);
  assert.equal(run.calls.length, run.steps, 'no model call after the stop');
  assert.equal(kinds(run.lines).filter((k) => k === 'tool_ended').length, run.steps, 'every call that ran is recorded');
});

test('stopOn { severity: caution, times: 2 }: nudged once, stopped when it repeats', { skip: !s }, async () => {
  const once = await s.generateRun({ severity: 'caution', times: 1 });
  const twice = await s.generateRun({ severity: 'caution', times: 2 });
  assert.ok(twice.steps > once.steps, `times: 2 runs past the first caution (${once.steps} < ${twice.steps} steps)`);
  const nudged = twice.calls.slice(once.steps).some((c) => c.some((m) => STALL.test(m.text)));
  assert.ok(nudged, 'the model saw the assessment before the stop');
  assert.equal(records(twice.lines).at(-1).payload.outcome.reason, 'stopped-on-caution');
});

test('stream: the same nudge and stream, through agent.stream', { skip: !s }, async () => {
  const run = await s.streamRun();
  assert.equal(firstNudge(run.calls).i, 3);
  const k = kinds(run.lines);
  assert.equal(k[0], 'run_started');
  assert.equal(k.at(-1), 'run_ended');
  assert.equal(k.filter((x) => x === 'tool_ended').length, 6);
  assert.equal(run.text, 'Could not book.');
  const stopped = await s.streamRun('warning');
  assert.match(stopped.tripwire ?? '', /Stall/);
  assert.equal(records(stopped.lines).at(-1).payload.outcome.reason, 'stopped-on-warning');
});

test('a failing model: run_ended says error, with the provider\'s message, and every step before it is kept', { skip: !s }, async () => {
  const run = await s.failingRun();
  assert.match(run.error, /provider is down/, 'the error reaches the caller');
  const rs = records(run.lines);
  const k = rs.map((r) => r.payload.kind);
  assert.ok(k.includes('tool_ended'), 'the first step is kept');
  const end = rs.at(-1).payload;
  assert.equal(end.kind, 'run_ended');
  assert.equal(end.outcome.status, 'error');
  assert.match(end.outcome.message, /provider is down/);
});

test('given to the Agent itself: the same capture', { skip: !s }, async () => {
  const run = await s.agentLevelRun();
  const k = kinds(run.lines);
  assert.equal(k[0], 'run_started');
  assert.equal(k.at(-1), 'run_ended');
  assert.equal(k.filter((x) => x === 'tool_ended').length, 2);
});

test('bad options: coded errors that name the option', () => {
  const code = (f) => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof Error);
      return `${e.code}: ${e.message}`;
    }
    return 'no error';
  };
  assert.match(code(() => observeMastra({ stopon: 'warning' })), /^INVALID_ARGUMENT: .*stopon.*stopOn/);
  assert.match(code(() => observeMastra({ stopOn: 'severe' })), /^INVALID_ARGUMENT: observeMastra options\.stopOn must be/);
  assert.match(code(() => observeMastra({ stopOn: { severity: 'warning', times: 0 } })), /stopOn\.times/);
  assert.match(code(() => observeMastra({ inputProcessors: {} })), /observeMastra options\.inputProcessors must be an array/);
  assert.match(code(() => observeMastra({ recorder: {} })), /observeMastra options\.recorder must be a TrajectoryRecorder/);
  assert.match(code(() => observeMastra({ observers: [{ observer: 'stal' }] })), /^INVALID_ARGUMENT: .*stal/);
  const recorder = new TrajectoryRecorder(new JsonlSink());
  const p = observeMastra({ recorder });
  assert.equal(p.inputProcessors.length, 1);
  assert.equal(p.inputProcessors[0], p.outputProcessors[0], 'one processor in every list');
});

test('a processor of yours that throws at the end fails the run before run_ended could say it passed', async () => {
  const { Agent } = await import('@mastra/core/agent');
  const { repeatingModel } = await import('./model.mjs');
  const agent = new Agent({ id: 'greeter', name: 'greeter', instructions: 'Greet.', model: repeatingModel([], 1) });
  const sink = new JsonlSink();
  const broken = { id: 'mine', processOutputResult: async () => { throw new RangeError('my output processor broke'); } };
  const settings = observeMastra({ recorder: new TrajectoryRecorder(sink), outputProcessors: [broken] });
  assert.deepEqual(settings.outputProcessors.map((p) => p.id), ['agent-trajectories', 'mine', 'agent-trajectories-end'], 'ours first, its end last');
  await assert.rejects(agent.generate('hi', settings), /my output processor broke/);
  const k = kinds(sink.lines());
  assert.equal(k[0], 'run_started');
  assert.ok(!k.includes('run_ended'), `no run_ended (got ${k.join(', ')})`);
});

test('observeMastra loads from require() too', async () => {
  const { createRequire } = await import('node:module');
  const cjs = createRequire(import.meta.url)('agent-trajectories');
  assert.equal(typeof cjs.observeMastra, 'function');
});

test('the processors are one run\'s: a second run through them fails at its first step, naming the fix, and the first run\'s records stay whole', async () => {
  const { Agent } = await import('@mastra/core/agent');
  const { repeatingModel } = await import('./model.mjs');
  const agent = new Agent({ id: 'greeter', name: 'greeter', instructions: 'Greet.', model: repeatingModel([], 1) });
  const sink = new JsonlSink();
  const settings = observeMastra({ recorder: new TrajectoryRecorder(sink, { runId: 'once' }) });
  assert.equal((await agent.generate('hi', settings)).text, 'Could not book.');
  const first = sink.lines();
  await assert.rejects(agent.generate('hi again', settings), /observeMastra: these settings already observed a run; call observeMastra\(\) once per run/);
  assert.deepEqual(sink.lines(), first);
  assert.deepEqual(kinds(first), ['run_started', 'turn_started', 'message_appended', 'provider_request_prepared', 'message_appended', 'custom', 'turn_ended', 'run_ended']);
  assert.deepEqual(parseTrajectoryJsonl(first.join('\n'))[2].payload.message, { role: 'user', content: 'hi' }, 'the user\'s words open the first turn');
});
