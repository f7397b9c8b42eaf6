// wrangler consumer: a Worker importing the package by its bare name,
// bundled by `wrangler deploy --dry-run --outdir` where `ai` is not
// installed, then run in workerd through Miniflare. Also: the same Worker
// bundled by Rolldown (what Vite 8 and Cloudflare's Vite plugin bundle with),
// whose reading of `sideEffects: false` must keep the entry's set-up, and by
// esbuild with the .wasm left external; and,
// where `ai` is installed, a Worker using agent-trajectories/ai, and one
// running the integrations app (tests/js/integrations-app.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { isolatedApp, run, tools, importTool, filesUnder, filesWithAi, sizeReport } from '../../js/bundlers.mjs';
import { expected as integrationsExpected } from '../../js/integrations-app.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const app = isolatedApp(here);
after(() => app.cleanup());
const env = { WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG_PATH: join(app.dir, '.wrangler-logs') };

/** Runs a bundled Worker (its .wasm beside it) in workerd; returns the JSON it answers. */
async function answer(script) {
  const mf = new Miniflare({
    modules: true,
    scriptPath: script,
    modulesRoot: dirname(script),
    modulesRules: [{ type: 'ESModule', include: ['**/*.js'] }, { type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2025-01-01',
  });
  try {
    const res = await mf.dispatchFetch('http://localhost/some/path');
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text);
  } finally {
    await mf.dispose();
  }
}

function checkAnswer(r) {
  assert.deepEqual(r.kinds, ['run_started', 'custom']);
  assert.ok(r.observed.some((n) => /cascade/i.test(n)), `the error-cascade observer fired: ${JSON.stringify(r.observed)}`);
  assert.equal(r.end, 'goal-reached');
  assert.equal(r.answer, 'hello from the edge', 'an AI SDK Agent object ran without `ai`');
  assert.match(r.configError, /^INVALID_ARGUMENT: .*generateText.*agent-trajectories\/ai/);
}

test('wrangler deploy --dry-run --outdir bundles the Worker; it runs in workerd', async (t) => {
  const out = join(app.dir, 'out');
  run(app.dir, tools.wrangler, ['deploy', '--dry-run', '--outdir', out], env);
  const files = filesUnder(out);
  assert.ok(files.some((f) => f.endsWith('.wasm')), 'the .wasm is bundled as a module');
  assert.deepEqual(filesWithAi(files), [], 'nothing from `ai` in the bundle');
  t.diagnostic(`report: ${sizeReport('wrangler Worker bundle (index.js + .wasm)', files)}`);
  checkAnswer(await answer(join(out, 'index.js')));
});

test('Rolldown with the workerd condition keeps the entry\'s set-up (sideEffects: false read right)', async () => {
  const { rolldown } = await importTool('rolldown', 'dist/index.mjs');
  for (const worker of ['records', 'index']) {
    const out = join(app.dir, `rolldown-${worker}`);
    const bundle = await rolldown({
      input: join(app.dir, `src/${worker}.js`),
      cwd: app.dir,
      platform: 'neutral',
      resolve: { conditionNames: ['workerd', 'worker', 'import', 'module', 'browser', 'default'] },
      external: [/\.wasm$/],
      logLevel: 'silent',
    });
    // The .wasm stays a module import, copied beside the bundle as Workers load it.
    await bundle.write({ dir: out, format: 'esm', entryFileNames: 'index.js', paths: (id) => (id.endsWith('.wasm') ? './agent_trajectories_bg.wasm' : id) });
    await bundle.close();
    copyFileSync(join(app.dir, 'node_modules/agent-trajectories/agent_trajectories_bg.wasm'), join(out, 'agent_trajectories_bg.wasm'));
    const r = await answer(join(out, 'index.js'));
    if (worker === 'records') assert.deepEqual(r, { kinds: ['run_started', 'custom'] });
    else checkAnswer(r);
  }
});

test('esbuild with the workerd condition and the .wasm external (the README\'s recipe): it runs in workerd', () => {
  const out = join(app.dir, 'esbuild-worker');
  run(app.dir, tools.esbuild, ['src/index.js', '--bundle', '--format=esm', '--conditions=workerd', '--external:*.wasm', `--outfile=${join(out, 'index.js')}`, '--log-level=warning']);
  copyFileSync(join(app.dir, 'node_modules/agent-trajectories/agent_trajectories_bg.wasm'), join(out, 'agent_trajectories_bg.wasm'));
  return answer(join(out, 'index.js')).then(checkAnswer);
});

test('where `ai` is installed: a Worker using agent-trajectories/ai over the AI SDK mock model', async (t) => {
  // Built in the repository, so `ai` resolves from tests/node_modules.
  const out = mkdtempSync(join(tmpdir(), 'at-wrangler-ai-'));
  try {
    run(here, tools.wrangler, ['deploy', '--dry-run', '--outdir', out, '-c', 'wrangler.ai.jsonc'], { ...env, WRANGLER_LOG_PATH: join(out, 'logs') });
    rmSync(join(out, 'logs'), { recursive: true, force: true });
    const files = filesUnder(out);
    assert.equal(filesWithAi(files).length, 1, '`ai` is in this bundle, and the marker check finds it');
    t.diagnostic(`report: ${sizeReport('wrangler Worker bundle with agent-trajectories/ai and ai (for comparison)', files)}`);
    assert.deepEqual(await answer(join(out, 'ai-worker.js')), { end: 'goal-reached', user: 'A table, please.', agent: 'Booked for two.' });
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(join(here, '.wrangler'), { recursive: true, force: true });
  }
});

test('the integrations in workerd: observeAISdk + trajectoryMiddleware in an ai 7 loop, observeMastra in a Mastra Agent (nodejs_compat), agent-trajectories/otel with the OpenTelemetry SDK', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'at-wrangler-integrations-'));
  try {
    run(here, tools.wrangler, ['deploy', '--dry-run', '--outdir', out, '-c', 'wrangler.integrations.jsonc'], { ...env, WRANGLER_LOG_PATH: join(out, 'logs') });
    rmSync(join(out, 'logs'), { recursive: true, force: true });
    t.diagnostic(`report: ${sizeReport('wrangler Worker bundle with ai, @mastra/core and the OpenTelemetry SDK (for comparison)', filesUnder(out))}`);
    // Mastra imports some modules by computed names, which Miniflare cannot
    // follow: the bundle's modules are listed instead (as wrangler uploads them).
    const files = readdirSync(out).filter((f) => /\.(js|wasm)$/.test(f));
    const main = 'integrations-worker.js';
    const modules = [main, ...files.filter((f) => f !== main)].map((f) => ({ type: f.endsWith('.wasm') ? 'CompiledWasm' : 'ESModule', path: join(out, f) }));
    const mf = new Miniflare({ modules, modulesRoot: out, compatibilityDate: '2025-09-01', compatibilityFlags: ['nodejs_compat'] });
    try {
      const res = await mf.dispatchFetch('http://localhost/');
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.deepEqual(JSON.parse(text), integrationsExpected);
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(join(here, '.wrangler'), { recursive: true, force: true });
  }
});
