import type { AgentTrajectoriesError, Clock, JsonValue, ModelMessage, ModelMessageInput, ObserverPipelineOptions, Sink, TrajectoryRecord } from './records';
import type { ObserverPipeline } from './binding-types';
import type { ErrorCode, StopReason, Verdict } from './vocabulary';
import type { JudgeCriterion, Judgement } from './judge-types';

// ---- Generate ----------------------------------------------------------

/** What the core asks a model. `purpose` says why; `responseFormat: 'json'` means the prompt asks for JSON. */
export interface ModelRequest {
  purpose: 'user-message' | 'rank-steps' | 'decide' | 'reflect' | 'summarize' | 'judge';
  system?: string;
  messages: ModelMessage[];
  /** The tools the model may call. One array, the same in every request of a run that offers the same tools: read it, do not change it. */
  tools?: { name: string; description: string; inputSchema: JsonValue }[];
  responseFormat?: 'text' | 'json';
}
/** Tokens a call used, as the AI SDK reports them; they feed the observers' token budget (`budget.tokensUsed`). `totalTokens`, when given, is the call's count (its `model_usage` record, the budget, a step's `tokens`); else `inputTokens` + `outputTokens`. */
export interface TokenUsage { inputTokens?: number | undefined; outputTokens?: number | undefined; totalTokens?: number | undefined }
export type ModelResponse =
  | string
  | { text?: string; toolCalls?: { toolCallId?: string; toolName: string; input: unknown }[]; usage?: TokenUsage };
/** An AbortSignal, typed structurally so Node-only projects need no DOM lib. */
export interface AbortSignalLike { readonly aborted: boolean; readonly reason?: unknown; addEventListener(type: 'abort', listener: () => void): void; removeEventListener(type: 'abort', listener: () => void): void }
/** The runtime's own `AbortSignal` where the project declares one (the DOM lib, `@types/node`), else {@link AbortSignalLike}. */
export type CallAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : AbortSignalLike;
/** Passed with every agent and model call (a Model may leave the parameter out): `abortSignal` (a real `AbortSignal`, to pass on to a fetch or an AI SDK / Mastra call) fires when the run stops waiting for the answer (timeoutMs, abort), so the call can be cancelled. */
export interface CallOptions { abortSignal?: CallAbortSignal }
/** An injected model: the simulated user, the step ranker. */
export type Model = (request: ModelRequest, options: CallOptions) => Promise<ModelResponse>;

export interface Persona { name?: string; description: string; guardrails?: readonly string[] }
export type StepId = string;
export interface StepsSnapshot {
  satisfied: Set<StepId>;
  attemptsByStep: Map<StepId, number>;
  states: StepRuntimeState[];
}
export interface PreconditionContext { stepTraces: readonly StepTrace[]; snapshot: StepsSnapshot; step: StepDefinition; state: StepRuntimeState }
export type SatisfactionContext = PreconditionContext;
export type Precondition =
  | { type: 'stepSatisfied'; stepId: StepId }
  | { type: 'custom'; name?: string; evaluate(ctx: PreconditionContext): boolean | Promise<boolean> };
