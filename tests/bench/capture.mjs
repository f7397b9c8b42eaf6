// Capture benchmark: record and serialise N records in Node through the
// built wasm package, beside plain JS doing the same in the same process
// (JSON.stringify + join; JSON.parse per line). Prints a table; asserts
// nothing (timings are noisy).
// Usage: node tests/bench/capture.mjs [N=100000] [runs=5]
import { performance } from 'node:perf_hooks';
import { TrajectoryRecorder, MemorySink, JsonlSink, parseTrajectoryJsonl, serializeTrajectoryJsonl } from '../../pkg/node.mjs';
import { QUICK, report } from './report.mjs';

const N = Number(process.argv[2] ?? (QUICK ? 5_000 : 100_000));
const RUNS = Number(process.argv[3] ?? (QUICK ? 1 : 5));

// A realistic mix: tool round trips with small JSON args/results and messages.
const payloads = [
  { kind: 'tool_started', tool_call_id: 'call-1', tool_name: 'read_file', args: { path: 'src/parser.py', start: 1, end: 120 } },
  { kind: 'tool_ended', tool_call_id: 'call-1', tool_name: 'read_file', result: { lines: 120, truncated: false }, is_error: false },
  { kind: 'message_appended', message: { role: 'assistant', content: [{ type: 'text', text: 'The separator handling looks wrong; let me run the tests.' }] } },
  { kind: 'turn_started', turn_index: 3 },
];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function measure(fn) {
  const times = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    bytes = fn();
    times.push(performance.now() - t);
  }
  return { ms: median(times), bytes };
}

function measureOnce(fn) {
  const t = performance.now();
  if (!fn()) throw new Error('nothing read');
  return performance.now() - t;
}

function recordAll(sink) {
  const rec = new TrajectoryRecorder(sink, { clock: () => 1_700_000_000_000, runId: 'bench' });
  for (let i = 0; i < N; i++) rec.record(payloads[i & 3]);
  rec.free();
}

const rows = [];
const row = (what, { ms, bytes }) => rows.push({ what, ms, bytes });

row('record → JsonlSink (accumulate), then text()', measure(() => {
  const sink = new JsonlSink();
  recordAll(sink);
  const n = sink.text().length;
  sink.free();
  return n;
}));
row('record → MemorySink, then toJsonl()', measure(() => {
  const sink = new MemorySink();
  recordAll(sink);
  const n = sink.toJsonl().length;
  sink.free();
  return n;
}));
row('record → JsonlSink(writer) (line per call)', measure(() => {
  let n = 0;
  const sink = new JsonlSink((line) => { n += line.length; });
  recordAll(sink);
  sink.free();
  return n;
}));
row('record → JS sink object (array push)', measure(() => {
  const out = [];
  recordAll({ record: (r) => { out.push(r); } });
  return 0;
}));

const sink = new MemorySink();
recordAll(sink);
const text = sink.toJsonl();
const records = sink.records();
sink.free();
row('parseTrajectoryJsonl(text) → records', measure(() => parseTrajectoryJsonl(text).length && text.length));
// Strict and lenient alternate, so the machine's drift falls on both alike.
const strict = [], lenient = [];
for (let i = 0; i < RUNS + 2; i++) {
  strict.push(measureOnce(() => parseTrajectoryJsonl(text).length));
  lenient.push(measureOnce(() => parseTrajectoryJsonl(text, { lenient: true }).records.length));
}
row('parseTrajectoryJsonl(text, { lenient: true })', { ms: median(lenient), bytes: text.length });
row('serializeTrajectoryJsonl(records)', measure(() => serializeTrajectoryJsonl(records).length));
row('baseline: JSON.stringify each + join (pure JS)', measure(() => records.map((r) => JSON.stringify(r)).join('\n').length));
row('baseline: JSON.parse per line (pure JS)', measure(() => {
  let n = 0;
  for (const line of text.split('\n')) if (line) JSON.parse(line), n++;
  return n && text.length;
}));

const perRecord = (what) => (rows.find((r) => r.what === what).ms * 1000) / N;
const bench = 'capture';
report({ bench, path: `record() from JS → JsonlSink line (${N.toLocaleString('en')} × 217 B)`, unit: 'µs', lower: true,
  ours: perRecord('record → JsonlSink(writer) (line per call)'), baseline: perRecord('baseline: JSON.stringify each + join (pure JS)'), target: { ratio: 1 } });
report({ bench, path: 'parseTrajectoryJsonl (217 B records)', unit: 'µs', lower: true,
  ours: perRecord('parseTrajectoryJsonl(text) → records'), baseline: perRecord('baseline: JSON.parse per line (pure JS)'), target: { ratio: 1 } });
report({ bench, path: 'parseTrajectoryJsonl lenient, beside strict (217 B records)', unit: 'µs', lower: true,
  ours: (median(lenient) * 1000) / N, baseline: (median(strict) * 1000) / N, target: { ratio: 1 } });

const mem = process.memoryUsage();
console.log(`capture benchmark: ${N.toLocaleString('en')} records, median of ${RUNS} runs, Node ${process.version}\n`);
console.log(`${'operation'.padEnd(48)}${'total ms'.padStart(10)}${'µs/record'.padStart(11)}${'MB/s'.padStart(8)}`);
for (const r of rows) {
  const mbs = r.bytes ? (r.bytes / 1e6 / (r.ms / 1000)).toFixed(0) : '–';
  console.log(`${r.what.padEnd(48)}${r.ms.toFixed(1).padStart(10)}${((r.ms * 1000) / N).toFixed(2).padStart(11)}${String(mbs).padStart(8)}`);
}
console.log(`\nJSONL size: ${(text.length / 1e6).toFixed(1)} MB (${(text.length / N).toFixed(0)} B/record); rss ${(mem.rss / 1e6).toFixed(0)} MB, heap ${(mem.heapUsed / 1e6).toFixed(0)} MB`);
