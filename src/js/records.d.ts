// The data that crosses the boundary: messages, records, errors, observers
// and the JSONL parser. They mirror the serde shapes in the core
// (src/core); the JS tests and the `tsc --strict` consumer check them
// against real values. scripts/assemble.mjs puts them at the top of the
// package's index.d.ts, without the `import type` lines below (they are for
// the type check of src/js; in index.d.ts every name is declared in one file).

import type { ErrorCode, RunStatus, Verdict } from './vocabulary';
import type { StepCandidate, StepSelectionMethod } from './generate-types';

/** Milliseconds since the Unix epoch. Inject one to make runs replay exactly. */
export type Clock = () => number;

/** Every error this package throws: a real `Error` named `AgentTrajectoriesError`. */
export interface AgentTrajectoriesError extends Error {
  name: 'AgentTrajectoriesError';
  code: ErrorCode;
  /** The trajectory step the error is about, when there is one. */
  stepId?: string;
  /** 1-based line, for JSONL input. */
  line?: number;
  /** What a callback of yours threw (or rejected with), kept as it was. */
  cause?: unknown;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface TextPart { type: 'text'; text: string }
export interface ReasoningPart { type: 'reasoning'; text: string }
export interface ToolCallPart { type: 'tool-call'; toolCallId: string; toolName: string; input: JsonValue }
export type ToolResultOutput =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: JsonValue }
  | { type: 'content'; value: JsonValue[] };
export interface ToolResultPart { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolResultOutput }
/** Parts kept verbatim (images, files, provider-specific). */
export interface OtherPart { type: string; [key: string]: JsonValue }
export type ContentPart = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | OtherPart;

/** An AI SDK `ModelMessage`. */
export interface ModelMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ContentPart[];
  providerOptions?: { [key: string]: JsonValue };
}

/**
 * What message inputs accept besides {@link ModelMessage}: AI SDK 4 parts
 * (`args`, `result`, `isError`) and the shorthand
 * `{ type: 'tool-call', id, name, args }`; all are normalised.
 */
export interface ModelMessageInput {
  role: 'system' | 'user' | 'assistant' | 'tool';
  // Two forms: the AI SDK's parts are interfaces, which have no index
  // signature, and a literal part's own keys (`id`, `args`) need one.
  content: string | readonly ({ type: string } | { type: string; [key: string]: unknown })[];
  providerOptions?: { [key: string]: JsonInput };
}

/**
 * What a free-form field (`args`, `result`, a custom record's `data`)
 * takes when written: any value `JSON.stringify` writes, your own
 * interfaces and fields that may be `undefined` (left out) included.
 * What JSON.stringify refuses (a BigInt, a cycle) is refused with
 * `INVALID_RECORD`, and so is a whole field given as `NaN` or ±Infinity;
 * inside the data they are written as `null`, as JSON.stringify writes
 * them. Read back, the field is a {@link JsonValue}.
 */
export type JsonInput = string | number | boolean | null | undefined | object;

export interface RunIdentity { run_id: string; parent_run_id?: string | undefined; agent?: string | undefined; model_id?: string | undefined }
export interface RunOutcome {
  status: RunStatus;
  /** Machine reason, e.g. 'goal-reached', 'max-turns'. */
  reason?: string | undefined;
  message?: string | undefined;
  error_code?: string | undefined;
  /** Whose doing the end was (see StepTraceEnd.verdict). */
  verdict?: Verdict | undefined;
}

/** A run's end as readOutcome reads any run_ended outcome, old or new. */
export interface RunEnd {
  /** 'completed' only when the run did what it was for; an old stream's "completed" for a limit reads 'stopped'; a bare label as written. */
  status: RunStatus | (string & {});
  reason?: string;
  message?: string;
  errorCode?: string;
  verdict: Verdict;
  /** The verdict is pass. */
  passed: boolean;
}

/** A model_usage record's data, as readModelUsage gives it. */
export interface ModelUsageData {
  /** Who called the model: 'agent', 'user-simulator', 'ranker', 'reflect', 'summarize'; absent for a watched loop's own calls. */
  source?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** As reported, else input + output. */
  totalTokens: number;
  finishReason?: string;
}

