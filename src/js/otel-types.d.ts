import type { TrajectoryRecord } from './records';


/** Any OpenTelemetry `Tracer` (`trace.getTracer(name)` of @opentelemetry/api). */
export interface TracerLike { startSpan(name: string, options?: object, context?: object): unknown }

export interface SpanExportOptions {
  /** Where the spans go: a Tracer of your configured provider. */
  tracer: TracerLike;
  /** Also put messages, tool arguments and tool results on the spans (`gen_ai.output.messages`, `gen_ai.tool.call.arguments` / `.result`): off by default, as the conventions advise for content. */
  content?: boolean | undefined;
}

/**
 * Exports records (one run or many, as `parseTrajectoryJsonl`, a
 * `MemorySink` or `onRecord` give them) as OpenTelemetry GenAI spans:
 * `invoke_agent {agent}` per run, `chat {model}` per model call or
 * generated turn, `execute_tool {tool}` per tool call (ERROR status when it
 * failed); child runs are child spans of the tool call that started them;
 * observer findings and judge verdicts (one per criterion) are
 * `gen_ai.evaluation.result` events on the span they evaluate: a turn's
 * (its `turn_index`, the turn a judgement was made after), else the run's
 * (a final judgement); times are the records'. Throws
 * INVALID_ARGUMENT / INVALID_RECORD (naming the index) for bad input.
 */
export function exportSpans(records: readonly TrajectoryRecord[], options: SpanExportOptions): void;

/** Spans for a live run: `onRecord` as a run's `onRecord` (or the object as a recorder's sink); `end()` closes what is still open. */
export interface SpanSink {
  onRecord(record: TrajectoryRecord): void;
  record(record: TrajectoryRecord): void;
  end(): void;
}
export function spanSink(options: SpanExportOptions): SpanSink;
