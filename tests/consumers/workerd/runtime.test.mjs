// workerd consumer: the installed tarball's workerd entry inside Miniflare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { worker } from '../../js/workerd.mjs';
import { checkNames } from '../../js/scenarios.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const manifest = JSON.parse(readFileSync(here('./node_modules/agent-trajectories/package.json'), 'utf8'));

test('the package maps the workerd condition to workerd.js', () => {
  assert.deepEqual(manifest.exports['.'].workerd, { types: './index.d.ts', default: './workerd.js' });
});

test('scenarios in workerd', async (t) => {
  const mf = worker(here('./worker.mjs'));
  try {
    const res = await mf.dispatchFetch('http://localhost/');
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const results = JSON.parse(text);
    // The Worker responds with one result per check it ran: an empty or short list must not pass.
    await t.test(`the Worker ran all ${checkNames.length} checks of scenarios.mjs, once each`, () => {
      assert.ok(checkNames.length > 0, 'scenarios.mjs lists no checks');
      assert.ok(Array.isArray(results) && results.length > 0, `the Worker ran no checks: ${text}`);
      assert.deepEqual(results.map((r) => r.name), checkNames);
    });
    for (const r of results) await t.test(r.name, () => assert.ok(r.ok, r.message));
  } finally {
    await mf.dispose();
  }
});
