// Types of the WebAssembly binding as the JS layer calls it (through
// src/js/binding.js), for the type check of src/js only; nothing here is
// shipped. The internals (`__runTrajectory`, ...) have no declarations of
// their own (they are skip_typescript), so they are declared here.
// ObserverPipeline and TrajectoryRecorder stand in for the glue's
// declarations (wasm-bindgen's): the public .d.ts files of src/js import
// them from here, and
// scripts/assemble.mjs drops those imports, so that the package's
// index.d.ts has the glue's own, complete declarations.

import type { ObserverPipelineOptions, PipelineSnapshot, ToolCallInput, CurrentAssessment, TrajectoryPayloadInput, RunEnd, RunOutcome, Budget, ToolCallRecord, ObserverState } from './records';
import type { Trajectory, AgentHandle, TrajectoryResult, BatchSummary, ModelRecording } from './generate-types';
import type { StopReason, Verdict } from './vocabulary';
import type { TrajectoryMatch, RunChecks, BatchComparison, Judgement } from './judge-types';

/** The glue's ObserverPipeline (the parts the JS layer uses). */
export declare class ObserverPipeline {
  constructor(opts: ObserverPipelineOptions);
  static restore(snapshot: PipelineSnapshot, opts: ObserverPipelineOptions): ObserverPipeline;
  context(): string;
  current(): CurrentAssessment | undefined;
  recordTokens(n: number): void;
  recordToolCall(call: ToolCallInput): CurrentAssessment | undefined;
  recentToolCalls(n: number): ToolCallRecord[];
  setBudget(budget: Budget): void;
  snapshot(): PipelineSnapshot;
  readonly budget: Budget;
  readonly callCount: number;
  readonly state: ObserverState;
}

/** The glue's TrajectoryRecorder (the parts the JS layer uses). */
export declare class TrajectoryRecorder {
  record(payload: TrajectoryPayloadInput): number;
  readonly nextSeq: number;
  readonly runId: string | undefined;
  readonly started: boolean;
  readonly ended: boolean;
  /** The run's id, else a new one from `prefix` by the recorder's clock (the core's default-id rule). */
  __runIdOr(prefix: string): string;
}

/** `__TrajectoryIndexCore`: the stream's bytes, a row of columns per record, and the core's runs and turns. */
export declare class TrajectoryIndexCore {
  constructor(input: string | Uint8Array);
  readonly byteLength: number;
  columns(): Uint32Array;
  numbers(): Float64Array;
  strings(): string[];
  /** `[line, message, code]` triples, flattened. */
  problems(): (number | string)[];
  text(i: number): string;
  /** `[turnOf, runs, runTokens, turns, turnRecords, lists]` (src/wasm/index.rs). */
  groups(): [Uint32Array, Uint32Array, Float64Array, Float64Array, Uint32Array, Uint32Array];
  search(needle: string, run: number | undefined): [number, Uint32Array, Uint32Array];
  free(): void;
}

/** `__StopOn`: a watched loop's stopOn option, read and counted by the core. */
export declare class StopOn {
  /** Undefined when the option is not given; `place` names the adapter's options. */
  static read(option: unknown, place: string): StopOn | undefined;
  /** Counts an assessment of `severity`; true once the loop should stop. */
  hit(severity: string): boolean;
  readonly severity: string;
  readonly times: number;
}

/** `__ModelReplay`: a recording's answers, matched and handed out by the core. */
export declare class ModelReplay {
  /** `recording`: the recording as JSON text. */
  constructor(recording: string);
  /** The next recorded answer to `request` (JSON text); throws REPLAY_MISS when there is none. */
  answer(request: string): { response?: any; error?: { message: string; code?: string } };
}

/** What a batch run counts, by the core's rules (`__batchTally`). */
export interface BatchTally { reason: StopReason | null; verdict: Verdict | null; turns: number; tokens: number }

/** A `custom` record's payload, as the core writes it. */
export interface CustomPayload { kind: 'custom'; name: string; data: any }

