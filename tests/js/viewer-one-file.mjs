// The one-file viewer: writeViewerHtml from the tarball, opened from
// file:// with no server and no network; the viewer alone still opens
// files; bad input is refused with a code and says where.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { withPage } from './chromium.mjs';
import { repo, installed, shots, records, strings, occurrences, ready } from './viewer-site.mjs';

/** Registers the test of the one-file viewer. */
export const testOneFile = () => test('the one-file viewer: writeViewerHtml from the tarball, opened from file:// with no server and no network', async () => {
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
    // Each module once, named in the page's import map (as data: URLs nested in each other, shared chunks were repeated).
    const modules = [...html.matchAll(/data:text\/javascript;base64,([A-Za-z0-9+/=]+)/g)].map((m) => m[1]);
    assert.equal(new Set(modules).size, modules.length, 'no module twice');
    assert.ok(modules.every((m) => !Buffer.from(m, 'base64').toString().includes('data:text/javascript')), 'none inside another');
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
      assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /^#run=hostile\.jsonl:/, 'the address names the run clicked');
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
    await refused(viewerHtml({ txt: 'x' }), 'INVALID_ARGUMENT', /^viewerHtml: runs: unknown key "txt"; did you mean "text"\? \(a run is \{ name\?, text \} or \{ name\?, records \}\)$/);
    // A batch result handed over as it is: how to give it (as a saved batch file's text).
    await refused(viewerHtml({ runs: [], summary: {} }), 'INVALID_ARGUMENT', /a batch result is given as its JSON text: \{ name, text: JSON\.stringify\(batch\) \}/);
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
