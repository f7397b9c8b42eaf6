// BackgroundAgentRunner as a user runs it: through the tarball, with zod, an AI SDK tool, a plain
// JSON Schema, recordingModel / replayModel, a sink, a signal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { tool, jsonSchema } from 'ai';
import { reviewScript } from '../../js/background-scenario.mjs';
import { BackgroundAgentRunner, MemorySink, serializeTrajectoryJsonl, parseTrajectoryJsonl, recordingModel, replayModel } from 'agent-trajectories';

const diff = {
  path: 'diff',
  files: {
    'change.patch': '--- a/src/lib.rs\n+++ b/src/lib.rs\n-fn add(a: i32) {}\n+fn add(a: i32, b: i32) {}\n',
    'src/lib.rs': 'fn add(a: i32, b: i32) {}\n',
    'tests/add.rs': '#[test] fn adds() { add(1, 2); }\n',
  },
};
const Review = z.object({ verdict: z.enum(['approve', 'reject']), findings: z.array(z.string()), nextSteps: z.array(z.string()) });
const objective = { objective: 'Review the patch in diff/ for regressions', deliverableSchema: Review, hostMounts: [diff], contextSections: [{ title: 'Checklist', body: '- tests updated' }] };
const clock = () => 1_700_000_000_000;
const calls = (...toolCalls) => ({ toolCalls });
const scripted = (answers) => {
  let i = 0;
  const seen = [];
  const model = async (req) => {
    seen.push(req);
    if (i >= answers.length) throw new Error(`script exhausted at ${req.purpose}`);
    return answers[i++];
  };
  return Object.assign(model, { seen });
};
const lint = tool({ description: 'Lint a file', inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => ({ path, warnings: 0 }) });

// Plans, reads the patch (a wrong path first: reflection retries it), lints, notes, finishes.
const review = reviewScript;

