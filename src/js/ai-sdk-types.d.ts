import type { ObserverConfig, ObserverPipelineOptions, Severity } from './records';
import type { ObserverPipeline, TrajectoryRecorder } from './binding-types';

// ---- Observe and record AI SDK loops ----------------------------------

/** What `observeAISdk`'s `prepareStep` reads of the AI SDK's step options. */
export interface AISdkPrepareStepOptions {
  stepNumber?: number;
  model?: unknown;
  instructions?: unknown;
  system?: unknown;
  messages?: readonly unknown[];
}
/**
 * A finished step, as your `onStepFinish` sees it when you do not annotate
 * it (annotate `step: StepResult<typeof tools>` for the AI SDK's full,
 * typed step).
 */
export interface AISdkStepResult {
  readonly stepNumber: number;
  readonly model: { readonly provider: string; readonly modelId: string };
  readonly content: readonly unknown[];
  readonly text: string;
  readonly toolCalls: readonly { readonly toolCallId: string; readonly toolName: string; readonly input?: unknown }[];
  readonly toolResults: readonly { readonly toolCallId: string; readonly toolName: string; readonly output?: unknown }[];
  readonly finishReason: string;
  readonly usage: { readonly inputTokens?: number | undefined; readonly outputTokens?: number | undefined; readonly totalTokens?: number | undefined };
}
/** The end of the loop, as your `onFinish` sees it when you do not annotate it. */
export interface AISdkFinishEvent {
  readonly finishReason: string;
  readonly text: string;
  readonly steps: readonly unknown[];
}
/** An AI SDK stop condition, as `stopWhen` takes it. */
export type AISdkStopCondition = (options: { steps: readonly unknown[] }) => boolean | PromiseLike<boolean>;
/** The instructions `prepareStep` returns when it shows an assessment: the caller's, plus the assessment. */
export type AISdkInstructions = string | { role: 'system'; content: string }[];

/** When the loop stops on the observers' findings: a severity (the first assessment at or above it), or that severity `times` times ("nudge once, stop if it repeats": `times: 2`). */
export type StopOnSeverity = Severity | { severity: Severity; times?: number };

/** A step whose model call failed, as your `onStepError` sees it when you do not annotate it. */
export interface AISdkStepErrorEvent {
  readonly error: unknown;
}

/** A streamText loop its signal or `timeout` ended, as `onAbort` sees it. */
export interface AISdkAbortEvent {
  readonly steps?: readonly unknown[];
  /** The signal's reason (a `TimeoutError` for a deadline). */
  readonly reason?: unknown;
}

/** What observeAISdk and observeMastra both take: the observers, where the records go, the run's limits, when to stop and the agent's name. */
export interface LoopCaptureOptions {
  /** A pipeline, or the options / observer list to build one. Its assessment reaches the model's next call (the AI SDK: the next step's instructions; Mastra: each model call's prompt). */
  observers?: ObserverPipeline | ObserverPipelineOptions | readonly ObserverConfig[] | undefined;
  /** Where the loop's records go: a turn per step (turn_started, provider_request_prepared, message_appended, `custom` model_usage, tool_started / tool_ended, assessment_produced, turn_ended); run_started and run_ended unless you recorded run_started yourself (then the run is yours to end). Records you made before the loop stay before run_started. */
  recorder?: TrajectoryRecorder | undefined;
  /** The run's limits, recorded as a `custom` `budget` record after run_started, so the index and viewer chart each turn against them. Needs `recorder`. */
  budget?: { maxTokens?: number | undefined; maxToolCalls?: number | undefined; maxMs?: number | undefined } | undefined;
  /** Stop the loop on an assessment of this severity (default: never); in Mastra, a tripwire. */
  stopOn?: StopOnSeverity | undefined;
  /** The agent's name in run_started (default 'ai-sdk' or 'mastra'). */
  agent?: string | undefined;
}

