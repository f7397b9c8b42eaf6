// agent-trajectories/otel against the real OpenTelemetry JS SDK's in-memory
// exporter: spans.ts is compiled by `tsc --strict`, then its spans checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { trace } from '@opentelemetry/api';
import { exportSpans, spanSink } from 'agent-trajectories/otel';

const dir = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const built = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });

test('spans.ts compiles under tsc --strict with the real OpenTelemetry SDK types', () => {
  assert.equal(built.status, 0, `tsc failed:\n${built.stdout}${built.stderr}`);
});
const s = built.status === 0 ? await import(pathToFileURL(`${dir}.out/spans.js`).href) : null;

const ms = (hr) => hr[0] * 1e3 + hr[1] / 1e6;
/** The span tree as indented lines: name [status] {attributes picked}. */
function tree(spans, pick = []) {
  const byParent = new Map();
  for (const sp of spans) {
    const parent = sp.parentSpanContext?.spanId ?? '';
    byParent.set(parent, [...(byParent.get(parent) ?? []), sp]);
  }
  const ids = new Set(spans.map((sp) => sp.spanContext().spanId));
  const roots = spans.filter((sp) => !ids.has(sp.parentSpanContext?.spanId ?? ''));
  const lines = [];
  const walk = (sp, depth) => {
    const attrs = pick.filter((k) => sp.attributes[k] !== undefined).map((k) => `${k}=${JSON.stringify(sp.attributes[k])}`);
    lines.push(`${'  '.repeat(depth)}${sp.name}${sp.status.code === 2 ? ' [ERROR]' : ''}${attrs.length ? ` {${attrs.join(', ')}}` : ''}`);
    for (const c of (byParent.get(sp.spanContext().spanId) ?? []).sort((a, b) => ms(a.startTime) - ms(b.startTime))) walk(c, depth + 1);
  };
  roots.forEach((r) => walk(r, 0));
  return lines;
}

test('a generated run: invoke_agent > chat per turn + execute_tool per call, GenAI attributes, times from the records; live equals offline', { skip: !s }, async (t) => {
  const { records, offline, live } = await s.generatedRun();
  const lines = tree(offline, ['gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.call.id']);
  t.diagnostic(`report: span tree of a generated run:\n${lines.join('\n')}`);
  const root = offline.filter((sp) => sp.name.startsWith('invoke_agent'));
  assert.equal(root.length, 1);
  assert.equal(root[0].attributes['gen_ai.operation.name'], 'invoke_agent');
  assert.equal(root[0].attributes['gen_ai.conversation.id'], records[0].run_id);
  const chats = offline.filter((sp) => sp.attributes['gen_ai.operation.name'] === 'chat');
  const tools = offline.filter((sp) => sp.attributes['gen_ai.operation.name'] === 'execute_tool');
  const count = (kind) => records.filter((r) => r.payload.kind === kind).length;
  assert.ok(count('turn_started') >= 1 && count('tool_started') >= 1);
  assert.equal(chats.length, count('turn_started'), 'one chat span per turn');
  assert.equal(tools.length, count('tool_started'), 'one execute_tool span per call');
  for (const sp of [...chats, ...tools]) assert.equal(sp.parentSpanContext?.spanId, root[0].spanContext().spanId);
  assert.equal(tools[0].name, 'execute_tool find_table');
  assert.equal(tools[0].attributes['gen_ai.tool.type'], 'function');
  // The tool's own result (the agent's output { type: 'text', value }), as for a run the AI SDK capture recorded.
  assert.equal(tools[0].attributes['gen_ai.tool.call.result'], 'none left', 'content: true puts results on the span');
  assert.equal(ms(root[0].startTime), records[0].recorded_at_unix_ms);
  assert.equal(ms(root[0].endTime), records.at(-1).recorded_at_unix_ms);
  const started = records.find((r) => r.payload.kind === 'tool_started');
  assert.equal(ms(tools[0].startTime), started.recorded_at_unix_ms);
  assert.deepEqual(tree(live), tree(offline), 'the live spans have the offline tree');
  assert.equal(live.find((sp) => sp.attributes['gen_ai.operation.name'] === 'execute_tool').attributes['gen_ai.tool.call.result'], undefined, 'no content by default');
});

