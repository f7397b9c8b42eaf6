// Executes the README's examples: ```js test=node``` blocks in a Node ESM
// consumer, test=browser in headless Chromium, test=workerd in Miniflare,
// each against the installed tarball. `// prints: X` lines must appear in
// the output; `// responds: X` in a Worker's response body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { worker } from './workerd.mjs';
import { startChatServer } from './chat-server.mjs';

const path = (p) => fileURLToPath(new URL(p, import.meta.url));
const readme = readFileSync(path('../../README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```js test=(\w+)\n([\s\S]*?)^```$/gm)].map((m, i) => {
  const code = m[2];
  const line = readme.slice(0, m.index).split('\n').length + 1;
  const expect = (tag) => [...code.matchAll(new RegExp(`^// ${tag}: (.*)$`, 'gm'))].map((x) => x[1]);
  return { runtime: m[1], code, line, index: i, prints: expect('prints'), responds: expect('responds') };
});

test('the README has a runnable quickstart for every runtime', () => {
  assert.deepEqual([...new Set(blocks.map((b) => b.runtime))].sort(), ['browser', 'node', 'workerd']);
});

for (const b of blocks.filter((b) => b.runtime === 'node')) {
  test(`README example at line ${b.line} runs in Node`, () => {
    const file = path(`../consumers/node-esm/.readme-${b.index}.mjs`);
    writeFileSync(file, b.code);
    try {
      const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      for (const p of b.prints) assert.ok(r.stdout.includes(p), `expected output "${p}", got:\n${r.stdout}`);
    } finally {
      rmSync(file, { force: true });
    }
  });
}

for (const b of blocks.filter((b) => b.runtime === 'browser')) {
  test(`README example at line ${b.line} runs in Chromium`, async () => {
    const page = path(`../consumers/browser/.readme-${b.index}.html`);
    writeFileSync(page, `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": { "agent-trajectories": "./node_modules/agent-trajectories/web.js" } }</script>
<script type="module">${b.code}\nwindow.__readmeDone = true;</script>`);
    const server = await serveStatic(path('..'));
    try {
      const { logs, errors } = await withPage(`${server.url}consumers/browser/.readme-${b.index}.html`, async (p, seen) => {
        await p.waitForFunction(() => window.__readmeDone, null, { timeout: 30_000 }).catch(() => {});
        return seen;
      });
      assert.deepEqual(errors, []);
      for (const p of b.prints) assert.ok(logs.some((l) => l.includes(p)), `expected console "${p}", got:\n${logs.join('\n')}`);
    } finally {
      await server.close();
      rmSync(page, { force: true });
    }
  });
}

for (const b of blocks.filter((b) => b.runtime === 'workerd')) {
  test(`README example at line ${b.line} runs in workerd`, async () => {
    const file = path(`../consumers/workerd/.readme-${b.index}.mjs`);
    // Miniflare resolves no bare names; wrangler would pick this file by the "workerd" condition.
    writeFileSync(file, b.code.replaceAll("from 'agent-trajectories'", "from './node_modules/agent-trajectories/workerd.js'"));
    // A scripted OpenAI-compatible endpoint for the examples that generate.
    const llm = await startChatServer();
    const mf = worker(file, { bindings: { LLM_URL: llm.url, LLM_KEY: 'readme-key' } });
    try {
      const res = await mf.dispatchFetch('http://localhost/some/path');
      const body = await res.text();
      assert.equal(res.status, 200, body);
      for (const r of b.responds) assert.ok(body.includes(r), `expected response to include ${r}, got:\n${body}`);
    } finally {
      await mf.dispose();
      await llm.close();
      rmSync(file, { force: true });
    }
  });
}
