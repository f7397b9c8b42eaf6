// The TrajectoryIndex class and what its queries answer.

import type { Assessment, RunEnd, TrajectoryRecord } from './records';

// ---- Index a record stream ---------------------------------------------

/**
 * An index over a record JSONL stream for viewers and harnesses: the bytes
 * are kept and, per record, only what navigation needs; a record is parsed
 * when asked for (`get`). A line that is not a record, or a hole in a run's
 * `seq`, is listed by `errors()` with its line number; the rest loads. A
 * record of a kind `parseTrajectoryJsonl` does not know is kept and listed
 * too. A leading byte-order mark is skipped.
 * Record indices count records, not lines. `runId` arguments take a run id,
 * or null for the records without one; where optional, leaving it out
 * means the first run (or, for `counts` and `assessments`, every run).
 */
export class TrajectoryIndex {
  private constructor();
  /** Indexes record JSONL text or its UTF-8 bytes. Throws only for input that is neither. */
  static fromJsonl(input: string | Uint8Array): TrajectoryIndex;
  /** Records indexed (bad lines not counted). */
  readonly length: number;
  /** Bytes of the stream the index keeps. */
  readonly byteLength: number;
  /**
   * Lines that are not records, records of an unknown kind, and holes in a
   * run's `seq`, by 1-based line, with the code `parseTrajectoryJsonl` gives
   * the same fault.
   */
  errors(): { line: number; message: string; code: 'JSONL_PARSE' | 'INVALID_RECORD' | 'UNSUPPORTED_SCHEMA_VERSION' | 'SEQ_GAP' }[];
  /** Runs in the order their first record appears; a child run's `parentCall` is the call it ran inside. */
  runs(): IndexedRun[];
  /** Records per kind, of one run or of all. */
  counts(runId?: string | null): Record<string, number>;
  /**
   * The turns of a run; a run without `turn_started` records (a background run) has its iterations as turns.
   * With no `runId`, this and the other per-run queries read the first run; an index with no runs (an empty file) answers them empty (`[]`, `null`, a budget of no turns).
   */
  turns(runId?: string | null): IndexedTurn[];
  /** Record indices of one turn of a run; `turn` null: its records outside every turn. */
  turnRecords(runId: string | null | undefined, turn: number | null): Uint32Array;
  /** What the index keeps of record `i`, without parsing it. */
  info(i: number): RecordInfo;
  /**
   * Record `i`, parsed as written: `JSON.parse` of its line. A field its
   * writer left out (`schema_version`, `depth`) stays out, where
   * `parseTrajectoryJsonl` fills in the default; a record of a kind this
   * version does not know is kept as it is.
   */
  get(i: number): TrajectoryRecord;
  /** Record `i`'s line, as written. */
  text(i: number): string;
  /** Record indices that pass every part of `q`, ascending. An unknown kind is refused, naming the nearest one. */
  filter(q: IndexFilter): Uint32Array;
  /**
   * Matches of `q` in every run or one: a string is searched, ignoring ASCII
   * case, in every string value (tool names, arguments, results, messages;
   * keys excluded); a RegExp runs over each record's JSON line, every
   * match counted (its `g` and `y` flags are ignored, the others kept).
   */
  search(q: string | RegExp, opts?: { runId?: string | null }): IndexHits;
  /** Tokens, tool calls and time per turn, against the limits of the run's `custom` `budget` record. */
  budget(runId?: string | null): IndexBudget;
  /** The steps a generated run took, in order, each with its selection method and candidates. */
  stepPath(runId?: string | null): IndexedStep[];
  /** The run's step graph (its `custom` `step_graph` record, each step with its final state from a `step_states` record), or null. */
  stepGraph(runId?: string | null): IndexedStepGraph | null;
  /** Assessments, each with the tool call it fired after. */
  assessments(runId?: string | null): IndexedFinding[];
  /** Frees the index's memory in the WebAssembly module; a second call does nothing. */
  free(): void;
  [Symbol.dispose](): void;
}

