// agent-trajectories/vitest's own types. The build (scripts/assemble.mjs)
// adds the augmentation of vitest's `Assertion` and
// `AsymmetricMatchersContaining` with these matchers; it names vitest, which
// the type check of src/js does not install.
import type { Severity } from './records';
import type { CheckRunOptions, ExpectedCall, JudgeCriterion, JudgeOptions, MatchTrajectoryOptions } from './judge-types';

/** Which run to read, when the records hold several. */
export interface RunChoice { runId?: string | undefined }
/** The rubric judge's options, the criteria aside (they are the matcher's first argument). */
export type JudgeMatcherOptions = Omit<JudgeOptions, 'criteria'>;

/**
 * The matchers on `expect(run)`, where `run` is a `RunLike`: records
 * (an array, or JSONL text or bytes), a `runTrajectory` result, or a
 * `TrajectoryIndex`. Each decides through the package's judging functions;
 * a run that is not one, or bad options, throw a coded error.
 */
export interface TrajectoryMatchers {
  /** The run ended with verdict `pass` (`checkRun`'s verdict check). */
  toReachGoal(options?: RunChoice): void;
  /** The run's tool calls match `expected` (`matchTrajectory`); a failure lists each mismatch and shows a diff of the calls. */
  toMatchTrajectory(expected: readonly ExpectedCall[], options?: MatchTrajectoryOptions): void;
  /**
   * The rubric judge (`judge`) passes every criterion. Asynchronous: `await
   * expect(run).toPassJudge(...)`. A failure names each criterion that did
   * not pass with the judge's reasoning and, for a `runTrajectory` result
   * that was judged turn by turn, the turn after which its judge first failed it.
   */
  toPassJudge(criteria: readonly (string | JudgeCriterion)[], options: JudgeMatcherOptions): Promise<void>;
  /** No observer finding at `severity` or above (`checkRun`'s `failOnSeverity`). */
  toHaveNoFindingsAtOrAbove(severity: Severity, options?: RunChoice): void;
  /** Every check of `checkRun` given passes (the verdict too: `pass` unless `verdict` says otherwise); a failure lists the checks that failed. */
  toPassChecks(options?: CheckRunOptions): void;
}

/** The synchronous matchers as asymmetric matchers (`expect.toReachGoal()` inside `toEqual`); the judge, which is asynchronous, cannot be one. */
export interface TrajectoryAsymmetricMatchers {
  toReachGoal(options?: RunChoice): any;
  toMatchTrajectory(expected: readonly ExpectedCall[], options?: MatchTrajectoryOptions): any;
  toHaveNoFindingsAtOrAbove(severity: Severity, options?: RunChoice): any;
  toPassChecks(options?: CheckRunOptions): any;
}

/** What a matcher reads of vitest's matcher context (`this` in `expect.extend`). */
export interface MatcherContext {
  isNot: boolean;
  promise: string;
  utils: {
    matcherHint(matcherName: string, received?: string, expected?: string, options?: { isNot?: boolean; promise?: string }): string;
    diff(a: unknown, b: unknown, options?: { aAnnotation?: string; bAnnotation?: string }): string | null | undefined;
  };
}
/** A matcher's answer to vitest. */
export interface MatcherOutcome { pass: boolean; message: () => string }

/** The matcher functions, as `expect.extend` takes them. */
export type TrajectoryMatcherFunctions = {
  toReachGoal(this: MatcherContext, run: unknown, options?: RunChoice): MatcherOutcome;
  toMatchTrajectory(this: MatcherContext, run: unknown, expected: readonly ExpectedCall[], options?: MatchTrajectoryOptions): MatcherOutcome;
  toPassJudge(this: MatcherContext, run: unknown, criteria: readonly (string | JudgeCriterion)[], options: JudgeMatcherOptions): Promise<MatcherOutcome>;
  toHaveNoFindingsAtOrAbove(this: MatcherContext, run: unknown, severity: Severity, options?: RunChoice): MatcherOutcome;
  toPassChecks(this: MatcherContext, run: unknown, options?: CheckRunOptions): MatcherOutcome;
};

/**
 * The matchers, for `expect.extend(matchers)` of an `expect` of your own.
 * Importing this entry already extends vitest's `expect` with them (import
 * it in a `setupFiles` module, or at the top of a test file).
 */
export const matchers: TrajectoryMatcherFunctions;