export interface StepDefinition {
  id: StepId;
  instruction: string;
  hints?: readonly string[];
  preconditions?: readonly Precondition[];
  /** Unsatisfied tries after which the step is `failed`. */
  maxAttempts?: number;
  /** Bounds the agent's answer on this step's turns; expiry ends the run with `error` (code TIMEOUT). */
  timeoutMs?: number;
  /** Default: the agent's last assistant message of the turn has text. */
  isSatisfied?(ctx: SatisfactionContext): boolean | Promise<boolean>;
}
export interface StepGraph { steps: readonly StepDefinition[]; start: StepId; terminals?: readonly StepId[] }
export interface Trajectory {
  goal: string;
  persona: Persona;
  steps?: StepGraph | undefined;
  /** The only turn cap. Default 20. */
  maxTurns?: number | undefined;
  /** Turns before which a reached goal does not end the run (the conversation goes on, with no step); at most maxTurns. Default 0. */
  minTurns?: number | undefined;
  conversationId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  loopDetection?: { maxConsecutiveSameStep?: number; maxCycleLength?: number; maxCycleRepetitions?: number } | undefined;
  ranker?: { threshold?: number; contextSteps?: number; topK?: number } | undefined;
  /** Turns of context the simulated user sees. Default 2. */
  userContextSteps?: number | undefined;
  /** The simulated user and step ranker when runTrajectory's options give none (theirs is used when they do). */
  userModel?: Model | AISdkLanguageModel | undefined;
  /**
   * Checks on the simulated user's replies. A reply that is empty, or that
   * a check rejects, is asked again with a reminder (`retries` times,
   * default 1, at most 10) and recorded as a `simulator_issue` record; one
   * that persists ends the run with reason 'error', side 'user-simulator',
   * verdict 'simulator'. `reasoning` and `role` are on by default; `repeat`
   * is opt-in (scripted test users repeat themselves on purpose).
   */
  simulator?: SimulatorOptions | undefined;
}
export interface SimulatorOptions {
  retries?: number | undefined;
  checks?: {
    /** The simulator's reasoning (`<think>`, "Thought:" lines) or lines of its own prompt. */
    reasoning?: boolean;
    /** A role label ("Assistant:", "User:") or the assistant's voice ("How can I help you", "As an AI"). */
    role?: boolean;
    /** An earlier user message of the run, word for word (case and spacing aside). Default false. */
    repeat?: boolean;
  };
}
/**
 * The agent under test. `history` is read-only, the array and its messages:
 * the same array grows turn by turn, holding the same message objects. An
 * agent that adds to it or takes from it anyway is handed the run's own
 * history next turn; a message changed in place stays changed in what the
 * agent is handed later. The run keeps only what `respond` returns.
 */
export interface AgentHandle {
  /**
   * The turn's new messages (assistant, tool), as `{ messages }` or a bare
   * array. `usage` is what the turn cost; with `observers` set it counts
   * towards their token budget. The adapters fill it in from the client's
   * result (AI SDK `totalUsage`, Mastra `usage`).
   */
  respond(history: readonly Readonly<ModelMessage>[], options?: CallOptions): Promise<{ messages: readonly ModelMessageInput[]; usage?: TokenUsage } | readonly ModelMessageInput[]>;
}

export type StepSelectionMethod = 'start' | 'preconditions-ordered' | 'llm-ranked' | 'none';
export interface StepCandidate { stepId: StepId; score: number; reasons?: string[] }
export interface StepTraceEnd {
  isFinal: true;
  reason: StopReason;
  completed: boolean;
  verdict: Verdict;
  summary?: string;
  /** For reason 'error': what failed, and where. */
  error?: {
    code: ErrorCode | (string & {});
    message: string;
    side: 'user-simulator' | 'agent' | 'ranker' | 'precondition' | 'satisfaction' | 'policy' | 'observer' | 'recorder' | 'clock' | 'judge';
    stepId?: StepId;
    /** What your callback threw, when one did (not enumerable: JSON and exports leave it out). */
    cause?: unknown;
  };
  /** What the observers found that the agent was never shown (in its last turn), rendered as a step's `assessment` is; also recorded, as `assessment_produced` without a turn. */
  assessment?: string;
}
export interface StepTrace {
  turnIndex: number;
  userMessage: ModelMessage;
  agentMessages: ModelMessage[];
  /** ISO 8601, from the injected clock. */
  timestamp: string;
  stepId: StepId | null;
  selection: { method: StepSelectionMethod; candidates?: StepCandidate[]; rankerError?: string };
  /** The observers' assessment the agent was shown with this turn's user message (as a text part of it), rendered. */
  assessment?: string;
  /** Tokens this turn's model calls reported (user model, ranker, agent, and the judge's after it; the last turn also the judge's at the end); absent when none did. */
  tokens?: number;
  end?: StepTraceEnd;
  /** The rubric judge's judgement after this turn (runTrajectory's `judge`). */
  judgement?: Judgement;
}
export interface StepRuntimeState {
  stepId: StepId;
  status: 'idle' | 'in_progress' | 'satisfied' | 'blocked' | 'failed' | 'skipped';
  attempts: number;
  lastUpdatedAt: string;
}
export interface TrajectoryResult {
  conversationId?: string;
  steps: StepTrace[];
  /** The final marker (also on the last trace); present even when no turn ran. */
  end: StepTraceEnd;
  stepStates?: StepRuntimeState[];
  /** The rubric judge's last judgement: the one that ended the run, or the one made at its end (`final`). */
  judgement?: Judgement;
  /** Records the sink refused and that were dropped (`onSinkError: 'drop'`, the default); 0 when none were. Set on every result runTrajectory resolves with. */
  droppedRecords?: number;
}

