// Cold start in Node: a fresh process imports the package (which loads
// and compiles the module) and records its first record; the time from
// just before the import to just after that record, median of a few
// processes. Beside it, a fresh process doing the plain-JS equivalent
// (JSON.stringify of the same record). Prints a table; asserts nothing.
// Usage: node tests/bench/coldstart.mjs [processes=7]
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { QUICK, report } from './report.mjs';

const RUNS = Number(process.argv[2] ?? (QUICK ? 1 : 7));
const entry = pathToFileURL(resolve('pkg/node.mjs')).href;
const record = `{ kind: 'run_started', identity: { run_id: 'cold' } }`;
const ours = `const t = performance.now();
const { TrajectoryRecorder, MemorySink } = await import(${JSON.stringify(entry)});
const sink = new MemorySink();
new TrajectoryRecorder(sink, { clock: () => 0 }).record(${record});
if (sink.records().length !== 1) throw new Error('no record');
console.log(performance.now() - t);`;
const plain = `const t = performance.now();
const line = JSON.stringify({ schema_version: 1, seq: 0, run_id: 'cold', depth: 0, recorded_at_unix_ms: 0, payload: ${record} });
if (!line) throw new Error('no line');
console.log(performance.now() - t);`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (code) => median(Array.from({ length: RUNS }, () => Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }))));
const [a, b] = [time(ours), time(plain)];
console.log(`cold start in Node ${process.version} (median of ${RUNS} processes): import + first record ${a.toFixed(1)} ms; plain JS ${b.toFixed(2)} ms`);
report({ bench: 'coldstart', path: 'cold start in Node: import → first record', unit: 'ms', lower: true, ours: a });
