// Generation benchmark: the library's own cost per turn, with an instant
// fake user model and agent, at 10 to 10,000 turns, in Node through the
// built package. Prints a table; asserts nothing (timings are noisy).
// Flat µs/turn across the rows is the point: a turn must not cost more as
// the history grows.
// Usage: node --expose-gc tests/bench/generate.mjs [maxTurns=10000] [runs=5]
import { performance } from 'node:perf_hooks';
import { createTrajectory, runTrajectory, toJSONL, MemorySink, JsonlSink } from '../../pkg/node.mjs';
import { userModel, toolAgent as makeToolAgent } from './fakes.mjs';
import { QUICK, report } from './report.mjs';

const MAX = Number(process.argv[2] ?? (QUICK ? 100 : 10_000));
const RUNS = Number(process.argv[3] ?? (QUICK ? 1 : 5));
const sizes = [10, 100, 1_000, 10_000].filter((n) => n <= MAX);
const gc = globalThis.gc ?? (() => {});

// Plain: one assistant message per turn. Tools: a tool call, its result and
// an answer per turn, so every turn also makes tool records and feeds the
// observers.
const plainAgent = { respond: async () => ({ messages: [{ role: 'assistant', content: 'Sure, here is what I found.' }] }) };
const toolAgent = makeToolAgent();

const variants = {
  'plain, no sink': () => [plainAgent, {}],
  'tools + MemorySink + observers': () => [toolAgent, {
    sink: new MemorySink(),
    observers: { observers: [{ observer: 'error-cascade', trigger: { everyNCalls: 5 } }, { observer: 'stall', trigger: { everyNCalls: 5 } }] },
  }],
};

