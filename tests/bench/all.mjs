// Every benchmark, one after the other, each in its own Node process (its
// plain-JS baseline measured in that same process), then one table: each
// hot path, what it costs, the baseline, how many times the baseline's
// speed that is, the target, and whether it is met. Needs a built package
// (scripts/build.sh). Asserts nothing about timings: it exits non-zero only
// when a bench fails to run.
// Usage: node tests/bench/all.mjs [--quick] [--only=capture,observe]
//   --quick: every bench at a small size (a smoke run: the paths run, the
//            numbers mean little).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { met, ratio, targetText } from './report.mjs';

const BENCHES = ['capture', 'index', 'observe', 'generate', 'batch', 'background', 'coldstart'];
const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const repo = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'at-bench-'));
const file = join(dir, 'rows.jsonl');

try {
  for (const bench of BENCHES.filter((b) => !only || only.includes(b))) {
    process.stderr.write(`bench: ${bench}${quick ? ' (quick)' : ''}\n`);
    execFileSync(process.execPath, ['--expose-gc', `tests/bench/${bench}.mjs`], {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, BENCH_REPORT: file, ...(quick ? { BENCH_QUICK: '1' } : {}) },
    });
  }
  const rows = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const num = (n, unit) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)) + (unit ? ` ${unit}` : '');
  console.log(`Benchmarks${quick ? ' (quick: smoke sizes, not the targets\' sizes)' : ''}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`);
  console.log('| path | ours | plain-JS baseline | × baseline | target | met |');
  console.log('|---|---:|---:|---:|---|---|');
  for (const r of rows) {
    const x = ratio(r);
    const ok = met(r);
    console.log(`| ${r.path} | ${num(r.ours, r.unit)} | ${r.baseline === undefined ? '–' : num(r.baseline, r.unit)} | ${x === null ? '–' : `${x.toFixed(2)}×`} | ${targetText(r)} | ${ok === null ? '–' : ok ? 'yes' : 'no'} |`);
  }
  const judged = rows.filter((r) => met(r) !== null);
  console.log(`\n${judged.filter((r) => met(r)).length} of ${judged.length} targets met.`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
