// esbuild consumer: the installed tarball bundled by esbuild with no
// externals, in a folder where `ai` is not installed: for the browser
// (loaded in headless Chromium) and for Node (ESM and CommonJS, run). Then,
// where `ai` is installed, an app using agent-trajectories/ai, and the
// integrations app (tests/js/integrations-app.mjs) in Chromium.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../../scripts/serve.mjs';
import { isolatedApp, appSource, run, tools, filesUnder, filesWithAi, sizeReport, appResult, checkAppResult } from '../../js/bundlers.mjs';
import { expected as integrationsExpected } from '../../js/integrations-app.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const app = isolatedApp(here, { 'src/main.js': appSource });
after(() => app.cleanup());
const wasm = (dir) => join(dir, 'node_modules', 'agent-trajectories', 'agent_trajectories_bg.wasm');
const page = '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>\n';
const inputsFromAi = (metafile) => Object.keys(JSON.parse(readFileSync(metafile, 'utf8')).inputs)
  .filter((p) => /node_modules\/(ai|@ai-sdk)\//.test(p));

test('esbuild --bundle --format=esm for the browser, then the bundle in Chromium', async (t) => {
  const out = join(app.dir, 'out');
  run(app.dir, tools.esbuild, ['src/main.js', '--bundle', '--format=esm', '--platform=browser', `--outdir=${out}`, `--metafile=${join(app.dir, 'meta.json')}`]);
  assert.deepEqual(inputsFromAi(join(app.dir, 'meta.json')), [], 'no input from `ai`');
  // esbuild leaves `new URL('x.wasm', import.meta.url)` alone: the .wasm goes beside the bundle.
  copyFileSync(wasm(app.dir), join(out, 'agent_trajectories_bg.wasm'));
  const files = filesUnder(out);
  assert.deepEqual(filesWithAi(files), [], 'nothing from `ai` in the bundle');
  t.diagnostic(`report: ${sizeReport('esbuild browser bundle (main.js + .wasm)', files)}`);
  writeFileSync(join(out, 'index.html'), page);
  const server = await serveStatic(out);
  try {
    checkAppResult(assert, await appResult(server.url));
  } finally {
    await server.close();
  }
});

for (const [name, entry, format] of [['ESM', 'node-app.mjs', 'esm'], ['CommonJS', 'node-app.cjs', 'cjs']]) {
  test(`esbuild --bundle --platform=node (${name}) without \`ai\`, then the bundle in Node`, () => {
    const out = join(app.dir, `node-out-${format}`);
    const file = join(out, format === 'esm' ? 'app.mjs' : 'app.cjs');
    run(app.dir, tools.esbuild, [entry, '--bundle', '--platform=node', `--format=${format}`, `--outfile=${file}`, '--log-level=warning']);
    assert.deepEqual(filesWithAi(filesUnder(out)), []);
    copyFileSync(wasm(app.dir), join(out, 'agent_trajectories_bg.wasm'));
    const r = spawnSync(process.execPath, [file], { cwd: app.dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const seen = JSON.parse(r.stdout);
    assert.equal(seen.records, 1);
    assert.equal(seen.writeArtifacts, 'function');
    assert.match(seen.error, /^INVALID_ARGUMENT: .*npm install ai.*agent-trajectories\/ai/);
    // Without the .wasm beside it, the bundle says what is missing and where.
    rmSync(join(out, 'agent_trajectories_bg.wasm'));
    const missing = spawnSync(process.execPath, [file], { cwd: app.dir, encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /cannot read its WebAssembly module \(ENOENT: .*agent_trajectories_bg\.wasm\); a bundle needs agent_trajectories_bg\.wasm copied beside it/);
  });
}

test('where `ai` is installed: agent-trajectories/ai bundled for the browser, run over the AI SDK mock model', async (t) => {
  // In the repository, so `ai` resolves from tests/node_modules.
  const out = mkdtempSync(join(tmpdir(), 'at-esbuild-ai-'));
  try {
    run(here, tools.esbuild, ['ai-app.js', '--bundle', '--format=esm', '--platform=browser', `--outfile=${join(out, 'main.js')}`, `--metafile=${join(out, 'meta.json')}`]);
    assert.ok(inputsFromAi(join(out, 'meta.json')).length > 0, '`ai` is in this bundle');
    rmSync(join(out, 'meta.json'));
    const files = filesUnder(out);
    assert.equal(filesWithAi(files).length, 1, 'and the marker check finds it (so its silence above means something)');
    copyFileSync(wasm(here), join(out, 'agent_trajectories_bg.wasm'));
    t.diagnostic(`report: ${sizeReport('esbuild browser bundle with agent-trajectories/ai and ai (for comparison)', filesUnder(out))}`);
    writeFileSync(join(out, 'index.html'), page);
    const server = await serveStatic(out);
    try {
      assert.deepEqual(await appResult(server.url), { end: 'goal-reached', user: 'A table, please.', agent: 'Booked for two.' });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the integrations in Chromium: observeAISdk + trajectoryMiddleware in an ai 7 loop, and agent-trajectories/otel with the OpenTelemetry SDK', async () => {
  const out = mkdtempSync(join(tmpdir(), 'at-esbuild-integrations-'));
  try {
    run(here, tools.esbuild, ['integrations-app.js', '--bundle', '--format=esm', '--platform=browser', `--outfile=${join(out, 'main.js')}`]);
    copyFileSync(wasm(here), join(out, 'agent_trajectories_bg.wasm'));
    writeFileSync(join(out, 'index.html'), page);
    const server = await serveStatic(out);
    try {
      assert.deepEqual(await appResult(server.url), { ...integrationsExpected, mastra: null });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
