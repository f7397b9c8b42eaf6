// observeAISdk and trajectoryMiddleware in real AI SDK 7 loops over its
// mock model: loops.ts is compiled by `tsc --strict` (tsc --init settings),
// then its loops are checked here through the installed tarball.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseTrajectoryJsonl, observeAISdk, trajectoryMiddleware, MemorySink, JsonlSink, TrajectoryRecorder, TrajectoryIndex } from 'agent-trajectories';

const dir = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const built = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });

test('loops.ts compiles under tsc --strict against the real ai types: the settings spread into generateText, streamText and ToolLoopAgent', () => {
  assert.equal(built.status, 0, `tsc failed:\n${built.stdout}${built.stderr}`);
});

const s = built.status === 0 ? await import(pathToFileURL(`${dir}.out/loops.js`).href) : null;
const STALL = /Trajectory Assessment[\s\S]*stall/i;
const kinds = (lines) => parseTrajectoryJsonl(lines.join('\n')).map((r) => r.payload.kind);

/** The first model call whose prompt carries the stall assessment, and where in the prompt. */
function firstNudge(calls) {
  const i = calls.findIndex((c) => c.some((m) => STALL.test(m.text)));
  return { i, message: i < 0 ? undefined : calls[i].find((m) => STALL.test(m.text)) };
}

test('generateText: after the same call failed three times, the next model call has the stall assessment in its instructions, once', { skip: !s }, async (t) => {
  const loop = await s.generateLoop();
  const { i, message } = firstNudge(loop.calls);
  assert.equal(i, 3, 'the call after the third failure');
  assert.equal(message.role, 'system', 'in the system text (the instructions), where every provider takes it');
  assert.ok(message.text.startsWith(`${s.INSTRUCTIONS}\n\n`), 'after the caller\'s instructions');
  for (const c of loop.calls.slice(0, 3)) assert.ok(!c.some((m) => STALL.test(m.text)), 'nothing before there was an assessment');
  for (const c of loop.calls) assert.equal(c.filter((m) => m.role === 'system').length, 1, 'one system message: assessments are replaced, never stacked');
  for (const c of loop.calls.slice(i)) assert.equal(c[0].text.match(/Trajectory Assessment/g)?.length, 1);
  t.diagnostic(`report: the prompt after the stall: ${JSON.stringify(message.text)}`);
  assert.equal(loop.userPrepares, loop.calls.length, 'your prepareStep ran before every call');
  assert.equal(loop.userSteps, loop.steps, 'your onStepEnd ran after every step');
  assert.equal(loop.steps, 7, 'without stopOn the loop runs to the model\'s answer');
});

test('generateText: the recorded stream is ordered, complete and reads back', { skip: !s }, async () => {
  const loop = await s.generateLoop();
  const records = parseTrajectoryJsonl(loop.lines.join('\n'));
  assert.deepEqual(records.map((r) => r.seq), records.map((_, i) => i));
  const k = records.map((r) => r.payload.kind);
  assert.equal(k[0], 'run_started');
  assert.equal(k.at(-1), 'run_ended');
  assert.equal(k.filter((x) => x === 'provider_request_prepared').length, 7);
  assert.equal(k.filter((x) => x === 'tool_started').length, 6);
  const ended = records.filter((r) => r.payload.kind === 'tool_ended');
  assert.equal(ended.length, 6);
  assert.ok(ended.every((r) => r.payload.is_error && /no tables in Lisbon/.test(JSON.stringify(r.payload.result))));
  const assessed = records.filter((r) => r.payload.kind === 'assessment_produced');
  assert.ok(assessed.length >= 1 && assessed[0].payload.assessment.observerName === 'Stall');
  assert.equal(assessed[0].payload.call_index, 3, 'the assessment cites the call where it fired');
  const prepared = records.find((r) => r.payload.kind === 'provider_request_prepared').payload;
  assert.deepEqual(prepared.tools, ['book']);
  assert.equal(records.at(-1).payload.outcome.reason, 'stop');
});

