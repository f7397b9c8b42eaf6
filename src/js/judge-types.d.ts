import type { JsonInput, JsonValue, Severity, TrajectoryRecord } from './records';
import type { TrajectoryIndex } from './trajectory-index-types';
import type { AISdkLanguageModel, BatchRun, Model, TrajectoryResult } from './generate-types';
import type { ErrorCode, StopReason, Verdict } from './vocabulary';

// ---- Judge runs ---------------------------------------------------------

/**
 * A run to judge: its records (an array, or JSONL text or bytes), a
 * `runTrajectory` result, or a `TrajectoryIndex`. Where there are several
 * runs, the `runId` option says which. (A background run is judged by its
 * records: its result keeps only its last five tool calls.)
 */
export type RunLike = readonly TrajectoryRecord[] | string | Uint8Array | TrajectoryResult | TrajectoryIndex;
/** An expected tool call: its name (any arguments), or its name and arguments. */
export type ExpectedCall = string | { toolName: string; input?: JsonInput };
/** How arguments compare: equal JSON (numbers by value), not at all, or the expected keys only (to any depth). */
export type ArgsMatch = 'exact' | 'ignore' | 'subset';
export interface MatchTrajectoryOptions {
  /**
   * `strict` (default): the same calls in the same order. `in-order`: the
   * expected calls in order, others allowed between. `unordered`: the same
   * calls, each once, in any order. `subset`: every call made is one of the
   * expected. `superset`: every expected call was made (one listed twice,
   * twice).
   */
  mode?: 'strict' | 'in-order' | 'unordered' | 'subset' | 'superset' | undefined;
  /** For every tool (default `exact`), or per tool name: a mode or a function `(expected, actual) => boolean`. */
  args?: (ArgsMatch | { readonly [toolName: string]: ArgsMatch | ((expected: JsonValue, actual: JsonValue) => boolean) }) | undefined;
  /** The run to read, when the records hold several. */
  runId?: string | undefined;
}
export interface TrajectoryMismatch {
  /** `missing`: an expected call was not made. `unexpected`: a call was not expected. `different` (strict): another call at this position. */
  kind: 'missing' | 'unexpected' | 'different';
  /** 0-based, in `expected`. */
  expectedIndex?: number;
  /** 0-based, in the run's calls. */
  actualIndex?: number;
  /** The run's call closest to a missing one (same tool). */
  nearest?: number;
  /** In words, positions 1-based: `expected call 2 search({"q":"paris"}) was not made; nearest: call 3 search({"q":"Paris"}) (argument q: expected "paris", got "Paris")`. */
  message: string;
}
export interface TrajectoryMatch {
  pass: boolean;
  /** Matched calls over the calls the mode counts (1 when there are none). */
  score: number;
  matched: number;
  mismatches: TrajectoryMismatch[];
  /** The run's tool calls, in order (what `actualIndex` and `nearest` point at): `ok` when the call's end was recorded, `turn` when it was made in one. */
  calls: { toolName: string; input: JsonValue; ok?: boolean; turn?: number }[];
  /** A heading and a line per mismatch: what a failing test prints. */
  message: string;
}
/** Compares a run's tool calls with `expected`. Bad options, a run that is not one, or an arguments function that throws (cause kept) or answers other than true/false, throw a coded error. */
export function matchTrajectory(run: RunLike, expected: readonly ExpectedCall[], options?: MatchTrajectoryOptions): TrajectoryMatch;

/** What `checkRun` holds a run to. Only the checks given apply, except `verdict`, which defaults to `'pass'`. */
export interface CheckRunOptions {
  /** The verdicts that pass (default `'pass'`); `null`: any end, or none. */
  verdict?: Verdict | readonly Verdict[] | null | undefined;
  /** The stop reasons that pass. */
  reason?: StopReason | (string & {}) | readonly string[] | undefined;
  /** The most severe finding allowed; `'none'`: any finding fails. */
  maxSeverity?: Severity | 'none' | undefined;
  /** A finding at or above this fails (the other way to say maxSeverity; give one of them). */
  failOnSeverity?: Severity | undefined;
  /** Calls that failed, or that the run ended without finishing. */
  maxFailedCalls?: number | undefined;
  maxToolCalls?: number | undefined;
  /** Every model call's tokens (its `model_usage` records). */
  maxTokens?: number | undefined;
  maxTurns?: number | undefined;
  /** Steps the run must have worked on. */
  reachedSteps?: readonly string[] | undefined;
  /** When the run was judged (runTrajectory's `judge`), its last judgement must not be `fail` (default true). */
  judge?: boolean | undefined;
  /** The run to read, when the records hold several. */
  runId?: string | undefined;
}
export interface RunCheck {
  check: 'verdict' | 'reason' | 'maxSeverity' | 'failOnSeverity' | 'maxFailedCalls' | 'maxToolCalls' | 'maxTokens' | 'maxTurns' | 'reachedSteps' | 'judge';
  pass: boolean;
  /** What was found against the limit: `2 failed call(s), maxFailedCalls 0: call 3 book at turn 1, ...`. */
  message: string;
}
export interface RunChecks {
  pass: boolean;
  checks: RunCheck[];
  /** A heading and a line per failed check. */
  message: string;
}
/** Holds a run's own facts (its end, findings, failed calls, tokens, turns, steps) to limits; no model is asked. */
export function checkRun(run: RunLike, options?: CheckRunOptions): RunChecks;