export interface PolicyContext {
  turnIndex: number;
  maxTurns: number;
  stepTraces: readonly StepTrace[];
  snapshot: StepsSnapshot;
  /** The step the previous turn worked on. The policy runs before the turn's step is selected, so a stop costs no model call. */
  lastStepId: StepId | null;
  terminals: StepId[];
  /** No open step is left (every step satisfied, failed, or waiting on a failure). */
  exhausted: boolean;
  /** What DefaultPolicy decides here. */
  defaultDecision: PolicyDecision;
}
/** The stops a policy may give: `error`, `aborted` and `judge-failed` are the run's own (a policy that fails throws). */
export type PolicyStopReason = Exclude<StopReason, 'error' | 'aborted' | 'judge-failed'>;
export type PolicyDecision = { stop: false } | { stop: true; reason: PolicyStopReason; completed?: boolean; summary?: string };
export interface Policy { evaluate(ctx: PolicyContext): PolicyDecision | undefined | Promise<PolicyDecision | undefined> }
/** The built-in stop rules (terminal satisfied, maxTurns, nothing left to run), for policies that defer to them. */
export class DefaultPolicy implements Policy {
  evaluate(ctx: PolicyContext): PolicyDecision;
}

export interface RunTrajectoryOptions {
  /** The simulated user and step ranker: a Model function or an AI SDK language model. */
  userModel: Model | AISdkLanguageModel;
  clock?: Clock | undefined;
  /** Records of the run go here (MemorySink, JsonlSink or any { record(r) }). */
  sink?: Sink | undefined;
  onSinkError?: 'drop' | 'fail' | undefined;
  /**
   * Every record, live, as it is made, once the sink has taken it. Under
   * `onSinkError: 'fail'` a sink's failure ends the run there (`SINK_FAILED`,
   * the sink's error as its `cause`): the record the sink refused, and any
   * the run's end would have made, reach `onRecord` no more than the sink.
   */
  onRecord?(record: TrajectoryRecord): void;
  /** Tool calls in the agent's messages feed it; its assessment reaches the agent next turn. */
  observers?: ObserverPipeline | ObserverPipelineOptions | undefined;
  /** Replaces DefaultPolicy. */
  policy?: Policy | Policy['evaluate'] | undefined;
  /** An AbortSignal (typed structurally, so Node-only projects need no DOM lib). */
  signal?: AbortSignalLike | undefined;
  /** The conversation id when the definition gives none (default: `trajectory-<start ms>`); a fork's id (see `resumeFrom`). */
  runId?: string | undefined;
  /**
   * Fork a recorded run: keep its first `atTurn` turns (0 keeps none: a fresh
   * run; `result.steps.length` continues it), replayed without asking any
   * model, then go on live. The new run records its parent
   * (`parent_run_id`) and a `custom` `fork` record `{ parentRunId, atTurn }`;
   * its id is `runId` (unless that is the parent's), else
   * `<parent id>-fork-<atTurn>`. Of `result`, `conversationId` and `steps`
   * are read; `conversationId` is required (every result runTrajectory
   * resolves with has it).
   */
  resumeFrom?: { result: { conversationId?: string | undefined; steps: readonly StepTrace[] }; atTurn: number } | undefined;
  /**
   * How long each callback the run awaits may take (the user model, the step
   * ranker, the agent, the policy, `isSatisfied` and custom preconditions; a
   * step's `timeoutMs` overrides it for that step's agent calls) before the
   * run ends with TIMEOUT. Default 120000 (two minutes), so a callback that
   * never answers cannot hang a run that has no `signal`; `false`: no deadline.
   */
  callTimeoutMs?: number | false | undefined;
  /**
   * A rubric judge, asked after every turn (unless `everyTurn: false`) and
   * at the end. After a turn, a `fail` ends the run (reason `judge-failed`,
   * verdict `agent`; `endOnFail: false` keeps going) and a `pass` of every
   * criterion ends it as `goal-reached` (`endOnPass: false` keeps going);
   * `inconclusive` never ends it. At the end, a `fail` of a run that reached
   * its goal makes it `judge-failed`. Each judgement is on its trace
   * (`judgement`) and recorded (`custom` `judgement`); the judge's model
   * failing ends the run with `error`, side `judge`, verdict `harness`. An
   * unreadable answer is asked again once, then judged inconclusive.
   */
  judge?: { model: Model | AISdkLanguageModel; criteria: readonly (string | JudgeCriterion)[]; everyTurn?: boolean; endOnFail?: boolean; endOnPass?: boolean } | undefined;
}
/** What createTrajectory returns: the definition bound to its agent. */
export type BoundTrajectory = Trajectory & { agent: AgentHandle };
/** A bound trajectory with its own user model: runTrajectory needs no options for it. */
export type SelfDrivenTrajectory = BoundTrajectory & { userModel: Model | AISdkLanguageModel };
/**
 * Validates a definition (coded `INVALID_TRAJECTORY` errors naming the
 * culprit) and returns it bound to the agent.
 */