test('child runs are child spans of the tool call that started them; errors are span status', { skip: !s }, () => {
  const spans = s.childRun();
  assert.deepEqual(tree(spans), [
    'invoke_agent planner',
    '  execute_tool delegate',
    '    invoke_agent searcher [ERROR]',
    '      execute_tool search [ERROR]',
  ]);
  const child = spans.find((sp) => sp.name === 'invoke_agent searcher');
  assert.equal(child.attributes['error.type'], 'CALLBACK_FAILED');
  assert.equal(child.status.message, 'search failed');
  assert.equal(child.attributes['gen_ai.request.model'], 'm-1');
  assert.equal(spans.find((sp) => sp.name === 'execute_tool search').attributes['error.type'], 'tool_error');
});

test('judgements and findings are gen_ai.evaluation.result events on the span they evaluate: a turn\'s, or the run\'s for the final judgement', { skip: !s }, async (t) => {
  const { records, spans, live } = await s.judgedRun();
  const run = spans.find((sp) => sp.name.startsWith('invoke_agent'));
  const turnSpan = (n) => spans.find((sp) => sp.attributes['gen_ai.operation.name'] === 'chat' && sp.attributes['agent_trajectories.turn'] === n);
  const judgements = records.filter((r) => r.payload.kind === 'custom' && r.payload.name === 'judgement').map((r) => r.payload.data);
  const findings = records.filter((r) => r.payload.kind === 'assessment_produced').map((r) => r.payload);
  // The run has each case: a finding, a turn's judgement with pass, fail and inconclusive, and a final one the judge could not read.
  const verdicts = new Set(judgements.flatMap((j) => j.criteria.map((c) => c.verdict)));
  assert.deepEqual([...verdicts].sort(), ['fail', 'inconclusive', 'pass']);
  // Each shown in a turn; the last turn's, shown to no call, in none (on the run's span).
  assert.ok(findings.length >= 2 && findings.slice(0, -1).every((f) => Number.isSafeInteger(f.turn_index)) && findings.at(-1).turn_index === undefined, 'the stall observer reported');
  assert.deepEqual(judgements.map((j) => j.final), [false, false, false, true]);
  assert.equal(typeof judgements.at(-1).error?.code, 'string', 'the final answer could not be read');
  const ev = (sp) => sp.events.filter((e) => e.name === 'gen_ai.evaluation.result').map((e) => e.attributes);
  /** What the conventions' event says of one criterion or finding. */
  const expected = [];
  for (const j of judgements) {
    const span = j.final ? run : turnSpan(j.turn);
    assert.ok(span, `turn ${j.turn} has a span`);
    for (const c of j.criteria) {
      expected.push([span, {
        'gen_ai.evaluation.name': c.name, 'gen_ai.evaluation.score.label': c.verdict,
        // pass 1, fail 0, inconclusive: no number.
        ...(c.verdict === 'inconclusive' ? {} : { 'gen_ai.evaluation.score.value': c.verdict === 'pass' ? 1 : 0 }),
        'gen_ai.evaluation.explanation': c.reasoning, ...(j.error ? { 'error.type': j.error.code } : {}),
      }]);
    }
  }
  for (const f of findings) {
    expected.push([f.turn_index === undefined ? run : turnSpan(f.turn_index), { 'gen_ai.evaluation.name': f.assessment.observerName, 'gen_ai.evaluation.score.label': f.assessment.severity, 'gen_ai.evaluation.explanation': f.assessment.summary, 'agent_trajectories.call_index': f.call_index }]);
  }
  for (const sp of spans) {
    const mine = expected.filter(([x]) => x === sp).map(([, a]) => a);
    assert.deepEqual(ev(sp).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))), mine.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))), `the evaluations on ${sp.name} ${sp.attributes['agent_trajectories.turn'] ?? ''}`);
  }
  t.diagnostic(`report: ${expected.length} evaluation events: ${spans.map((sp) => `${sp.name}${sp.attributes['agent_trajectories.turn'] ?? ''}: ${ev(sp).length}`).join(', ')}`);
  assert.equal(spans.flatMap((sp) => sp.events).filter((e) => e.name === 'agent_trajectories.assessment').length, 0, 'the old assessment event is gone (the evaluation event says the same)');
  // The judgement of turn 0 came after its turn_ended (and the judge's usage after that): the turn's span still ends at turn_ended.
  const ended = records.filter((r) => r.payload.kind === 'turn_ended');
  for (const r of ended) assert.equal(ms(turnSpan(r.payload.turn_index).endTime), r.recorded_at_unix_ms);
  const at = records.find((r) => r.payload.kind === 'custom' && r.payload.name === 'judgement');
  assert.deepEqual(turnSpan(0).events.map((e) => ms(e.time)), [at.recorded_at_unix_ms, at.recorded_at_unix_ms], 'at the judgement\'s time');
  // Live, the same events on the same spans.
  const evTree = (list) => list.map((sp) => [sp.name, sp.attributes['agent_trajectories.turn'], ev(sp)]).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  assert.deepEqual(evTree(live), evTree(spans));
});

