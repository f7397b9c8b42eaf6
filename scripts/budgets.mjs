// The package's sizes (raw, gzip, brotli) and the budgets the build
// enforces, for scripts/assemble.mjs. The budget covers the code an app
// loads: the wasm, the glue and every entry and chunk. viewer.html is not
// loaded by an app: it is the page that viewer.js copies into the files it
// writes (read from disk when it writes, never imported or bundled), so it
// has a budget of its own. Tool entries are loaded by a test runner or a
// command line, never by an app: their own files, and chunks only they load,
// have a budget of their own (a chunk they share with the app's entries
// counts in the app's).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const PAGE_BUDGET = 24 * 1024;
const TOOL_FILES = ['vitest.js', 'vitest.cjs', 'report.js', 'report.cjs', 'cli.mjs'];
const TOOL_BUDGET = 32 * 1024;

/**
 * Prints the size table and checks every budget.
 * @param {{ pkg: string, files: string[], budget: number, entryLoads: [string, string[]][] }} o
 *   the package directory, its shipped files, the app budget (gzip bytes),
 *   and for each entry the JS files importing it loads
 * @returns {{ ok: boolean }} false (with the reason printed) when a budget is exceeded
 */
export function enforceBudgets({ pkg, files, budget, entryLoads }) {
  const sized = (f) => {
    const bytes = readFileSync(join(pkg, f));
    const gz = gzipSync(bytes, { level: 9 }).length;
    const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    return { f, raw: bytes.length, gz, br };
  };
  // A chunk only the tool entries load is theirs.
  const appLoads = new Set(entryLoads.filter(([entry]) => !TOOL_FILES.includes(entry)).flatMap(([, loaded]) => loaded));
  const toolsOnly = (f) => TOOL_FILES.includes(f) || (/^chunk-.*\.js$/.test(f) && !appLoads.has(f));
  const rows = files.filter((f) => /\.(wasm|js|cjs|mjs)$/.test(f) && !toolsOnly(f)).map(sized);
  const toolRows = [...TOOL_FILES, ...files.filter((f) => !TOOL_FILES.includes(f) && toolsOnly(f))].map(sized);
  const sum = (list) => list.reduce((a, r) => ({ raw: a.raw + r.raw, gz: a.gz + r.gz, br: a.br + r.br }), { raw: 0, gz: 0, br: 0 });
  const total = sum(rows);
  const kb = (n) => (n / 1024).toFixed(1).padStart(8);
  const width = Math.max(28, ...rows.map((r) => r.f.length + 2));
  const line = (r) => `${r.f.padEnd(width)}${kb(r.raw)}${kb(r.gz).padStart(9)}${kb(r.br).padStart(10)}`;
  console.log(`${'file'.padEnd(width)}${'raw KB'.padStart(8)}${'gzip KB'.padStart(9)}${'brotli KB'.padStart(10)}`);
  for (const r of [...rows, { f: 'total', ...total }]) console.log(line(r));
  console.log(`budget: ${(total.gz / 1024).toFixed(1)} KB of ${(budget / 1024).toFixed(0)} KB gzip`);
  const toolTotal = sum(toolRows);
  for (const r of [...toolRows, { f: 'tools total', ...toolTotal }]) console.log(line(r));
  console.log(`tools budget (entries apps do not load): ${(toolTotal.gz / 1024).toFixed(1)} KB of ${TOOL_BUDGET / 1024} KB gzip`);
  // What importing each entry loads of the JS (itself, its chunks, and the glue for the main entries; the .wasm aside).
  console.log('JS each entry loads (the .wasm aside):');
  for (const [entry, loaded] of entryLoads) console.log(line({ f: `  ${entry} (${loaded.length} files)`, ...sum(loaded.map(sized)) }));
  const page = gzipSync(readFileSync(join(pkg, 'viewer.html')), { level: 9 }).length;
  console.log(`viewer.html (the one-file viewer's page, written into files, not loaded by apps): ${(page / 1024).toFixed(1)} KB of ${PAGE_BUDGET / 1024} KB gzip`);
  const over = [
    toolTotal.gz > TOOL_BUDGET && `build: the tool entries are ${toolTotal.gz} bytes gzip, over their ${TOOL_BUDGET}-byte budget`,
    total.gz > budget && `build: package is ${total.gz} bytes gzip, over the ${budget}-byte budget`,
    page > PAGE_BUDGET && `build: viewer.html is ${page} bytes gzip, over its ${PAGE_BUDGET}-byte budget`,
  ].filter(Boolean);
  for (const why of over) console.error(why);
  return { ok: over.length === 0 };
}
