// The integrations as an app runs them outside Node: an AI SDK tool loop
// with observeAISdk and trajectoryMiddleware, a Mastra Agent with
// observeMastra, and the records exported as OpenTelemetry spans, over
// scripted models. Bundled into the Chromium page (esbuild consumer) and
// the Worker (wrangler consumer); the package comes in as `lib` because
// only the consumer folder has it installed. Returns a summary to compare.
import { generateText, tool, wrapLanguageModel, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const usage = { inputTokens: { total: 10 }, outputTokens: { total: 4 } };
const STALL = /Trajectory Assessment[\s\S]*stall/i;

/** Calls `book` the same way until call 7, then answers; records whether each prompt carried the stall assessment. */
function repeatingModel(nudged) {
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      n += 1;
      nudged.push(prompt.some((m) => m.role === 'system' && STALL.test(typeof m.content === 'string' ? m.content : '')));
      return n < 7
        ? { content: [{ type: 'tool-call', toolCallId: `call-${n}`, toolName: 'book', input: JSON.stringify({ city: 'Lisbon' }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
        : { content: [{ type: 'text', text: 'Could not book.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}
const book = tool({
  description: 'Books a table',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    throw new Error(`no tables in ${city}`);
  },
});
const stall = [{ observer: 'stall', trigger: { onEveryCall: true } }];

/** Span names as a tree: `name > child > grandchild`, one line per leaf path. */
function spanTree(spans) {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const path = (s) => {
    const parent = s.parentSpanContext?.spanId ?? s.parentSpanId;
    return parent && byId.has(parent) ? `${path(byId.get(parent))} > ${s.name}` : s.name;
  };
  return [...new Set(spans.map(path))].sort();
}

/** The AI SDK loop: observers, capture and stopOn 'warning' in generateText, the middleware on the model. */
export async function aiSdkLoop(lib) {
  const { JsonlSink, TrajectoryRecorder, observeAISdk, trajectoryMiddleware } = lib;
  const sink = new JsonlSink();
  const recorder = new TrajectoryRecorder(sink, { runId: 'ai-sdk' });
  const middlewareSink = new JsonlSink();
  const nudged = [];
  const model = wrapLanguageModel({ model: repeatingModel(nudged), middleware: trajectoryMiddleware({ recorder: new TrajectoryRecorder(middlewareSink, { runId: 'mw' }) }) });
  const r = await generateText({ model, instructions: 'You book tables.', prompt: 'Book Lisbon.', tools: { book }, stopWhen: stepCountIs(10), ...observeAISdk({ observers: stall, recorder, stopOn: 'warning' }) });
  await recorder.flush();
  return { lines: sink.lines(), middlewareLines: middlewareSink.lines(), steps: r.steps.length, nudged };
}

/** The same loop in a Mastra Agent, through observeMastra (no stopOn: it runs to the model's answer). */
export async function mastraLoop(lib) {
  const { JsonlSink, TrajectoryRecorder, observeMastra, Agent, createTool } = lib;
  const sink = new JsonlSink();
  const recorder = new TrajectoryRecorder(sink, { runId: 'mastra' });
  const nudged = [];
  const mBook = createTool({ id: 'book', description: 'Books a table', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => { throw new Error(`no tables in ${city}`); } });
  const agent = new Agent({ id: 'booker', name: 'booker', instructions: 'You book tables.', model: repeatingModel(nudged), tools: { book: mBook } });
  const r = await agent.generate('Book Lisbon.', { maxSteps: 10, ...observeMastra({ observers: stall, recorder }) });
  await recorder.flush();
  return { lines: sink.lines(), steps: r.steps.length, nudged };
}

export async function integrations(lib) {
  const { parseTrajectoryJsonl, exportSpans, Agent } = lib;
  const read = (lines) => parseTrajectoryJsonl(lines.join('\n'));
  const kinds = (lines) => [...new Set(read(lines).map((r) => r.payload.kind))];

  const ai = await aiSdkLoop(lib);
  const aiRecords = read(ai.lines);
  const m = Agent ? await mastraLoop(lib) : null;

  // OpenTelemetry: the AI SDK run's records as spans.
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  exportSpans(aiRecords, { tracer: provider.getTracer('app') });

  return {
    aiSdk: { steps: ai.steps, firstNudge: ai.nudged.indexOf(true), end: aiRecords.at(-1).payload.outcome.reason, kinds: kinds(ai.lines) },
    middleware: kinds(ai.middlewareLines),
    mastra: m && { steps: m.steps, firstNudge: m.nudged.indexOf(true), kinds: kinds(m.lines) },
    spans: spanTree(exporter.getFinishedSpans()),
  };
}

/** What every runtime must answer (mastra: null where it was not bundled). */
export const expected = {
  aiSdk: {
    steps: 5,
    firstNudge: 3,
    end: 'stopped-on-warning',
    kinds: ['run_started', 'turn_started', 'message_appended', 'provider_request_prepared', 'custom', 'tool_started', 'tool_ended', 'turn_ended', 'assessment_produced', 'run_ended'],
  },
  middleware: ['turn_started', 'provider_request_prepared', 'message_appended', 'custom', 'turn_ended'],
  mastra: { steps: 7, firstNudge: 3, kinds: ['run_started', 'turn_started', 'message_appended', 'provider_request_prepared', 'custom', 'tool_started', 'tool_ended', 'turn_ended', 'assessment_produced', 'run_ended'] },
  spans: ['invoke_agent ai-sdk', 'invoke_agent ai-sdk > chat mock-model-id', 'invoke_agent ai-sdk > execute_tool book'],
};
