// Cold start: from before the package is imported (its module loaded and
// compiled) to just after its first record.
// - Node: a fresh process each time, beside one doing the plain-JS
//   equivalent (JSON.stringify of the same record).
// - Chromium: a fresh headless browser each time, on a page that imports the
//   web entry (tests/bench/coldstart.html).
// - workerd (Miniflare): time cannot be read inside a Worker (its clock
//   stands still while it runs), so a fresh Worker that imports the package
//   and records is timed from the outside, start to first response, beside
//   the same Worker without the package; the difference is the package's.
// Chromium and workerd need the test tools (scripts/test.sh installs them
// into tests/node_modules); without them those rows are skipped, said so.
// Medians. Prints a table; asserts nothing.
// Usage: node tests/bench/coldstart.mjs [runs=7]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The test tools' module, or null (said) when they are not installed. */
async function tool(path, what) {
  try {
    return await import(path);
  } catch (e) {
    console.log(`cold start in ${what}: skipped (${e.code ?? e.message}; scripts/test.sh installs the test tools)`);
    return null;
  }
}

const browser = await tool('../js/chromium.mjs', 'Chromium');
if (browser) {
  const { serveStatic } = await import('../../scripts/serve.mjs');
  const server = await serveStatic(repo);
  try {
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      times.push(await browser.withPage(`${server.url}tests/bench/coldstart.html`, async (page, { errors }) => {
        await page.waitForFunction(() => window.__cold !== undefined, null, { timeout: 30_000 }).catch((e) => { throw new Error(`${e.message}\n${errors.join('\n')}`); });
        return page.evaluate(() => window.__cold);
      }));
    }
    const ms = median(times);
    console.log(`cold start in headless Chromium (median of ${RUNS} fresh browsers): import + init() + first record ${ms.toFixed(1)} ms`);
    report({ bench: 'coldstart', path: 'cold start in Chromium: import → init() → first record', unit: 'ms', lower: true, ours: ms });
  } finally {
    await server.close();
  }
}

const miniflare = await tool('miniflare', 'workerd');
if (miniflare) {
  const pkg = join(repo, 'pkg');
  const files = readdirSync(pkg).filter((f) => f.endsWith('.js') || f.endsWith('.wasm'));
  const withPackage = `import * as at from './pkg/workerd.js';
export default { async fetch() {
  const sink = new at.MemorySink();
  new at.TrajectoryRecorder(sink, { clock: () => 0 }).record({ kind: 'run_started', identity: { run_id: 'cold' } });
  return new Response(String(sink.records().length));
} };`;
  const without = `export default { async fetch() {
  const line = JSON.stringify({ schema_version: 1, seq: 0, run_id: 'cold', depth: 0, recorded_at_unix_ms: 0, payload: { kind: 'run_started', identity: { run_id: 'cold' } } });
  return new Response(String(line ? 1 : 0));
} };`;
  const start = async (script, modules) => {
    const t = performance.now();
    const mf = new miniflare.Miniflare({
      modulesRoot: repo,
      modules: [{ type: 'ESModule', path: join(repo, 'worker.mjs'), contents: script }, ...modules],
      compatibilityDate: '2025-01-01',
    });
    try {
      const res = await mf.dispatchFetch('http://localhost/');
      if ((await res.text()) !== '1') throw new Error('no record');
      return performance.now() - t;
    } finally {
      await mf.dispose();
    }
  };
  const modules = files.map((f) => ({ type: f.endsWith('.wasm') ? 'CompiledWasm' : 'ESModule', path: join(pkg, f), contents: readFileSync(join(pkg, f)) }));
  const ours = [];
  const plain = [];
  for (let i = 0; i < RUNS; i++) {
    plain.push(await start(without, []));
    ours.push(await start(withPackage, modules));
  }
  const [w, p] = [median(ours), median(plain)];
  console.log(`cold start in workerd (Miniflare, median of ${RUNS} fresh Workers): start to first response ${w.toFixed(0)} ms with the package, ${p.toFixed(0)} ms without: the package's ${(w - p).toFixed(0)} ms`);
  report({ bench: 'coldstart', path: 'cold start in workerd: a fresh Worker\'s first response, over one without the package', unit: 'ms', lower: true, ours: w - p });
}