test('observeAISdk records: chat spans per model call with usage; a finding outside a turn is an evaluation event on the run span', async () => {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = createRequire(import.meta.url)('@opentelemetry/sdk-trace-base');
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('t');
  const r = (seq, ms, payload) => ({ schema_version: 1, seq, run_id: 'r', depth: 0, recorded_at_unix_ms: ms, payload });
  exportSpans([
    r(0, 10, { kind: 'run_started', identity: { run_id: 'r', agent: 'ai-sdk', model_id: 'gpt-x' } }),
    r(1, 11, { kind: 'provider_request_prepared', iteration: 0, model_id: 'gpt-x', system_prompt_chars: 3, message_count: 1, tool_count: 1 }),
    r(2, 15, { kind: 'message_appended', message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'book', input: {} }] } }),
    r(3, 15, { kind: 'custom', name: 'model_usage', data: { input_tokens: 10, output_tokens: 4, finish_reason: 'tool-calls' } }),
    r(4, 16, { kind: 'tool_started', tool_call_id: 'a', tool_name: 'book', args: {} }),
    r(5, 18, { kind: 'tool_ended', tool_call_id: 'a', tool_name: 'book', result: 'no', is_error: true }),
    r(6, 18, { kind: 'assessment_produced', call_index: 1, assessment: { observerName: 'Stall', summary: 'stuck', severity: 'warning' } }),
    r(7, 20, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stopped-on-warning' } }),
  ], { tracer });
  const spans = exporter.getFinishedSpans();
  const chat = spans.find((sp) => sp.name === 'chat gpt-x');
  assert.equal(chat.attributes['gen_ai.usage.input_tokens'], 10);
  assert.equal(chat.attributes['gen_ai.usage.output_tokens'], 4);
  assert.deepEqual(chat.attributes['gen_ai.response.finish_reasons'], ['tool-calls']);
  assert.equal(chat.kind, 2, 'CLIENT');
  assert.deepEqual([ms(chat.startTime), ms(chat.endTime)], [11, 15]);
  const agent = spans.find((sp) => sp.name === 'invoke_agent ai-sdk');
  assert.equal(agent.events[0].name, 'gen_ai.evaluation.result');
  assert.deepEqual(agent.events[0].attributes, { 'gen_ai.evaluation.name': 'Stall', 'gen_ai.evaluation.score.label': 'warning', 'gen_ai.evaluation.explanation': 'stuck', 'agent_trajectories.call_index': 1 });
  assert.equal(agent.attributes['agent_trajectories.stop_reason'], 'stopped-on-warning');
});

const memoryTracer = () => {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = createRequire(import.meta.url)('@opentelemetry/sdk-trace-base');
  const exporter = new InMemorySpanExporter();
  return { exporter, tracer: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('t') };
};
const rec = (seq, at, payload, run = 'r') => ({ schema_version: 1, seq, run_id: run, depth: 0, recorded_at_unix_ms: at, payload });

