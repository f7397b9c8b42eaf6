import type { Clock, JsonValue, ObserverPipelineOptions, PipelineSnapshot, Sink, TrajectoryRecord } from './records';
import type { ObserverPipeline } from './binding-types';
import type { AISdkLanguageModel, AbortSignalLike, Model } from './generate-types';

// ---- Run an objective --------------------------------------------------

/** A Standard Schema (zod, valibot, arktype: anything with `~standard`). */
export interface StandardSchemaLike<Output = unknown> {
  readonly '~standard': { readonly version: 1; readonly vendor: string; readonly validate: (value: unknown) => unknown; readonly types?: { readonly input: unknown; readonly output: Output } | undefined };
}
/** A schema: a Standard Schema (zod 4.2+, valibot, arktype), an AI SDK schema (`jsonSchema()`, `zodSchema()`), or a plain JSON Schema object. */
export type SchemaLike = StandardSchemaLike | { readonly jsonSchema: unknown } | { readonly [keyword: string]: unknown };
/** What a deliverable schema validates to: its output type, or `unknown` for a JSON Schema. */
export type DeliverableOf<S> = S extends StandardSchemaLike<infer O> ? O : unknown;
export interface ContextSection { title: string; body: string }
/**
 * Files (path relative to `path` → text) seeded into the virtual filesystem
 * as a read-only layer: the run's writes and deletions go to an overlay
 * (`snapshot.overlay`); the mount data is never changed. A resumed run takes
 * its mounts from the objective again, so pass the same objective.
 */
export interface HostMount { path: string; files: Readonly<Record<string, string>> }
export interface AgentObjective<S extends SchemaLike = SchemaLike> {
  /** Normalised to ASCII; empty, or over 1,024 characters after that, throws INVALID_ARGUMENT. */
  objective: string;
  /** Validates the deliverable; its JSON Schema form is shown to the model when the deliverable is asked for. */
  deliverableSchema?: S;
  contextSections?: readonly ContextSection[];
  hostMounts?: readonly HostMount[];
}
export interface AgentPlanStep { title: string; status: 'pending' | 'in_progress' | 'done'; notes: string[] }
export interface ToolInvocation { iteration: number; toolCallId: string; toolName: string; input: JsonValue; ok: boolean; result: JsonValue }
/** The run's state, JSON-safe: what deliverableFactory reads, what a result carries, what `run(objective, { resumeFrom })` continues from. */
export interface AgentSnapshot {
  format: 'agent-trajectories/background-snapshot';
  version: 1;
  objective: string;
  iterations: number;
  failures: number;
  consecutiveFailures: number;
  plan: { steps: AgentPlanStep[] } | null;
  /** The last five tool calls, oldest first. */
  toolInvocations: ToolInvocation[];
  pendingReflection: string | null;
  retry: { toolName: string; input: JsonValue } | null;
  /** Every visible path of the virtual filesystem, sorted. */
  files: string[];
  /** What the run wrote: created or changed files with their text, deleted paths, and each path's change. */
  overlay: { written: Record<string, string>; deleted: string[]; changes: Record<string, 'created' | 'changed' | 'deleted'> };
  lastError: { code: string; message: string } | null;
  /** The observer pipeline's snapshot, when the runner has observers. */
  observers?: PipelineSnapshot;
}
export interface BackgroundAgentConfig {
  /** Default 24. */
  maxIterations?: number;
  /** Consecutive failed iterations that end the run. Default 8. */
  maxFailures?: number;
  /** Bounds a decision and its tool calls together (and the reflection, summary and deliverable calls, each on its own); the call's abortSignal fires. Default 120000 (two minutes), so a model that never answers cannot hang a run; `false`: no deadline. */
  iterationTimeoutMs?: number | false;
  /** Default true. */
  enableReflection?: boolean;
  /** Default true. */
  allowPlanReset?: boolean;
  /** Bytes of one file of the virtual filesystem. Default 1 MiB. */
  maxFileBytes?: number;
  /** Bytes of all its files together. Default 16 MiB. */
  maxTotalBytes?: number;
  /** Makes the deliverable from the final snapshot (instead of asking the model); it is validated against the schema. */
  deliverableFactory?: (snapshot: AgentSnapshot) => unknown;
}
/** A caller tool in the AI SDK `tool()` shape; an AI SDK tool works unchanged. */
export interface BackgroundTool {
  /** A string, or (as AI SDK 7 allows) a function returning one, called with `{ context: undefined }`. */
  description?: string | ((options: never) => string) | undefined;
  /** A schema, or a function returning one (an AI SDK lazy schema). */
  inputSchema: SchemaLike | (() => unknown);
  /** Called with the validated input and `{ abortSignal, toolCallId, messages: [] }`. */
  execute?: (input: never, options: never) => unknown;
}
export interface BackgroundAgentRunnerOptions {
  /** A Model function, or an AI SDK language model. */
  model: Model | AISdkLanguageModel;
  clock?: Clock | undefined;
  tools?: Readonly<Record<string, BackgroundTool>> | undefined;
  config?: BackgroundAgentConfig | undefined;
  sink?: Sink | undefined;
  onSinkError?: 'drop' | 'fail' | undefined;
  onRecord?(record: TrajectoryRecord): void;
  observers?: ObserverPipeline | ObserverPipelineOptions | undefined;
  signal?: AbortSignalLike | undefined;
  /** The run id of the records (default: `background-<start ms>`). */
  runId?: string | undefined;
}
export interface AgentRunResult<D = unknown> {
  runId: string;
  status: 'completed' | 'abandoned' | 'failed';
  /**
   * Why, as a stable label — `model-completed`, `plan-completed`,
   * `model-abandoned`, `reflection-abandoned`, `aborted`, `max-iterations`,
   * `max-failures`, `deliverable-failed`, `error` — followed for some by
   * `: ` and the detail (the last error, the validator's message).
   */
  reason: string;
  iterations: number;
  failures: number;
  finalSummary: string;
  deliverable: D | null;
  snapshot: AgentSnapshot;
  /** The error behind a failed end; `cause` (not enumerable) is what your callback threw, when one did. */
  error?: { code: string; message: string; cause?: unknown };
  /** Records the sink refused and that were dropped (`onSinkError: 'drop'`, the default); 0 when none were. */
  droppedRecords: number;
}
/** Runs objectives: plan, act on a virtual filesystem, reflect, terminate, deliver. */
export class BackgroundAgentRunner {
  constructor(opts: BackgroundAgentRunnerOptions);
  /** Rejects with BUSY while another run of this runner is active. */
  run<S extends SchemaLike>(objective: string | AgentObjective<S>, options?: { resumeFrom?: AgentSnapshot }): Promise<AgentRunResult<DeliverableOf<S>>>;
}