export function createTrajectory(def: Trajectory & { userModel: Model | AISdkLanguageModel }, agent: AgentHandle): SelfDrivenTrajectory;
export function createTrajectory(def: Trajectory, agent: AgentHandle): BoundTrajectory;
/**
 * Runs the trajectory to its end. Options are checked first: an unknown key
 * rejects with INVALID_ARGUMENT naming the nearest valid one (`observer` →
 * `observers`). The options' `userModel` may be left out when the
 * trajectory has its own.
 */
export function runTrajectory(trajectory: SelfDrivenTrajectory, opts?: Partial<RunTrajectoryOptions>): Promise<TrajectoryResult>;
export function runTrajectory(trajectory: BoundTrajectory, opts: RunTrajectoryOptions): Promise<TrajectoryResult>;

/** An AgentHandle that answers through `agent` and keeps each call (the conversation so far) with its answer, in replayModel's format. */
export function recordingAgent(agent: AgentHandle): AgentHandle & { readonly recording: AgentRecording };
/** replayModel's format, each request the conversation an agent was called with. */
export interface AgentRecording {
  format: 'agent-trajectories/model-recording';
  version: 1;
  entries: { key: string; request: { purpose: 'agent'; messages: ModelMessage[] }; response: unknown }[];
}
/** An AgentHandle that answers from a recording, each conversation matched whole; a miss rejects with REPLAY_MISS naming the turn and the difference. */
export function replayAgent(recording: AgentRecording | string): AgentHandle;

/** One run of a batch: a trajectory (from createTrajectory), its own options (its own sink, user model), an id (default: a fork's own id, else the trajectory's conversationId, else `run-<n>`). */
export type BatchItem =
  | { trajectory: SelfDrivenTrajectory; options: Partial<RunTrajectoryOptions>; id?: string }
  | { trajectory: BoundTrajectory; options: RunTrajectoryOptions; id?: string };
export interface BatchRun {
  /** The run's id: its item's, or with `repeat`, `<item>#<n>` (also the run's conversation id and records' run_id). */
  id: string;
  /** The item's id (`id` without the repeat). */
  item: string;
  /** Which repeat of its item, from 1. */
  repeat: number;
  /** Its place in `items`. */
  index: number;
  /** Null when the run was refused before it ran (see `error`) or never started (the batch's signal). */
  result: TrajectoryResult | null;
  /** Why it was refused before it ran, or why its end could not be reported (onProgress threw or rejected). */
  error: AgentTrajectoriesError | null;
  reason: StopReason | null;
  verdict: Verdict | null;
  turns: number;
  /** Tokens its model calls reported (its traces' `tokens`; a fork's kept turns left out, as they cost it nothing, and from `turns` too). */
  tokens: number;
  /** Records it made (0 when nothing asked for them: no sink, `onRecord` or `onProgress`). */
  records: number;
  /** toArtifacts(result, trajectory), or null without a result. */
  artifacts(): TrajectoryArtifacts | null;
  /** The judge's judgements of the run (runTrajectory's `judge`): after each turn, and the one at the end. */
  judgements: Judgement[];
}
export interface BatchSummary {
  runs: number;
  byVerdict: Record<Verdict, number>;
  byReason: Partial<Record<StopReason, number>>;
  /** Passes over every run; null for an empty batch. */
  passRate: number | null;
  /** Passes over the runs the agent decided (verdict pass or agent): the simulator's, the harness's faults and aborted runs left out. */
  agentPassRate: number | null;
  excluded: { simulator: number; harness: number; aborted: number };
  turns: number;
  tokens: number;
  turnsPerRun: number | null;
  tokensPerRun: number | null;
  /** Wall time of the batch (null from summarizeBatch). */
  ms: number | null;
  /**
   * Per item and overall pass@k and pass^k, k the fewest runs of an item
   * (runTrajectories' `repeat`); null unless every run names its item
   * (runTrajectories' runs do; summarizeBatch's when each has `item`).
   */
  reliability: BatchReliability | null;
}
/**
 * Reliability over repeats, by τ-bench's definitions: of an item's n
 * decided runs (verdict pass or agent: the simulator's and the harness's
 * faults and aborted runs left out) with c passes, pass^k = C(c,k)/C(n,k)
 * (k runs drawn at random all pass) and pass@k = 1 − C(n−c,k)/C(n,k) (at
 * least one does). Overall: the mean over items with at least k decided
 * runs; null when there is none.
 */
