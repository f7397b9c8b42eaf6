// Judgements, checks and batches in the run viewer: a generated run a
// scripted judge graded after every turn and at the end (with the stall
// observer reporting), served and as one file; and two saved batches,
// baseline and current, opened side by side. Runs are made here with the
// tarball's own package, and what the page must show is computed from them
// (the records, checkRun, compareBatches), not copied from the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { installed, shots, site, records, ready } from './viewer-site.mjs';

const at = () => import(pathToFileURL(join(installed, 'node.mjs')).href);
const clock = () => { let t = 1_767_000_000_000; return () => (t += 100); };

/** A run polling a job 3 turns long; the judge: progress inconclusive after turn 0, failed after, failed at the end; polite throughout. */
async function judgedRun(pkg) {
  let n = 0;
  const agent = {
    async respond() {
      n++;
      return {
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `p${n}`, toolName: 'check_job', input: { id: 7 } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: `p${n}`, toolName: 'check_job', output: { type: 'error-text', value: 'pending' } }] },
          { role: 'assistant', content: 'Still waiting.' },
        ],
        usage: { inputTokens: 9, outputTokens: 1 },
      };
    },
  };
  const judge = async (request) => {
    const turn = /after turn (\d+)/.exec(request.messages[0].content)?.[1] ?? 'end';
    const progress = turn === '0' ? 'inconclusive' : 'fail';
    return { text: JSON.stringify({ criteria: [
      { name: 'reports progress', verdict: progress, reasoning: `progress-${turn}: it only says it is waiting` },
      { name: 'polite', verdict: 'pass', reasoning: `polite-${turn}` },
    ] }), usage: { inputTokens: 5, outputTokens: 2 } };
  };
  const sink = new pkg.MemorySink();
  await pkg.runTrajectory(pkg.createTrajectory({ goal: 'get the report', persona: { description: 'a manager' }, maxTurns: 3, conversationId: 'polling' }, agent), {
    userModel: async () => 'Is the report ready?', clock: clock(), sink,
    observers: { observers: [{ observer: 'stall', trigger: { onEveryCall: true }, options: { repeatThreshold: 2 } }] },
    judge: { model: judge, criteria: ['reports progress', 'polite'], endOnFail: false },
  });
  return sink.toJsonl();
}

/** What the page must show of a judgement: its heading (the core's first line) and a line per criterion. */
const shown = (j) => [`⚖ ${j.message.split('\n')[0]}`, ...j.criteria.map((c) => `${c.name} ${c.verdict}: ${c.reasoning}`)];
const judgementText = (loc) => loc.evaluate((el) => [el.querySelector('b').textContent, ...[...el.querySelectorAll('li')].map((li) => li.textContent.slice(2).trim())]);

/** The Judge and checks panel says the final judgement and checkRun's answer (defaults, and no finding at warning or above). */
async function assertChecks(page, pkg, recs, final) {
  assert.deepEqual(await judgementText(page.locator('#checks .judge')), shown(final));
  const checks = pkg.checkRun(recs, { failOnSeverity: 'warning' });
  assert.equal(await page.locator('#checks-head').textContent(), checks.message.split('\n')[0]);
  assert.match(await page.locator('#checks-head').getAttribute('class'), checks.pass ? /\bok\b/ : /\bbad\b/);
  assert.deepEqual(await page.locator('#checks .checks li').allTextContents(), checks.checks.map((c) => `${c.pass ? '✓' : '✖'} ${c.check}: ${c.message}`));
}