test('a generated turn: its chat span carries the agent\'s usage (not the simulated user\'s or the ranker\'s) and lasts to turn_ended, its answer kept', () => {
  const { exporter, tracer } = memoryTracer();
  const answer = { role: 'assistant', content: 'A table for two at eight.' };
  exportSpans([
    rec(0, 10, { kind: 'run_started', identity: { run_id: 'r', agent: 'booker' } }),
    rec(1, 11, { kind: 'turn_started', turn_index: 0 }),
    rec(2, 12, { kind: 'custom', name: 'model_usage', data: { source: 'user-simulator', inputTokens: 50, outputTokens: 9, totalTokens: 59 } }),
    rec(3, 13, { kind: 'message_appended', message: { role: 'user', content: 'a table please' } }),
    rec(4, 16, { kind: 'custom', name: 'model_usage', data: { source: 'agent', inputTokens: 120, outputTokens: 30, totalTokens: 150 } }),
    rec(5, 17, { kind: 'turn_ended', turn_index: 0, assistant: answer, tool_results: [] }),
    rec(6, 18, { kind: 'run_ended', outcome: { status: 'stopped', reason: 'max-turns', verdict: 'agent', message: 'reached maxTurns (1)' } }),
  ], { tracer, content: true });
  const spans = exporter.getFinishedSpans();
  const chat = spans.find((sp) => sp.attributes['gen_ai.operation.name'] === 'chat');
  assert.equal(chat.attributes['gen_ai.usage.input_tokens'], 120);
  assert.equal(chat.attributes['gen_ai.usage.output_tokens'], 30);
  assert.deepEqual([ms(chat.startTime), ms(chat.endTime)], [11, 17], 'the turn\'s span ends at turn_ended, not at the first usage');
  assert.equal(chat.attributes['gen_ai.output.messages'], JSON.stringify([answer]));
  const run = spans.find((sp) => sp.name === 'invoke_agent booker');
  assert.equal(run.attributes['agent_trajectories.tokens'], 59 + 150, 'the run span carries every model call\'s tokens');
  assert.equal(run.status.code, 2, 'a run stopped before its goal is an ERROR span');
  assert.equal(run.status.message, 'reached maxTurns (1)');
  assert.equal(run.attributes['agent_trajectories.verdict'], 'agent');
});

