// workerd consumer: the installed tarball's workerd entry inside Miniflare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { worker } from '../../js/workerd.mjs';

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
    for (const r of JSON.parse(text)) await t.test(r.name, () => assert.ok(r.ok, r.message));
  } finally {
    await mf.dispose();
  }
});
