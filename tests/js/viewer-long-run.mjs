// The run viewer on a run of 3,000 turns: the outline and the turn list
// render only what is near the viewport, and still reach every turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { writeRun } from '../bench/viewer-data.mjs';
import { site, hashOf, ready, rowsShown } from './viewer-site.mjs';

/** Registers the test of a long run. */
export const testLongRun = () => test('a run of 3,000 turns: the outline and the turn list hold only what is near the viewport, and reach every turn', async () => {
  const dir = site('at-viewer-long-');
  try {
    const turns = 3000;
    await writeRun(join(dir, 'long.jsonl'), { turns, callsPerTurn: 1, resultBytes: 40, runId: 'long' });
    const server = await serveStatic(dir);
    try {
      await withPage(`${server.url}?src=long.jsonl`, async (page, { errors }) => {
        await page.setViewportSize({ width: 1400, height: 800 });
        await ready(page);
        await page.waitForSelector('#outline a');
        const entries = () => page.locator('#outline li').count();
        assert.ok(await entries() < 200, `a window of the outline is rendered (${await entries()} entries)`);
        assert.ok(await rowsShown(page) < 100);
        // The outline is as tall as all of its entries: scrolling the side panel to the end shows the last turn.
        await page.evaluate(() => { const s = document.getElementById('side'); s.scrollTop = s.scrollHeight; });
        const last = page.locator('#outline a', { hasText: new RegExp(`^turn ${turns - 1}\\b`) });
        await last.waitFor();
        assert.ok(await entries() < 200);
        await last.click();
        assert.equal((await hashOf(page)).turn, String(turns - 1));
        await page.waitForSelector(`#turns .row.sel[data-turn="${turns - 1}"]`);
        assert.equal(await last.getAttribute('aria-current'), 'true');
        // The next match, far above: the list and the outline follow it.
        await page.fill('#q', 'needle-1234-0');
        await page.waitForSelector('#match-count:has-text("1 off screen")');
        await page.locator('#turns').focus();
        await page.keyboard.press('n');
        await page.waitForSelector('#turns .row.sel[data-turn="1234"] .hit');
        assert.equal(await page.locator('#outline a[aria-current="true"]').textContent(), 'turn 1234');
        assert.ok(await entries() < 200);
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
