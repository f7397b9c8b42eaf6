// Browser consumer: the installed tarball's web entry in headless Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../../scripts/serve.mjs';
import { withPage } from '../../js/chromium.mjs';
import { checkNames } from '../../js/scenarios.mjs';

const testsDir = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(new URL('./node_modules/agent-trajectories/package.json', import.meta.url), 'utf8'));

test('the package maps the browser and default conditions to web.js', () => {
  assert.deepEqual(manifest.exports['.'].browser, { types: './index.d.ts', default: './web.js' });
  assert.deepEqual(manifest.exports['.'].default, { types: './index.d.ts', default: './web.js' });
});

test('scenarios in Chromium', async (t) => {
  const server = await serveStatic(testsDir);
  try {
    const out = await withPage(`${server.url}consumers/browser/index.html`, async (page, { errors }) => {
      await page.waitForFunction(() => window.__results, null, { timeout: 60_000 })
        .catch((e) => { throw new Error(`page never reported: ${e.message}\n${errors.join('\n')}`); });
      return page.evaluate(() => window.__results);
    });
    await t.test('using the API before init() throws NOT_INITIALIZED', () => {
      assert.equal(out.before.code, 'NOT_INITIALIZED');
      assert.equal(out.before.name, 'AgentTrajectoriesError');
      assert.match(out.before.message, /await init\(\)/);
    });
    await t.test('a failed init() rejects with NOT_INITIALIZED naming the URL, its own error as cause, and a retry succeeds', () => assert.match(out.failedLoad, /^true NOT_INITIALIZED agent-trajectories: init\(\) could not load the WebAssembly module from \.\/no-such-module\.wasm: .+ cause:true$/));
    await t.test('init() of an address that answers an HTML page says so', () => assert.match(out.pageLoad, /^NOT_INITIALIZED agent-trajectories: init\(\) could not load the WebAssembly module from \.\/index\.html \(what it answered is not a WebAssembly module: an HTML page, say, for a file the server does not have\): /));
    // The page reports one result per check it ran: an empty or short list must not pass.
    await t.test(`the page ran all ${checkNames.length} checks of scenarios.mjs, once each`, () => {
      assert.ok(checkNames.length > 0, 'scenarios.mjs lists no checks');
      assert.ok(Array.isArray(out.results) && out.results.length > 0, `the page ran no checks: ${JSON.stringify(out.results)}`);
      assert.deepEqual(out.results.map((r) => r.name), checkNames);
    });
    for (const r of out.results) await t.test(r.name, () => assert.ok(r.ok, r.message));
  } finally {
    await server.close();
  }
});
