// The demo viewer (www/) in Chromium, loading the tarball's web build and
// sample runs recorded by scripts/sample-runs.mjs, and the streams the AI
// SDK and Mastra integrations record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));

test('the viewer lists the sample runs and renders every record, assessments included', async () => {
  const site = mkdtempSync(join(tmpdir(), 'at-viewer-'));
  try {
    cpSync(join(repo, 'www'), site, { recursive: true });
    cpSync(join(repo, 'tests/consumers/browser/node_modules/agent-trajectories'), join(site, 'pkg'), { recursive: true });
    execFileSync(process.execPath, [join(repo, 'scripts/sample-runs.mjs'), join(site, 'runs')]);
    const index = JSON.parse(readFileSync(join(site, 'runs/index.json'), 'utf8'));
    const lines = (f) => readFileSync(join(site, 'runs', f), 'utf8').trim().split('\n').length;
    const server = await serveStatic(site);
    try {
      await withPage(server.url, async (page, { errors }) => {
        await page.waitForSelector('tbody tr');
        assert.equal(await page.locator('nav button').count(), index.runs.length);
        assert.equal(await page.locator('tbody tr').count(), lines(index.runs[0].file), 'one row per record of the first run');
        const stuck = index.runs.findIndex((r) => r.file === 'stuck-on-tests.jsonl');
        await page.locator('nav button').nth(stuck).click();
        await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, lines('stuck-on-tests.jsonl'));
        const kinds = await page.locator('tbody .kind').allTextContents();
        assert.ok(kinds.filter((k) => k === 'assessment_produced').length >= 3, kinds.join(','));
        assert.match(await page.locator('tbody').textContent(), /Error Cascade \[(caution|warning)\]/);
        const generated = index.runs.findIndex((r) => r.file === 'generated-booking.jsonl');
        await page.locator('nav button').nth(generated).click();
        await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, lines('generated-booking.jsonl'));
        assert.equal((await page.locator('.path').textContent()).replace(/\s+/g, ' '), 'steps: greet → hours → book → confirm');
        const body = await page.locator('tbody').textContent();
        assert.match(body, /turn 1 → hours \(llm-ranked\): hours 0\.85/);
        assert.match(body, /create_booking ok: \{"ref":"BK-2041"/);
        assert.match(body, /completed \(goal-reached\)/);
        const background = index.runs.findIndex((r) => r.file === 'background-review.jsonl');
        assert.ok(background >= 0, 'the demo has a background run');
        await page.locator('nav button').nth(background).click();
        await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, lines('background-review.jsonl'));
        const bgKinds = await page.locator('tbody .kind').allTextContents();
        for (const k of ['iteration_started', 'iteration_completed', 'run_terminated']) assert.ok(bgKinds.includes(k), `${k} shown: ${bgKinds.join(',')}`);
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
});

test('the viewer shows the streams observeAISdk and observeMastra record (ai 7 and @mastra/core over scripted models)', async () => {
  const site = mkdtempSync(join(tmpdir(), 'at-viewer-loops-'));
  try {
    cpSync(join(repo, 'www'), site, { recursive: true });
    const installed = join(repo, 'tests/consumers/browser/node_modules/agent-trajectories');
    cpSync(installed, join(site, 'pkg'), { recursive: true });
    const lib = await import(pathToFileURL(join(installed, 'node.mjs')).href);
    const { Agent } = await import('@mastra/core/agent');
    const { createTool } = await import('@mastra/core/tools');
    const { aiSdkLoop, mastraLoop } = await import('./integrations-app.mjs');
    const runs = { 'ai-sdk-loop.jsonl': (await aiSdkLoop(lib)).lines, 'mastra-loop.jsonl': (await mastraLoop({ ...lib, Agent, createTool })).lines };
    mkdirSync(join(site, 'runs'));
    for (const [file, lines] of Object.entries(runs)) writeFileSync(join(site, 'runs', file), `${lines.join('\n')}\n`);
    writeFileSync(join(site, 'runs/index.json'), JSON.stringify({ runs: Object.keys(runs).map((file) => ({ file, title: file })) }));
    const server = await serveStatic(site);
    try {
      await withPage(server.url, async (page, { errors }) => {
        for (const [i, [file, lines]] of Object.entries(runs).entries()) {
          await page.locator('nav button').nth(i).click();
          await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, lines.length);
          const kinds = await page.locator('tbody .kind').allTextContents();
          assert.deepEqual(kinds, lines.map((l) => JSON.parse(l).payload.kind), `${file}: every record, in order`);
          const body = await page.locator('tbody').textContent();
          assert.match(body, /book failed: no tables in Lisbon/, file);
          assert.match(body, /after call #3: Stall \[info\]/, file);
          assert.match(body, file.startsWith('ai-sdk') ? /completed \(stopped-on-warning\): Stall/ : /completed \(stop\)/, file);
        }
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
});
