// The run viewer (www/) in Chromium over the tarball's web build: sample runs
// recorded by scripts/sample-runs.mjs, files opened by the picker and by a
// drop, the step graph, turn cards, findings, budget, search and filters,
// hash links, keyboard, compare, bad files and live runs; then the streams
// the AI SDK and Mastra integrations record. Expected values are computed
// here from the files themselves, not copied from the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { writeRun } from '../bench/viewer-data.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
// The unpacked tarball (scripts/test.sh sets PACKAGE_DIR).
const installed = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');
const shots = join(repo, 'tests/.work/screenshots');
mkdirSync(shots, { recursive: true });

/** A site: the page, the installed package as pkg/, and runs/. */
function site(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(repo, 'www'), dir, { recursive: true });
  cpSync(installed, join(dir, 'pkg'), { recursive: true });
  return dir;
}

const records = (text) => text.trim().split('\n').map((l) => JSON.parse(l));
const strings = (v) => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);
const occurrences = (hay, needle) => hay.toLowerCase().split(needle.toLowerCase()).length - 1;
const isError = (p) => (p.kind === 'tool_ended' && p.is_error) || (p.kind === 'run_ended' && (p.outcome.status ?? p.outcome) !== 'completed')
  || (p.kind === 'iteration_completed' && p.failed) || (p.kind === 'assessment_produced' && p.assessment.severity === 'warning');
const hashOf = (page) => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.slice(1))));
const ready = (page) => page.waitForSelector('body[data-ready="true"]');
const rowsShown = (page) => page.locator('#turns .row').count();

