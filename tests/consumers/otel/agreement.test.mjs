// One stream from each producer (a generated run, a background run, an AI
// SDK loop, a Mastra agent, the middleware), read by every consumer: the
// index (runs, turns, budget), the viewer's words for the end, the spans
// exportSpans makes and, for the generated run, summarize(). They must agree
// on turns, tool calls, failed calls, tokens and the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { generateText, wrapLanguageModel, tool, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import {
  JsonlSink, MemorySink, TrajectoryRecorder, TrajectoryIndex, parseTrajectoryJsonl, createTrajectory, runTrajectory, summarize,
  observeAISdk, observeMastra, trajectoryMiddleware, BackgroundAgentRunner, serializeTrajectoryJsonl,
} from 'agent-trajectories';
import { exportSpans } from 'agent-trajectories/otel';
import { outcomeOf } from '../../../www/util.js';
import { repeatingModel } from '../mastra/model.mjs';

const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = createRequire(import.meta.url)('@opentelemetry/sdk-trace-base');
const clock = () => 1_700_000_000_000;
const usage = (i, o) => ({ inputTokens: { total: i }, outputTokens: { total: o } });

/** A model that calls `look` (ok), then `book` (fails), then answers. */
const aiModel = () => {
  let n = 0;
  const answers = [
    { content: [{ type: 'tool-call', toolCallId: 'a1', toolName: 'look', input: '{"q":"tables"}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(10, 2), warnings: [] },
    { content: [{ type: 'tool-call', toolCallId: 'a2', toolName: 'book', input: '{"q":"8pm"}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(20, 3), warnings: [] },
    { content: [{ type: 'text', text: 'Could not book.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(30, 4), warnings: [] },
  ];
  return new MockLanguageModelV4({ doGenerate: async () => answers[Math.min(n++, 2)] });
};
const aiTools = () => ({
  look: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'two tables' }),
  book: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => { throw new Error('fully booked'); } }),
});

const producers = {
  async generated() {
    const sink = new JsonlSink();
    let n = 0;
    const agent = {
      async respond() {
        n++;
        const fail = n === 2;
        return {
          messages: [
            { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `g${n}`, toolName: 'find', input: { n } }] },
            { role: 'tool', content: [{ type: 'tool-result', toolCallId: `g${n}`, toolName: 'find', output: fail ? { type: 'error-text', value: 'none left' } : { type: 'text', value: 'ok' } }] },
            { role: 'assistant', content: `reply ${n}` },
          ],
          usage: { inputTokens: 100, outputTokens: 20 },
        };
      },
    };
    const userModel = async () => ({ text: 'go on', usage: { inputTokens: 5, outputTokens: 2 } });
    const result = await runTrajectory(createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 3 }, agent), { userModel, clock, sink });
    return { lines: sink.lines(), result, expect: { turns: 3, toolCalls: 3, failedCalls: 1, tokens: 3 * 127, reason: 'max-turns', status: 'stopped', verdict: 'agent' } };
  },
  async background() {
    const sink = new MemorySink();
    let n = 0;
    const model = async (req) => {
      if (req.purpose === 'summarize') return { text: 'Booked nothing.', usage: { inputTokens: 7, outputTokens: 1 } };
      n++;
      const answer = n === 1 ? { toolCalls: [{ toolName: 'write_file', input: { path: 'notes.md', content: 'x' } }] }
        : n === 2 ? { toolCalls: [{ toolName: 'read_file', input: { path: 'missing.md' } }] }
          : { toolCalls: [{ toolName: 'finish', input: { status: 'completed', summary: 'done' } }] };
      return { ...answer, usage: { inputTokens: 50, outputTokens: 5 } };
    };
    await new BackgroundAgentRunner({ model, clock, sink, config: { enableReflection: false } }).run('take notes');
    return { lines: serializeTrajectoryJsonl(sink.records()).trimEnd().split('\n'), expect: { turns: 3, toolCalls: 3, failedCalls: 1, tokens: 3 * 55, reason: 'model-completed', status: 'completed', verdict: 'pass' } };
  },
  async aiSdk() {
    const sink = new JsonlSink();
    const r = await generateText({ model: aiModel(), prompt: 'book', tools: aiTools(), stopWhen: stepCountIs(5), ...observeAISdk({ recorder: new TrajectoryRecorder(sink, { runId: 'ai', clock }) }) });
    assert.equal(r.text, 'Could not book.');
    return { lines: sink.lines(), expect: { turns: 3, toolCalls: 2, failedCalls: 1, tokens: 12 + 23 + 34, reason: 'stop', status: 'completed', verdict: 'pass' } };
  },
  async middleware() {
    const sink = new JsonlSink();
    const model = wrapLanguageModel({ model: aiModel(), middleware: trajectoryMiddleware({ recorder: new TrajectoryRecorder(sink, { runId: 'mw', clock }) }) });
    await generateText({ model, prompt: 'book', tools: aiTools(), stopWhen: stepCountIs(5) });
    // The middleware sees model calls only: no tool records, no run end.
    return { lines: sink.lines(), expect: { turns: 3, toolCalls: 0, failedCalls: 0, tokens: 12 + 23 + 34, reason: null, status: null, verdict: null } };
  },
  async mastra() {
    const sink = new JsonlSink();
    const book = createTool({ id: 'book', description: 'Book a table', inputSchema: z.object({ city: z.string() }), execute: async () => { throw new Error('no tables in Lisbon'); } });
    const agent = new Agent({ id: 'booker', name: 'booker', instructions: 'Book tables.', model: repeatingModel([], 3), tools: { book } });
    await agent.generate('book in Lisbon', observeMastra({ recorder: new TrajectoryRecorder(sink, { runId: 'mastra', clock }) }));
    return { lines: sink.lines(), expect: { turns: 3, toolCalls: 2, failedCalls: 2, tokens: 3 * 14, reason: 'stop', status: 'completed', verdict: 'pass' } };
  },
};

/** What the spans say: chat spans (one per turn), tool calls, failed ones, the turns' tokens, the run's end. */
function spansSay(records) {
  const exporter = new InMemorySpanExporter();
  exportSpans(records, { tracer: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('t') });
  const spans = exporter.getFinishedSpans();
  const op = (name) => spans.filter((sp) => sp.attributes['gen_ai.operation.name'] === name);
  const root = op('invoke_agent')[0];
  return {
    turns: op('chat').length,
    toolCalls: op('execute_tool').length,
    failedCalls: op('execute_tool').filter((sp) => sp.status.code === 2).length,
    tokens: op('chat').reduce((n, sp) => n + (sp.attributes['agent_trajectories.turn.tokens'] ?? 0), 0),
    reason: root.attributes['agent_trajectories.stop_reason'] ?? null,
    verdict: root.attributes['agent_trajectories.verdict'] ?? null,
    failed: root.status.code === 2,
  };
}

for (const [name, produce] of Object.entries(producers)) {
  test(`${name}: the index, the viewer, the spans${name === 'generated' ? ' and summarize' : ''} agree on turns, calls, failures, tokens and the end`, async () => {
    const { lines, result, expect } = await produce();
    const records = parseTrajectoryJsonl(lines.join('\n'));
    const index = TrajectoryIndex.fromJsonl(lines.join('\n'));
    assert.deepEqual(index.errors(), [], 'the stream reads whole');
    const run = index.runs().find((r) => r.turns > 0);
    const turns = index.turns(run.runId);
    const budget = index.budget(run.runId);
    const said = {
      turns: run.turns,
      toolCalls: run.toolCalls,
      failedCalls: run.failedCalls,
      tokens: budget.turns.reduce((n, t) => n + t.tokens, 0),
      reason: run.outcome?.reason ?? null,
      status: run.outcome?.status ?? null,
      verdict: run.outcome?.verdict ?? null,
    };
    assert.deepEqual(said, expect, 'the index says what happened');
    assert.equal(turns.reduce((n, t) => n + t.tokens, 0), said.tokens, 'turns() and budget() agree');
    assert.equal(turns.reduce((n, t) => n + t.toolCalls, 0), said.toolCalls, 'the turns hold every call');
    const spans = spansSay(records);
    assert.deepEqual(
      { turns: spans.turns, toolCalls: spans.toolCalls, failedCalls: spans.failedCalls, tokens: spans.tokens, reason: spans.reason, verdict: spans.verdict },
      { turns: said.turns, toolCalls: said.toolCalls, failedCalls: said.failedCalls, tokens: said.tokens, reason: said.reason, verdict: said.verdict },
      'the spans say the same',
    );
    if (run.outcome) {
      const viewer = outcomeOf(run.outcome);
      assert.equal(viewer.ok, said.verdict === 'pass', `the viewer colours it by its verdict (${viewer.text})`);
      assert.equal(spans.failed, said.verdict !== 'pass', 'the run span is an error exactly when the run did not pass');
    }
    if (result) {
      const text = summarize(result);
      assert.ok(text.includes(`${said.turns} turns`) && text.includes(said.reason), text);
      assert.equal(result.steps.reduce((n, s) => n + (s.tokens ?? 0), 0), said.tokens, 'the traces\' tokens');
      assert.deepEqual([result.end.reason, result.end.verdict, result.end.completed], [said.reason, said.verdict, said.status === 'completed']);
    }
    index.free();
  });
}
