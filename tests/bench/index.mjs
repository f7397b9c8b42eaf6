// TrajectoryIndex ingest beside JSON.parse of the same lines, in one run.
// Usage: node tests/bench/index.mjs [package dir, default pkg]
// (the inputs are written by tests/bench/viewer-data.mjs into tests/.work/scale).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeRun } from './viewer-data.mjs';

const pkg = resolve(process.argv[2] ?? 'pkg');
const { TrajectoryIndex, parseTrajectoryJsonl } = await import(pathToFileURL(join(pkg, 'node.mjs')).href);
const { QUICK, report } = await import('./report.mjs');
const dir = 'tests/.work/scale';
// The two fixtures (written once, reproducibly): string-heavy and many small records.
const scale = QUICK ? 50 : 1;
const inputs = [
  [`big-results${QUICK ? '-quick' : ''}.jsonl`, { turns: 2000 / scale, callsPerTurn: 2, resultBytes: 25_000 }],
  [`many-records${QUICK ? '-quick' : ''}.jsonl`, { turns: 25_000 / scale, callsPerTurn: 2, resultBytes: 600 }],
];

const best = (f, n = 3) => {
  let ms = Infinity;
  let out;
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    out = f();
    ms = Math.min(ms, performance.now() - t);
  }
  return { ms, out };
};
const rows = [];
for (const [name, shape] of inputs) {
  const file = join(dir, name);
  if (!existsSync(file)) {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    await writeRun(file, shape);
  }
  const bytes = readFileSync(file);
  const text = bytes.toString('utf8');
  const mb = bytes.length / 1e6;
  const heap0 = process.memoryUsage();
  const fromText = best(() => { const ix = TrajectoryIndex.fromJsonl(text); const n = ix.length; ix.free(); return n; });
  const fromBytes = best(() => { const ix = TrajectoryIndex.fromJsonl(bytes); const n = ix.length; ix.free(); return n; });
  const json = best(() => { let n = 0; for (const l of text.split('\n')) if (l) { JSON.parse(l); n++; } return n; });
  const parse = best(() => parseTrajectoryJsonl(text).length, 1);
  const ix = TrajectoryIndex.fromJsonl(text);
  const search = best(() => ix.search('needle-1999-1').count);
  const regex = best(() => ix.search(/needle-19\d\d-1/).count, 1);
  // A filter by kind over every record: the tool results of every run.
  // The best of 9: a filter takes about a millisecond, so its first calls' compiling would be the figure.
  const filter = best(() => ix.filter({ kind: 'tool_ended' }).length, 9);
  const wasmBytes = process.memoryUsage().arrayBuffers - heap0.arrayBuffers;
  rows.push({ name, mb, records: fromText.out, fromText, fromBytes, json, parse, search, regex, filter, perRecord: (wasmBytes - bytes.length) / fromText.out });
  ix.free();
}
console.log('| input | MB | records | fromJsonl(text) | fromJsonl(bytes) | JSON.parse per line | parseTrajectoryJsonl | search text | search RegExp | filter by kind |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
const rate = (r, x) => `${x.ms.toFixed(0)} ms (${(r.mb / (x.ms / 1000)).toFixed(0)} MB/s)`;
for (const r of rows) {
  console.log(`| ${r.name} | ${r.mb.toFixed(1)} | ${r.records} | ${rate(r, r.fromText)} | ${rate(r, r.fromBytes)} | ${rate(r, r.json)} | ${rate(r, r.parse)} | ${r.search.ms.toFixed(0)} ms | ${r.regex.ms.toFixed(0)} ms | ${r.filter.ms.toFixed(1)} ms |`);
}
for (const r of rows) {
  const row = (path, x, target) => report({ bench: 'index', path: `${path}, ${r.name} (${r.mb.toFixed(0)} MB)`, unit: 'ms', lower: true, ours: x.ms, baseline: r.json.ms, target });
  row('TrajectoryIndex.fromJsonl(text)', r.fromText, { ratio: 2 });
  row('TrajectoryIndex.fromJsonl(bytes)', r.fromBytes, { ratio: 2 });
  row('parseTrajectoryJsonl', r.parse, { ratio: 1 });
  // No baseline in plain JS: stated, for "no slower than before".
  report({ bench: 'index', path: `TrajectoryIndex search(text), ${r.name} (${r.mb.toFixed(0)} MB)`, unit: 'ms', lower: true, ours: r.search.ms });
  report({ bench: 'index', path: `TrajectoryIndex search(RegExp), ${r.name} (${r.mb.toFixed(0)} MB)`, unit: 'ms', lower: true, ours: r.regex.ms });
  report({ bench: 'index', path: `TrajectoryIndex filter({ kind }), ${r.name} (${r.mb.toFixed(0)} MB)`, unit: 'ms', lower: true, ours: r.filter.ms });
}