test('the run viewer: open, read, find, navigate, compare and run live', async () => {
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

test('a run of 3,000 turns: the outline and the turn list hold only what is near the viewport, and reach every turn', async () => {
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

test('the viewer shows the streams observeAISdk and observeMastra record (ai 7 and @mastra/core over scripted models)', async () => {
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

// ---- the user-reported defects, on runs written here for each ----

/** Record JSONL of one run: the payloads in order, 100 ms apart. */
const jsonl = (runId, payloads) => `${payloads.map((payload, seq) => JSON.stringify({ schema_version: 1, seq, run_id: runId, depth: 0, recorded_at_unix_ms: 1_767_000_000_000 + seq * 100, payload })).join('\n')}\n`;
/** A turn: its tool calls ([name, result, failed]), then `extra` records. */
const turnOf = (n, calls, extra = []) => [{ kind: 'turn_started', turn_index: n }, { kind: 'message_appended', message: { role: 'user', content: `go on (${n})` } },
  ...calls.flatMap(([name, result, failed], k) => [{ kind: 'tool_started', tool_call_id: `c${n}.${k}`, tool_name: name, args: { n } }, { kind: 'tool_ended', tool_call_id: `c${n}.${k}`, tool_name: name, result, is_error: failed }]),
  ...extra, { kind: 'turn_ended', assistant: { role: 'assistant', content: `turn ${n} done` }, tool_results: [], turn_index: n }];
const ended = (outcome) => ({ kind: 'run_ended', outcome });
const usage = (data) => ({ kind: 'custom', name: 'model_usage', data });
const HTMLISH = 'if (a < b && c) { return "<i>x</i>"; }';
const crafted = {
  // 5 of 6 calls failed, then the turn limit; an old file says "completed".
  'capped.jsonl': [{ kind: 'run_started', identity: { run_id: 'capped' } }, ...turnOf(0, [['read', 'ok', false], ['test', 'boom', true]]),
    ...turnOf(1, [['test', 'boom', true], ['test', 'boom', true]]), ...turnOf(2, [['test', 'boom', true], ['test', 'boom', true]]), ended({ status: 'completed', reason: 'max-turns' })],
  'stopped.jsonl': [...turnOf(0, []), ended({ status: 'stopped', reason: 'max-turns', message: 'maxTurns 1 reached', verdict: 'agent' })],
  'on-warning.jsonl': [...turnOf(0, []), ended({ status: 'completed', reason: 'stopped-on-warning', message: 'Stall: the same call 4 times' })],
  'errored.jsonl': [...turnOf(0, []), ended({ status: 'error', reason: 'error', message: 'the model call failed: 503', verdict: 'harness' })],
  'goal-not-pass.jsonl': [...turnOf(0, []), ended({ status: 'completed', reason: 'goal-reached', verdict: 'simulator' })],
  'finished.jsonl': [...turnOf(0, []), ended({ status: 'completed', reason: 'stop' })],
  'goal.jsonl': [{ kind: 'custom', name: 'budget', data: { maxToolCalls: 4 } }, ...turnOf(0, [['run', HTMLISH, false]]), ...turnOf(1, [['run', 'fine', false]]),
    ended({ status: 'completed', reason: 'goal-reached', verdict: 'pass' })],
  // A step still in progress when the run stopped.
  'open-step.jsonl': [{ kind: 'custom', name: 'step_graph', data: { steps: [{ id: 'ask', requires: [], preconditions: [] }, { id: 'book', requires: ['ask'], preconditions: ['stepSatisfied(ask)'] }], start: 'ask', terminals: ['book'] } },
    ...turnOf(0, [], [{ kind: 'step_selected', turn_index: 0, step_id: 'ask', method: 'start', candidates: [] }]),
    ...turnOf(1, [], [{ kind: 'step_selected', turn_index: 1, step_id: 'book', method: 'preconditions-ordered', candidates: [] }]),
    { kind: 'custom', name: 'step_states', data: { states: [{ stepId: 'ask', status: 'satisfied', attempts: 1 }, { stepId: 'book', status: 'in_progress', attempts: 1 }] } },
    ended({ status: 'stopped', reason: 'max-turns', verdict: 'agent' })],
  // A loop as the integrations record it now (turns, camelCase usage), and as they did (no turns, snake_case usage).
  'loop-turns.jsonl': [...turnOf(0, [['book', 'no tables', true]], [usage({ inputTokens: 10, outputTokens: 4, totalTokens: 14 })]),
    ...turnOf(1, [], [usage({ inputTokens: 20, outputTokens: 5, totalTokens: 25 })]), ended({ status: 'completed', reason: 'stop', verdict: 'pass' })],
  'loop-old.jsonl': [{ kind: 'run_started', identity: { run_id: 'loop-old' } }, usage({ input_tokens: 10, output_tokens: 4, finish_reason: 'tool-calls' }),
    { kind: 'tool_started', tool_call_id: 'c1', tool_name: 'book', args: {} }, { kind: 'tool_ended', tool_call_id: 'c1', tool_name: 'book', result: 'no tables', is_error: true },
    usage({ input_tokens: 7, output_tokens: 3, finish_reason: 'stop' }), ended({ status: 'completed', reason: 'stop' })],
};

/** Serves the crafted runs as samples; `fn(page, open)` where open(file) shows one. */
async function withCrafted(fn) {
  const dir = site('at-viewer-crafted-');
  try {
    mkdirSync(join(dir, 'runs'));
    for (const [f, payloads] of Object.entries(crafted)) writeFileSync(join(dir, 'runs', f), jsonl(f.replace('.jsonl', ''), payloads));
    writeFileSync(join(dir, 'runs/index.json'), JSON.stringify({ runs: Object.keys(crafted).map((f) => ({ file: f, title: f })) }));
    const server = await serveStatic(dir);
    try {
      await withPage(server.url, async (page, { errors }) => {
        await page.setViewportSize({ width: 1400, height: 800 });
        await ready(page);
        await fn(page, async (f) => {
          await page.locator('.sample', { hasText: f }).click();
          await page.waitForSelector(`#summary:has-text("${f}")`);
        });
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const cls = (loc) => loc.getAttribute('class');

test('a run that did not reach its goal is red, its stop said in words, with its verdict', () => withCrafted(async (page, open) => {
  const expect = {
    // An old stream: "completed" for a max-turns end, no verdict; the core reads it as stopped, the agent's.
    'capped.jsonl': [false, "stopped: reached the turn limit (max-turns) · verdict: agent (the agent's failure)"],
    'stopped.jsonl': [false, "stopped: reached the turn limit (max-turns) · verdict: agent (the agent's failure)", 'maxTurns 1 reached'],
    'on-warning.jsonl': [false, "stopped on a warning · verdict: agent (the agent's failure)", 'Stall: the same call 4 times'],
    'errored.jsonl': [false, 'error: the model call failed: 503 · verdict: harness (a harness callback failed, not the agent)'],
    // Contradictory (completed, yet a simulator verdict): the verdict decides, as the core reads it.
    'goal-not-pass.jsonl': [false, "stopped: goal-reached · verdict: simulator (the simulated user's fault, not the agent's)"],
    'finished.jsonl': [true, 'completed · stop'],
    'goal.jsonl': [true, 'completed · goal-reached'],
  };
  for (const [f, [ok, text, title]] of Object.entries(expect)) {
    await open(f);
    for (const id of ['#outcome', '#stop-reason']) {
      assert.equal(await page.locator(id).textContent(), text, `${f} ${id}`);
      assert.match(await cls(page.locator(id)), ok ? /\bok\b/ : /\bbad\b/, `${f} ${id}`);
      assert.equal(await page.locator(id).getAttribute('title'), title ?? null, `${f} ${id}: the message on hover`);
    }
    // The run's own record and its button in the file list agree.
    assert.equal(await page.locator('#turns .ev', { hasText: 'run_ended' }).evaluate((e) => e.classList.contains('error')), !ok, f);
    assert.match(await cls(page.locator('.run-btn[aria-current="true"] small span')), ok ? /\bok\b/ : /\bbad\b/, f);
  }
  await open('capped.jsonl');
  const payloads = crafted['capped.jsonl'];
  const failed = payloads.filter((p) => p.kind === 'tool_ended' && p.is_error).length;
  assert.deepEqual([failed, payloads.filter((p) => p.kind === 'tool_ended').length], [5, 6]);
  assert.match(await page.locator('#summary .stats').textContent(), new RegExp(`${failed} failed`));
}));

test('a step in progress is drawn dashed, and the legend names it (as every state drawn)', () => withCrafted(async (page, open) => {
  await open('open-step.jsonl');
  assert.match(await cls(page.locator('#graph .node[data-step="book"]')), /\bst-open\b/);
  assert.equal(await page.locator('#graph .legend .st-open').textContent(), 'in progress');
  const drawn = await page.locator('#graph .node').evaluateAll((ns) => ns.map((n) => [...n.classList].find((c) => c.startsWith('st-'))));
  for (const st of new Set(drawn)) assert.equal(await page.locator(`#graph .legend .${st}`).count(), 1, `a legend entry for ${st}`);
}));

test('the budget chart has labelled axes, and says in words what its lines are', () => withCrafted(async (page, open) => {
  await open('capped.jsonl'); // no budget record
  const labels = await page.locator('#budget svg .y-axis text').allTextContents();
  assert.ok(labels.includes('0%') && labels.includes('100%'), labels.join());
  assert.equal(await page.locator('#budget svg .y-axis .title').textContent(), "% of run's total");
  assert.equal(await page.locator('#budget svg .x-axis .title').textContent(), 'turn');
  assert.deepEqual((await page.locator('#budget svg .x-axis text:not(.title)').allTextContents()).map(Number), [0, 2], 'the first and last turn');
  const legend = await page.locator('#budget .budget-legend').textContent();
  assert.match(legend, /No budget limits were recorded for this run, so each line shows its share of the run's total/);
  assert.doesNotMatch(legend, /no limits recorded/);
  await open('goal.jsonl'); // a limit on tool calls only
  assert.equal(await page.locator('#budget svg .y-axis .title').textContent(), '% of limit or total');
  assert.match(await page.locator('#budget .budget-legend').textContent(), /No limit was recorded for tokens and time, so those lines show their share of the run's total/);
  assert.equal(await page.locator('#budget .limit').count(), 1);
}));

test('search marks the matching text inside its card, as text (not markup), and keeps the card marked', () => withCrafted(async (page, open) => {
  await open('goal.jsonl');
  const needle = '"<i>x';
  await page.fill('#q', needle);
  await page.waitForSelector('#match-count:has-text("matches")');
  const count = Number(/^(\d+) matches/.exec(await page.locator('#match-count').textContent())[1]);
  assert.equal(count, occurrences(HTMLISH, needle));
  assert.deepEqual(await page.locator('#turns mark').allTextContents(), [needle]);
  assert.equal(await page.locator('#turns .call.hit mark').count(), 1, 'the mark is in the card, which stays marked');
  assert.equal(await page.locator('#turns .call i').count(), 0, 'no <i> element made from the run\'s text');
  assert.equal(await page.locator('#turns .call.hit pre').last().textContent(), HTMLISH, 'the text reads as before');
  await page.check('#regex');
  await page.fill('#q', 'a < b &+');
  await page.waitForFunction(() => document.querySelector('#turns mark')?.textContent === 'a < b &&');
  await page.fill('#q', '');
  await page.waitForFunction(() => !document.querySelector('#turns mark'));
}));

test('loops: tokens come from the index, old snake_case usage still reads, and an empty chart says why', () => withCrafted(async (page, open) => {
  await open('loop-turns.jsonl');
  const camel = crafted['loop-turns.jsonl'].filter((p) => p.name === 'model_usage').map((p) => p.data.totalTokens);
  assert.match(await page.locator('#budget li.s-tokens').textContent(), new RegExp(`tokens ${camel[0]}$`));
  await page.locator('#outline a', { hasText: 'turn 1' }).click();
  assert.match(await page.locator('#budget li.s-tokens').textContent(), new RegExp(`tokens ${camel[0] + camel[1]}$`));
  await open('loop-old.jsonl');
  assert.match(await page.locator('#summary .stats').textContent(), /(^|\D)0 turns/);
  assert.match(await page.locator('#budget-empty').textContent(), /^Nothing to chart: this run recorded no turns \(no turn_started or iteration records\)/);
  const cards = await page.locator('#turns .ev', { hasText: / tokens/ }).allTextContents();
  const old = crafted['loop-old.jsonl'].filter((p) => p.name === 'model_usage').map((p) => p.data);
  assert.deepEqual(cards.map((c) => c.replace(/\s+/g, ' ').trim()),
    old.map((d) => `custom ${d.input_tokens + d.output_tokens} tokens: ${d.input_tokens} in, ${d.output_tokens} out · finish ${d.finish_reason}`));
}));

test('the one-file viewer: writeViewerHtml from the tarball, opened from file:// with no server and no network', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-viewer-file-'));
  try {
    const { viewerHtml, writeViewerHtml } = await import(pathToFileURL(join(installed, 'viewer.js')).href);
    execFileSync(process.execPath, [join(repo, 'scripts/sample-runs.mjs'), join(dir, 'runs')]);
    const stuckText = readFileSync(join(dir, 'runs/stuck-on-tests.jsonl'), 'utf8');
    const booking = records(readFileSync(join(dir, 'runs/generated-booking.jsonl'), 'utf8'));
    // A run whose text could end the page's <script> element if it were not escaped.
    const hostile = records(stuckText).map((r) => (r.payload.kind === 'tool_ended' && r.payload.is_error ? { ...r, payload: { ...r.payload, result: '</script><b>not markup</b>' } } : r));
    const file = join(dir, 'bug 42.html');
    assert.equal(await writeViewerHtml(file, [
      { name: 'stuck-on-tests.jsonl', text: stuckText },
      { name: 'booking.jsonl', records: booking },
      { name: 'hostile.jsonl', records: hostile },
    ], { title: 'bug 42 <3' }), file);
    const html = readFileSync(file, 'utf8');
    assert.ok(!/<script[^>]*\ssrc=|<link[^>]*rel="stylesheet"/.test(html), 'no script or stylesheet loaded from another file');
    await withPage(pathToFileURL(file).href, async (page, { errors }) => {
      await page.setViewportSize({ width: 1400, height: 800 });
      await ready(page);
      assert.equal(await page.title(), 'bug 42 <3');
      assert.equal(await page.locator('.run-btn').count(), 3, 'every run in the file is listed');
      const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
      assert.deepEqual(fetched.filter((u) => !/^(data|blob|file):/.test(u)), [], 'no network at view time');
      // The first run's numbers, as the file says them.
      const stuck = records(stuckText);
      assert.match(await page.locator('#summary .stats').textContent(), new RegExp(`^${stuck.length} records`));
      assert.equal(await page.locator('#turns .call.error').count() > 0, true);
      await page.screenshot({ path: join(shots, 'one-file.png') });
      // The escaped run: its error is text on the page, not markup.
      await page.locator('.doc', { hasText: 'hostile.jsonl' }).locator('.run-btn').click();
      await page.waitForSelector('#summary:has-text("hostile.jsonl")');
      assert.match(await page.locator('#turns .call.error').first().textContent(), /<\/script><b>not markup<\/b>/);
      assert.equal(await page.locator('#turns .call.error b', { hasText: 'not markup' }).count(), 0);
      // Search works inside the file.
      const expected = stuck.reduce((n, r) => n + strings(r.payload).reduce((m, s) => m + occurrences(s, 'AssertionError'), 0), 0);
      await page.locator('.doc', { hasText: 'stuck-on-tests.jsonl' }).locator('.run-btn').click();
      await page.waitForSelector('#summary:has-text("stuck-on-tests.jsonl")');
      await page.fill('#q', 'AssertionError');
      await page.waitForSelector('#match-count:has-text("matches")');
      assert.match(await page.locator('#match-count').textContent(), new RegExp(`^${expected} matches`));
      assert.deepEqual(errors, []);
    });

    // The viewer alone still opens files, offline.
    const empty = join(dir, 'viewer.html');
    await writeViewerHtml(empty, []);
    await withPage(pathToFileURL(empty).href, async (page, { errors }) => {
      await ready(page);
      assert.equal(await page.locator('.run-btn').count(), 0);
      await page.setInputFiles('#file', join(dir, 'runs/generated-booking.jsonl'));
      await page.waitForSelector('#summary:has-text("generated-booking")');
      assert.deepEqual(errors, []);
    });

    // Bad input: coded, and says where.
    const refused = async (p, code, message) => {
      const e = await p.then(() => assert.fail('not refused'), (err) => err);
      assert.equal(e.name, 'AgentTrajectoriesError');
      assert.equal(e.code, code, e.message);
      assert.match(e.message, message);
      return e;
    };
    await refused(viewerHtml(), 'INVALID_ARGUMENT', /^viewerHtml: runs is required/);
    await refused(viewerHtml(42), 'INVALID_ARGUMENT', /^viewerHtml: runs must be JSONL text/);
    await refused(viewerHtml([stuckText, { text: 5 }]), 'INVALID_ARGUMENT', /^viewerHtml: runs\[1\]\.text must be JSONL text/);
    await refused(viewerHtml([{ name: 'x', records: [{ seq: 0 }, 7] }]), 'INVALID_ARGUMENT', /^viewerHtml: runs\[0\]\.records\[1\] must be a trajectory record/);
    await refused(viewerHtml({ text: 'x', lines: [] }), 'INVALID_ARGUMENT', /unknown key "lines"/);
    await refused(viewerHtml([], { titel: 'x' }), 'INVALID_ARGUMENT', /^viewerHtml: options: unknown option "titel"; did you mean "title"/);
    await refused(viewerHtml([{ records: [{ seq: 1n, payload: {} }] }]), 'INVALID_ARGUMENT', /records\[0\] is not JSON data/);
    const { TrajectoryIndex } = await import(pathToFileURL(join(installed, 'node.mjs')).href);
    const ix = TrajectoryIndex.fromJsonl(stuckText);
    const notRuns = await refused(viewerHtml(ix), 'INVALID_ARGUMENT', /^viewerHtml: runs must be .* got a TrajectoryIndex$/);
    assert.ok(!/return|=>|#/.test(notRuns.message), 'no source code in the message');
    ix.free();
    await refused(writeViewerHtml('', []), 'INVALID_ARGUMENT', /^writeViewerHtml: file must be a path/);
    await refused(writeViewerHtml(join(dir, 'x.html'), 7), 'INVALID_ARGUMENT', /^writeViewerHtml: runs must be JSONL text/);
    // A missing folder is made, as writeArtifacts makes its own; a path that cannot be written is SINK_FAILED with the cause.
    assert.equal(await writeViewerHtml(join(dir, 'new/dir/x.html'), []), join(dir, 'new/dir/x.html'));
    writeFileSync(join(dir, 'a-file'), '');
    const unwritable = await refused(writeViewerHtml(join(dir, 'a-file/x.html'), []), 'SINK_FAILED', /^writeViewerHtml: cannot write/);
    assert.ok(unwritable.cause instanceof Error, 'the file system error is kept as cause');
    // The records of one run, passed as they are.
    assert.match(await viewerHtml(booking), /id="at-runs">\[\{"name":"run-1\.jsonl"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
