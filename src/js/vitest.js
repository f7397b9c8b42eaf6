// agent-trajectories/vitest: matchers for eval suites. Every pass or fail
// is the core's, through the main entry's judging functions (checkRun,
// matchTrajectory, judge), so a test passes exactly when those say so; this
// module only words the outcome the way vitest prints a failure: the hint
// line, the core's message, a diff of the calls, the criteria that failed.
// It imports neither vitest nor the WebAssembly module: the entry
// (scripts/assemble.mjs) hands it the package's functions and gives the
// matchers to vitest's `expect.extend`.

import { fail, ours, shown, isObject, isArray, readOptions, checkKeys } from './util.js';
import { nearest } from './nearest.js';

/** @typedef {import('./vitest-types').MatcherContext} MatcherContext */
/** @typedef {import('./vitest-types').MatcherOutcome} MatcherOutcome */
/** @typedef {import('./vitest-types').TrajectoryMatcherFunctions} TrajectoryMatcherFunctions */
/** @typedef {import('./judge-types').Judgement} Judgement */
/**
 * The judging functions the matchers ask: the main entry's.
 * @typedef {{ checkRun: typeof import('./judge-types').checkRun, matchTrajectory: typeof import('./judge-types').matchTrajectory, judge: typeof import('./judge-types').judge }} Judging
 */

/**
 * A coded error of the core, raised by the matcher `where` names: the same
 * code, the message prefixed with it, the original as the cause (and its
 * line, for a record that could not be read). Anything else goes as it is.
 * @param {string} where
 * @param {unknown} e
 * @returns {unknown}
 */
function named(where, e) {
  if (!ours(e)) return e;
  const err = fail(e.code, `${where}: ${e.message}`, e);
  return Object.assign(err, Object.fromEntries(Object.entries(e).filter(([k]) => !(k in err))));
}

/**
 * `f()`, its coded errors named after the matcher.
 * @template T
 * @param {string} where
 * @param {() => T} f
 * @returns {T}
 */
function asking(where, f) {
  try {
    return f();
  } catch (e) {
    throw named(where, e);
  }
}

/**
 * A matcher's own options (`allowed` keys), each read once; none given is `{}`.
 * @param {unknown} options
 * @param {string} where
 * @param {readonly string[]} allowed
 * @param {string} advice said after an unknown key
 * @returns {Record<string, any>}
 */
function own(options, where, allowed, advice) {
  if (options === undefined || options === null) return {};
  if (!isObject(options) || isArray(options)) throw fail('INVALID_ARGUMENT', `${where}: options must be an object ({ ${allowed.join(', ')} }), got ${shown(options)}`);
  const o = readOptions(options, `${where}: options`);
  checkKeys(o, allowed, `${where}: options`, (key) => {
    const near = nearest(key, allowed);
    return `${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (valid: ${allowed.join(', ')}; ${advice})`;
  });
  return o;
}

/**
 * The hint line vitest prints first: `expect(run).not.toReachGoal()`.
 * @param {MatcherContext} ctx
 * @param {string} name
 * @param {string} [args]
 */
const hint = (ctx, name, args = '') => ctx.utils.matcherHint(name, 'run', args, { isNot: ctx.isNot, promise: ctx.promise });

/**
 * An outcome whose message is the hint, then `lines`.
 * @param {MatcherContext} ctx
 * @param {string} name
 * @param {string} args
 * @param {boolean} pass
 * @param {() => string[]} lines
 * @returns {MatcherOutcome}
 */
const outcome = (ctx, name, args, pass, lines) => ({ pass, message: () => [hint(ctx, name, args), '', ...lines()].join('\n') });

// A call as the core's messages write it (core::judge::matching's
// show_call): `name(arguments as JSON, cut at 60 characters)`, or `name(…)`
// when any arguments will do. The diff sets the expected calls beside the
// run's calls (matchTrajectory's `calls`) in this form; a tool whose
// arguments the expectation leaves open (no `input` for it, or
// `args: 'ignore'`) is shown `name(…)` on both sides, so that only what was
// asked for can differ.
const CLIP = 60;
/** @param {unknown} input */
const clip = (input) => {
  const chars = Array.from(JSON.stringify(input) ?? 'null');
  return chars.length > CLIP ? `${chars.slice(0, CLIP).join('')}…` : chars.join('');
};
/**
 * @param {unknown} call an expected call, or a call of the run
 * @param {(tool: string) => boolean} shown
 */
const showCall = (call, shown) => {
  if (typeof call === 'string') return `${call}(…)`;
  const c = /** @type {{ toolName: string, input?: unknown }} */ (call);
  return c.input === undefined || !shown(c.toolName) ? `${c.toolName}(…)` : `${c.toolName}(${clip(c.input)})`;
};

/**
 * Whether the diff shows `tool`'s arguments: some expected call of it has
 * `input`, and its arguments are compared.
 * @param {readonly unknown[]} expected
 * @param {unknown} options
 * @param {string} tool
 */
function argsShown(expected, options, tool) {
  const args = isObject(options) ? options.args : undefined;
  const mode = typeof args === 'string' ? args : isObject(args) && !isArray(args) ? args[tool] : undefined;
  return mode !== 'ignore' && expected.some((e) => isObject(e) && e.toolName === tool && e.input !== undefined);
}