test('the code review completes with a validated deliverable, one record stream, a retry', async () => {
  const model = scripted(review());
  const sink = new MemorySink();
  const runner = new BackgroundAgentRunner({ model, clock, sink, tools: { lint } });
  const r = await runner.run(objective);
  assert.equal(r.status, 'completed', r.reason);
  assert.equal(r.reason, 'model-completed');
  assert.deepEqual([r.iterations, r.failures], [6, 1]);
  assert.deepEqual(r.deliverable, { verdict: 'approve', findings: ['add() gained b'], nextSteps: [] });
  assert.match(r.finalSummary, /^Approve/);
  assert.deepEqual(r.snapshot.plan.steps.map((s) => s.status), ['done', 'done', 'done']);
  assert.equal(model.seen.map((q) => q.purpose).join(), 'decide,decide,reflect,decide,decide,decide,summarize');
  const first = model.seen[0];
  assert.match(first.system, /ASCII/);
  assert.match(first.system, /## Checklist/);
  const finish = first.tools.find((t) => t.name === 'finish');
  assert.deepEqual(finish.inputSchema.properties.deliverable.required, ['verdict', 'findings', 'nextSteps'], 'the zod schema as JSON Schema');
  assert.equal(first.tools.find((t) => t.name === 'lint').inputSchema.properties.path.type, 'string');
  const text = serializeTrajectoryJsonl(sink.records());
  const kinds = parseTrajectoryJsonl(text).map((x) => x.payload.kind);
  assert.equal(kinds[0], 'run_started');
  assert.deepEqual(kinds.slice(-2), ['run_terminated', 'run_ended']);
  assert.equal(kinds.filter((k) => k === 'iteration_started').length, 6);
  const failed = parseTrajectoryJsonl(text).find((x) => x.payload.kind === 'iteration_completed' && x.payload.failed);
  assert.match(failed.payload.error, /^INVALID_ARGUMENT: diff\/changes.patch: no such file/);
});

test('a recorded run replays byte for byte with no model', async () => {
  const rec = recordingModel(scripted(review()));
  const a = new MemorySink();
  const first = await new BackgroundAgentRunner({ model: rec, clock, sink: a, tools: { lint } }).run(objective);
  const b = new MemorySink();
  const again = await new BackgroundAgentRunner({ model: replayModel(JSON.parse(JSON.stringify(rec.recording))), clock, sink: b, tools: { lint } }).run(objective);
  assert.equal(serializeTrajectoryJsonl(b.records()), serializeTrajectoryJsonl(a.records()));
  assert.deepEqual(again, first);
});

test('bad input throws coded errors that say where', async () => {
  const model = async () => 'status: completed';
  const cases = [
    [() => new BackgroundAgentRunner({ model, confg: {} }), /unknown option "confg"; did you mean "config"/],
    [() => new BackgroundAgentRunner({ model, config: { maxIterations: 0 } }), /config.maxIterations must be a whole number from 1/],
    [() => new BackgroundAgentRunner({ model, config: { iterationTimeoutMs: NaN } }), /config.iterationTimeoutMs .* got NaN/],
    [() => new BackgroundAgentRunner({ model, tools: { ls: lint } }), /tools.ls: ls is a built-in tool/],
    [() => new BackgroundAgentRunner({ model, tools: { lint: { inputSchema: {} } } }), /tools.lint.execute must be a function/],
    [() => new BackgroundAgentRunner({}), /model is required/],
  ];
  for (const [f, message] of cases) assert.throws(f, (e) => e.code === 'INVALID_ARGUMENT' && message.test(e.message));
  const runner = new BackgroundAgentRunner({ model });
  for (const [o, code, message] of [
    ['', 'INVALID_ARGUMENT', /empty/],
    ['x'.repeat(1025), 'INVALID_ARGUMENT', /1025 characters .* limit is 1024/],
    [{ objective: 'x', hostMounts: [{ path: '../up', files: { a: 'b' } }] }, 'VFS_PATH', /hostMounts\[0\]: path "..\/up" leaves the root/],
    [{ objectiv: 'x' }, 'INVALID_ARGUMENT', /did you mean "objective"/],
  ]) {
    await assert.rejects(runner.run(o), (e) => e.code === code && message.test(e.message));
  }
  await assert.rejects(runner.run('x', { resumeForm: {} }), /did you mean "resumeFrom"/);
});

test('a deliverable that fails a JSON Schema fails the run, quoting the validator; AI SDK jsonSchema tools work', async () => {
  const model = async (req) => (req.purpose === 'summarize' ? '{"summary": "s", "deliverable": {"verdict": "maybe"}}' : 'Done.\nstatus: completed');
  const schema = { type: 'object', properties: { verdict: { enum: ['approve', 'reject'] } }, required: ['verdict'] };
  const echo = tool({ description: 'Echo', inputSchema: jsonSchema({ type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }), execute: async ({ x }) => x });
  const r = await new BackgroundAgentRunner({ model, tools: { echo } }).run({ objective: 'x', deliverableSchema: schema });
  assert.equal(r.status, 'failed');
  assert.match(r.reason, /^deliverable-failed: the deliverable does not match objective.deliverableSchema: verdict: /);
  // What the model returned, as a missing deliverable is: the model's doing, not a bad argument of the caller's.
  assert.equal(r.error.code, 'CALLBACK_FAILED');
});

test('faults are counted failures: a throwing model ends failed after maxFailures, naming the error', async () => {
  const model = async () => {
    throw new Error('503 from the provider');
  };
  const r = await new BackgroundAgentRunner({ model, config: { maxFailures: 3 } }).run('anything');
  assert.equal(r.status, 'failed');
  assert.match(r.reason, /^max-failures: last error: CALLBACK_FAILED: model \(decide\) threw: 503 from the provider/);
  assert.equal(r.iterations, 3);
  assert.match(r.finalSummary, /503 from the provider/);
  // A tool that throws, an unknown tool, arguments that fail the schema: failed calls the model sees.
  const bad = tool({ description: 'Boom', inputSchema: z.object({ n: z.number() }), execute: async () => { throw new TypeError('boom'); } });
  const m = scripted([
    calls({ toolName: 'boom', input: { n: 1 } }, { toolName: 'boom', input: { n: 'one' } }, { toolName: 'nope', input: {} }),
    calls({ toolName: 'finish', input: { status: 'abandoned', summary: 'tools broken' } }),
    'Abandoned: the tools are broken.',
  ]);
  const r2 = await new BackgroundAgentRunner({ model: m, tools: { boom: bad }, config: { enableReflection: false } }).run('x');
  assert.equal(r2.status, 'abandoned');
  const results = r2.snapshot.toolInvocations.map((i) => i.result);
  assert.match(results[0], /^CALLBACK_FAILED: tool boom threw: boom/);
  assert.match(results[1], /^INVALID_ARGUMENT: tool boom: its input does not match inputSchema: n: /);
  assert.match(results[2], /no tool "nope"/);
});

test('iterationTimeoutMs fires the call abortSignal; the signal ends the run; a second run while busy is BUSY', async () => {
  let aborted = 0;
  const hang = (req, { abortSignal }) => new Promise((_, reject) => abortSignal.addEventListener('abort', () => { aborted++; reject(abortSignal.reason); }));
  const r = await new BackgroundAgentRunner({ model: hang, config: { iterationTimeoutMs: 20, maxFailures: 2 } }).run('hang');
  assert.equal(r.status, 'failed');
  assert.match(r.reason, /TIMEOUT: the model \(decide\) did not answer within iterationTimeoutMs \(20 ms\)/);
  assert.ok(aborted >= 2);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 20);
  const r2 = await new BackgroundAgentRunner({ model: () => new Promise(() => {}), signal: ac.signal }).run('forever');
  assert.deepEqual([r2.status, r2.reason], ['abandoned', 'aborted']);
  const slow = new BackgroundAgentRunner({ model: () => new Promise((res) => setTimeout(() => res('status: completed'), 20)) });
  const first = slow.run('a');
  await assert.rejects(slow.run('b'), (e) => e.code === 'BUSY');
  assert.equal((await first).status, 'completed');
  assert.equal((await slow.run('c')).status, 'completed', 'runs after it finished are fine');
});