/** A batch to compare: a `runTrajectories` result (or its JSON), or its runs. A run's `item` (repeats) else `id` names its item. */
export type BatchLike =
  | { readonly runs: readonly BatchRunLike[] }
  | readonly BatchRunLike[];
export type BatchRunLike = Pick<BatchRun, 'id' | 'verdict'> & Partial<Pick<BatchRun, 'turns' | 'tokens'>> & { item?: string; findings?: number; judgements?: readonly { criteria: readonly { name: string; verdict: string }[] }[] };
/** One side of an item: its runs taken together, per run. A run passes as `checkRun`'s defaults read it: verdict `pass`, and the judge's last judgement (when judged) not `fail`. */
export interface BatchItemSide { runs: number; passes: number; /** Every run passed. */ passed: boolean; turns: number; tokens: number; findings: number; /** Criteria a run's last judgement failed. */ failedJudges: string[] }
export interface BatchItemChange {
  id: string;
  status: 'regressed' | 'improved' | 'same' | 'added' | 'removed';
  baseline: BatchItemSide | null;
  current: BatchItemSide | null;
  /** Current minus baseline, per run; null for an added or removed item. */
  turns: number | null;
  tokens: number | null;
  findings: number | null;
  newlyFailedJudges: string[];
}
export interface BatchComparison {
  regressed: string[];
  improved: string[];
  added: string[];
  removed: string[];
  newlyFailedJudges: { id: string; criterion: string }[];
  /** Every item, regressions first. */
  items: BatchItemChange[];
  /** A table for a pull request comment, regressions first. */
  markdown: string;
}
/** Pairs items by name; an item passes when every run of it passed. */
export function compareBatches(baseline: BatchLike, current: BatchLike): BatchComparison;

/** A criterion's grade: `pass` (the conversation shows it holds), `fail` (shows it does not), `inconclusive` (shows neither). */
export type JudgeVerdict = 'pass' | 'fail' | 'inconclusive';
/** A criterion in plain language: its name (what the judge answers by) and, optionally, what it means. */
export interface JudgeCriterion { name: string; description?: string }
export interface JudgeOptions {
  /** Asked with `purpose: 'judge'` and `responseFormat: 'json'`; record and replay it with recordingModel / replayModel. */
  model: Model | AISdkLanguageModel;
  /** 1 to 50, names unique: strings, or `{ name, description }`. */
  criteria: readonly (string | JudgeCriterion)[];
  /** The run to judge, when the records hold several. */
  runId?: string | undefined;
  /** How long each judge call may take (default 120000); `false`: no deadline. Expiry rejects with TIMEOUT. */
  timeoutMs?: number | false | undefined;
}
/**
 * A judge's grading: per criterion, and overall (`fail` when any criterion
 * failed, `pass` when every one passed, else `inconclusive`). Recorded as a
 * `custom` record named `judgement` with this as its data.
 */
export interface Judgement {
  verdict: JudgeVerdict;
  criteria: { name: string; verdict: JudgeVerdict; reasoning: string }[];
  /** The turn it was made after; null for a recorded run judged whole. */
  turn: number | null;
  /** Made when the run was over. */
  final: boolean;
  /** 1, or 2 when the first answer could not be read and the judge was asked again. */
  attempts: number;
  /** When the second answer could not be read either: every criterion is inconclusive, and this says why. */
  error?: { code: ErrorCode | (string & {}); message: string };
  /** A heading and a line per criterion that did not pass, naming it and the turn. */
  message: string;
}
/**
 * Asks `model` to grade a recorded run (its conversation, tool calls and
 * findings) against `criteria`. An answer that cannot be read is asked
 * again once with the problem named, then every criterion is inconclusive
 * (`error` says why). A model that throws rejects with its error's code
 * (CALLBACK_FAILED, the cause kept); one that does not answer in time,
 * TIMEOUT.
 */
export function judge(run: RunLike, options: JudgeOptions): Promise<Judgement>;