// A run is timed back to back with the others, as an app's runs are: a
// forced GC just before it leaves V8's young generation at its smallest,
// which alone made a 100-turn run 10-40 % slower per turn (measured), and
// says nothing about the library. Memory kept, and the export (toJSONL,
// whose garbage would be collected inside the next timed run), are
// measured on runs of their own (`memory`).
async function once(turns, variant, { memory = false } = {}) {
  const [agent, opts] = variants[variant]();
  // No step graph: every turn runs with selection 'none' until maxTurns.
  const t = createTrajectory({ goal: 'find the opening hours', persona: { description: 'a visitor' }, maxTurns: turns }, agent);
  if (memory) gc();
  const heap0 = memory ? process.memoryUsage() : undefined;
  const start = performance.now();
  const result = await runTrajectory(t, { userModel, clock: () => 1_700_000_000_000, ...opts });
  const ms = performance.now() - start;
  if (result.steps.length !== turns || result.end.reason !== 'max-turns') throw new Error(`expected ${turns} turns, got ${result.steps.length} (${result.end.reason})`);
  let retained;
  if (memory) {
    gc();
    const heap1 = process.memoryUsage();
    retained = (heap1.heapUsed + heap1.external) - (heap0.heapUsed + heap0.external);
  }
  let exportMs;
  if (memory) {
    const exportStart = performance.now();
    if (!toJSONL(result).length) throw new Error('nothing exported');
    exportMs = performance.now() - exportStart;
  }
  opts.sink?.free();
  return { ms, exportMs, retained };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const rows = [];
for (const variant of Object.keys(variants)) {
  // Warm-up: the JIT's and the wasm engine's optimising tiers take a few
  // thousand turns to settle; cold start is its own benchmark.
  for (let w = 0; w < (QUICK ? 1 : 5); w++) await once(QUICK ? 100 : 1_000, variant);
  const timed = [];
  for (const turns of sizes) {
    const count = turns >= 10_000 ? Math.min(RUNS, 3) : turns <= 100 ? RUNS * 3 : RUNS;
    const ms = [];
    for (let i = 0; i < count; i++) ms.push((await once(turns, variant)).ms);
    timed.push(median(ms));
  }
  // Then memory and export, on runs of their own: their forced GCs come
  // after every timed run of the variant, not before one.
  for (const [k, turns] of sizes.entries()) {
    const apart = [];
    for (let i = 0; i < 5; i++) apart.push(await once(turns, variant, { memory: true }));
    rows.push({
      variant,
      turns,
      usPerTurn: (timed[k] * 1000) / turns,
      totalMs: timed[k],
      exportUsPerTurn: (median(apart.map((r) => r.exportMs)) * 1000) / turns,
      kbPerTurn: globalThis.gc ? median(apart.map((r) => r.retained)) / 1024 / turns : NaN,
    });
  }
}

const pad = (s, n) => String(s).padStart(n);
console.log(`generation overhead per turn (median of ${RUNS} runs back to back, ${RUNS * 3} at 100 turns or fewer; Node ${process.version}${globalThis.gc ? '' : '; run with --expose-gc for memory'})`);
console.log(`${'variant'.padEnd(32)}${pad('turns', 8)}${pad('µs/turn', 10)}${pad('total ms', 11)}${pad('toJSONL µs/turn', 17)}${pad('KB/turn kept', 14)}`);
for (const r of rows) {
  console.log(`${r.variant.padEnd(32)}${pad(r.turns, 8)}${pad(r.usPerTurn.toFixed(1), 10)}${pad(r.totalMs.toFixed(1), 11)}${pad(r.exportUsPerTurn.toFixed(1), 17)}${pad(globalThis.gc ? r.kbPerTurn.toFixed(2) : '-', 14)}`);
}
for (const r of rows.filter((x) => x.turns === 100 || x.turns === 1_000)) {
  const plain = r.variant === 'plain, no sink';
  report({ bench: 'generate', path: `generation per turn, ${plain ? 'plain' : 'tools + sink + observers'}, ${r.turns.toLocaleString('en')} turns`, unit: 'µs', lower: true, ours: r.usPerTurn, target: { max: plain ? 20 : 40 } });
}

// A record the core makes, from the core to its JSONL line in a sink: the
// same tool run with no sink and with a JsonlSink (its text taken at the
// end), alternating; what the sink adds, per record, beside JSON.stringify
// of the same records (as objects, parsed from those lines) + join.
const LINE_TURNS = QUICK ? 100 : 1_000;
async function lineRun(sink) {
  const t = createTrajectory({ goal: 'find the opening hours', persona: { description: 'a visitor' }, maxTurns: LINE_TURNS }, toolAgent);
  gc();
  const start = performance.now();
  await runTrajectory(t, { userModel, clock: () => 1_700_000_000_000, ...(sink ? { sink } : {}) });
  const text = sink?.text();
  const ms = performance.now() - start;
  sink?.free();
  return { ms, text };
}
await lineRun(new JsonlSink()); // warm-up
const bare = [], sunk = [];
let jsonl = '';
for (let i = 0; i < (QUICK ? 3 : 9); i++) {
  bare.push((await lineRun()).ms);
  const r = await lineRun(new JsonlSink());
  sunk.push(r.ms);
  jsonl = r.text;
}
const objects = jsonl.split('\n').filter(Boolean).map((l) => JSON.parse(l));
const stringify = [];
for (let i = 0; i < 9; i++) {
  const start = performance.now();
  if (!objects.map((r) => JSON.stringify(r)).join('\n').length) throw new Error('nothing written');
  stringify.push(performance.now() - start);
}
const perRecord = (ms) => (ms * 1000) / objects.length;
console.log(`\na record the core makes → its JsonlSink line: ${perRecord(median(sunk) - median(bare)).toFixed(2)} µs/record over ${objects.length} records (run ${median(bare).toFixed(1)} ms bare, ${median(sunk).toFixed(1)} ms with the sink); JSON.stringify + join ${perRecord(median(stringify)).toFixed(2)} µs/record`);
report({ bench: 'generate', path: `a record the core makes → its JsonlSink line (generated run, ${objects.length.toLocaleString('en')} records)`, unit: 'µs', lower: true,
  ours: perRecord(median(sunk) - median(bare)), baseline: perRecord(median(stringify)), target: { ratio: 2 } });
