// Judging runs: matchTrajectory, checkRun and compareBatches. The core reads
// and decides (core::judge); this layer hands it the run as JSON (a
// TrajectoryIndex as its records' JSONL, bytes as text) and keeps the
// caller's per-tool argument functions in JS.

import { wasm } from './binding.js';
import { TrajectoryIndex } from './trajectory-index.js';
import { isObject, isArray } from './util.js';

/**
 * A run as the core reads it: JSONL text, records, or a result.
 * @param {unknown} run
 * @returns {unknown}
 */
export function runValue(run) {
  if (run instanceof TrajectoryIndex) {
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
  return wasm.matchTrajectory(runValue(run), expected, options, Object.keys(fns), (/** @type {string} */ tool, /** @type {unknown} */ e, /** @type {unknown} */ a) => fns[tool](e, a));
}

/** @type {typeof import('./judge-types').checkRun} */
export function checkRun(run, options) {
  return wasm.checkRun(runValue(run), options);
}

/** @type {typeof import('./judge-types').compareBatches} */
export function compareBatches(baseline, current) {
  return wasm.compareBatches(baseline, current);
}