/**
 * Per criterion that did not pass `judgement`, the first turn after which
 * the run's own judge (runTrajectory's `judge` option) failed it, as that
 * judgement's line: where in the conversation it went wrong. Only a
 * runTrajectory result carries them in this form (`steps[i].judgement`).
 * @param {unknown} run
 * @param {Judgement} judgement
 * @returns {string[]}
 */
function duringTheRun(run, judgement) {
  const steps = isObject(run) && !isArray(run) && isArray(run.steps) ? run.steps : [];
  /** @type {Judgement[]} */
  const recorded = steps.map((s) => (isObject(s) ? s.judgement : undefined)).filter((j) => isObject(j) && isArray(j.criteria) && typeof j.message === 'string');
  const lines = [];
  for (const c of judgement.criteria.filter((c) => c.verdict !== 'pass')) {
    const first = recorded.find((j) => j.criteria.some((r) => r.name === c.name && r.verdict === 'fail'));
    const line = first?.message.split('\n').find((l) => l.startsWith(`- ${JSON.stringify(c.name)}: fail`));
    if (line) lines.push(line);
  }
  return lines;
}

/**
 * The matchers, each deciding through `at` (the main entry's judging
 * functions). The entry passes them to vitest's `expect.extend`.
 * @param {Judging} at
 * @returns {TrajectoryMatcherFunctions}
 */
export function vitestMatchers(at) {
  return {
    /** The run ended with verdict `pass` (checkRun's verdict check). */
    toReachGoal(run, options) {
      const where = 'toReachGoal';
      const o = own(options, where, ['runId'], "toPassChecks takes every check of checkRun");
      const r = asking(where, () => at.checkRun(/** @type {any} */ (run), { verdict: 'pass', judge: false, ...o }));
      const check = r.checks.find((c) => c.check === 'verdict');
      return outcome(this, where, '', r.pass, () => [
        this.isNot ? 'Expected the run not to reach its goal; it did:' : 'Expected the run to reach its goal (verdict pass):',
        `  ${check?.message ?? r.message}`,
      ]);
    },

    /** The run's tool calls match `expected` (matchTrajectory); a failure shows each mismatch and a diff of the calls. */
    toMatchTrajectory(run, expected, options) {
      const where = 'toMatchTrajectory';
      const m = asking(where, () => at.matchTrajectory(/** @type {any} */ (run), expected, options));
      return outcome(this, where, 'expected', m.pass, () => {
        if (this.isNot) return ['Expected the calls not to match; they do:', `  ${m.message}`];
        const shown = (/** @type {string} */ tool) => argsShown(expected, options, tool);
        const made = isArray(m.calls) ? m.calls.map((c) => showCall(c, shown)) : null;
        const diff = made && this.utils.diff(expected.map((e) => showCall(e, shown)).join('\n'), made.join('\n'), { aAnnotation: 'Expected calls', bAnnotation: 'Calls made' });
        return [m.message, ...(diff ? ['', diff] : [])];
      });
    },

    /** The rubric judge (`judge`) passes every criterion; a failure names each criterion that did not pass, and the turn. */
    async toPassJudge(run, criteria, options) {
      const where = 'toPassJudge';
      if (typeof at.judge !== 'function') throw fail('INTERNAL', `${where}: this build of agent-trajectories has no judge()`);
      const o = own(options, where, ['model', 'runId', 'timeoutMs'], 'the criteria are the first argument');
      /** @type {Judgement} */
      let j;
      try {
        j = await at.judge(/** @type {any} */ (run), /** @type {any} */ ({ ...o, criteria }));
      } catch (e) {
        throw named(where, e);
      }
      return outcome(this, where, 'criteria', j.verdict === 'pass', () => {
        if (this.isNot) return ['Expected the run not to pass the judge; it passed every criterion:', ...j.criteria.map((c) => `- ${JSON.stringify(c.name)}: ${c.reasoning}`)];
        const during = duringTheRun(run, j);
        return [
          j.message,
          ...(j.error ? [`the judge's answer: ${j.error.code}: ${j.error.message}`] : []),
          ...(during.length ? ['', "The run's own judge, turn by turn, failed it first:", ...during] : []),
        ];
      });
    },

    /** No observer finding at `severity` or above (checkRun's failOnSeverity). */
    toHaveNoFindingsAtOrAbove(run, severity, options) {
      const where = 'toHaveNoFindingsAtOrAbove';
      const o = own(options, where, ['runId'], 'the severity is the first argument');
      // Left out, checkRun would hold the run to nothing, and the assertion would pass any run.
      if (severity === undefined || severity === null) throw fail('INVALID_ARGUMENT', `${where}: the severity (its first argument) is required, got ${shown(severity)}`);
      const r = asking(where, () => at.checkRun(/** @type {any} */ (run), { verdict: null, judge: false, failOnSeverity: severity, ...o }));
      return outcome(this, where, JSON.stringify(severity), r.pass, () => [
        this.isNot ? `Expected a finding at or above ${severity}; there is none:` : `Expected no finding at or above ${severity}:`,
        ...r.checks.map((c) => `  ${c.message}`),
      ]);
    },

    /** Every check of checkRun given in `options` passes (the verdict too, `pass` unless said); a failure lists the failed checks. */
    toPassChecks(run, options) {
      const where = 'toPassChecks';
      const r = asking(where, () => at.checkRun(/** @type {any} */ (run), options));
      return outcome(this, where, 'options', r.pass, () =>
        this.isNot ? ['Expected a check to fail; every one passed:', ...r.checks.map((c) => `- ${c.check}: ${c.message}`)] : [r.message]);
    },
  };
}