export interface ObserveAISdkOptions<PrepareOptions = unknown, PrepareResult = unknown, Step = unknown, End = unknown, Stop = unknown, StepError = unknown> extends LoopCaptureOptions {
  /** The step cap when `stopOn` is set and you give no `stopWhen` of your own (default 20, the ToolLoopAgent default). */
  maxSteps?: number | undefined;
  /** The tools you pass to the loop (or their names), to name them in provider_request_prepared (the AI SDK does not show them to prepareStep). */
  tools?: Readonly<Record<string, unknown>> | readonly string[] | undefined;
  /** Yours, called first; its result is kept (instructions get the assessment added). */
  prepareStep?: ((options: PrepareOptions) => PrepareResult | PromiseLike<PrepareResult>) | undefined;
  /** Yours, called after the step is recorded and observed. What it throws fails the loop at its next step (CALLBACK_FAILED, your error as `cause`) and is written into run_ended. */
  onStepEnd?: ((step: Step) => unknown) | undefined;
  /** @deprecated The AI SDK's old name for `onStepEnd`; called like it. */
  onStepFinish?: ((step: Step) => unknown) | undefined;
  /** Yours, called when a step's model call fails, after run_ended records the error (what it throws goes to the console: the loop fails with the model's error). */
  onStepError?: ((event: StepError) => unknown) | undefined;
  /** Yours (streamText), called after run_ended records the abort: status `aborted`, or `error` for a deadline that passed. */
  onAbort?: ((event: AISdkAbortEvent) => unknown) | undefined;
  /** Yours, called before run_ended is recorded (what it throws is written into run_ended). */
  onEnd?: ((event: End) => unknown) | undefined;
  /** @deprecated The AI SDK's old name for `onEnd`; called like it. */
  onFinish?: ((event: End) => unknown) | undefined;
  /** Yours, kept: the loop stops when any condition holds. */
  stopWhen?: Stop | readonly Stop[] | undefined;
}

/** The settings to spread into `generateText`, `streamText` or `new ToolLoopAgent(...)`. */
export interface AISdkLoopSettings<PrepareOptions = unknown, PrepareResult = unknown, Step = unknown, End = unknown, Stop = unknown, StepError = unknown> {
  prepareStep: (options: PrepareOptions & AISdkPrepareStepOptions) => Promise<PrepareResult | { instructions?: AISdkInstructions } | undefined>;
  onStepEnd: (step: Step & AISdkStepResult) => Promise<void>;
  onStepError: (event: StepError & AISdkStepErrorEvent) => Promise<void>;
  onEnd: (event: End & AISdkFinishEvent) => Promise<void>;
  /** streamText's: its signal or `timeout` ended the loop (generateText has none, and ignores it). */
  onAbort: (event: AISdkAbortEvent) => Promise<void>;
  /** Present when `stopOn` or your own `stopWhen` is given. */
  stopWhen?: (Stop | AISdkStopCondition)[];
}

/**
 * Wires observers and capture into an AI SDK tool loop:
 * `generateText({ model, tools, ...observeAISdk({ observers, recorder, stopOn: 'warning' }) })`.
 * Your own `prepareStep` / `onStepEnd` / `onStepError` / `onEnd` /
 * `stopWhen` go in its options and are composed, not replaced (a
 * callback given to generateText beside the spread replaces ours). One
 * run per call. Throws INVALID_ARGUMENT for a bad option (an unknown key
 * names the nearest valid one). The result's types take nothing from the
 * call it is spread into (NoInfer): inferred from there, they would be
 * `never`.
 */
export function observeAISdk<
  PrepareOptions = AISdkPrepareStepOptions,
  PrepareResult = undefined,
  Step = AISdkStepResult,
  End = AISdkFinishEvent,
  Stop = AISdkStopCondition,
  StepError = AISdkStepErrorEvent,
>(
  options?: ObserveAISdkOptions<PrepareOptions, PrepareResult, Step, End, Stop, StepError>,
): AISdkLoopSettings<NoInfer<PrepareOptions>, NoInfer<PrepareResult>, NoInfer<Step>, NoInfer<End>, NoInfer<Stop>, NoInfer<StepError>>;

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