/** A run in a {@link TrajectoryIndex}: record indices, counts and how it ended. */
export interface IndexedRun {
  runId: string | null;
  parentRunId: string | null;
  depth: number;
  /** Record indices of its first and last record. */
  first: number;
  last: number;
  records: number;
  startedAt: number;
  endedAt: number;
  turns: number;
  toolCalls: number;
  /** Calls whose tool_ended says they failed, and calls the run ended without finishing. */
  failedCalls: number;
  assessments: number;
  /** Every model call's tokens (its `model_usage` records), inside a turn or not (a background run's summary). */
  tokens: number;
  /** How the run ended (readOutcome of its run_ended); null without one. */
  outcome: RunEnd | null;
  /** Record index of the parent's `tool_started` this child run ran inside (null when no call was open). */
  parentCall: number | null;
  /** Record index of the parent's last record before this child run's first. */
  parentRecord: number | null;
}

/** A turn (or a background iteration, in a run without turns). */
export interface IndexedTurn {
  turn: number;
  first: number;
  last: number;
  records: number;
  /** The step a generated turn worked on. */
  step: string | null;
  toolCalls: number;
  errors: number;
  /** Tokens from the turn's `custom` `model_usage` records. */
  tokens: number;
  startedAt: number;
  endedAt: number;
}

/** What the index keeps of a record, without parsing it. */
export interface RecordInfo {
  seq: number;
  runId: string | null;
  depth: number;
  kind: string;
  turn: number | null;
  toolName: string | null;
  /** A failed tool call, a failed model call (`model_error`), a run that did not complete, a failed iteration or a warning assessment. */
  isError: boolean;
  severity: 'info' | 'caution' | 'warning' | null;
  at: number;
  /** 1-based line in the stream. */
  line: number;
}

export interface IndexFilter {
  kind?: TrajectoryRecord['payload']['kind'] | readonly TrajectoryRecord['payload']['kind'][] | undefined;
  /** A run id, or null for the records without one. */
  runId?: string | null | undefined;
  errorsOnly?: boolean | undefined;
  minSeverity?: 'info' | 'caution' | 'warning' | undefined;
  /** A turn number, or null for the records outside every turn. */
  turn?: number | null | undefined;
}

export interface IndexHits {
  /** Matches in all. */
  count: number;
  /** Records with at least one match, ascending. */
  records: Uint32Array;
  /** Matches in each of `records`. */
  counts: Uint32Array;
}

export interface IndexBudget {
  /** Per turn (not cumulative); `elapsedMs` is from the run's first record to the turn's last. */
  turns: { turn: number; first: number; tokens: number; toolCalls: number; ms: number; elapsedMs: number }[];
  /** From a `custom` record named `budget` (`maxTokens`, `maxToolCalls`, `maxMs` or `deadline`). */
  limits: { tokens: number | null; toolCalls: number | null; ms: number | null };
}

export interface IndexedStep {
  /** The turn the step was selected for (null when its record has no turn_index). */
  turn: number | null;
  record: number;
  stepId: string | null;
  /** How it was chosen ('start', 'preconditions-ordered', 'llm-ranked', 'none'); null when the record does not say. */
  method: string | null;
  candidates: { stepId: string; score: number; reasons?: string[] }[];
  rankerError: string | null;
}

export interface IndexedFinding {
  record: number;
  runId: string | null;
  /** The tool call it fired after (1-based, per run) and that call's `tool_ended` record. */
  callIndex: number | null;
  callRecord: number | null;
  turn: number | null;
  severity: 'info' | 'caution' | 'warning' | null;
  /** null when the record carries none. */
  assessment: Assessment | null;
}

/** The data of a `custom` record named `step_graph` (runTrajectory records one right after `run_started` when its trajectory has steps; a harness may record its own). */
export interface IndexedStepGraph {
  /** `status` and `attempts`: the step's final state, when the run recorded a `step_states` record. */
  steps: { id: string; requires: string[]; preconditions: string[]; status?: 'idle' | 'in_progress' | 'satisfied' | 'blocked' | 'failed' | 'skipped'; attempts?: number }[];
  start: string;
  terminals: string[];
  maxTurns?: number;
  /** The trajectory's minTurns, when it set one (above 0). */
  minTurns?: number;
}
