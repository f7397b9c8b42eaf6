// ---- Observe and record AI SDK loops ----------------------------------

/** What `observeAISdk`'s `prepareStep` reads of the AI SDK's step options. */
export interface AISdkPrepareStepOptions {
  stepNumber?: number;
  model?: unknown;
  instructions?: unknown;
  system?: unknown;
  messages?: readonly unknown[];
}
/** What `observeAISdk`'s `onStepFinish` reads of a finished step. */
export interface AISdkStepResult {
  content?: readonly unknown[];
  usage?: unknown;
  model?: unknown;
}
/** What `observeAISdk`'s `onFinish` reads of the end of the loop. */
export interface AISdkFinishEvent { finishReason?: unknown }
/** An AI SDK stop condition, as `stopWhen` takes it. */
export type AISdkStopCondition = (options: { steps: readonly unknown[] }) => boolean | PromiseLike<boolean>;
/** The instructions `prepareStep` returns when it shows an assessment: the caller's, plus the assessment. */
export type AISdkInstructions = string | { role: 'system'; content: string }[];

/** When the loop stops on the observers' findings: a severity (the first assessment at or above it), or that severity `times` times ("nudge once, stop if it repeats": `times: 2`). */
export type StopOnSeverity = Severity | { severity: Severity; times?: number };

export interface ObserveAISdkOptions<PrepareOptions, PrepareResult, Step, Finish, Stop> {
  /** A pipeline, or the options / observer list to build one. Its assessment goes into the next step's instructions. */
  observers?: ObserverPipeline | ObserverPipelineOptions | ObserverConfig[];
  /** Where the loop's records go: provider_request_prepared, message_appended, tool_started / tool_ended, assessment_produced; run_started and run_ended when the recorder is fresh. */
  recorder?: TrajectoryRecorder;
  /** Stop the loop on an assessment of this severity (default: never). */
  stopOn?: StopOnSeverity;
  /** The step cap when `stopOn` is set and you give no `stopWhen` of your own (default 20, the ToolLoopAgent default). */
  maxSteps?: number;
  /** The tools you pass to the loop (or their names), to name them in provider_request_prepared. */
  tools?: Readonly<Record<string, unknown>> | readonly string[];
  /** Yours, called first; its result is kept (instructions get the assessment added). */
  prepareStep?: (options: PrepareOptions) => PrepareResult | PromiseLike<PrepareResult>;
  /** Yours, called after the step is recorded and observed. */
  onStepFinish?: (step: Step) => unknown;
  /** Yours, called after run_ended is recorded. */
  onFinish?: (event: Finish) => unknown;
  /** Yours, kept: the loop stops when any condition holds. */
  stopWhen?: Stop | readonly Stop[];
}

/** The settings to spread into `generateText`, `streamText` or `new ToolLoopAgent(...)`. */
export interface AISdkLoopSettings<PrepareOptions, PrepareResult, Step, Finish, Stop> {
  prepareStep: (options: PrepareOptions & AISdkPrepareStepOptions) => Promise<PrepareResult | { instructions?: AISdkInstructions } | undefined>;
  onStepFinish: (step: Step & AISdkStepResult) => Promise<void>;
  onFinish: (event: Finish & AISdkFinishEvent) => Promise<void>;
  /** Present when `stopOn` or your own `stopWhen` is given. */
  stopWhen?: (Stop | AISdkStopCondition)[];
}

/**
 * Wires observers and capture into an AI SDK tool loop:
 * `generateText({ model, tools, ...observeAISdk({ observers, recorder, stopOn: 'warning' }) })`.
 * Your own `prepareStep` / `onStepFinish` / `onFinish` / `stopWhen` go in
 * its options and are composed, not replaced. Throws INVALID_ARGUMENT for
 * a bad option (an unknown key names the nearest valid one).
 */
export function observeAISdk<
  PrepareOptions = AISdkPrepareStepOptions,
  PrepareResult = undefined,
  Step = AISdkStepResult,
  Finish = AISdkFinishEvent,
  Stop = AISdkStopCondition,
>(options?: ObserveAISdkOptions<PrepareOptions, PrepareResult, Step, Finish, Stop>): AISdkLoopSettings<PrepareOptions, PrepareResult, Step, Finish, Stop>;

/** A language-model middleware, as `wrapLanguageModel({ model, middleware })` takes it. */
export interface TrajectoryMiddleware {
  wrapGenerate<R>(options: { doGenerate: () => PromiseLike<R>; params: unknown; model: unknown }): Promise<R>;
  wrapStream<R>(options: { doStream: () => PromiseLike<R>; params: unknown; model: unknown }): Promise<R>;
}

/**
 * Records every call of the wrapped model into `recorder`:
 * provider_request_prepared (model, message and tool counts), the answer as
 * message_appended (text and tool calls), and a `custom` record named
 * `model_usage` (input / output tokens, finish reason); a failed call adds
 * one named `model_error`. Streaming calls are recorded when the stream ends.
 */
export function trajectoryMiddleware(options: { recorder: TrajectoryRecorder }): TrajectoryMiddleware;
