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
  /** The turns of a run; a run without `turn_started` records (a background run) has its iterations as turns. */
  turns(runId?: string | null): IndexedTurn[];
  /** Record indices of one turn of a run; `turn` null: its records outside every turn. */
  turnRecords(runId: string | null | undefined, turn: number | null): Uint32Array;
  /** What the index keeps of record `i`, without parsing it. */
  info(i: number): RecordInfo;
  /** Record `i`, parsed as written. */
  get(i: number): TrajectoryRecord;
  /** Record `i`'s line, as written. */
  text(i: number): string;
  /** Record indices that pass every part of `q`, ascending. An unknown kind is refused, naming the nearest one. */
  filter(q: IndexFilter): Uint32Array;
  /**
   * Matches of `q` in every run or one: a string is searched, ignoring ASCII
   * case, in every string value (tool names, arguments, results, messages;
   * keys excluded); a RegExp runs over each record's JSON line.
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