/** Registers the tests of judged runs and batches. */
export function testJudged() {
  test('a judged run: each turn closes with its judgement, the run shows its final judgement and checks (served, and as one file)', async () => {
    const pkg = await at();
    const text = await judgedRun(pkg);
    const recs = records(text);
    const judgements = recs.filter((r) => r.payload.kind === 'custom' && r.payload.name === 'judgement').map((r) => r.payload.data);
    const final = judgements.find((j) => j.final);
    assert.deepEqual(judgements.map((j) => [j.turn, j.final]), [[0, false], [1, false], [2, false], [2, true]]);
    assert.ok(recs.some((r) => r.payload.kind === 'assessment_produced'), 'the stall observer reported');
    const dir = site('at-viewer-judged-');
    try {
      writeFileSync(join(dir, 'judged.jsonl'), text);
      const server = await serveStatic(dir);
      try {
        await withPage(`${server.url}?src=judged.jsonl`, async (page, { errors }) => {
          await page.setViewportSize({ width: 1400, height: 900 });
          await ready(page);
          // Per turn: the judgement made after it, at the end of its card.
          for (const j of judgements.filter((x) => !x.final)) {
            const card = page.locator(`#turns .row[data-turn="${j.turn}"]`);
            assert.deepEqual(await judgementText(card.locator('.judge')), shown(j), `turn ${j.turn}`);
            assert.match(await card.locator('.judge').getAttribute('class'), new RegExp(`\\bjv-${j.verdict}\\b`));
            assert.equal(await card.locator('.turn-b > :last-child').evaluate((e) => e.classList.contains('judge')), true, 'last in the card');
          }
          // The turns' findings are shown where they were recorded, as before (the last turn's,
          // shown to no call and recorded at the end in no turn, after the last turn: below).
          const findings = recs.filter((r) => r.payload.kind === 'assessment_produced').map((r) => r.payload);
          for (const f of findings.filter((x) => x.turn_index !== undefined)) {
            assert.equal(await page.locator(`#turns .row[data-turn="${f.turn_index}"] .finding`, { hasText: f.assessment.summary }).count(), 1);
          }
          // Each once: a turn's in its card only, the final one after the last turn, where it was recorded.
          assert.equal(await page.locator('#turns .row[data-turn] .judge').count(), judgements.length - 1);
          await page.evaluate(() => { const t = document.getElementById('turns'); t.scrollTop = t.scrollHeight; });
          await page.waitForSelector('#turns .outside .judge');
          assert.equal(await page.locator('#turns .outside .judge').count(), 1);
          for (const f of findings.filter((x) => x.turn_index === undefined)) {
            assert.equal(await page.locator('#turns .outside .finding', { hasText: f.assessment.summary }).count(), 1, `${f.assessment.summary}, after the last turn`);
          }
          assert.equal(findings.filter((x) => x.turn_index === undefined).length, 1, 'the last turn\'s finding, recorded at the end');
          assert.deepEqual(await judgementText(page.locator('#turns .outside .judge')), shown(final));
          await assertChecks(page, pkg, recs, final);
          // A search hit in a turn's judgement is found in that turn's card.
          await page.fill('#q', 'progress-1:');
          await page.waitForSelector('#match-count:has-text("matches")');
          await page.locator('#turns').focus();
          await page.keyboard.press('n');
          await page.waitForSelector('#turns .row.sel[data-turn="1"] .judge.hit');
          await page.screenshot({ path: join(shots, 'judged-run.png') });
          assert.deepEqual(errors, []);
        });
        // A file that cannot be fetched is said as the file's, not as a line 0.
        await withPage(`${server.url}?src=missing.jsonl`, async (page) => {
          await ready(page);
          assert.match(await page.locator('.file-error').textContent(), /^⚠ missing\.jsonl: (?!.*line 0).*HTTP 404/);
        });
      } finally {
        await server.close();
      }
      // The one-file viewer reaches checkRun too.
      const { writeViewerHtml } = await import(pathToFileURL(join(installed, 'viewer.js')).href);
      const file = await writeViewerHtml(join(dir, 'judged.html'), { name: 'judged.jsonl', text });
      await withPage(pathToFileURL(file).href, async (page, { errors }) => {
        await ready(page);
        await assertChecks(page, pkg, recs, final);
        assert.deepEqual(errors, []);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('two saved batches, baseline and current, side by side: regressions first, as compareBatches decides; each run opens with its judgements', async () => {
    const pkg = await at();
    // The judge decides each run: pass ends it goal-reached, fail judge-failed.
    const item = (id, verdict) => ({
      id,
      trajectory: pkg.createTrajectory({ goal: `do ${id}`, persona: { description: 'a customer' }, maxTurns: 2 }, { async respond() { return { messages: [{ role: 'assistant', content: `Done: ${id}.` }] }; } }),
      options: {
        userModel: async () => `Please ${id}.`, clock: clock(),
        judge: { model: async () => JSON.stringify({ criteria: [{ name: 'confirms it', verdict, reasoning: `${id}-${verdict}` }] }), criteria: ['confirms it'] },
      },
    });
    const baseline = JSON.stringify(await pkg.runTrajectories([item('refund', 'pass'), item('cancel', 'fail'), item('old', 'pass')], { repeat: 2, concurrency: 1 }));
    const current = JSON.stringify(await pkg.runTrajectories([item('refund', 'fail'), item('cancel', 'pass'), item('new', 'pass')], { repeat: 2, concurrency: 1 }));
    const diff = pkg.compareBatches(JSON.parse(baseline), JSON.parse(current));
    assert.deepEqual([diff.regressed, diff.improved, diff.added, diff.removed], [['refund'], ['cancel'], ['new'], ['old']]);
    const dir = site('at-viewer-batches-');
    try {
      writeFileSync(join(dir, 'baseline.json'), baseline);
      writeFileSync(join(dir, 'current.json'), JSON.stringify(JSON.parse(current), null, 2)); // pretty-printed reads the same
      const server = await serveStatic(dir);
      try {
        await withPage(server.url, async (page, { errors }) => {
          await page.setViewportSize({ width: 1400, height: 900 });
          await ready(page);
          assert.equal(await page.locator('#batch-btn').isHidden(), true, 'no batches open: no batch comparison');
          await page.setInputFiles('#file', [join(dir, 'baseline.json'), join(dir, 'current.json')]);
          await page.waitForSelector('#bat-table');
          assert.equal(await page.locator('#batch-btn').isVisible(), true);
          assert.deepEqual([await page.locator('#bat-a option:checked').textContent(), await page.locator('#bat-b option:checked').textContent()], ['baseline.json', 'current.json']);
          // Every item, in compareBatches' order (regressions first), with its status.
          const rows = page.locator('#bat-table tr[data-item]');
          assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => [tr.dataset.item, tr.className])), diff.items.map((it) => [it.id, `st-${it.status}`]));
          assert.equal(diff.items[0].status, 'regressed');
          const n = (k) => diff[k].length;
          assert.equal(await page.locator('#bat-summary').textContent(), `${n('regressed')} regressed, ${n('improved')} improved, ${n('added')} added, ${n('removed')} removed · judge criteria newly failed: ${n('newlyFailedJudges')} · ${diff.items.length} items`);
          const refund = page.locator('#bat-table tr[data-item="refund"]');
          assert.match(await refund.locator('td').first().textContent(), /^regressed\s*newly failed: confirms it$/);
          // Side by side: each side's verdict and its runs.
          for (const [k, name, batch, s] of [[2, 'baseline.json', baseline, 'baseline'], [3, 'current.json', current, 'current']]) {
            const cell = refund.locator('td').nth(k);
            const side = diff.items[0][s];
            assert.match(await cell.textContent(), new RegExp(`^${side.passed ? 'pass' : 'fail'} ${side.passes}/${side.runs}`));
            const ids = JSON.parse(batch).runs.filter((r) => r.item === 'refund').map((r) => r.id);
            assert.deepEqual(await cell.locator('a').allTextContents(), ids, name);
          }
          await page.screenshot({ path: join(shots, 'batches.png') });
          const download = page.waitForEvent('download');
          await page.click('#bat-md');
          assert.equal(readFileSync(await (await download).path(), 'utf8'), diff.markdown);
          // A current run opens, its turns closed by the judgements its batch recorded.
          await refund.locator('td').nth(3).locator('a').first().click();
          await page.waitForSelector('#summary:has-text("current.json")');
          assert.equal(await page.locator('#batches').isHidden(), true);
          const run = JSON.parse(current).runs.find((r) => r.id === 'refund#1');
          assert.match(await page.locator('#summary h2').textContent(), /refund#1/);
          const turnJudgements = run.judgements.filter((j) => !j.final);
          assert.ok(turnJudgements.length >= 1);
          for (const j of turnJudgements) assert.deepEqual(await judgementText(page.locator(`#turns .row[data-turn="${j.turn}"] .judge`)), shown(j));
          await page.screenshot({ path: join(shots, 'batch-run.png') });
          assert.deepEqual(errors, []);
        });
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
