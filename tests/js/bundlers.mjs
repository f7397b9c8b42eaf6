// Helpers for the bundler consumers (Vite, esbuild, wrangler): build a
// minimal app the way a user would, where `ai` is not installed, then check
// the output and report its size.
import { cpSync, mkdtempSync, readdirSync, readFileSync, appendFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const testsDir = fileURLToPath(new URL('../', import.meta.url));
const bin = (pkg, path) => join(testsDir, 'node_modules', pkg, path);
export const tools = {
  vite: bin('vite', 'bin/vite.js'),
  vite6: bin('vite6', 'bin/vite.js'),
  esbuild: bin('esbuild', 'bin/esbuild'),
  wrangler: bin('wrangler', 'bin/wrangler.js'),
};
export const importTool = (pkg, path) => import(bin(pkg, path));

/** The browser app every bundler builds (tests/js/bundler-app.js). */
export const appSource = fileURLToPath(new URL('./bundler-app.js', import.meta.url));

/**
 * Copies a consumer folder (with the tarball installed in its node_modules)
 * to a temporary folder outside the repository: inside it, Node's lookup
 * would find tests/node_modules/ai and hide a dependency on it.
 */
export function isolatedApp(consumer, files = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'at-bundler-'));
  cpSync(consumer, dir, { recursive: true, filter: (src) => !/\.test\.mjs$/.test(src) });
  for (const [to, from] of Object.entries(files)) {
    mkdirSync(join(dir, to, '..'), { recursive: true });
    cpSync(from, join(dir, to));
  }
  let resolvable = true;
  try { createRequire(join(dir, 'app.js')).resolve('ai'); } catch { resolvable = false; }
  if (resolvable) throw new Error(`${dir}: \`ai\` is resolvable from here; the check would prove nothing`);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a CLI with Node in `cwd`; throws with its output when it fails. */
export function run(cwd, script, args, env = {}) {
  const r = spawnSync(script.endsWith('.js') ? process.execPath : script, script.endsWith('.js') ? [script, ...args] : args, {
    cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
  });
  const out = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`${relative(testsDir, script)} ${args.join(' ')} failed (exit ${r.status}):\n${out.slice(-4000)}`);
  return out;
}

export function filesUnder(dir) {
  return readdirSync(dir, { recursive: true }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

// Strings only the AI SDK carries (its error markers, `vercel.ai.error.*`,
// and its tracing names); the suites check these are found when `ai` is
// bundled on purpose, so their absence means something. `vercel.ai.schema`
// is left out: this package names that registered symbol itself, to hand
// the AI SDK a JSON Schema in its own Schema shape without importing `ai`.
const AI_MARKERS = /vercel\.ai\.(?!schema\b)[a-zA-Z]/;
/** The output files (.js, .mjs) that contain code from `ai`. */
export function filesWithAi(files) {
  return files.filter((f) => /\.m?js$/.test(f) && AI_MARKERS.test(readFileSync(f, 'utf8')));
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
/**
 * Raw and gzip size of a build's output (JavaScript and .wasm; maps and
 * HTML left out), as one line, also appended to tests/.work/bundle-sizes.txt
 * which scripts/test.sh prints at the end.
 */
export function sizeReport(label, files) {
  const shipped = files.filter((f) => /\.(m?js|wasm)$/.test(f));
  const js = shipped.filter((f) => !f.endsWith('.wasm'));
  const sum = (list) => list.reduce((a, f) => {
    const bytes = readFileSync(f);
    return { raw: a.raw + bytes.length, gz: a.gz + gzipSync(bytes, { level: 9 }).length };
  }, { raw: 0, gz: 0 });
  const all = sum(shipped);
  const code = sum(js);
  const line = `${label}: ${kb(all.raw)} raw, ${kb(all.gz)} gzip (JS ${kb(code.raw)} raw, ${kb(code.gz)} gzip; ${shipped.length} files)`;
  mkdirSync(join(testsDir, '.work'), { recursive: true });
  appendFileSync(join(testsDir, '.work', 'bundle-sizes.txt'), `${line}\n`);
  return line;
}

/** Opens `url` in headless Chromium and returns what bundler-app.js reported. */
export async function appResult(url) {
  const { withPage } = await import('./chromium.mjs');
  return withPage(url, async (page, { errors, logs }) => {
    await page.waitForFunction(() => window.__result, null, { timeout: 30_000 })
      .catch((e) => { throw new Error(`the page never reported: ${e.message}\n${[...errors, ...logs].join('\n')}`); });
    const result = await page.evaluate(() => window.__result);
    if (result.error) throw new Error(`the app failed: ${result.error}\n${[...errors, ...logs].join('\n')}`);
    return result;
  });
}

const NEEDS_AI = /^INVALID_ARGUMENT: .*generateText.*agent-trajectories\/ai/;
/** What bundler-app.js must report, in any bundler. */
export function checkAppResult(assert, r) {
  assert.equal(r.viewer, 'NOT_INITIALIZED', 'viewerHtml in a browser bundle says why it cannot read the package\'s files (a dev server answers its fallback page for them)');
  assert.equal(r.records, 2);
  assert.deepEqual(r.kinds, ['run_started', 'tool_started']);
  assert.ok(r.observed.some((n) => /stall/i.test(n)), `the stall observer fired: ${JSON.stringify(r.observed)}`);
  assert.equal(r.end, 'goal-reached');
  assert.equal(r.lines, 1);
  assert.equal(r.agentAnswer, 'seen 1', 'an AI SDK Agent object ran without `ai`');
  assert.match(r.configError, NEEDS_AI);
  assert.match(r.modelError, NEEDS_AI);
  assert.match(r.userModelError, NEEDS_AI);
  // A bare model: importing agent-trajectories/ai would not do, wrapping it there does.
  assert.match(r.userModelError, /or wrap it with fromAISdkModel from 'agent-trajectories\/ai'$/);
  assert.match(r.modelError, /or import the adapters from 'agent-trajectories\/ai'$/);
  assert.equal(r.injected, 'no error', 'a generateText config with generateText passed in is accepted');
}
