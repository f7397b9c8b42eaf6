//! TypeScript declarations for the data that crosses the boundary. They
//! mirror the serde shapes in `crate::core`; the JS tests and the
//! `tsc --strict` consumer check them against real values.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Milliseconds since the Unix epoch. Inject one to make runs replay exactly. */
export type Clock = () => number;

/** Stable codes of every error this package throws (`err.code`). */
export type ErrorCode =
  | 'INVALID_ARGUMENT' | 'INVALID_MESSAGE' | 'INVALID_RECORD' | 'UNSUPPORTED_SCHEMA_VERSION'
  | 'JSONL_PARSE' | 'SINK_FAILED' | 'CALLBACK_FAILED' | 'NOT_INITIALIZED' | 'BUSY' | 'INTERNAL';

/** Every error this package throws: a real `Error` named `AgentTrajectoriesError`. */
export interface AgentTrajectoriesError extends Error {
  name: 'AgentTrajectoriesError';
  code: ErrorCode;
  /** 1-based line, for JSONL input. */
  line?: number;
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
  content: string | Array<{ type: string; [key: string]: unknown }>;
  providerOptions?: { [key: string]: JsonValue };
}

export interface RunIdentity { run_id: string; parent_run_id?: string; agent?: string; model_id?: string }
export interface RunOutcome {
  status: 'completed' | 'error' | 'aborted';
  /** Machine reason, e.g. 'goal-reached', 'max-turns'. */
  reason?: string;
  message?: string;
  error_code?: string;
}

/** What happened, tagged by `kind`. Message fields accept {@link ModelMessageInput} and are normalised. */
export type TrajectoryPayload =
  | { kind: 'run_started'; identity: RunIdentity }
  | { kind: 'run_ended'; outcome: RunOutcome; new_messages?: ModelMessage[] }
  | { kind: 'turn_started'; turn_index?: number }
  | { kind: 'turn_ended'; assistant: ModelMessage; tool_results?: ModelMessage[] }
  | { kind: 'message_appended'; message: ModelMessage }
  | { kind: 'tool_started'; tool_call_id: string; tool_name: string; args?: JsonValue }
  | { kind: 'tool_ended'; tool_call_id: string; tool_name: string; result?: JsonValue; is_error: boolean }
  | { kind: 'provider_request_prepared'; iteration: number; model_id?: string; system_prompt_chars: number; message_count: number; tool_count: number; tools?: string[] }
  | { kind: 'context_transform_applied'; iteration: number; plugin: string; before_count: number; after_count: number }
  | { kind: 'tool_gate_applied'; iteration: number; plugin: string; allow?: boolean }
  | { kind: 'tool_gate_conflict_resolved'; iteration: number; plugins: string[]; chosen_plugin?: string; allow: boolean; reason: string }
  | { kind: 'output_tokens_escalation'; attempt: number; prev_cap: number; new_cap: number }
  | { kind: 'custom'; name: string; data?: JsonValue };

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
  clock?: Clock;
  /** 'drop' (default): report through `onError` and go on. 'fail': stop; the failure is thrown as `SINK_FAILED`. */
  onSinkError?: 'drop' | 'fail';
  /** Told of each dropped record; without it, dropped records are logged with `console.warn`. */
  onError?: (error: AgentTrajectoriesError, record: TrajectoryRecord) => void;
  /** The run's id, if known before `run_started`. */
  runId?: string;
}

export interface JsonlBadLine { line: number; code: ErrorCode; message: string }
export interface LenientJsonl { records: TrajectoryRecord[]; errors: JsonlBadLine[] }

/** Parses JSONL; throws a coded error with `line` on the first bad line. */
export function parseTrajectoryJsonl(text: string, opts?: { lenient?: false }): TrajectoryRecord[];
/** Parses JSONL; returns the good records and every bad line. */
export function parseTrajectoryJsonl(text: string, opts: { lenient: true }): LenientJsonl;
"#;

// Named JS types for optional parameters: `Option<T>` of an extern type keeps
// the `?` in the .d.ts, which `unchecked_param_type` would drop.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "TrajectoryRecorderOptions")]
    pub type RecorderOptions;

    #[wasm_bindgen(typescript_type = "((line: string) => void | Promise<void>)")]
    pub type JsonlWriter;
}