export interface BatchReliability {
  k: number;
  passAtK: number | null;
  passHatK: number | null;
  /** At every j from 1 to k. */
  byK: { k: number; passAtK: number | null; passHatK: number | null }[];
  items: { id: string; runs: number; decided: number; passes: number; passAtK: number | null; passHatK: number | null }[];
}
/** The summary of runs reported elsewhere (say, by Queue consumers, one run each), as runTrajectories sums its own; runs that name their `item` (repeats of it) get pass@k and pass^k too. */
export function summarizeBatch(runs: readonly { reason: StopReason | string | null; verdict: Verdict | null; turns?: number; tokens?: number; item?: string }[]): BatchSummary;
export type BatchProgress =
  | { type: 'record'; id: string; record: TrajectoryRecord; done: number; total: number }
  | { type: 'end'; id: string; run: BatchRun; done: number; total: number };
export interface RunTrajectoriesOptions {
  /** Runs at a time, on one event loop. Default 4. */
  concurrency?: number | undefined;
  /** Stops the batch: runs not started are not started (verdict 'aborted'); running ones get it unless their options have a signal. */
  signal?: AbortSignalLike | undefined;
  /** Each record as it arrives (a throw or a rejected Promise ends that run with 'error', side 'recorder'), and each run's end (a throw or rejection there sets the run's `error`; the batch resolves after such Promises settle). */
  onProgress?: ((progress: BatchProgress) => void | PromiseLike<void>) | undefined;
  /** Runs each item this many times (1 to 1000, default 1), as `<id>#1` ... `<id>#k`; the summary's `reliability` gives pass@k and pass^k. */
  repeat?: number | undefined;
}
/** Runs many trajectories, at most `concurrency` at a time; one failing run never stops the others. */
export function runTrajectories(items: readonly BatchItem[], opts?: RunTrajectoriesOptions): Promise<{ runs: BatchRun[]; summary: BatchSummary }>;
export interface MatrixCell { id: string; scenario: string; persona: string; agent: string }
/** Batch items for every scenario × persona × agent, each with the id "scenario/persona/agent". */
export function trajectoryMatrix(m: {
  scenarios: Record<string, Omit<Trajectory, 'persona' | 'conversationId'>>;
  personas: Record<string, Persona>;
  agents: Record<string, AgentHandle>;
  options: (cell: MatrixCell) => RunTrajectoryOptions;
}): BatchItem[];

export interface ConversationStep { stepIndex: number; input: ModelMessage; output: ModelMessage[]; timestamp?: string; metadata?: Record<string, unknown> }
/** Tally's `Conversation`; `metadata` is the run's outcome (empty when the result has no end). */
export interface Conversation { id: string; steps: ConversationStep[]; metadata: { completed?: boolean; reason?: StopReason; verdict?: Verdict; summary?: string } }
export interface TrajectoryArtifacts { 'conversation.jsonl': string; 'stepTraces.json': string; 'trajectory.meta.json': string }

/**
 * What withAISdkAgent calls on an AI SDK Agent (`ToolLoopAgent`, or any
 * `Agent`): `agent.generate({ messages, abortSignal })`. The messages are AI
 * SDK `ModelMessage`s; their type is left open (`never[]`) so that an Agent
 * of any AI SDK version fits without this package depending on `ai`'s types.
 * An Agent whose calls need `options` (a `callOptionsSchema`) does not fit:
 * withAISdkAgent passes none.
 */
