// JUnit and GitHub annotations escaping, through the unpacked tarball's
// agent-trajectories/report (PACKAGE_DIR, set by scripts/test.sh; else
// tests/.work/tarball/package): what a run's ids and messages may hold
// reaches CI intact and valid against both JUnit schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { valid, xmlRead } from './junit-schemas.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const pkg = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');

test('JUnit escaping: markup, quotes, line breaks, `]]>`, lone surrogates and control characters in ids and messages', async () => {
  const { junitReport, githubReport } = await import(pathToFileURL(join(pkg, 'report.js')).href);
  const nasty = 'a]]>b<c>&"\'\u0000\u001b[31m\ud800\u00e9\u{1F600}\ttab\r\nline';
  const run = { id: nasty, item: nasty, repeat: null, source: 'x]]>.jsonl', pass: false, failures: [{ check: 'verdict', message: nasty }], error: null, verdict: 'agent', reason: nasty, summary: null, turns: 1, tokens: 2, ms: 1500, startedAt: 0, line: 3, reliability: null, judgements: [] };
  const xml = junitReport([run], { timestamp: 0 });
  valid(xml);
  const shown = nasty.replace('\u0000', '\\u0000').replace('\u001b', '\\u001b').replace('\ud800', '\\ud800');
  xmlRead(xml, (doc) => {
    const t = doc.get('//testcase');
    assert.equal(t.attr('name').value, shown);
    assert.equal(t.attr('time').value, '1.500');
    const f = doc.get('//failure');
    assert.equal(f.attr('message').value, shown, 'an attribute keeps its tab and line breaks');
    assert.ok(f.content.endsWith(`verdict: ${shown}`), f.content);
    assert.equal(doc.get(`//property[@name="${nasty.slice(0, 1)}"]`), null);
  });
  const [line] = githubReport([run]).annotations.split('\n');
  assert.ok(line.startsWith('::error file=x]]>.jsonl,line=3,title=run '), line);
  assert.ok(!/[\0\r\n\u001b]/.test(line), 'one line, no raw control character');
  assert.ok(line.endsWith('::verdict: a]]>b<c>&"\'\\u0000\\u001b[31m\\ud800é😀\ttab%0D%0Aline'), line);
});
