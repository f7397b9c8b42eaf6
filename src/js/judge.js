// Judging runs: matchTrajectory, checkRun, compareBatches and judge. The
// judging crate (src/core/judge) reads and decides; this layer hands it the
// run as JSON (a TrajectoryIndex as its records' JSONL, bytes as text),
// keeps the caller's per-tool argument functions in JS, adapts the judge's
// model, and writes compareBatches' markdown.

import { wasm } from './binding.js';
import { asModel } from './generate.js';
import { TrajectoryIndex } from './trajectory-index.js';
import { fail, why, isObject, isArray, readOptions, macrotask, callSignal, cell } from './util.js';

/**
 * A run as the core reads it: JSONL text, records, or a result. A freed
 * index is refused as such, not read as no records (`fn` names the caller).
 * @param {unknown} run
 * @param {string} fn
 * @returns {unknown}
 */
export function runValue(run, fn) {
  if (run instanceof TrajectoryIndex) {
    // A freed index has no records and no bytes, and its queries throw: errors() tells it from an empty one.
    if (run.length === 0) {
      try {
        run.errors();
      } catch (e) {
        throw fail('INVALID_ARGUMENT', `${fn}: run: this TrajectoryIndex was freed`, e);
      }
    }
    const lines = [];
    for (let i = 0; i < run.length; i++) lines.push(run.text(i));
    return lines.join('\n');
  }
  if (run instanceof Uint8Array) return new TextDecoder().decode(run);
  return run;
}

/** @type {typeof import('./judge-types').matchTrajectory} */
export function matchTrajectory(run, expected, options) {
  /** @type {Record<string, Function>} */
  const fns = {};
  const args = isObject(options) && !isArray(options) ? /** @type {any} */ (options).args : undefined;
  if (isObject(args) && !isArray(args)) for (const [tool, f] of Object.entries(args)) if (typeof f === 'function') fns[tool] = f;
  return wasm.matchTrajectory('match', runValue(run, 'matchTrajectory'), expected, options, Object.keys(fns), (/** @type {string} */ tool, /** @type {unknown} */ e, /** @type {unknown} */ a) => fns[tool](e, a));
}

/** @type {typeof import('./judge-types').checkRun} */
export function checkRun(run, options) {
  return wasm.checkRun('check', runValue(run, 'checkRun'), options);
}

/** @type {typeof import('./judge-types').compareBatches} */
export function compareBatches(baseline, current) {
  const c = wasm.compareBatches('compare', baseline, current);
  return { ...c, markdown: markdownOf(c) };
}

/**
 * The comparison as a pull request comment: a count line, then a row per
 * item in the core's order (regressions first). Written here, from the
 * core's structured comparison: formatting, not a decision.
 * @param {Omit<import('./judge-types').BatchComparison, 'markdown'>} c
 */
function markdownOf(c) {
  const n = (/** @type {number | null} */ x) => (x === null ? '–' : `${x > 0 ? '+' : ''}${Math.round(x * 10) / 10}`);
  const side = (/** @type {import('./judge-types').BatchItemSide | null} */ s) => (s ? `${s.passed ? 'pass' : 'fail'} (${s.passes}/${s.runs})` : '–');
  const rows = c.items.map((i) => {
    const judges = i.newlyFailedJudges.length ? ` · newly failed: ${cell(i.newlyFailedJudges.join(', '))}` : '';
    return `| ${i.status} | ${cell(i.id)} | ${side(i.baseline)} | ${side(i.current)}${judges} | ${n(i.turns)} | ${n(i.tokens)} | ${n(i.findings)} |`;
  });
  return [
    '## Batch comparison',
    '',
    `**${c.regressed.length} regressed**, ${c.improved.length} improved, ${c.added.length} added, ${c.removed.length} removed, ${c.newlyFailedJudges.length} newly failed judge(s) — ${c.items.length} item(s)`,
    '',
    '| change | item | baseline | current | turns/run | tokens/run | findings/run |',
    '|---|---|---|---|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

/**
 * The rubric judge over a recorded run; the model is asked (and asked again
 * once) by the core, each call bounded by `timeoutMs`.
 * @type {typeof import('./judge-types').judge}
 */
export async function judge(run, options) {
  const place = 'judge: options';
  if (!isObject(options) || isArray(options)) throw fail('INVALID_ARGUMENT', `judge(run, options): options must be { model, criteria, runId?, timeoutMs? }, got ${why(options)}`);
  const given = readOptions(options, place);
  const model = given.model === undefined ? undefined : asModel(given.model, `${place}.model`);
  return wasm.judge(runValue(run, 'judge'), { ...given, model }, { macrotask, callSignal });
}