export interface AISdkAgentLike { generate(call: { messages: never[] }): PromiseLike<unknown> }
/** A `generateText` config: what withAISdkAgent passes to `generateText` each turn, with the history as `messages`. */
export interface GenerateTextConfig {
  /** An AI SDK language model (or a model id your `ai` setup resolves). */
  model: string | object;
  /** Left out: the history is passed as `messages`. */
  messages?: never;
  /** Left out: the history is passed as `messages`. */
  prompt?: never;
  /** `generateText` from `ai`; needed in browsers and Workers unless withAISdkAgent comes from `agent-trajectories/ai` (Node also loads `ai` by name). */
  generateText?: (options: never) => PromiseLike<unknown>;
  /** Any other generateText option (`tools`, `system`, `stopWhen`, ...), passed as given. */
  [option: string]: unknown;
}
/** An AI SDK Agent, or a `generateText` config (needs `generateText`: pass it, or import this from `agent-trajectories/ai`). Each turn resolves with the turn's messages and its total token usage. */
export function withAISdkAgent(agentOrConfig: AISdkAgentLike | GenerateTextConfig): AgentHandle;
/**
 * What withMastraAgent calls on a Mastra Agent: `agent.generate(messages,
 * { abortSignal })`, messages being AI SDK `ModelMessage`s (typed open, as
 * for AISdkAgentLike).
 */
export interface MastraAgentLike { generate(messages: never[], options: { abortSignal?: never }): PromiseLike<unknown> }
/** A Mastra Agent. Each turn resolves with the turn's messages and its token usage. */
export function withMastraAgent(agent: MastraAgentLike): AgentHandle;
/** An AI SDK language model (`LanguageModelV2`..`V4`, `MockLanguageModelV4` from `ai/test`). */
export interface AISdkLanguageModel { readonly specificationVersion: string; doGenerate(options: never): PromiseLike<unknown> }
/** An AI SDK language model as a Model (calls `generateText`: pass it, or import this from `agent-trajectories/ai`); answers carry the call's token usage. */
export function fromAISdkModel(model: AISdkLanguageModel, opts?: { generateText?: (options: never) => PromiseLike<unknown> }): Model;
/**
 * Options of `fromOpenAIChat`. Every key not listed here (temperature,
 * max_tokens, seed, ...) is sent as a field of the request body, as given:
 * that is how endpoint-specific settings reach the endpoint, so a misspelt
 * key is sent too rather than refused.
 */
export interface OpenAIChatOptions {
  /** The API root that `/chat/completions` is appended to, e.g. `https://api.openai.com/v1`. */
  baseURL: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Default: the global `fetch`. */
  fetch?: ((url: string, init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignalLike }) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>) | undefined;
  [field: string]: unknown;
}
/**
 * A Model over an OpenAI-compatible chat completions endpoint, by `fetch`
 * alone (Workers need nothing else). Bad options throw INVALID_ARGUMENT; a
 * fetch that rejects (cause kept) or does not resolve to a Response, a
 * non-2xx answer, and an answer without `choices[0].message` reject with
 * CALLBACK_FAILED.
 */
export function fromOpenAIChat(options: OpenAIChatOptions): OpenAIChatModel;
/** The Model `fromOpenAIChat` makes: a run passes it `options`, and you may call it yourself without them; it always answers `{ text, toolCalls?, usage? }`. */
export type OpenAIChatModel = (request: ModelRequest, options?: CallOptions) => Promise<{ text: string; toolCalls?: { toolCallId?: string; toolName: string; input: unknown }[]; usage?: TokenUsage }>;
export interface ModelRecording {
  format: 'agent-trajectories/model-recording';
  version: 1;
  /** In the order the model was asked: what it answered, or how it failed (a replay fails the same way, with the same code). */
  entries: ModelRecordingEntry[];
}
export type ModelRecordingEntry =
  | { key: string; request: ModelRequest; response: ModelResponse }
  | { key: string; request: ModelRequest; error: { message: string; code?: ErrorCode } };
/** A Model that keeps every request → response; read them from `.recording`. */
export function recordingModel(model: Model | AISdkLanguageModel): Model & { readonly recording: ModelRecording };
/**
 * A Model answering from a recording (the object or its JSON text). Each
 * recorded answer is given once, in order: a request asked more often than it
 * was recorded, or never recorded, rejects with REPLAY_MISS (with a diff
 * against the closest recorded request). A recording that is not one throws
 * INVALID_ARGUMENT.
 */
export function replayModel(recording: ModelRecording | string): Model;
/** `conversation.jsonl`, `stepTraces.json` and `trajectory.meta.json` of a run, as strings. A result or definition that is not one throws INVALID_ARGUMENT. */
export function toArtifacts(result: TrajectoryResult, def: Trajectory): TrajectoryArtifacts;
/** A stable key for a model request (a hash of its canonical JSON): what recordings are keyed by. A request that is not plain JSON (a cycle, a BigInt, a getter that throws) throws INVALID_ARGUMENT. */
export function modelRequestKey(request: ModelRequest): string;
