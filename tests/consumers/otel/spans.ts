// A generated run exported as spans, as a user writes it: the OpenTelemetry
// SDK's in-memory exporter, strict TS, no casts.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MemorySink, TrajectoryRecorder, createTrajectory, runTrajectory, type Model, type TrajectoryRecord } from 'agent-trajectories';
import { exportSpans, spanSink } from 'agent-trajectories/otel';

export function provider(): { exporter: InMemorySpanExporter; tracerProvider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  return { exporter, tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) };
}

/** A generated run with tool calls: its records, and the spans exported live and afterwards. */
export async function generatedRun(): Promise<{ records: TrajectoryRecord[]; offline: ReadableSpan[]; live: ReadableSpan[] }> {
  let t = 1_000;
  const agent = {
    respond: async () => ({
      messages: [
        { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: `c${t}`, toolName: 'find_table', input: { city: 'Lisbon' } }] },
        { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: `c${t}`, toolName: 'find_table', output: { type: 'text' as const, value: 'none left' } }] },
        { role: 'assistant' as const, content: 'No tables left.' },
      ],
    }),
  };
  const trajectory = createTrajectory({ goal: 'book a table', persona: { name: 'Ana', description: 'terse' }, steps: { steps: [{ id: 'ask', instruction: 'ask for a table' }], start: 'ask', terminals: [] }, maxTurns: 2 }, agent);
  const live = provider();
  const spans = spanSink({ tracer: live.tracerProvider.getTracer('live') });
  const sink = new MemorySink();
  await runTrajectory(trajectory, { userModel: async () => 'A table, please.', clock: () => (t += 10), sink, onRecord: spans.onRecord });
  spans.end();
  const records = sink.records();
  const offline = provider();
  exportSpans(records, { tracer: offline.tracerProvider.getTracer('offline'), content: true });
  return { records, offline: offline.exporter.getFinishedSpans(), live: live.exporter.getFinishedSpans() };
}

/** A parent run whose tool call starts a child run (recorder.child). */
export function childRun(): ReadableSpan[] {
  const sink = new MemorySink();
  let t = 0;
  const parent = new TrajectoryRecorder(sink, { runId: 'parent', clock: () => (t += 5) });
  parent.record({ kind: 'run_started', identity: { run_id: 'parent', agent: 'planner' } });
  parent.record({ kind: 'tool_started', tool_call_id: 'delegate-1', tool_name: 'delegate', args: { task: 'search' } });
  const child = parent.child('searcher');
  child.record({ kind: 'run_started', identity: { run_id: 'searcher', agent: 'searcher', model_id: 'm-1' } });
  child.record({ kind: 'tool_started', tool_call_id: 's-1', tool_name: 'search', args: { q: 'x' } });
  child.record({ kind: 'tool_ended', tool_call_id: 's-1', tool_name: 'search', result: 'boom', is_error: true });
  child.record({ kind: 'run_ended', outcome: { status: 'error', reason: 'tool-failed', message: 'search failed', error_code: 'CALLBACK_FAILED' } });
  parent.record({ kind: 'tool_ended', tool_call_id: 'delegate-1', tool_name: 'delegate', result: 'done', is_error: false });
  parent.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'done' } });
  const p = provider();
  exportSpans(sink.records(), { tracer: p.tracerProvider.getTracer('t') });
  return p.exporter.getFinishedSpans();
}

/**
 * A generated run a scripted judge grades after every turn and at the end
 * (with usage, so the judge's model_usage comes between turn_ended and the
 * judgement), an agent polling the same job so the stall observer reports,
 * and, for the final judgement, an answer the judge cannot read twice.
 */
export async function judgedRun(): Promise<{ records: TrajectoryRecord[]; spans: ReadableSpan[]; live: ReadableSpan[] }> {
  let n = 0;
  const agent = {
    respond: async () => {
      n++;
      return {
        messages: [
          { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: `p${n}`, toolName: 'check_job', input: { id: 7 } }] },
          { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: `p${n}`, toolName: 'check_job', output: { type: 'error-text' as const, value: 'pending' } }] },
          { role: 'assistant' as const, content: 'Still waiting.' },
        ],
        usage: { inputTokens: 9, outputTokens: 1 },
      };
    },
  };
  // After turn 0: progress inconclusive; after turn 1: it fails (the run goes on: endOnFail false); at the end, unreadable.
  const judge: Model = async (request) => {
    const turn = /after turn (\d+)/.exec(JSON.stringify(request.messages))?.[1];
    if (turn === undefined) return { text: 'not json', usage: { inputTokens: 5, outputTokens: 1 } };
    const progress = turn === '0' ? 'inconclusive' : 'fail';
    return { text: JSON.stringify({ criteria: [{ name: 'reports progress', verdict: progress, reasoning: `progress after turn ${turn}` }, { name: 'polite', verdict: 'pass', reasoning: `polite after turn ${turn}` }] }), usage: { inputTokens: 5, outputTokens: 2 } };
  };
  let t = 1_000;
  const sink = new MemorySink();
  const live = provider();
  const spans = spanSink({ tracer: live.tracerProvider.getTracer('live') });
  await runTrajectory(createTrajectory({ goal: 'get the report', persona: { description: 'a manager' }, maxTurns: 3 }, agent), {
    userModel: async () => 'Is the report ready?',
    clock: () => (t += 10),
    sink,
    onRecord: spans.onRecord,
    observers: { observers: [{ observer: 'stall', trigger: { onEveryCall: true }, options: { repeatThreshold: 2 } }] },
    judge: { model: judge, criteria: ['reports progress', 'polite'], endOnFail: false },
  });
  spans.end();
  const records = sink.records();
  const offline = provider();
  exportSpans(records, { tracer: offline.tracerProvider.getTracer('offline') });
  return { records, spans: offline.exporter.getFinishedSpans(), live: live.exporter.getFinishedSpans() };
}