test('a snapshot resumes a run: plan, overlay and counters carry over', async () => {
  const m = scripted([
    calls({ toolName: 'plan_create', input: { steps: ['write'] } }),
    calls({ toolName: 'write_file', input: { path: 'out/report.md', content: '# Report' } }),
    'stopped early',
  ]);
  const stopped = await new BackgroundAgentRunner({ model: m, config: { maxIterations: 2 } }).run('write a report');
  assert.equal(stopped.reason, 'max-iterations');
  assert.deepEqual(stopped.snapshot.overlay.changes, { 'out/report.md': 'created' });
  const m2 = scripted([
    calls({ toolName: 'read_file', input: { path: 'out/report.md' } }, { toolName: 'plan_update_step', input: { step: 1, status: 'done' } }),
    '{"action": "complete"}',
    'Report written.',
  ]);
  const resumed = await new BackgroundAgentRunner({ model: m2 }).run('write a report', { resumeFrom: JSON.parse(JSON.stringify(stopped.snapshot)) });
  assert.deepEqual([resumed.status, resumed.reason, resumed.iterations], ['completed', 'plan-completed', 3]);
  assert.equal(resumed.snapshot.toolInvocations.at(-2).result, '# Report');
});

test('observers see every call, and their assessment reaches the next decision (recorded as shown)', async () => {
  const failing = tool({ description: 'Search', inputSchema: z.object({ q: z.string() }), execute: async () => { throw new Error('timeout after 30s'); } });
  const answers = Array.from({ length: 5 }, () => calls({ toolName: 'search', input: { q: 'same' } }));
  const m = scripted([...answers, calls({ toolName: 'finish', input: { status: 'abandoned', summary: 'search is down' } }), 'Abandoned.']);
  const sink = new MemorySink();
  const r = await new BackgroundAgentRunner({
    model: m, sink, clock, tools: { search: failing }, config: { enableReflection: false, maxFailures: 10 },
    observers: { observers: [{ observer: 'error-cascade', trigger: { onEveryCall: true } }] },
  }).run('find it');
  assert.equal(r.status, 'abandoned');
  const shown = m.seen.filter((q) => q.purpose === 'decide').map((q) => q.messages[0].content).find((t) => t.includes('\nObservers: '));
  assert.ok(shown, 'a decision was shown the assessment');
  assert.match(shown, /error/i);
  assert.ok(sink.records().some((x) => x.payload.kind === 'assessment_produced'));
  assert.equal(r.snapshot.observers.schema, 'agent-trajectories/observer-pipeline');
});

test('a finding is recorded once, and one made in the last iteration is recorded at the end (checkRun sees it)', async () => {
  const { checkRun } = await import('agent-trajectories');
  // A custom observer that warns on its first call only: shown to the next decisions, recorded once.
  let seen = 0;
  const once = { name: 'Once', observe: () => (++seen === 1 ? { severity: 'warning', summary: 'the first call is suspect' } : null) };
  const m = scripted([calls({ toolName: 'ls', input: {} }), calls({ toolName: 'ls', input: {} }), calls({ toolName: 'ls', input: {} }), calls({ toolName: 'finish', input: { status: 'completed', summary: 'listed' } }), 'Listed.']);
  const sink = new MemorySink();
  await new BackgroundAgentRunner({ model: m, sink, clock, observers: { observers: [{ observer: once, trigger: { onEveryCall: true } }] } }).run('list the files');
  const produced = sink.records().filter((x) => x.payload.kind === 'assessment_produced');
  assert.deepEqual(produced.map((x) => [x.payload.call_index, x.payload.assessment.summary]), [[1, 'the first call is suspect']]);
  // The alarm raised by the last iteration's call, which no decision saw, is recorded before the run ends.
  const alarm = { name: 'Alarm', observe: () => ({ severity: 'warning', summary: 'bad' }) };
  const m2 = scripted([calls({ toolName: 'ls', input: {} }, { toolName: 'finish', input: { status: 'completed', summary: 'ok' } }), 'done']);
  const sink2 = new MemorySink();
  const r = await new BackgroundAgentRunner({ model: m2, sink: sink2, clock, observers: { observers: [{ observer: alarm, trigger: { onEveryCall: true } }] } }).run('list the files');
  assert.equal(r.status, 'completed');
  const kinds = sink2.records().map((x) => x.payload.kind);
  assert.deepEqual(kinds.slice(kinds.indexOf('assessment_produced') - 1), ['iteration_completed', 'assessment_produced', 'run_terminated', 'run_ended']);
  const gate = checkRun(sink2.records(), { failOnSeverity: 'warning' });
  assert.deepEqual(gate.checks.map((c) => [c.check, c.pass]), [['verdict', true], ['failOnSeverity', false]]);
  assert.match(gate.message, /bad/);
});

