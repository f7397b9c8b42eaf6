import type { LoopCaptureOptions } from './ai-sdk-types';

// ---- Observe and record Mastra agents -----------------------------------

/**
 * The Mastra processor observeMastra returns (one object, listed among the
 * input, output and error processors). Typed by what it reads of Mastra's
 * arguments, so it fits `@mastra/core`'s processor lists without this
 * package naming `@mastra/core`.
 */
export interface MastraTrajectoryProcessor {
  readonly id: 'agent-trajectories';
  readonly name: string;
  /** Records and observes the previous step's tool results; stops the run (a tripwire) once `stopOn` is met. */
  processInputStep(args: { stepNumber?: number; steps?: readonly unknown[]; tools?: unknown; model?: unknown; state?: Record<string, unknown>; abort?: (reason?: string, options?: { metadata?: unknown }) => never }): void;
  /** This call's prompt with the observers' assessment after the leading system messages (not stored in memory). */
  processLLMRequest<Prompt extends readonly unknown[]>(args: { prompt: Prompt; stepNumber?: number; model?: unknown }): { prompt: Prompt } | undefined;
  /** Records the assistant's text and tool calls, and the step's tokens. */
  processOutputStep<List>(args: { messageList: List; text?: string; toolCalls?: readonly unknown[]; usage?: unknown }): List;
  /** Keeps a model API error for run_ended (and records it as a `custom` `model_error`); never retries. */
  processAPIError(args: { error: unknown }): void;
}

/** The run's end: the last of the output processors, after yours (one of yours that throws fails the run first, and the records end without run_ended). */
export interface MastraTrajectoryEnd {
  readonly id: 'agent-trajectories-end';
  readonly name: string;
  /** Records the last step's tool results and run_ended. */
  processOutputResult<List>(args: { messageList: List; result: { finishReason?: string; steps?: readonly unknown[] } }): List;
}

export interface ObserveMastraOptions<Input extends readonly unknown[] = unknown[], Output extends readonly unknown[] = unknown[], Errors extends readonly unknown[] = unknown[]> extends LoopCaptureOptions {
  /** Your own input processors: kept, ours runs after them. */
  inputProcessors?: Input | undefined;
  /** Your own output processors: kept, ours runs before them (and the run's end after them). */
  outputProcessors?: Output | undefined;
  /** Your own error processors: kept, ours runs after them. */
  errorProcessors?: Errors | undefined;
}

/** The processor lists to spread into `new Agent({...})` or `agent.generate / stream(messages, {...})`. */
export interface MastraProcessors<Input extends readonly unknown[] = unknown[], Output extends readonly unknown[] = unknown[], Errors extends readonly unknown[] = unknown[]> {
  inputProcessors: [...Input, MastraTrajectoryProcessor];
  outputProcessors: [MastraTrajectoryProcessor, ...Output, MastraTrajectoryEnd];
  errorProcessors: [...Errors, MastraTrajectoryProcessor];
}

/**
 * Wires observers and capture into a Mastra agent through its processors:
 * `agent.generate(messages, { ...observeMastra({ observers, recorder, stopOn: 'warning' }) })`.
 * Processors passed to generate / stream replace the agent's own, so pass
 * yours in the options and they are kept. Use one per run. Throws
 * INVALID_ARGUMENT for a bad option (an unknown key names the nearest one).
 */
export function observeMastra<const Input extends readonly unknown[] = [], const Output extends readonly unknown[] = [], const Errors extends readonly unknown[] = []>(
  options?: ObserveMastraOptions<Input, Output, Errors>,
): MastraProcessors<Input, Output, Errors>;