test('stopOn: \'warning\' stops the loop when the stall escalates to a warning; times: 2 waits for the second', { skip: !s }, async () => {
  const once = await s.generateLoop('warning');
  assert.ok(once.steps < 7, `stopped early (${once.steps} steps)`);
  const end = parseTrajectoryJsonl(once.lines.join('\n')).at(-1).payload;
  assert.equal(end.outcome.reason, 'stopped-on-warning');
  assert.equal(end.outcome.status, 'stopped', 'a stop on a finding is no completion');
  assert.equal(end.outcome.verdict, 'agent');
  assert.match(end.outcome.message, /^stopped on a finding at or above warning; the last, a warning from Stall: .*escalated to warning/);
  const caution = await s.generateLoop({ severity: 'caution', times: 1 });
  const twice = await s.generateLoop({ severity: 'caution', times: 2 });
  assert.ok(caution.steps < twice.steps, `nudge once, stop when it repeats (${caution.steps} < ${twice.steps})`);
});

test('streamText: the same assessment, stop and record stream', { skip: !s }, async () => {
  const loop = await s.streamLoop();
  assert.equal(firstNudge(loop.calls).i, 3);
  const k = kinds(loop.lines);
  assert.equal(k[0], 'run_started');
  assert.equal(k.at(-1), 'run_ended');
  assert.ok(k.includes('assessment_produced'));
  assert.equal(loop.userSteps, loop.steps);
});

test('ToolLoopAgent: the settings spread into its constructor work the same', { skip: !s }, async () => {
  const loop = await s.agentLoop();
  assert.equal(firstNudge(loop.calls).i, 3);
  assert.equal(loop.steps, 5);
  assert.ok(kinds(loop.lines).includes('tool_ended'));
});

test('trajectoryMiddleware: every model call recorded, streaming included, usage as model_usage', { skip: !s }, async () => {
  const { generate, stream } = await s.middlewareCalls();
  for (const lines of [generate, stream]) {
    const records = parseTrajectoryJsonl(lines.join('\n'));
    // Each model call is a turn.
    assert.deepEqual(records.map((r) => r.payload.kind), [
      'turn_started', 'provider_request_prepared', 'message_appended', 'custom', 'turn_ended',
      'turn_started', 'provider_request_prepared', 'message_appended', 'custom', 'turn_ended',
    ]);
    assert.deepEqual(records.filter((r) => r.payload.kind.startsWith('turn_')).map((r) => r.payload.turn_index), [0, 0, 1, 1]);
    const [, first, answer, use] = records.map((r) => r.payload);
    assert.equal(first.tool_count, 1);
    assert.equal(first.system_prompt_chars, 'You book restaurant tables.'.length);
    assert.equal(answer.message.content[0].type, 'tool-call');
    assert.deepEqual(answer.message.content[0].input, { city: 'Lisbon' });
    // The core's one spelling of model_usage.
    assert.deepEqual(use.data, { inputTokens: 10, outputTokens: 4, totalTokens: 14, finishReason: 'tool-calls' });
    assert.deepEqual(records[4].payload.assistant, answer.message, 'turn_ended carries the answer');
    assert.equal(records[7].payload.message.content[0].text, 'Could not book.');
  }
});