/** What happened, tagged by `kind`, as records hold it (`record()` takes a {@link TrajectoryPayloadInput}). */
export type TrajectoryPayload =
  | { kind: 'run_started'; identity: RunIdentity }
  | { kind: 'run_ended'; outcome: RunOutcome | string; new_messages?: ModelMessage[] }
  | { kind: 'turn_started'; turn_index?: number }
  | { kind: 'turn_ended'; assistant: ModelMessage; tool_results?: ModelMessage[]; turn_index?: number; step_id?: string }
  | { kind: 'step_selected'; turn_index: number; step_id: string | null; method: StepSelectionMethod; candidates?: StepCandidate[]; ranker_error?: string }
  | { kind: 'message_appended'; message: ModelMessage }
  | { kind: 'tool_started'; tool_call_id: string; tool_name: string; args?: JsonValue }
  | { kind: 'tool_ended'; tool_call_id: string; tool_name: string; result?: JsonValue; is_error: boolean }
  | { kind: 'provider_request_prepared'; iteration: number; model_id?: string; system_prompt_chars: number; message_count: number; tool_count: number; tools?: string[] }
  | { kind: 'context_transform_applied'; iteration: number; plugin: string; before_count: number; after_count: number }
  | { kind: 'tool_gate_applied'; iteration: number; plugin: string; allow?: boolean | string[] }
  | { kind: 'tool_gate_conflict_resolved'; iteration: number; plugins: string[]; chosen_plugin?: string; allow: boolean | string[]; reason: string }
  | { kind: 'output_tokens_escalation'; attempt: number; prev_cap: number; new_cap: number }
  | { kind: 'assessment_produced'; call_index: number; assessment: Assessment; turn_index?: number }
  | { kind: 'simulator_issue'; turn_index: number; issue: 'empty' | 'reasoning' | 'role' | 'repeat'; attempt: number; retried: boolean; text: string }
  | { kind: 'iteration_started'; iteration: number }
  | { kind: 'iteration_completed'; iteration: number; decision: string; tools: string[]; failed: boolean; error?: string }
  | { kind: 'run_terminated'; status: string; reason: string }
  | { kind: 'custom'; name: string; data?: JsonValue };

/** A payload's field as written: messages as {@link ModelMessageInput}, JSON as {@link JsonInput}. */
type Written<T> = [NonNullable<T>] extends [ModelMessage] ? ModelMessageInput
  : [NonNullable<T>] extends [ModelMessage[]] ? readonly ModelMessageInput[]
  : [JsonValue] extends [T] ? JsonInput
  : T;

/**
 * What `record()` takes: a {@link TrajectoryPayload}, with its messages
 * as {@link ModelMessageInput} (an AI SDK message as it is, or AI SDK 4
 * parts; normalised), its free-form fields as {@link JsonInput}, and its
 * optional fields may be `undefined` (left out). Derived from
 * `TrajectoryPayload`, so the two cannot drift.
 */
export type TrajectoryPayloadInput = TrajectoryPayload extends infer P
  ? (P extends TrajectoryPayload ? { [K in keyof P]: {} extends Pick<P, K> ? Written<P[K]> | undefined : Written<P[K]> } : never)
  : never;

export type TrajectoryPayloadKind = TrajectoryPayload['kind'];

/** One line of a trajectory: versioned, ordered per run, stamped by the injected clock. */
export interface TrajectoryRecord {
  schema_version: number;
  /** Per run from 0 without gaps: whoever has seen seq N has seen every seq < N of that run. */
  seq: number;
  run_id?: string;
  parent_run_id?: string;
  depth: number;
  recorded_at_unix_ms: number;
  payload: TrajectoryPayload;
}

/** Any object that stores records. A throw or a rejected Promise is a sink failure. */
export interface Sink { record(record: TrajectoryRecord): void | Promise<void> }

export interface TrajectoryRecorderOptions {
  /** Defaults to `Date.now`. */
  clock?: Clock | undefined;
  /** 'drop' (default): report through `onError` and go on. 'fail': stop; the failure is thrown as `SINK_FAILED`. */
  onSinkError?: 'drop' | 'fail' | undefined;
  /** Told of each dropped record; without it, dropped records are logged with `console.warn`. If it throws or its Promise rejects, that is logged with `console.warn`. */
  onError?: ((error: AgentTrajectoriesError, record: TrajectoryRecord) => void | PromiseLike<void>) | undefined;
  /** The run's id, if known before `run_started`. */
  runId?: string | undefined;
}

export interface JsonlBadLine { line: number; code: ErrorCode; message: string }
export interface LenientJsonl { records: TrajectoryRecord[]; errors: JsonlBadLine[] }

// ---- observe ----

/** One tool call, as the host reports it after the call returns. */
export interface ToolCallInput {
  toolName: string;
  /** The call's arguments; any JSON data. */
  params?: unknown;
  /** Defaults to the `path` of file operations, else compact JSON cut to ~80 chars. */
  paramsSummary?: string | undefined;
  success: boolean;
  errorMessage?: string | undefined;
}

/** A call in the pipeline's log. */
export interface ToolCallRecord {
  toolName: string;
  paramsSummary: string;
  success: boolean;
  errorMessage?: string;
  /** Milliseconds since the epoch, from the injected clock. */
  timestamp: number;
  /** From 1, monotonic. */
  callIndex: number;
}

export interface Budget {
  /** Milliseconds since the epoch. */
  deadline?: number | undefined;
  /** Seconds already spent; when absent, time since the pipeline started counts. */
  elapsedSeconds?: number | undefined;
  maxTokens?: number | undefined;
  tokensUsed?: number | undefined;
  maxToolCalls?: number | undefined;
}

export type Severity = 'info' | 'caution' | 'warning';
export interface Observation { category: string; description: string; evidence?: string | undefined }
export interface Assessment {
  observerName: string;
  summary: string;
  observations?: Observation[];
  suggestions?: string[];
  severity: Severity;
  /** Milliseconds since the epoch; the pipeline stamps it when missing. */
  timestamp?: number;
}
/** Every assessment produced after one call; replaced, never appended. */
export interface CurrentAssessment { assessments: Assessment[]; generatedAt: number; callIndex: number }