test('a fork (parent_run_id at depth 0) is a trace of its own; a child run (depth 1) nests in its parent', () => {
  const { exporter, tracer } = memoryTracer();
  const of = (r, parent, depth) => ({ ...r, parent_run_id: parent, depth });
  exportSpans([
    rec(0, 10, { kind: 'run_started', identity: { run_id: 'p', agent: 'parent' } }, 'p'),
    of(rec(0, 11, { kind: 'run_started', identity: { run_id: 'kid', agent: 'kid', parent_run_id: 'p' } }, 'kid'), 'p', 1),
    of(rec(1, 12, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop' } }, 'kid'), 'p', 1),
    rec(1, 13, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop' } }, 'p'),
    of(rec(0, 20, { kind: 'run_started', identity: { run_id: 'p-fork', agent: 'fork', parent_run_id: 'p' } }, 'p-fork'), 'p', 0),
    of(rec(1, 21, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop' } }, 'p-fork'), 'p', 0),
  ], { tracer });
  assert.deepEqual(tree(exporter.getFinishedSpans()), ['invoke_agent parent', '  invoke_agent kid', 'invoke_agent fork']);
});

test('records before a late run id (a recorder given no runId) are that run\'s span, as the core groups them', () => {
  const { exporter, tracer } = memoryTracer();
  const unnamed = (seq, at, payload) => { const r = rec(seq, at, payload); delete r.run_id; return r; };
  exportSpans([
    unnamed(0, 10, { kind: 'custom', name: 'setup', data: 1 }),
    rec(1, 11, { kind: 'run_started', identity: { run_id: 'late', agent: 'late-agent', model_id: 'm' } }, 'late'),
    rec(2, 12, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop' } }, 'late'),
  ], { tracer });
  const spans = exporter.getFinishedSpans();
  assert.deepEqual(tree(spans, ['gen_ai.conversation.id', 'gen_ai.request.model']), ['invoke_agent late-agent {gen_ai.conversation.id="late", gen_ai.request.model="m"}']);
  assert.equal(ms(spans[0].startTime), 10, 'from its first record');
});

test('an integration step (turn_started, then provider_request_prepared) is one chat span with the request\'s model and the step\'s usage', () => {
  const { exporter, tracer } = memoryTracer();
  exportSpans([
    rec(0, 10, { kind: 'run_started', identity: { run_id: 'r', agent: 'ai-sdk' } }),
    rec(1, 11, { kind: 'turn_started', turn_index: 0 }),
    rec(2, 11, { kind: 'provider_request_prepared', iteration: 0, model_id: 'gpt-x', system_prompt_chars: 3, message_count: 1, tool_count: 0 }),
    rec(3, 14, { kind: 'message_appended', message: { role: 'assistant', content: 'hi' } }),
    rec(4, 14, { kind: 'custom', name: 'model_usage', data: { inputTokens: 10, outputTokens: 4, totalTokens: 14, finishReason: 'stop' } }),
    rec(5, 14, { kind: 'turn_ended', turn_index: 0, assistant: { role: 'assistant', content: 'hi' }, tool_results: [] }),
    rec(6, 15, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop', verdict: 'pass' } }),
  ], { tracer });
  const chats = exporter.getFinishedSpans().filter((sp) => sp.attributes['gen_ai.operation.name'] === 'chat');
  assert.equal(chats.length, 1);
  assert.equal(chats[0].name, 'chat gpt-x');
  assert.deepEqual([chats[0].attributes['gen_ai.usage.input_tokens'], chats[0].attributes['gen_ai.usage.output_tokens']], [10, 4]);
  assert.deepEqual(chats[0].attributes['gen_ai.response.finish_reasons'], ['stop']);
  assert.equal(exporter.getFinishedSpans().find((sp) => sp.name === 'invoke_agent ai-sdk').status.code, 0, 'a passed run is not an error');
});

test('evaluations without a turn of their own: a finding inside an open turn goes on it; a judgement of no turn, or of a turn with no span, on the run', () => {
  const { exporter, tracer } = memoryTracer();
  const judgement = (turn, verdict) => ({ kind: 'custom', name: 'judgement', data: { verdict, criteria: [{ name: 'c', verdict, reasoning: `turn ${turn}` }], turn, final: false, attempts: 1, message: '' } });
  exportSpans([
    rec(0, 10, { kind: 'run_started', identity: { run_id: 'r', agent: 'ai-sdk' } }),
    rec(1, 11, { kind: 'turn_started', turn_index: 0 }),
    rec(2, 12, { kind: 'assessment_produced', call_index: 3, assessment: { observerName: 'Loop', summary: 'again', severity: 'caution' } }),
    rec(3, 13, { kind: 'turn_ended', turn_index: 0, assistant: { role: 'assistant', content: 'hi' }, tool_results: [] }),
    rec(4, 14, judgement(0, 'pass')),
    rec(5, 15, judgement(7, 'fail')),
    rec(6, 16, judgement(null, 'inconclusive')),
    rec(7, 17, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop', verdict: 'pass' } }),
  ], { tracer });
  const spans = exporter.getFinishedSpans();
  const says = (sp) => sp.events.map((e) => `${e.attributes['gen_ai.evaluation.name']} ${e.attributes['gen_ai.evaluation.score.label']} ${e.attributes['gen_ai.evaluation.score.value'] ?? '-'} ${e.attributes['gen_ai.evaluation.explanation']}`);
  assert.deepEqual(says(spans.find((sp) => sp.name === 'chat')), ['Loop caution - again', 'c pass 1 turn 0']);
  assert.deepEqual(says(spans.find((sp) => sp.name === 'invoke_agent ai-sdk')), ['c fail 0 turn 7', 'c inconclusive - turn null']);
});

test('records out of order are refused with a code; a tool_ended without its tool_started is an ERROR span; spanSink refuses records after end()', () => {
  const { exporter, tracer } = memoryTracer();
  const out = [rec(0, 10, { kind: 'run_started', identity: { run_id: 'r' } }), rec(2, 12, { kind: 'turn_started', turn_index: 0 }), rec(1, 11, { kind: 'turn_started', turn_index: 1 })];
  assert.throws(() => exportSpans(out, { tracer }), (e) => e.code === 'SEQ_GAP' && /record 2: run "r" repeats or goes back to seq 1 after seq 2/.test(e.message));
  // A hole (a lost record) still exports, and the run span says which seqs are missing.
  exportSpans([rec(0, 10, { kind: 'run_started', identity: { run_id: 'h', agent: 'holey' } }, 'h'), rec(3, 13, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop' } }, 'h')], { tracer });
  const holey = exporter.getFinishedSpans().find((sp) => sp.name === 'invoke_agent holey');
  assert.deepEqual(holey.events.map((e) => [e.name, e.attributes.from_seq, e.attributes.to_seq]), [['agent_trajectories.records_missing', 1, 2]]);
  // A stream that stops short (no tool_ended, no run_ended) is an error, never spans that look fine.
  exportSpans([rec(0, 10, { kind: 'run_started', identity: { run_id: 'cut', agent: 'cut' } }, 'cut'), rec(1, 11, { kind: 'tool_started', tool_call_id: 'k', tool_name: 'book', args: {} }, 'cut')], { tracer });
  const cut = exporter.getFinishedSpans().find((sp) => sp.name === 'invoke_agent cut');
  assert.deepEqual([cut.status.code, cut.status.message], [2, 'the records end without run_ended']);
  // Records with neither end (a capture-only middleware's) say nothing of how the run went.
  exportSpans([rec(0, 10, { kind: 'turn_started', turn_index: 0 }, 'mw'), rec(1, 11, { kind: 'turn_ended', assistant: { role: 'assistant', content: 'hi' }, tool_results: [] }, 'mw')], { tracer });
  const mw = exporter.getFinishedSpans().filter((sp) => sp.name === 'invoke_agent agent').at(-1);
  assert.equal(mw.status.code, 0, 'unset');
  const open = exporter.getFinishedSpans().filter((sp) => sp.name === 'execute_tool book').at(-1);
  assert.deepEqual([open.status.code, open.status.message], [2, 'the records end before this call did (no tool_ended)']);
  exportSpans([
    rec(0, 10, { kind: 'run_started', identity: { run_id: 'lost', agent: 'a' } }, 'lost'),
    rec(1, 12, { kind: 'tool_ended', tool_call_id: 'c9', tool_name: 'search', result: 'ok', is_error: false }, 'lost'),
    rec(2, 13, { kind: 'run_ended', outcome: { status: 'completed', reason: 'stop' } }, 'lost'),
  ], { tracer });
  // An aborted run did not pass either; a turn the run ended inside with an error failed with it.
  exportSpans([
    rec(0, 10, { kind: 'run_started', identity: { run_id: 'ab', agent: 'ab' } }, 'ab'),
    rec(1, 11, { kind: 'run_ended', outcome: { status: 'aborted', reason: 'aborted', verdict: 'aborted' } }, 'ab'),
    rec(0, 10, { kind: 'run_started', identity: { run_id: 'er', agent: 'er' } }, 'er'),
    rec(1, 11, { kind: 'turn_started', turn_index: 0 }, 'er'),
    rec(2, 12, { kind: 'run_ended', outcome: { status: 'error', reason: 'error', message: 'agent failed: TIMEOUT', verdict: 'agent' } }, 'er'),
  ], { tracer });
  assert.equal(exporter.getFinishedSpans().find((sp) => sp.name === 'invoke_agent ab').status.code, 2);
  const failedTurn = exporter.getFinishedSpans().filter((sp) => sp.attributes['gen_ai.operation.name'] === 'chat').at(-1);
  assert.deepEqual([failedTurn.status.code, failedTurn.status.message], [2, 'agent failed: TIMEOUT']);
  const orphan = exporter.getFinishedSpans().find((sp) => sp.name === 'execute_tool search');
  assert.equal(orphan.status.code, 2);
  assert.match(orphan.status.message, /without its tool_started/);
  assert.equal(orphan.attributes['error.type'], 'missing_tool_started');
  const live = spanSink({ tracer });
  live.onRecord(rec(0, 10, { kind: 'run_started', identity: { run_id: 'x' } }, 'x'));
  live.end();
  assert.throws(() => live.onRecord(rec(1, 11, { kind: 'turn_started', turn_index: 0 }, 'x')), (e) => e.code === 'INVALID_ARGUMENT' && /after end\(\)/.test(e.message));
});

test('bad input: coded errors naming the option or the record', () => {
  const tracer = trace.getTracer('noop');
  assert.throws(() => exportSpans('{}', { tracer }), (e) => e.code === 'INVALID_ARGUMENT' && /records must be an array/.test(e.message));
  assert.throws(() => exportSpans([], {}), (e) => e.code === 'INVALID_ARGUMENT' && /options.tracer must be an OpenTelemetry Tracer/.test(e.message));
  assert.throws(() => exportSpans([], { tracr: tracer }), (e) => e.code === 'INVALID_ARGUMENT' && /unknown option "tracr"; did you mean "tracer"\? \(options: tracer, content\)/.test(e.message));
  assert.throws(() => exportSpans([{ seq: 0 }], { tracer }), (e) => e.code === 'INVALID_RECORD' && /record 0/.test(e.message));
  assert.throws(() => exportSpans([rec(-1, 10, { kind: 'run_started', identity: { run_id: 'r' } })], { tracer }), (e) => e.code === 'INVALID_RECORD' && e.message === 'record 0: seq must be a whole number (0 or more), got -1');
  // A misspelt kind is refused, as the parser and the sinks refuse it, not skipped.
  const slipped = [rec(0, 10, { kind: 'run_started', identity: { run_id: 'r' } }), rec(1, 11, { kind: 'tool_endd', tool_call_id: 'c', tool_name: 't', is_error: false })];
  assert.throws(() => exportSpans(slipped, { tracer }), (e) => e.code === 'INVALID_RECORD' && e.message === 'record 1: kind "tool_endd" is not a record kind (did you mean "tool_ended"?)');
  assert.throws(() => exportSpans([rec(0, 10, { kind: 'zzzz' })], { tracer }), (e) => e.code === 'INVALID_RECORD' && /^record 0: kind "zzzz" is not a record kind \(the kinds: run_started, /.test(e.message));
  assert.throws(() => spanSink({ tracer, content: 'yes' }), (e) => e.code === 'INVALID_ARGUMENT' && /content must be a boolean, got "yes"/.test(e.message));
  assert.throws(() => spanSink({ tracer, contnet: true }), (e) => e.code === 'INVALID_ARGUMENT' && /unknown option "contnet"; did you mean "content"\? \(options: tracer, content\)/.test(e.message));
});

test('a tracer that throws, or answers no span: CALLBACK_FAILED naming it, its own error the cause', () => {
  const started = [rec(0, 10, { kind: 'run_started', identity: { run_id: 'r' } })];
  const broken = new Error('otel broke');
  const throwing = { startSpan() { throw broken; } };
  assert.throws(() => exportSpans(started, { tracer: throwing }), (e) => e.code === 'CALLBACK_FAILED' && e.message === 'exportSpans(records, options): the tracer threw: otel broke' && e.cause === broken);
  assert.throws(() => spanSink({ tracer: throwing }).onRecord(started[0]), (e) => e.code === 'CALLBACK_FAILED' && /^spanSink: the tracer threw: otel broke/.test(e.message) && e.cause === broken);
  assert.throws(() => exportSpans(started, { tracer: { startSpan: () => 5 } }), (e) => e.code === 'CALLBACK_FAILED' && e.message === 'exportSpans(records, options): options.tracer.startSpan returned 5, not a span');
});

test('agent-trajectories/otel loads from require() too', () => {
  const m = createRequire(`${dir}x.cjs`)('agent-trajectories/otel');
  assert.equal(typeof m.exportSpans, 'function');
});