test('bad options are refused with coded errors naming the option', () => {
  const refused = (f, re) => assert.throws(f, (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message));
  refused(() => observeAISdk({ observer: [] }), /observeAISdk options.*observer.*observers/);
  refused(() => observeAISdk({ stopOn: 'warn' }), /stopOn must be 'info', 'caution' or 'warning'/);
  refused(() => observeAISdk({ stopOn: { severity: 'warning', times: 0 } }), /stopOn.times/);
  refused(() => observeAISdk({ stopOn: { severity: 'warning', tims: 2 } }), /tims.*times/);
  refused(() => observeAISdk({ recorder: {} }), /recorder must be a TrajectoryRecorder/);
  refused(() => observeAISdk({ recorder: { record() {} } }), /recorder must be a TrajectoryRecorder, got a sink \(wrap it: new TrajectoryRecorder\(sink\)\)/);
  refused(() => observeAISdk({ maxSteps: Number.NaN }), /maxSteps must be a whole number from 1, got NaN/);
  refused(() => observeAISdk({ stopOn: 'fatal' }), /got "fatal"/);
  refused(() => observeAISdk({ tools: 5 }), /tools must be your tool set/);
  refused(() => observeAISdk({ agent: '' }), /agent must be the agent's name/);
  refused(() => observeAISdk({ prepareStep: 1 }), /prepareStep must be a function/);
  refused(() => trajectoryMiddleware({}), /recorder must be a TrajectoryRecorder/);
  // Wrong objects where a recorder goes, named in the user's words (never a binding internal).
  refused(() => trajectoryMiddleware({ recorder: new MemorySink() }), /recorder must be a TrajectoryRecorder, got a sink \(wrap it: new TrajectoryRecorder\(sink\)\)/);
  refused(() => trajectoryMiddleware(new TrajectoryRecorder(new MemorySink())), /pass the recorder as an option: trajectoryMiddleware\(\{ recorder \}\)/);
  refused(() => observeAISdk({ recorder: new TrajectoryRecorder(new MemorySink()), budget: { maxToken: 5 } }), /budget.*maxToken.*maxTokens/);
  refused(() => new TrajectoryRecorder(new TrajectoryRecorder(new MemorySink())), /sink is a TrajectoryRecorder/);
  refused(() => trajectoryMiddleware(new MemorySink()), /got a sink; pass a recorder as an option/);
  refused(() => observeAISdk(new MemorySink()), /observeAISdk options must be an options object, got one of this package's objects/);
  for (const f of [() => observeAISdk(new MemorySink()), () => trajectoryMiddleware(new MemorySink())]) assert.throws(f, (e) => !/__wbg/.test(e.message));
  refused(() => trajectoryMiddleware({ recorder: null, rec: 1 }), /rec.*recorder/);
});

test('the inline spread type-checks and runs (generateText, streamText with your own onStepEnd, unannotated)', { skip: !s }, async () => {
  assert.deepEqual(await s.inlineSpreads(), { generated: 3, streamed: 3, toolCalls: 2 });
});

test('your onStepEnd throws: the AI SDK would ignore it, so the loop fails at its next step with CALLBACK_FAILED, your error as cause, and run_ended records it', { skip: !s }, async () => {
  const run = await s.failingLoop('callback');
  assert.equal(run.error?.code, 'CALLBACK_FAILED');
  assert.ok(run.error.cause instanceof RangeError && run.error.cause.message === 'my bug');
  assert.match(run.error.message, /your onStepEnd threw: my bug/);
  assert.equal(run.calls, 2, 'no model call after the failure');
  const records = parseTrajectoryJsonl(run.lines.join('\n'));
  assert.equal(records[0].payload.identity.agent, 'booker');
  assert.deepEqual(records.at(-1).payload.outcome, { status: 'error', reason: 'error', message: run.error.message, error_code: 'CALLBACK_FAILED', verdict: 'harness' });
  assert.equal(records.filter((r) => r.payload.kind === 'tool_ended').length, 2, 'both steps kept');
});

test('the model fails: the loop rejects with its error, and the records end with model_error and run_ended error', { skip: !s }, async () => {
  const run = await s.failingLoop('model');
  assert.match(String(run.error?.message), /provider is down/);
  const records = parseTrajectoryJsonl(run.lines.join('\n'));
  const k = records.map((r) => r.payload.kind);
  assert.deepEqual(k.slice(-2), ['custom', 'run_ended']);
  assert.equal(records.at(-2).payload.name, 'model_error');
  assert.equal(records.at(-1).payload.outcome.status, 'error');
  assert.match(records.at(-1).payload.outcome.message, /provider is down/);
  assert.ok(k.includes('tool_ended'), 'the first step is kept');
});

test('the settings are one run\'s: a second run through them fails at its first step with INVALID_ARGUMENT, and the first run\'s records stay whole', async () => {
  const { generateText } = await import('ai');
  const { MockLanguageModelV4 } = await import('ai/test');
  const { JsonlSink, TrajectoryRecorder } = await import('agent-trajectories');
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({ content: [{ type: 'text', text: 'Hello.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }, warnings: [] }),
  });
  const sink = new JsonlSink();
  const settings = observeAISdk({ recorder: new TrajectoryRecorder(sink, { runId: 'once' }) });
  assert.equal((await generateText({ model, prompt: 'hi', ...settings })).text, 'Hello.');
  const first = sink.lines();
  await assert.rejects(generateText({ model, prompt: 'hi again', ...settings }), (e) => {
    assert.equal(e.code, 'INVALID_ARGUMENT');
    assert.match(e.message, /observeAISdk: these settings already observed a run; call observeAISdk\(\) once per run/);
    return true;
  });
  assert.deepEqual(sink.lines(), first);
  assert.deepEqual(kinds(first), ['run_started', 'turn_started', 'message_appended', 'provider_request_prepared', 'message_appended', 'custom', 'turn_ended', 'run_ended']);
  const opening = parseTrajectoryJsonl(first.join('\n'))[2].payload;
  assert.deepEqual(opening.message, { role: 'user', content: 'hi' }, 'the user\'s words open the first turn');
});

test('a recorder that already holds records still gets run_started and run_ended; budget: limits are recorded for the index and viewer; each step is a turn with its tokens', async () => {
  const { generateText, tool, stepCountIs } = await import('ai');
  const { MockLanguageModelV4 } = await import('ai/test');
  const { z } = await import('zod');
  let n = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async () => (n++ === 0
      ? { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'look', input: '{"q":"x"}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 10 }, outputTokens: { total: 2 } }, warnings: [] }
      : { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 20 }, outputTokens: { total: 3 } }, warnings: [] }),
  });
  const sink = new JsonlSink();
  const recorder = new TrajectoryRecorder(sink);
  recorder.record({ kind: 'custom', name: 'note', data: { by: 'the caller, before the loop' } });
  const tools = { look: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'found' }) };
  const r = await generateText({ model, prompt: 'go', tools, stopWhen: stepCountIs(5), ...observeAISdk({ recorder, budget: { maxTokens: 100, maxToolCalls: 4 } }) });
  assert.equal(r.text, 'Done.');
  const records = parseTrajectoryJsonl(sink.lines().join('\n'));
  const k = records.map((x) => x.payload.kind);
  assert.deepEqual(k.filter((x) => x === 'run_started' || x === 'run_ended'), ['run_started', 'run_ended'], 'run_started once, run_ended at the end');
  assert.equal(k[0], 'custom', 'the caller\'s record stays first');
  assert.deepEqual(records[2].payload, { kind: 'custom', name: 'budget', data: { maxTokens: 100, maxToolCalls: 4 } });
  assert.deepEqual(records.at(-1).payload.outcome, { status: 'completed', reason: 'stop', verdict: 'pass' });
  const index = TrajectoryIndex.fromJsonl(sink.lines().join('\n'));
  assert.deepEqual(index.errors(), []);
  const [run] = index.runs().filter((x) => x.turns > 0);
  assert.equal(run.turns, 2);
  assert.deepEqual(index.turns(run.runId).map((t) => [t.toolCalls, t.tokens]), [[1, 12], [0, 23]]);
  const budget = index.budget(run.runId);
  assert.deepEqual([budget.limits.tokens, budget.limits.toolCalls], [100, 4]);
  assert.deepEqual(budget.turns.map((t) => [t.tokens, t.toolCalls]), [[12, 1], [23, 0]]);
});

