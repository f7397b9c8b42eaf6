// The run viewer on the streams the integrations record: observeAISdk in an
// ai 7 loop and observeMastra in a @mastra/core agent, over scripted models.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { installed, site, ready } from './viewer-site.mjs';

/** Registers the test of the integrations' streams. */
export const testIntegrationStreams = () => test('the viewer shows the streams observeAISdk and observeMastra record (ai 7 and @mastra/core over scripted models)', async () => {
  const dir = site('at-viewer-loops-');
  try {
    const lib = await import(pathToFileURL(join(installed, 'node.mjs')).href);
    const { Agent } = await import('@mastra/core/agent');
    const { createTool } = await import('@mastra/core/tools');
    const { aiSdkLoop, mastraLoop } = await import('./integrations-app.mjs');
    const runs = { 'ai-sdk-loop.jsonl': (await aiSdkLoop(lib)).lines, 'mastra-loop.jsonl': (await mastraLoop({ ...lib, Agent, createTool })).lines };
    mkdirSync(join(dir, 'runs'));
    for (const [f, lines] of Object.entries(runs)) writeFileSync(join(dir, 'runs', f), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'runs/index.json'), JSON.stringify({ runs: Object.keys(runs).map((f) => ({ file: f, title: f })) }));
    const server = await serveStatic(dir);
    try {
      await withPage(server.url, async (page, { errors }) => {
        await ready(page);
        for (const [i, [f, lines]] of Object.entries(runs).entries()) {
          await page.locator('.sample').nth(i).click();
          await page.waitForSelector(`#summary:has-text("${f}")`);
          const recs = lines.map((l) => JSON.parse(l));
          assert.equal(new Set(recs.map((r) => r.run_id)).size, 1, f);
          assert.match(await page.locator('#summary .stats').textContent(), new RegExp(`^${recs.length} records`), `${f}: every record indexed`);
          const kinds = (await page.locator('#kind option').allTextContents()).slice(1);
          assert.deepEqual(kinds, [...new Set(recs.map((r) => r.payload.kind))].sort(), f);
          assert.match(await page.locator('#turns .call.error').first().textContent(), /book[\s\S]*error[\s\S]*no tables in Lisbon/, f);
          assert.match(await page.locator('#turns .finding').first().textContent(), /info · Stall after call #3/, f);
          const stopped = f.startsWith('ai-sdk');
          assert.match(await page.locator('#outcome').textContent(), stopped ? /^stopped on a warning/ : /^completed · stop\b/, f);
          assert.match(await page.locator('#outcome').getAttribute('class'), stopped ? /\bbad\b/ : /\bok\b/, f);
        }
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
