// What every benchmark reports: a row per measured path, with the plain-JS
// baseline it measured beside it in the same process (when there is one)
// and the target the package holds itself to. A bench prints its own
// table; under tests/bench/all.mjs (BENCH_REPORT names a file) its rows are
// also appended there as JSON lines, and all.mjs prints them as one table.
// BENCH_QUICK shrinks every bench to a smoke run (CI: each path runs, no
// timing is judged).
import { appendFileSync } from 'node:fs';

export const QUICK = Boolean(process.env.BENCH_QUICK);

/**
 * `lower`: the unit is a cost (µs, ms, MB: lower is better); otherwise a
 * rate (MB/s, iterations/s). `target`: `{ ratio }` (at least that many
 * times the baseline's speed), `{ max }` or `{ min }` (in `unit`).
 * @param {{ bench: string, path: string, unit: string, lower: boolean, ours: number, baseline?: number, target?: { ratio?: number, max?: number, min?: number } }} row
 */
export function report(row) {
  if (!Number.isFinite(row.ours)) throw new Error(`${row.bench}: ${row.path}: measured ${row.ours}`);
  if (process.env.BENCH_REPORT) appendFileSync(process.env.BENCH_REPORT, `${JSON.stringify(row)}\n`);
}

/** How many times the baseline's speed `row` runs at (null without a baseline). */
export function ratio(row) {
  if (row.baseline === undefined) return null;
  return row.lower ? row.baseline / row.ours : row.ours / row.baseline;
}

/** Whether `row` meets its target (null when it has none). */
export function met(row) {
  const t = row.target;
  if (!t) return null;
  if (t.ratio !== undefined) return (ratio(row) ?? 0) >= t.ratio;
  if (t.max !== undefined) return row.ours <= t.max;
  return row.ours >= (t.min ?? -Infinity);
}

/** The target in words: `≥ 2× baseline`, `≤ 1 µs`. */
export function targetText(row) {
  const t = row.target;
  if (!t) return '';
  if (t.ratio !== undefined) return `≥ ${t.ratio}× baseline`;
  if (t.max !== undefined) return `≤ ${t.max.toLocaleString('en')} ${row.unit}`;
  return `≥ ${t.min.toLocaleString('en')} ${row.unit}`;
}