/** The glue's functions the JS layer calls, by the names it calls them (src/js/binding.js maps them to the glue's). */
export interface Binding {
  /** `__runTrajectory`: the core's run, with the options already read and adapted. */
  runTrajectory(trajectory: unknown, opts: Record<string, unknown>, host: { macrotask(): Promise<void>; callSignal(): [options: object, stop: (reason: unknown) => void] }): Promise<TrajectoryResult>;
  ObserverPipeline: typeof ObserverPipeline;
  toJSONL(result: TrajectoryResult): string[];
  /** `__checkOptions`: refuses a key of `obj` not in `allowed`, naming the nearest one. */
  checkOptions(obj: unknown, allowed: readonly string[], place: string): void;
  /** `__runBackground`: the background loop; every decision is the core's. */
  runBackground(host: object, objective: unknown, schema: unknown, config: unknown, resumeFrom: unknown): Promise<any>;
  /** `__checkBackground`: the runner's options, checked when it is made. */
  checkBackground(opts: Record<string, unknown>, config: unknown, tools: string[]): void;
  TrajectoryIndexCore: typeof TrajectoryIndexCore;
  /** `__checkRecordKind`: refuses a string that is not a record kind, naming the nearest one. */
  checkRecordKind(kind: string, place: string): void;
  createTrajectory(def: Trajectory, agent: AgentHandle): Trajectory & { agent: AgentHandle };
  /** `__modelUsage`: a `custom` model_usage payload, or undefined when the usage has no count. */
  modelUsage(usage: object, finishReason: string | undefined): (CustomPayload & { data: { totalTokens?: number } }) | undefined;
  readOutcome(outcome: RunOutcome | string): RunEnd;
  /** `__modelError`: a `custom` model_error payload. */
  modelError(message: string): CustomPayload;
  /** `__loopOutcome`: run_ended's outcome for a watched loop's end. */
  loopOutcome(end: object): RunOutcome;
  /** `__budgetRecord`: the `custom` budget payload of a run's limits. */
  budgetRecord(limits: unknown, place: string): CustomPayload;
  /** `__batchItemId`: a batch run's id (its own, a fork's, the conversation's, run-N). */
  batchItemId(id: string | undefined, forkParent: string | undefined, atTurn: number | undefined, runId: string | undefined, conversationId: string | undefined, index: number): string;
  /** `__repeatId`: repeat `n` (from 1) of `of` of an item's run id. */
  repeatId(item: string, n: number, of: number): string;
  /** `__batchTally`: what a run counts; `how` is 'finished', 'thrown' or 'unstarted'. */
  batchTally(how: 'finished' | 'thrown' | 'unstarted', reason: string | undefined, verdict: string | undefined, turnTokens: ArrayLike<number>, kept: number): BatchTally;
  /** `__batchSummary`: the summary of runs (checked, naming `place`); `ms` undefined outside a batch. */
  batchSummary(runs: unknown, ms: number | undefined, place: string): BatchSummary;
  /** `__matrixId`: a matrix cell's id (its names checked). */
  matrixId(scenario: string, persona: string, agent: string, place: string): string;
  StopOn: typeof StopOn;
  ModelReplay: typeof ModelReplay;
  /** `__modelRequestKey`: a request's key (its JSON text) by the core's rule. */
  requestKey(request: string, path: string): string;
  /** `__recordingEntry`: a recording's entry for a request and its answer (JSON texts). */
  recordingEntry(request: string, answer: string): ModelRecording['entries'][number];
  /** `__recordingFormat`: the recording's format and version. */
  recordingFormat(): { format: ModelRecording['format']; version: ModelRecording['version'] };
  /** `__judging('match', ...)`: `customTools` have a function in `options.args`, called through `custom`. */
  matchTrajectory(op: 'match', run: unknown, expected: unknown, options: unknown, customTools: string[], custom: (tool: string, expected: unknown, actual: unknown) => unknown): TrajectoryMatch;
  /** `__judging('check', ...)`. */
  checkRun(op: 'check', run: unknown, options: unknown): RunChecks;
  /** `__judging('compare', ...)`: the structured comparison (the JS layer adds its markdown). */
  compareBatches(op: 'compare', baseline: unknown, current: unknown): Omit<BatchComparison, 'markdown'>;
  /** `__judge`: the rubric judge over a recorded run; `options.model` already a Model function. */
  judge(run: unknown, options: Record<string, unknown>, host: { macrotask(): Promise<void>; callSignal(): [options: object, stop: (reason: unknown) => void] }): Promise<Judgement>;
}

/** What a main entry sets besides the binding. */
export interface BindingOptions {
  /** Wraps each function before the layer gets it (web.js: the NOT_INITIALIZED guard), given the public API it serves. */
  wrap?: <T extends object>(api: string, target: T) => T;
  /** Where this entry gets `ai` by itself (Node: by name, on first use); absent, the caller passes generateText. */
  importAi?: () => Promise<{ generateText: Function }>;
}
