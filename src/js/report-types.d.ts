// agent-trajectories/report: runs judged by checkRun, written as JUnit XML,
// GitHub Actions output, markdown and plain text.

import type { TrajectoryRecord } from './records';
import type { TrajectoryIndex } from './trajectory-index-types';
import type { BatchSummary, TrajectoryResult } from './generate-types';
import type { CheckRunOptions } from './judge-types';
import type { Verdict } from './vocabulary';

/** A judge's grading as a run carries it (`BatchRun.judgements`, or a `custom` record named `judgement`). */
export interface ReportJudgement {
  verdict: 'pass' | 'fail' | 'inconclusive';
  criteria: readonly { name: string; verdict: 'pass' | 'fail' | 'inconclusive'; reasoning?: string }[];
  /** The turn it was made after; null for a run judged whole. */
  turn?: number | null;
  final?: boolean;
}

/** A batch run as a saved batch holds it: what the reporters read of `BatchRun`, after JSON. */
export interface ReportBatchRun {
  id: string;
  item?: string;
  repeat?: number;
  /** The run's result, or its JSON; null when it never ran. */
  result?: TrajectoryResult | object | null;
  /** Why it never ran (after JSON, often only its code). */
  error?: { message?: string; code?: string } | null;
  reason?: string | null;
  verdict?: Verdict | null;
  turns?: number;
  tokens?: number;
  judgements?: readonly ReportJudgement[];
}

/**
 * What `judgeRuns` reads: record JSONL (text or bytes) with one run or
 * several, a batch result (`{ runs, summary }` as `runTrajectories`
 * resolves it, its JSON text or bytes, or its runs alone), records, a
 * `runTrajectory` result, or a `TrajectoryIndex`.
 */
export type ReportInput =
  | string
  | Uint8Array
  | readonly TrajectoryRecord[]
  | TrajectoryIndex
  | TrajectoryResult
  | { readonly runs: readonly ReportBatchRun[]; readonly summary?: BatchSummary | null }
  | readonly ReportBatchRun[];

export interface JudgeRunsOptions {
  /** Names the input in the reports (the file it came from): the JUnit suite, an annotation's file. */
  source?: string | undefined;
  /** What `checkRun` holds every run to (default: verdict `pass`). */
  check?: Omit<CheckRunOptions, 'runId'> | undefined;
  /**
   * Fails more runs: a severity (`info`, `caution`, `warning`) fails a run
   * with a finding at or above it; any other word fails a run that ended
   * with that stop reason (`max-turns`, ...). The check above applies too.
   */
  failOn?: string | readonly string[] | undefined;
}

/** Why a judged run failed, one entry per cause. */
export interface RunFailure {
  /**
   * A `checkRun` check (`verdict`, `maxSeverity`, `maxTokens`, `judge` (the
   * run's last judgement failed), ...), `failOn` (a severity or a stop reason
   * given to `failOn`), or `error` (the run never ran, so nothing could be checked).
   */
  check: string;
  message: string;
}

/** A run and what `checkRun` (and `failOn`) made of it: what the reporters write. */
export interface JudgedRun {
  /** A batch run's id (`<item>#<n>` with repeats), else the run's `run_id` (`run <n>` without one). */
  id: string;
  /** A batch run's item; else the id. */
  item: string;
  /** Which repeat of its item, from 1; null outside a batch. */
  repeat: number | null;
  /** `options.source`, or null. */
  source: string | null;
  pass: boolean;
  /** Why it failed; empty when it passed. */
  failures: RunFailure[];
  /** The run never ran, so it could not be checked: why. Such a run fails (a JUnit `<error>`). */
  error: string | null;
  verdict: Verdict | null;
  reason: string | null;
  /** How it ended, in words: a generated run's end summary, or `run_ended`'s message. */
  summary: string | null;
  turns: number | null;
  tokens: number | null;
  /** From its first record to its last (record streams only). */
  ms: number | null;
  /** Its first record's time, Unix ms (record streams only). */
  startedAt: number | null;
  /** The 1-based line of its `run_ended` record (else its last record) in the JSONL. */
  line: number | null;
  /** Its item's pass@k and pass^k, from the batch's summary (when it ran more than once). */
  reliability: { k: number; passAtK: number | null; passHatK: number | null } | null;
  /** The judge's judgements the run carries, in order (what `compare` reads); its `judge` check judged them. */
  judgements: ReportJudgement[];
}

/**
 * Judges every top-level run of `input` with `checkRun` (and `failOn`); its
 * `judge` check fails a run whose last judgement failed (`check: { judge:
 * false }` turns it off). Needs the package's WebAssembly: in browsers,
 * `await init()` from `agent-trajectories` first. A JSONL line that is not a
 * record throws its code (`JSONL_PARSE`, `INVALID_RECORD`, `SEQ_GAP`, ...)
 * with `line` set and the source and line in the message.
 */
export function judgeRuns(input: ReportInput, options?: JudgeRunsOptions): JudgedRun[];

export interface JunitOptions {
  /** The `hostname` of each suite (default `localhost`). */
  hostname?: string | undefined;
  /** When the suites ran (Unix ms or a Date); default: a suite's first run's start, else now. */
  timestamp?: number | Date | undefined;
  /** The suite of runs without a source (default `agent-trajectories`). */
  name?: string | undefined;
}
/**
 * JUnit XML: a `<testsuite>` per source, a `<testcase>` per run (named by
 * its id, so per item × repeat; classname: its item) with a `<failure>`
 * giving every reason, or an `<error>` for a run that never ran; each run's
 * verdict, reason, turns and tokens (and an item's pass@k, pass^k) as
 * properties of its suite, where both the Jenkins and the Ant JUnit schemas
 * allow them. Characters XML cannot carry are written as `\uXXXX`.
 */
export function junitReport(runs: readonly JudgedRun[], options?: JunitOptions): string;

export interface MarkdownOptions {
  /** The heading (default `agent-trajectories`). */
  title?: string | undefined;
}
/** A heading with the count, a table of runs (failures first, with their reasons) and, with repeats, of items with pass@k and pass^k. */
export function markdownReport(runs: readonly JudgedRun[], options?: MarkdownOptions): string;

/** GitHub Actions output: workflow commands to print, and a job summary. */
export interface GithubReport {
  /** A `::error` line per failed run (its file and line when known), escaped by GitHub's rules; '' when all passed. */
  annotations: string;
  /** Markdown for `$GITHUB_STEP_SUMMARY` (markdownReport). */
  summary: string;
}
export function githubReport(runs: readonly JudgedRun[], options?: MarkdownOptions): GithubReport;

/** Plain text: a line per run (✓ or ✗, its id, verdict and reason, then each reason it failed) and a count. */
export function textReport(runs: readonly JudgedRun[]): string;