test('a reflection that throws is on the iteration\'s record and in the next prompt, not lost behind the failed call', async () => {
  const m = scripted([calls({ toolName: 'read_file', input: { path: 'diff/nope.rs' } }), calls({ toolName: 'finish', input: { status: 'abandoned', summary: 'x' } }), 'Abandoned.']);
  const model = async (req) => (req.purpose === 'reflect' ? Promise.reject(new Error('rate limited')) : m(req));
  const sink = new MemorySink();
  await new BackgroundAgentRunner({ model, sink, clock }).run({ objective: 'Review the patch', hostMounts: [diff] });
  const errors = sink.records().filter((x) => x.payload.kind === 'iteration_completed' && x.payload.error).map((x) => x.payload.error);
  assert.deepEqual(errors, ['INVALID_ARGUMENT: diff/nope.rs: no such file; then model (reflect) threw: rate limited']);
  assert.match(m.seen.at(-2).messages[0].content, /\nReflection: your reflection failed: model \(reflect\) threw: rate limited/);
});

test('an AI SDK model (MockLanguageModelV4) is offered every tool and its tool calls run', async () => {
  const { MockLanguageModelV4 } = await import('ai/test');
  const { generateText } = await import('ai');
  const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
  const offered = [];
  let n = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async ({ tools }) => {
      offered.push((tools ?? []).map((t) => t.name));
      n++;
      const call = (toolName, input) => ({ content: [{ type: 'tool-call', toolCallId: `c${n}`, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] });
      if (n === 1) return call('ls', { path: 'diff' });
      if (n === 2) return call('finish', { status: 'completed', summary: 'listed' });
      return { content: [{ type: 'text', text: 'Listed diff/.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
  const { fromAISdkModel } = await import('agent-trajectories');
  const r = await new BackgroundAgentRunner({ model: fromAISdkModel(model, { generateText }), tools: { lint } }).run({ objective: 'list', hostMounts: [diff] });
  assert.deepEqual([r.status, r.reason, r.finalSummary], ['completed', 'model-completed', 'Listed diff/.']);
  assert.ok(offered[0].includes('finish') && offered[0].includes('read_file') && offered[0].includes('lint'), String(offered[0]));
  assert.equal(r.snapshot.toolInvocations[0].result, 'change.patch\nsrc/\ntests/');
});

test('what a newcomer tripped on: non-ASCII objectives, one sink for many runs, tool names, old AI SDK keys, a resumed objective', async () => {
  const done = async () => 'status: completed';
  await assert.rejects(new BackgroundAgentRunner({ model: done }).run('検査 the patch'), (e) => e.code === 'INVALID_ARGUMENT' && /no ASCII form \("検査"\)/.test(e.message));
  const r = await new BackgroundAgentRunner({ model: done }).run('cafe\u0301 review\u200b');
  assert.equal(r.snapshot.objective, 'cafe review');
  // One runner, one sink, a fixed clock: each run has its own id, and the stream reads back.
  const sink = new MemorySink();
  const runner = new BackgroundAgentRunner({ model: done, clock, sink });
  await runner.run('one');
  await runner.run('two');
  const ids = [...new Set(parseTrajectoryJsonl(serializeTrajectoryJsonl(sink.records())).map((x) => x.run_id))];
  assert.deepEqual(ids, ['background-1700000000000', 'background-1700000000000-2']);
  const echo = { inputSchema: z.object({}), execute: async () => 1 };
  assert.throws(() => new BackgroundAgentRunner({ model: done, tools: { 'bad name!': echo } }), /not a tool name models accept/);
  assert.throws(() => new BackgroundAgentRunner({ model: done, tools: { old: { parameters: z.object({}), execute: async () => 1 } } }), /did you mean "inputSchema"/);
  assert.throws(() => new BackgroundAgentRunner({ model: done, tools: { t: { inputschema: z.object({}), execute: async () => 1 } } }), /tools\.t: unknown option "inputschema"; did you mean "inputSchema"\?/);
  // A slip of `description` is refused (the model would be offered the tool with no description); a tool() object's own keys are not slips.
  assert.throws(() => new BackgroundAgentRunner({ model: done, tools: { t: { descripton: 'Echo', inputSchema: z.object({}), execute: async () => 1 } } }), (e) => e.code === 'INVALID_ARGUMENT' && /tools\.t: unknown option "descripton"; did you mean "description"\?/.test(e.message));
  for (const own of [{ type: 'function', outputSchema: z.object({}) }, { description: undefined }, {}]) new BackgroundAgentRunner({ model: done, tools: { t: { ...own, inputSchema: z.object({}), execute: async () => 1 } } });
  await assert.rejects(new BackgroundAgentRunner({ model: done }).run('two', { resumeFrom: r.snapshot }), /snapshot of the objective "cafe review", not of "two"/);
  const silent = await new BackgroundAgentRunner({ model: async () => undefined, config: { maxFailures: 1 } }).run('x');
  assert.match(silent.reason, /CALLBACK_FAILED: model \(decide\) returned undefined/);
});

test('types: an AI SDK tool() is a BackgroundTool, a Model may destructure its options, the deliverable is typed from zod (tsc --init settings)', async () => {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  const r = spawnSync(process.execPath, [tsc, '-p', fileURLToPath(new URL('.', import.meta.url))], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});

test('a zod shape (an object of schemas) is not a schema: refused where it is passed, saying to wrap it in z.object; an object with no JSON Schema keyword too', async () => {
  const model = async () => 'Done.\nstatus: completed';
  const runner = new BackgroundAgentRunner({ model });
  await assert.rejects(runner.run({ objective: 'x', deliverableSchema: { verdict: z.string(), score: z.number() } }),
    (e) => e.code === 'INVALID_ARGUMENT' && /objective.deliverableSchema is an object of schemas \("verdict", "score"\), not a schema: wrap it, z.object\(\{ \.\.\. \}\)/.test(e.message));
  await assert.rejects(runner.run({ objective: 'x', deliverableSchema: { verdict: { type: 'string' } } }),
    (e) => e.code === 'INVALID_ARGUMENT' && /is not a JSON Schema: none of its keys \("verdict"\) is a JSON Schema keyword/.test(e.message));
  assert.throws(() => new BackgroundAgentRunner({ model, maxIterations: 3 }), (e) => e.code === 'INVALID_ARGUMENT' && /maxIterations is a config option; give it as new BackgroundAgentRunner\(\{ model, config: \{ maxIterations \} \}\)/.test(e.message));
  const shaped = tool({ description: 'Echo', inputSchema: { x: z.number() }, execute: async ({ x }) => x });
  assert.throws(() => new BackgroundAgentRunner({ model, tools: { shaped } }), (e) => e.code === 'INVALID_ARGUMENT' && /tools\.shaped\.inputSchema is an object of schemas/.test(e.message));
});

test('a sink that never takes the last records gets the deadline (iterationTimeoutMs), and a deliverableFactory that throws is the harness\'s failure, not the agent\'s', async () => {
  const model = async (req) => (req.purpose === 'summarize' ? 'Done.' : 'Done.\nstatus: completed');
  let n = 0;
  const stuck = { record: () => (++n >= 3 ? new Promise(() => {}) : undefined) };
  const r = await new BackgroundAgentRunner({ model, sink: stuck, config: { iterationTimeoutMs: 50, enableReflection: false } }).run('x');
  assert.equal(r.status, 'failed');
  assert.equal(r.error?.code, 'TIMEOUT');
  assert.match(r.reason, /^error: recorder failed: the sink did not answer within iterationTimeoutMs \(50 ms\)/);

  const sink = new MemorySink();
  const broken = await new BackgroundAgentRunner({ model, sink, config: { deliverableFactory: () => { throw new Error('my factory broke'); } } }).run('x');
  assert.equal(broken.status, 'failed');
  const end = sink.records().at(-1).payload.outcome;
  assert.deepEqual([end.status, end.verdict, end.error_code, end.reason], ['error', 'harness', 'CALLBACK_FAILED', 'deliverable-failed'], 'a machine reason, grouped on');
  assert.match(end.message, /my factory broke/, 'the detail is the message');
});