test('a loop cut short by a step limit (stepCountIs) while the model still asks for tools is stopped, not a pass; a prepareStep that throws is written into run_ended', async () => {
  const { generateText, tool, stepCountIs } = await import('ai');
  const { MockLanguageModelV4 } = await import('ai/test');
  const { z } = await import('zod');
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({ content: [{ type: 'tool-call', toolCallId: `c${Math.random()}`, toolName: 'look', input: '{"q":"x"}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }, warnings: [] }),
  });
  const tools = { look: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'more' }) };
  const sink = new JsonlSink();
  await generateText({ model, prompt: 'go', tools, stopWhen: stepCountIs(2), ...observeAISdk({ recorder: new TrajectoryRecorder(sink) }) });
  const end = parseTrajectoryJsonl(sink.lines().join('\n')).at(-1).payload.outcome;
  assert.deepEqual([end.status, end.reason, end.verdict], ['stopped', 'tool-calls', 'agent']);
  assert.match(end.message, /still asked for tools/);

  const failing = new JsonlSink();
  const settings = observeAISdk({ recorder: new TrajectoryRecorder(failing), prepareStep: ({ stepNumber }) => { if (stepNumber === 1) throw new RangeError('my prepare broke'); } });
  await assert.rejects(generateText({ model, prompt: 'go', tools, stopWhen: stepCountIs(3), ...settings }), (e) => e.code === 'CALLBACK_FAILED' && e.cause instanceof RangeError);
  const records = parseTrajectoryJsonl(failing.lines().join('\n'));
  assert.deepEqual([records.at(-1).payload.kind, records.at(-1).payload.outcome.status, records.at(-1).payload.outcome.verdict], ['run_ended', 'error', 'harness']);
  assert.match(records.at(-1).payload.outcome.message, /your prepareStep threw: my prepare broke/);
});

