// Observer benchmark: median µs per recordToolCall with all four built-ins
// configured (triggers every 10 calls), measured after 1k, 100k and 1M calls
// of history, in Node through the built package. Prints a table; asserts
// nothing; and the size of a pipeline snapshot after 200k calls.
// Usage: node --expose-gc tests/bench/observe.mjs [maxHistory=1000000]
import { performance } from 'node:perf_hooks';
import { ObserverPipeline } from '../../pkg/node.mjs';
import { QUICK, report } from './report.mjs';

const MAX = Number(process.argv[2] ?? (QUICK ? 20_000 : 1_000_000));
const SAMPLE = 5_000; // calls timed at each history size (small, so the history barely moves)
const SIZES = [1_000, 100_000, 1_000_000].filter((n) => n <= MAX);
// A pipeline's snapshot is measured (JSON bytes) after this many calls.
const SNAPSHOT_AT = Math.min(200_000, MAX);

// A realistic mix: reads and edits over a few dozen files, some failures.
const calls = Array.from({ length: 997 }, (_, i) => {
  const file = `src/module_${i % 37}.rs`;
  const kind = i % 5;
  return kind === 0 ? { toolName: 'edit_file', params: { path: file, old: 'a', new: `b${i}` }, success: true }
    : kind === 1 ? { toolName: 'run_tests', params: { filter: `t${i % 11}` }, success: i % 3 !== 0, errorMessage: `assertion failed at ${file}:${i}` }
    : { toolName: 'read_file', params: { path: file }, success: true };
});

let now = 1_700_000_000_000;
const options = () => ({
  clock: () => now,
  budget: { maxTokens: 10_000_000, maxToolCalls: 10_000_000, deadline: now + 86_400_000 },
  observers: [
    { observer: 'resources', trigger: { everyNCalls: 10 } },
    { observer: 'stall', trigger: { everyNCalls: 10 } },
    { observer: 'error-cascade', trigger: { everyNCalls: 10 } },
    { observer: 'drift', trigger: { everyNCalls: 10 }, options: { scope: ['src'] } },
  ],
});
const make = () => new ObserverPipeline(options());

// Warm the JIT on a throwaway pipeline so the first row measures steady state.
const warm = make();
for (let i = 0; i < 30_000; i++) warm.recordToolCall(calls[i % calls.length]);
warm.free();
const pipeline = make();

let recorded = 0;
function record(n) {
  for (let i = 0; i < n; i++) {
    now += 100;
    pipeline.recordToolCall(calls[recorded++ % calls.length]);
  }
}

function measure() {
  const batches = [];
  const per = 250;
  for (let b = 0; b < SAMPLE / per; b++) {
    const t = performance.now();
    record(per);
    batches.push(((performance.now() - t) * 1000) / per);
  }
  batches.sort((a, b) => a - b);
  return batches[Math.floor(batches.length / 2)];
}

const rows = [];
let snapshotBytes = 0;
for (const size of [...SIZES, SNAPSHOT_AT].sort((a, b) => a - b)) {
  if (size === SNAPSHOT_AT && !snapshotBytes) {
    record(size - recorded);
    const snapshot = JSON.stringify(pipeline.snapshot());
    snapshotBytes = snapshot.length;
    // Restored, the pipeline is the same pipeline: its own snapshot is the same text.
    const restored = ObserverPipeline.restore(JSON.parse(snapshot), options());
    const again = JSON.stringify(restored.snapshot());
    restored.free();
    if (again !== snapshot) throw new Error(`observe: the pipeline restored from its snapshot after ${size} calls snapshots differently`);
    if (!SIZES.includes(size)) continue;
  }
  record(size - recorded);
  globalThis.gc?.();
  const before = process.memoryUsage();
  const us = measure();
  rows.push({ size, us, rss: before.rss });
}
for (const r of rows) report({ bench: 'observe', path: `recordToolCall, four built-ins, ${r.size.toLocaleString('en')} calls of history`, unit: 'µs', lower: true, ours: r.us, target: { max: 1 } });
report({ bench: 'observe', path: `pipeline snapshot after ${SNAPSHOT_AT.toLocaleString('en')} calls (JSON; restored, it snapshots the same)`, unit: 'MB', lower: true, ours: snapshotBytes / 1e6, target: SNAPSHOT_AT === 200_000 ? { max: 4 } : undefined });

console.log(`observer benchmark: recordToolCall with resources, stall, error-cascade, drift (everyNCalls: 10), Node ${process.version}\n`);
console.log(`${'history (calls)'.padEnd(18)}${'median µs/call'.padStart(16)}${'rss MB'.padStart(9)}`);
for (const r of rows) {
  console.log(`${r.size.toLocaleString('en').padEnd(18)}${r.us.toFixed(2).padStart(16)}${(r.rss / 1e6).toFixed(0).padStart(9)}`);
}
console.log(`snapshot after ${SNAPSHOT_AT.toLocaleString('en')} calls: ${(snapshotBytes / 1e6).toFixed(1)} MB of JSON`);
if (rows.length > 1) {
  const [a, b] = [rows[0], rows.at(-1)];
  console.log(`\nper-call cost at ${b.size.toLocaleString('en')} vs ${a.size.toLocaleString('en')}: ${((b.us / a.us - 1) * 100).toFixed(0)} %`);
  // The JS side holds nothing per call, so RSS growth is the wasm log (wasm memory never shrinks).
  console.log(`memory per retained call: ~${((b.rss - a.rss) / (b.size - a.size)).toFixed(0)} bytes (RSS growth / calls added)`);
  report({ bench: 'observe', path: `recordToolCall: bytes kept per call (RSS growth from ${a.size.toLocaleString('en')} to ${b.size.toLocaleString('en')} calls)`, unit: 'B', lower: true,
    ours: (b.rss - a.rss) / (b.size - a.size) });
}
