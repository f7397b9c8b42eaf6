// agent-trajectories/vitest in a real vitest project, through the tarball:
// tsc --strict over the suite (no casts; misuse.ts's refusals must be
// errors), then vitest runs suite/*.spec.ts with its JSON reporter, and each
// test's outcome and failure message is checked here. matchers.spec.ts runs
// generated conversations with a scripted judge: "passes: ..." tests must
// pass, "fails: ..." tests must fail, saying what a failing eval must say.
// example.spec.ts is the example of docs/vitest.md, which must pass; that
// page's ts blocks must be code of this project, and its failure messages
// the ones vitest printed here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const bin = (p) => fileURLToPath(new URL(`../../node_modules/${p}`, import.meta.url));
const built = spawnSync(process.execPath, [bin('typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });

test('the suite compiles under tsc --strict with vitest 4\'s types: the matchers are on expect, misuse is refused', () => {
  assert.equal(built.status, 0, `tsc failed:\n${built.stdout}${built.stderr}`);
});

const out = `${dir}.out`;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const started = Date.now();
const ran = spawnSync(process.execPath, [bin('vitest/vitest.mjs'), 'run', '--reporter=json', `--outputFile=${out}/results.json`], {
  cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' },
});
const took = Date.now() - started;
const strip = (s) => s.replace(/\u001b\[[0-9;]*m/g, '');
const report = JSON.parse(readFileSync(`${out}/results.json`, 'utf8'));
/** Each test's file, status and failure message (without the stack), by title. */
const results = new Map(report.testResults.flatMap((f) => f.assertionResults.map((t) => [t.title, {
  file: f.name.split('/').pop(),
  status: t.status,
  message: strip(t.failureMessages.join('\n')).split('\n').filter((l) => !/^\s+at /.test(l)).join('\n'),
}])));
const failure = (title) => {
  const r = results.get(title);
  assert.ok(r, `no test "${title}" ran; ran: ${[...results.keys()].join(' | ')}`);
  assert.equal(r.status, 'failed', `"${title}" was meant to fail`);
  return r.message;
};

test('vitest ran the suite in seconds: every "passes:" test passed, every "fails:" test failed', (t) => {
  t.diagnostic(`report: vitest ran ${results.size} tests in ${took} ms (${report.numPassedTests} passed, ${report.numFailedTests} failed, as meant)`);
  assert.deepEqual(report.testResults.map((f) => [f.name.split('/').pop(), f.message]).sort(), [['example.spec.ts', ''], ['matchers.spec.ts', '']],
    `both spec files loaded and ran: ${strip(ran.stderr).slice(0, 2000)}`);
  assert.ok(results.size >= 19, `ran ${results.size} tests`);
  for (const [title, r] of results) {
    const meant = r.file === 'example.spec.ts' || title.startsWith('passes: ') ? 'passed' : title.startsWith('fails: ') ? 'failed' : 'named passes: or fails:';
    assert.equal(r.status, meant, `"${title}": ${r.message}`);
  }
  assert.equal(ran.status, 1, 'vitest exits non-zero: tests failed');
  assert.ok(took < 30_000, `took ${took} ms`);
});

test('toPassJudge: the failure names each criterion, the judge\'s reasoning, and the turn its judge first failed it', (t) => {
  const m = failure('fails: toPassJudge on the failed booking');
  t.diagnostic(`report: a failing judge, as vitest prints it:\n${m}`);
  assert.match(m, /^Error: expect\(run\)\.toPassJudge\(criteria\)$/m);
  assert.match(m, /^judge: fail on the run \(0 of 2 criteria passed\)$/m);
  assert.match(m, /^- "booked": fail on the run: the booking failed: the restaurant was full$/m);
  assert.match(m, /^- "polite": fail on the run: the agent answered "Whatever"$/m);
  assert.match(m, /^The run's own judge, turn by turn, failed it first:\n- "polite": fail after turn 1: .*\n- "booked": fail after turn 1: the booking failed/m);
  const unread = failure('fails: toPassJudge with a judge whose answers cannot be read');
  assert.match(unread, /^- "polite": inconclusive on the run: the judge's answer could not be read: the answer holds no JSON object$/m);
  assert.match(unread, /^the judge's answer: CALLBACK_FAILED: judge model: asked twice/m);
});

test('toMatchTrajectory: the failure lists the mismatches and shows a diff of expected calls and calls made', (t) => {
  const m = failure('fails: toMatchTrajectory with the wrong city');
  t.diagnostic(`report: a failing trajectory match, as vitest prints it:\n${m}`);
  assert.match(m, /^the calls do not match \(strict, score 0\.5\): 1 of 2 matched$/m);
  assert.match(m, /^- call 2: expected book\({"city":"Rome"}\), got book\({"city":"Paris"}\) \(argument city: expected "Rome", got "Paris"\)$/m);
  // search's arguments were left open: shown as (…) on both sides, so only book differs.
  assert.match(m, /^- Expected calls\n\+ Calls made\n\n {2}search\(…\)\n- book\({"city":"Rome"}\)\n\+ book\({"city":"Paris"}\)$/m);
  const missing = failure('fails: toMatchTrajectory with a call that was not made');
  assert.match(missing, /^- expected call 2 pay\(…\) was not made$/m);
  assert.match(missing, /^ {2}search\(…\)\n- pay\(…\)\n {2}book\(…\)$/m);
});

test('toPassChecks, toReachGoal, toHaveNoFindingsAtOrAbove: the failure lists what failed, in the core\'s words', () => {
  const checks = failure('fails: toPassChecks on the failed booking');
  assert.match(checks, /^run "full" fails 4 of 4 check\(s\)\n- verdict: run "full" ended with verdict agent, reason judge-failed; passing: pass\n- maxFailedCalls: 1 failed call\(s\), maxFailedCalls 0: call 2 book at turn 1\n- maxTurns: 2 turn\(s\), maxTurns 1\n- judge: the judge failed "polite" \(the agent answered "Whatever"\), "booked" \(the booking failed: the restaurant was full\) after turn 1$/m);
  assert.match(failure('fails: toReachGoal on the failed booking'), /^Expected the run to reach its goal \(verdict pass\):\n {2}run "full" ended with verdict agent, reason judge-failed; passing: pass$/m);
  const findings = failure('fails: toHaveNoFindingsAtOrAbove on the polling loop');
  assert.match(findings, /^Error: expect\(run\)\.toHaveNoFindingsAtOrAbove\("caution"\)$/m);
  assert.match(findings, /^Expected no finding at or above caution:\n {2}2 finding\(s\) at or above failOnSeverity caution: caution Stall \(Possible stall.*; warning Stall \(Possible stall/m);
});

test('.not: the failure says what held that should not have', () => {
  assert.match(failure('fails: .not.toReachGoal on the booking that works'), /^Error: expect\(run\)\.not\.toReachGoal\(\)\n\nExpected the run not to reach its goal; it did:\n {2}run "booked" ended with verdict pass, reason goal-reached/m);
  assert.match(failure('fails: .not.toPassChecks on the booking that works'), /^Expected a check to fail; every one passed:\n- verdict: .*\n- maxTurns: 3 turn\(s\), maxTurns 5$/m);
});

test('docs/vitest.md: its ts blocks are code of this project, its failure messages what vitest printed here', () => {
  const page = readFileSync(fileURLToPath(new URL('../../../docs/vitest.md', import.meta.url)), 'utf8');
  const code = ['setup.ts', 'vitest.config.ts', ...readdirSync(`${dir}suite`).map((f) => `suite/${f}`)].map((f) => readFileSync(`${dir}${f}`, 'utf8'));
  const blocks = [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1].trimEnd());
  assert.ok(blocks.length >= 4, `${blocks.length} ts blocks`);
  for (const b of blocks) assert.ok(code.some((c) => c.includes(b)), `a ts block of docs/vitest.md is in no file of tests/consumers/vitest:\n${b}`);
  const shown = [...page.matchAll(/^<!-- the failure of "([^"]+)" in tests\/consumers\/vitest -->\n```text\n([\s\S]*?)^```$/gm)];
  assert.ok(shown.length >= 3, `${shown.length} failure messages shown`);
  for (const [, title, text] of shown) assert.equal(text.trimEnd(), failure(title).replace(/^Error: /, '').trimEnd(), `docs/vitest.md shows the failure of "${title}"`);
});