test('your stopWhen throwing fails the loop as your other callbacks do: CALLBACK_FAILED, your error as cause, written into run_ended', async () => {
  const { generateText, tool } = await import('ai');
  const { MockLanguageModelV4 } = await import('ai/test');
  const { z } = await import('zod');
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({ content: [{ type: 'tool-call', toolCallId: `s${Math.random()}`, toolName: 'look', input: '{"q":"x"}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }, warnings: [] }),
  });
  const sink = new JsonlSink();
  const tools = { look: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'more' }) };
  await assert.rejects(generateText({ model, prompt: 'go', tools, ...observeAISdk({ recorder: new TrajectoryRecorder(sink), stopWhen: () => { throw new TypeError('my stop broke'); } }) }),
    (e) => e.code === 'CALLBACK_FAILED' && e.cause instanceof TypeError && /your stopWhen threw: my stop broke/.test(e.message));
  const end = parseTrajectoryJsonl(sink.lines().join('\n')).at(-1).payload;
  assert.deepEqual([end.kind, end.outcome.status, end.outcome.verdict], ['run_ended', 'error', 'harness']);
});

test('streamText ended by its signal: run_ended says aborted, or error when its deadline passed; your onAbort is called after', async () => {
  const { streamText } = await import('ai');
  const { MockLanguageModelV4 } = await import('ai/test');
  // A model that answers nothing until the loop's signal fires.
  const hanging = new MockLanguageModelV4({
    doStream: ({ abortSignal }) => new Promise((_, reject) => abortSignal?.addEventListener('abort', () => reject(abortSignal.reason))),
  });
  const closed = () => {
    const stopped = new AbortController();
    setTimeout(() => stopped.abort(new Error('the user closed the tab')), 30);
    return stopped.signal;
  };
  for (const [signal, status, verdict, message] of [
    [() => AbortSignal.timeout(30), 'error', 'agent', /^the loop's deadline passed: /],
    [closed, 'aborted', 'aborted', /^the user closed the tab$/],
  ]) {
    const sink = new MemorySink();
    const seen = [];
    const r = streamText({ model: hanging, prompt: 'Book a table.', abortSignal: signal(), ...observeAISdk({ recorder: new TrajectoryRecorder(sink), onAbort: () => { seen.push(sink.records().at(-1)?.payload.kind); } }) });
    // (AbortSignal.timeout's timer does not keep Node alive: this does, while the stream waits for it.)
    const alive = setInterval(() => {}, 1000);
    await r.consumeStream().catch(() => {});
    clearInterval(alive);
    // The AI SDK calls onAbort on its own time: waited for, at most a second.
    for (let i = 0; i < 100 && !seen.length; i++) await new Promise((done) => setTimeout(done, 10));
    const end = sink.records().at(-1).payload;
    assert.equal(end.kind, 'run_ended', `${status}: the stream ends`);
    assert.deepEqual([end.outcome.status, end.outcome.verdict], [status, verdict]);
    assert.match(end.outcome.message, message);
    assert.deepEqual(seen, ['run_ended'], 'yours, after run_ended');
  }
});