/** Shared by every observer; any assessment resets `toolCallsSinceAssessment`. */
export interface ObserverState {
  toolCallsSinceAssessment: number;
  lastAssessmentTime: number | null;
  lastAssessmentCallIndex: number;
  totalAssessments: number;
}

/** When an observer runs; conditions are OR'd. Counts are positive integers. */
export interface ObserverTrigger {
  everyNCalls?: number;
  afterConsecutiveErrors?: number;
  everyNSeconds?: number;
  onEveryCall?: boolean;
}

/** What a custom observer reads. Valid only while its call runs. */
export interface ObserverContextApi {
  recentToolCalls(n: number): ToolCallRecord[];
  toolCallsSince(sinceMs: number): ToolCallRecord[];
  errorRate(window: number): number;
  readonly budget: Budget;
  readonly state: ObserverState;
  readonly callIndex: number;
}

/** An observer written in JS. A throw (or a non-assessment) is isolated. */
export interface CustomObserver {
  name: string;
  shouldRun?(ctx: ObserverContextApi): boolean;
  /** Return an assessment (observerName defaults to `name`), or nothing to stay quiet. */
  observe(ctx: ObserverContextApi): (Omit<Assessment, 'observerName'> & { observerName?: string }) | null | undefined | void;
}

// The built-in observers' options are read strictly: a key given as
// `undefined` is refused (leave it out), so these take no `undefined`.
export interface ResourcesOptions { name?: string; cautionThreshold?: number; warningThreshold?: number }
export interface StallOptions {
  name?: string; window?: number; pollingTools?: readonly string[];
  repeatThreshold?: number; failingRepeatThreshold?: number; sameTargetThreshold?: number; targetWindow?: number;
}
export interface ErrorCascadeOptions { name?: string; threshold?: number }
export interface DriftOptions { name?: string; scope: readonly string[]; window?: number; threshold?: number }

export type ObserverConfig =
  | { observer: 'resources'; trigger: ObserverTrigger; options?: ResourcesOptions }
  | { observer: 'stall'; trigger: ObserverTrigger; options?: StallOptions }
  | { observer: 'error-cascade'; trigger: ObserverTrigger; options?: ErrorCascadeOptions }
  | { observer: 'drift'; trigger: ObserverTrigger; options: DriftOptions }
  | { observer: CustomObserver; trigger: ObserverTrigger };

export interface ObserverPipelineOptions {
  observers: readonly ObserverConfig[];
  /** Defaults to `Date.now`. */
  clock?: Clock | undefined;
  budget?: Budget | undefined;
  /** The context is dropped once more than this many calls follow it. Default 20. */
  maxAgeCalls?: number | undefined;
  /** Every produced assessment is also recorded as an `assessment_produced` record. */
  recorder?: { record(payload: TrajectoryPayload): unknown } | undefined;
  /** Told when a custom observer throws; without it (or if it throws) the error becomes an `error` observation. A Promise it returns that rejects is logged with `console.warn`. */
  onError?: ((error: AgentTrajectoriesError, observerName: string) => void | PromiseLike<void>) | undefined;
}

/** JSON-safe; pass to `ObserverPipeline.restore` with the same observers. */
export interface PipelineSnapshot {
  schema: 'agent-trajectories/observer-pipeline';
  /** 2; `restore` reads version 1 too (whose `log` is a `ToolCallRecord[]`). */
  version: number;
  startedAt: number;
  maxAgeCalls: number;
  log: PipelineSnapshotLog;
  state: ObserverState;
  budget: Budget;
  current: CurrentAssessment | null;
  observers: { observer: string; name: string; state: JsonValue }[];
}

/**
 * The calls a pipeline snapshot keeps, compact (a call as an object would be
 * ~120 bytes of JSON): each distinct tool name, summary and error message
 * once in `strings`, and four numbers per call in `calls`: its time
 * (milliseconds after the previous call's, or since the epoch when
 * `absoluteTimes`), its tool name and its summary (indexes into `strings`),
 * and `2 × (its error message's index + 1, or 0) + (1 if it succeeded)`.
 * To read calls as objects, ask the pipeline: `recentToolCalls(n)`.
 */
export interface PipelineSnapshotLog { strings: string[]; calls: number[]; absoluteTimes: boolean }

/** Parses JSONL (text, or UTF-8 bytes); throws a coded error with `line` on the first bad line or seq gap. */
export function parseTrajectoryJsonl(text: string | Uint8Array, opts?: { lenient?: false }): TrajectoryRecord[];
/** Parses JSONL (text, or UTF-8 bytes); returns the good records and every bad line and seq gap. */
export function parseTrajectoryJsonl(text: string | Uint8Array, opts: { lenient: true }): LenientJsonl;
/** Parses JSONL (text, or UTF-8 bytes), leniently or not as `lenient` says at run time. */
export function parseTrajectoryJsonl(text: string | Uint8Array, opts?: { lenient?: boolean }): TrajectoryRecord[] | LenientJsonl;
