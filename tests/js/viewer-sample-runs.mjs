// The run viewer over the sample runs of scripts/sample-runs.mjs, served:
// turn cards, findings, budget, search and filters, keyboard, hash links,
// the step graph, compare, a child run, a background run, files opened by
// the picker and by a drop, and live runs. Expected values are computed
// from the files themselves, not copied from the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { repo, installed, shots, site, records, strings, occurrences, isError, hashOf, ready, rowsShown } from './viewer-site.mjs';

/** Registers the test of the sample runs. */
export const testSampleRuns = () => test('the run viewer: open, read, find, navigate, compare and run live', async () => {
  const dir = site('at-viewer-');
  try {
    execFileSync(process.execPath, [join(repo, 'scripts/sample-runs.mjs'), join(dir, 'runs')]);
    const index = JSON.parse(readFileSync(join(dir, 'runs/index.json'), 'utf8'));
    const file = (f) => records(readFileSync(join(dir, 'runs', f), 'utf8'));
    const stuck = file('stuck-on-tests.jsonl');
    const endedAt = stuck.flatMap((r, i) => (r.payload.kind === 'tool_ended' ? [i] : []));
    const server = await serveStatic(dir);
    try {
      await withPage(server.url, async (page, { errors }) => {
        await page.setViewportSize({ width: 1400, height: 800 });
        await ready(page);
        assert.equal(await page.locator('.sample').count(), index.runs.length, 'one button per sample run');
        assert.equal(await page.locator('.run-btn').count(), 1, 'the first sample is open');
        assert.ok(await rowsShown(page) > 0);

        // Turn cards: a failed call says so (class, icon, word) with its error in the same card.
        await page.locator('.sample', { hasText: 'stuck-on-tests.jsonl' }).click();
        await page.waitForSelector('#summary:has-text("stuck-on-tests")');
        const failed = page.locator('#turns .call.error').first();
        assert.match(await failed.textContent(), /✖\s*run_tests[\s\S]*error[\s\S]*Error:[\s\S]*AssertionError: expected 'a,b' got 'a b'/);
        assert.ok(await rowsShown(page) < stuck.length, 'rows, not records, are rendered');

        // Findings pinned to their call, coloured by severity; evidence links to the calls it cites.
        const warnings = stuck.filter((r) => r.payload.kind === 'assessment_produced' && r.payload.assessment.severity === 'warning');
        assert.equal(await page.locator('#findings .sev-warning').count(), warnings.length);
        const stall = page.locator('#turns .call .finding', { hasText: 'Stall' }).first();
        assert.match(await stall.textContent(), /Stall after call #4/);
        await stall.locator('a.call-link', { hasText: '#2' }).first().click();
        assert.equal(Number((await hashOf(page)).rec), endedAt[1], '#2 is the run\'s 2nd tool call');
        assert.match(await page.locator('.flash').textContent(), /run_tests\s*call #2/);

        // Budget: three series against the limits, a cursor on the selected turn, the stop reason.
        assert.equal(await page.locator('#budget polyline').count(), 3);
        const end = stuck.at(-1).payload.outcome;
        assert.equal(end.status, 'stopped');
        assert.equal(await page.locator('#stop-reason').textContent(), "stopped: the agent went round in circles (agent-loop) · verdict: agent (the agent's failure)");
        assert.equal(await page.locator('#stop-reason').getAttribute('title'), end.message, 'its message on hover');
        assert.match(await page.locator('#stop-reason').getAttribute('class'), /\bbad\b/);
        assert.match(await page.locator('#budget .budget-legend').textContent(), /tool calls \d+ \/ 8/);
        await page.locator('#outline a', { hasText: 'turn 3' }).click();
        assert.equal(await page.locator('#budget .cursor').getAttribute('data-turn'), '3');
        assert.match(await page.locator('#budget .budget-legend').textContent(), /tool calls 6 \/ 8 \(75%\)/);
        await page.screenshot({ path: join(shots, 'findings-budget.png') });

        // Search: the count is every case-insensitive occurrence in string values; n/N walk the hits in order.
        const needle = 'AssertionError';
        const hits = stuck.flatMap((r, i) => (strings(r.payload).some((s) => occurrences(s, needle)) ? [i] : []));
        const count = stuck.reduce((s, r) => s + strings(r.payload).reduce((t, x) => t + occurrences(x, needle), 0), 0);
        await page.fill('#q', needle);
        await page.waitForSelector('#match-count:has-text("matches")');
        const status = await page.locator('#match-count').textContent();
        const m = /^(\d+) matches in (\d+) records · (\d+) off screen/.exec(status);
        assert.ok(m, status);
        assert.deepEqual([Number(m[1]), Number(m[2])], [count, hits.length]);
        assert.ok(Number(m[3]) > 0 && Number(m[3]) < hits.length, `some hits on screen, some off: ${status}`);
        assert.ok(await page.locator('#turns .hit').count() > 0);
        await page.locator('#turns').focus();
        await page.keyboard.press('k'); // to the first row, so n starts from the top
        await page.keyboard.press('n');
        assert.equal(Number((await hashOf(page)).rec), hits[0]);
        await page.keyboard.press('n');
        assert.equal(Number((await hashOf(page)).rec), hits[1]);
        await page.keyboard.press('Shift+N');
        assert.equal(Number((await hashOf(page)).rec), hits[0]);
        const status$ = (re) => page.waitForFunction((src) => new RegExp(src).test(document.getElementById('match-count').textContent), re.source);
        await page.check('#regex');
        const lineHits = readFileSync(join(dir, 'runs/stuck-on-tests.jsonl'), 'utf8').trim().split('\n').reduce((s, l) => s + (l.match(/expected .a,b./gi)?.length ?? 0), 0);
        await page.fill('#q', 'expected .a,b.');
        await status$(new RegExp(`^${lineHits} matches`));
        await page.fill('#q', '(');
        await status$(/invalid pattern/);
        await page.uncheck('#regex');
        await page.fill('#q', '');
        await status$(/^$/);

        // Filters: errors only, then the minimum severity; the list keeps only rows holding matches.
        await page.check('#errors-only');
        const errs = stuck.filter((r) => isError(r.payload)).length;
        assert.match(await page.locator('#match-count').textContent(), new RegExp(`^${errs} records pass the filters · \\d+ off screen`));
        assert.ok(await page.locator('#turns .fhit').count() > 0);
        await page.uncheck('#errors-only');
        await page.selectOption('#min-sev', 'warning');
        assert.match(await page.locator('#match-count').textContent(), new RegExp(`^${warnings.length} records pass`));
        await page.selectOption('#min-sev', '');

        // Keyboard: j/k by row, e to the next error, f to the next finding, ? help, / search.
        await page.locator('#turns').focus();
        await page.keyboard.press('k');
        const firstErr = stuck.findIndex((r) => isError(r.payload));
        await page.keyboard.press('e');
        assert.equal(Number((await hashOf(page)).rec), firstErr);
        assert.equal(await page.locator('.flash.call.error').count(), 1);
        const findingRecs = stuck.flatMap((r, i) => (r.payload.kind === 'assessment_produced' ? [i] : []));
        await page.keyboard.press('f');
        assert.equal(Number((await hashOf(page)).rec), findingRecs.find((i) => i > firstErr));
        await page.keyboard.press('j');
        const sel = await page.locator('#turns .row.sel').getAttribute('data-turn');
        assert.equal((await hashOf(page)).turn, sel, 'j selects the next turn and links to it');
        await page.keyboard.press('?');
        assert.ok(await page.locator('#help').evaluate((d) => d.open));
        await page.keyboard.press('Escape');
        assert.ok(!(await page.locator('#help').evaluate((d) => d.open)));
        await page.keyboard.press('/');
        assert.equal(await page.evaluate(() => document.activeElement.id), 'q');
        await page.keyboard.press('Escape');

        // A hash link reopens the page at a record, a finding, after a reload too.
        const target = endedAt[4];
        await page.goto(`${server.url}#run=stuck-on-tests.jsonl:stuck-on-tests&rec=${target}`);
        await page.reload();
        await ready(page);
        assert.match(await page.locator('#summary').textContent(), /stuck-on-tests/);
        assert.ok((await page.locator('.flash').getAttribute('data-recs')).split(' ').includes(String(target)), 'the linked call is flashed');
        assert.equal(await page.locator('.flash').locator('xpath=ancestor::article').getAttribute('class'), 'row sel');
        await page.goto(`${server.url}#run=stuck-on-tests.jsonl:stuck-on-tests&finding=${findingRecs.length}`);
        await page.reload();
        await ready(page);
        assert.equal(await page.locator('.flash').getAttribute('data-finding'), String(findingRecs.length));
        assert.match(await page.locator('.flash').getAttribute('class'), /sev-warning/);

        // The step graph: the path taken, numbered; a step never taken drawn apart; the run's end.
        await page.locator('.sample', { hasText: 'generated-booking.jsonl' }).click();
        await page.waitForSelector('#graph .node');
        const path = file('generated-booking.jsonl').filter((r) => r.payload.kind === 'step_selected').map((r) => r.payload.step_id);
        assert.deepEqual(path, ['greet', 'hours', 'book', 'confirm']);
        for (const [n, id] of path.entries()) assert.equal(await page.locator(`#graph .node[data-step="${id}"] .order`).textContent(), String(n + 1));
        assert.match(await page.locator('#graph .node[data-step="menu"]').getAttribute('class'), /st-(skipped|never)/);
        assert.equal(await page.locator('#graph .node[data-step="menu"] .order').count(), 0);
        assert.equal(await page.locator('#graph .taken').count(), path.length, 'an arrow per step change, and one to the end');
        assert.match(await page.locator('#graph .outcome').textContent(), /goal-reached/);
        // runTrajectory recorded its graph: every step drawn, an edge per precondition, the terminals marked.
        const graph = file('generated-booking.jsonl').find((r) => r.payload.kind === 'custom' && r.payload.name === 'step_graph').payload.data;
        assert.equal(await page.locator('#graph .node').count(), graph.steps.length);
        assert.equal(await page.locator('#graph path.req').count(), graph.steps.reduce((n, s) => n + s.requires.length, 0));
        assert.ok(graph.steps.some((s) => s.requires.length), 'the sample has preconditions to draw');
        for (const id of graph.terminals) assert.match(await page.locator(`#graph .node[data-step="${id}"]`).getAttribute('class'), /terminal/);
        const ranked = page.locator('#turns .row[data-turn="1"] .stepsel');
        assert.match(await ranked.textContent(), /step hours\s*chosen by llm-ranked/);
        assert.match(await ranked.locator('tr.chosen').textContent(), /hours\s*0\.85\s*the diner needs this first/);
        await page.screenshot({ path: join(shots, 'graph.png') });

        // Compare A and B: aligned by step, the extra "menu" turn is the first divergence.
        await page.locator('.sample', { hasText: 'generated-booking-b.jsonl' }).click();
        await page.waitForSelector('#summary:has-text("generated-booking-b")');
        const bookErr = page.locator('#turns .row[data-turn="3"] .call.error');
        assert.match(await bookErr.textContent(), /create_booking[\s\S]*error[\s\S]*no table for two free at 20:00/);
        await page.click('#compare-btn');
        const option = (text) => page.locator('#cmp-a option', { hasText: text }).first().getAttribute('value');
        await page.selectOption('#cmp-a', await option('generated-booking.jsonl · generated-booking'));
        await page.selectOption('#cmp-b', await option('generated-booking-b.jsonl'));
        assert.match(await page.locator('#divergence').textContent(), /First divergence at row 2: only in run B/);
        assert.match(await page.locator('#cmp-table tr.diverge').textContent(), /turn 1 · menu/);
        const rows = await page.locator('#cmp-table tr').allTextContents();
        assert.equal(rows.length, 1 + 5, 'greet, menu, hours, book, confirm');
        assert.match(rows[4], /turn 2 · book · create_booking[\s\S]*turn 3 · book · create_booking, create_booking · ✖ error/);
        assert.match(await page.locator('.deltas').textContent(), /turns4 → 5 \(\+1\)/);
        const download = page.waitForEvent('download');
        await page.click('#cmp-md');
        const md = readFileSync(await (await download).path(), 'utf8');
        assert.match(md, /first divergence: row 2, only in run B/);
        await page.screenshot({ path: join(shots, 'compare.png') });
        await page.click('#cmp-close');

        // A child run under the call that started it.
        await page.locator('.sample', { hasText: 'research-with-subagent.jsonl' }).click();
        const delegate = page.locator('#turns .call', { hasText: 'delegate' }).first();
        assert.match(await delegate.locator('details.child summary').textContent(), /child run research\/search/);
        assert.match(await delegate.locator('details.child').textContent(), /web_search[\s\S]*fetch_page/);

        // A background run: iterations are its turns; its termination is shown.
        await page.locator('.sample', { hasText: 'background-review.jsonl' }).click();
        const bg = file('background-review.jsonl');
        await page.waitForSelector('#summary:has-text("background-")');
        assert.equal(await page.locator('#outline a', { hasText: /^turn/ }).count(), bg.filter((r) => r.payload.kind === 'iteration_started').length);
        await page.locator('#turns').evaluate((el) => { el.scrollTop = el.scrollHeight; });
        await page.waitForSelector('#turns .ev:has-text("run_terminated")');

        // Files: a bad one by the picker (its line named, its good run still open), a step JSONL by a drop.
        const good = readFileSync(join(dir, 'runs/support-refund.jsonl'), 'utf8').trim().split('\n');
        await page.setInputFiles('#file', [{ name: 'damaged.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from([...good.slice(0, 3), '{"oops": ', ...good.slice(3)].join('\n')) }]);
        await page.waitForSelector('.file-error');
        assert.match(await page.locator('.file-error').textContent(), /damaged\.jsonl line 4:/);
        assert.match(await page.locator('#summary').textContent(), /damaged\.jsonl · support-refund/);
        const { createTrajectory, runTrajectory, toJSONL } = await import(pathToFileURL(join(installed, 'node.mjs')).href);
        const agent = { respond: async () => ({ messages: [{ role: 'assistant', content: 'noted' }] }) };
        const steps = { steps: [{ id: 'ask', instruction: 'ask' }, { id: 'book', instruction: 'book', preconditions: [{ type: 'stepSatisfied', stepId: 'ask' }] }], start: 'ask', terminals: ['book'] };
        const result = await runTrajectory(createTrajectory({ goal: 'a table', persona: { description: 'a diner' }, conversationId: 'dropped', steps }, agent), { userModel: async () => 'hello', clock: () => 0 });
        const stepLines = toJSONL(result);
        await page.evaluate(({ text }) => {
          const dt = new DataTransfer();
          dt.items.add(new File([text], 'steps.jsonl', { type: 'application/x-ndjson' }));
          window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, cancelable: true }));
          window.__dropShown = !document.getElementById('drop').hidden;
          window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
        }, { text: stepLines.join('\n') });
        assert.ok(await page.evaluate(() => window.__dropShown), 'the drop zone shows while dragging');
        await page.waitForSelector('#summary:has-text("steps.jsonl · dropped")');
        assert.equal(await page.locator('#turns .row[data-turn]').count(), stepLines.length, 'a card per step line');
        assert.match(await page.locator('#outcome').textContent(), /completed · goal-reached/);
        // The same run's result.steps saved as one pretty-printed JSON array (stepTraces.json), by the picker.
        await page.setInputFiles('#file', [{ name: 'stepTraces.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(result.steps, null, 2)) }]);
        await page.waitForSelector('#summary:has-text("stepTraces.json")');
        assert.equal(await page.locator('#turns .row[data-turn]').count(), stepLines.length, 'a card per step trace');
        assert.match(await page.locator('#outcome').textContent(), /completed · goal-reached/);
        assert.equal(await page.locator('.run-btn').count() >= 3, true, 'several files stay open');
        await page.screenshot({ path: join(shots, 'files.png') });

        // Live: records stream onto the page while the run goes on.
        for (const [button, name, expect] of [['#live-sim', 'live-simulation', /finished, goal-reached/], ['#live-bg', 'live-objective', /finished, completed/]]) {
          await page.evaluate(() => {
            window.__rows = new Set();
            new MutationObserver(() => { if (/running/.test(document.getElementById('live-status').textContent)) window.__rows.add(document.querySelectorAll('#turns .row').length); })
              .observe(document.getElementById('turns'), { childList: true, subtree: true });
          });
          await page.click(button);
          await page.waitForFunction((re) => new RegExp(re).test(document.getElementById('live-status').textContent), expect.source, { timeout: 30_000 });
          assert.ok((await page.evaluate(() => window.__rows.size)) >= 2, `${name}: the list grew while running`);
          assert.match(await page.locator('#summary').textContent(), new RegExp(name));
          assert.match(await page.locator('#outcome').textContent(), /^completed/);
        }
        assert.ok(await page.locator('#turns .ev', { hasText: 'run_terminated' }).count() > 0);
        await page.screenshot({ path: join(shots, 'live.png') });
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
