// TrajectoryIndex through the unpacked tarball (PACKAGE_DIR, set by
// scripts/test.sh): what it keeps, groups and finds,
// checked against JSON.parse of the same lines; bad lines and bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const pkg = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');
const { TrajectoryIndex, parseTrajectoryJsonl, checkRun, matchTrajectory } = await import(pathToFileURL(join(pkg, 'node.mjs')).href);

const dir = mkdtempSync(join(tmpdir(), 'at-index-'));
execFileSync(process.execPath, [join(repo, 'scripts/sample-runs.mjs'), dir]);
const read = (f) => readFileSync(join(dir, f), 'utf8');
const lines = (text) => text.trim().split('\n').map((l) => JSON.parse(l));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('every record is kept, materialised as written, and its navigation fields match the record', () => {
  for (const f of ['support-refund.jsonl', 'stuck-on-tests.jsonl', 'research-with-subagent.jsonl', 'generated-booking.jsonl', 'background-review.jsonl']) {
    const text = read(f);
    const recs = lines(text);
    for (const input of [text, new TextEncoder().encode(text)]) {
      const ix = TrajectoryIndex.fromJsonl(input);
      assert.equal(ix.length, recs.length, f);
      assert.deepEqual(ix.errors(), []);
      recs.forEach((r, i) => {
        assert.deepEqual(ix.get(i), r);
        const info = ix.info(i);
        assert.equal(info.kind, r.payload.kind);
        assert.equal(info.seq, r.seq);
        assert.equal(info.runId, r.run_id ?? null);
        assert.equal(info.toolName, r.payload.tool_name ?? null);
        assert.equal(info.line, i + 1);
        assert.equal(info.isError, (r.payload.kind === 'tool_ended' && r.payload.is_error) || (r.payload.kind === 'run_ended' && r.payload.outcome.status !== 'completed')
          || (r.payload.kind === 'iteration_completed' && r.payload.failed) || (r.payload.kind === 'assessment_produced' && r.payload.assessment.severity === 'warning'), `${f} #${i}`);
      });
      const counts = {};
      for (const r of recs) counts[r.payload.kind] = (counts[r.payload.kind] ?? 0) + 1;
      assert.deepEqual(ix.counts(), counts);
      ix.free();
      ix.free(); // a second free does nothing
    }
  }
});

test('runs, turns, child runs under their call, step path, budget and findings with the call they cite', () => {
  const research = TrajectoryIndex.fromJsonl(read('research-with-subagent.jsonl'));
  const [parent, child] = research.runs();
  assert.equal(child.parentRunId, parent.runId);
  assert.equal(research.info(child.parentCall).kind, 'tool_started');
  assert.equal(research.info(child.parentCall).runId, parent.runId);
  assert.equal(parent.outcome.status, 'completed');

  const stuck = TrajectoryIndex.fromJsonl(read('stuck-on-tests.jsonl'));
  const recs = lines(read('stuck-on-tests.jsonl'));
  const turns = stuck.turns();
  assert.equal(turns.length, recs.filter((r) => r.payload.kind === 'turn_started').length);
  for (const t of turns) {
    const ids = [...stuck.turnRecords(undefined, t.turn)];
    assert.equal(recs[ids[0]].payload.kind, 'turn_started');
    assert.equal(recs[ids.at(-1)].payload.kind, 'turn_ended');
    assert.equal(t.toolCalls, ids.filter((i) => recs[i].payload.kind === 'tool_started').length);
  }
  const ended = recs.filter((r) => r.payload.kind === 'tool_ended').map((r) => recs.indexOf(r));
  const findings = stuck.assessments();
  assert.ok(findings.length >= 3);
  for (const f of findings) {
    assert.equal(f.callRecord, ended[f.callIndex - 1], 'call #n is the run\'s nth tool_ended');
    assert.deepEqual(f.assessment, recs[f.record].payload.assessment);
  }
  const budget = stuck.budget();
  const limits = recs.find((r) => r.payload.kind === 'custom' && r.payload.name === 'budget').payload.data;
  assert.equal(budget.limits.tokens, limits.maxTokens);
  assert.equal(budget.limits.toolCalls, limits.maxToolCalls);
  const usage = recs.filter((r) => r.payload.name === 'model_usage').reduce((n, r) => n + r.payload.data.totalTokens, 0);
  assert.equal(budget.turns.reduce((n, t) => n + t.tokens, 0), usage);

  const booking = TrajectoryIndex.fromJsonl(read('generated-booking.jsonl'));
  assert.deepEqual(booking.stepPath().map((s) => s.stepId), ['greet', 'hours', 'book', 'confirm']);
  assert.deepEqual(booking.turns().map((t) => t.step), ['greet', 'hours', 'book', 'confirm']);

  const bg = TrajectoryIndex.fromJsonl(read('background-review.jsonl'));
  assert.equal(bg.turns().length, lines(read('background-review.jsonl')).filter((r) => r.payload.kind === 'iteration_started').length, 'a background run\'s iterations are its turns');
});

test('filter and search agree with JSON.parse of the lines; keys are not searched; RegExp runs over the lines', () => {
  const text = read('stuck-on-tests.jsonl');
  const recs = lines(text);
  const ix = TrajectoryIndex.fromJsonl(text);
  const idx = (pred) => recs.map((r, i) => (pred(r) ? i : -1)).filter((i) => i >= 0);
  assert.deepEqual([...ix.filter({ kind: 'tool_ended', errorsOnly: true })], idx((r) => r.payload.kind === 'tool_ended' && r.payload.is_error));
  assert.deepEqual([...ix.filter({ kind: ['tool_started', 'tool_ended'] })], idx((r) => r.payload.kind.startsWith('tool_')));
  assert.deepEqual([...ix.filter({ minSeverity: 'caution' })], idx((r) => ['caution', 'warning'].includes(r.payload.assessment?.severity)));
  assert.ok(recs.every((r) => r.run_id) && ix.filter({ runId: null, kind: 'tool_ended' }).length === 0, 'no records without a run id: none, not an error');
  assert.throws(() => ix.filter({ runId: 'nope' }), /filter\(q\): no run "nope" in this index/);
  // A turn past what a JS integer holds exactly is refused, as -1 is, not read as no turn.
  for (const turn of [-1, 1e308, 2.5]) assert.throws(() => ix.filter({ turn }), (e) => e.code === 'INVALID_ARGUMENT' && /turn must be a turn number or null/.test(e.message), String(turn));
  const strings = (v) => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);
  const count = (needle) => recs.map((r) => strings(r).join('\u0000').toLowerCase().split(needle.toLowerCase()).length - 1);
  for (const needle of ['run_tests', 'ASSERTIONERROR', 'test_parser.py']) {
    const hits = ix.search(needle);
    const per = count(needle);
    assert.equal(hits.count, per.reduce((a, b) => a + b, 0), needle);
    assert.deepEqual([...hits.records], per.map((n, i) => (n ? i : -1)).filter((i) => i >= 0));
  }
  assert.equal(ix.search('tool_name').count, 0, 'a key is not a value');
  const re = ix.search(/"tool_name":"run_\w+"/);
  assert.equal(re.count, text.match(/"tool_name":"run_\w+"/g).length);
  // Flags other than g and y keep their meaning; y does not limit the matches to each line's start.
  assert.equal(ix.search(/"TOOL_NAME":"RUN_\w+"/iy).count, re.count, 'y is ignored, i kept');
  assert.equal(ix.search('').count, 0);
});

test('text beyond ASCII reads the same from a string as from its UTF-8 bytes, wherever it first appears (index and parseTrajectoryJsonl)', () => {
  const rec = (seq, text) => JSON.stringify({ schema_version: 1, seq, run_id: 'r', depth: 0, recorded_at_unix_ms: 1, payload: { kind: 'custom', name: 'note', data: { text } } });
  const words = ['plain', 'café 日本 😀', 'naïve', 'ascii again'];
  // Non-ASCII on the first line, on a later line, and only on the last.
  for (const order of [[1, 0, 2, 3], [0, 3, 1, 2], [0, 3, 0, 2]]) {
    const text = order.map((w, i) => rec(i, words[w])).join('\n');
    const fromText = TrajectoryIndex.fromJsonl(text);
    const fromBytes = TrajectoryIndex.fromJsonl(new TextEncoder().encode(text));
    assert.deepEqual(fromText.errors(), []);
    for (let i = 0; i < order.length; i++) {
      assert.equal(fromText.text(i), text.split('\n')[i]);
      assert.deepEqual(fromText.get(i), fromBytes.get(i));
    }
    assert.deepEqual([...fromText.search('日本').records], [...fromBytes.search('日本').records]);
    assert.deepEqual(parseTrajectoryJsonl(text), text.split('\n').map((l) => JSON.parse(l)));
    assert.deepEqual(parseTrajectoryJsonl(new TextEncoder().encode(text)), parseTrajectoryJsonl(text));
    assert.equal(fromText.search('café').count, order.filter((w) => w === 1).length);
    fromText.free();
    fromBytes.free();
  }
  // A lone surrogate (no UTF-8 form) becomes U+FFFD, as any string copy to the module makes it.
  const lone = TrajectoryIndex.fromJsonl(rec(0, 'x').replace('"x"', '"x\ud800y"'));
  assert.equal(lone.get(0).payload.data.text, 'x\ufffdy');
  lone.free();
  assert.equal(parseTrajectoryJsonl(rec(0, 'x').replace('"x"', '"x\ud800y"'))[0].payload.data.text, 'x\ufffdy');
});

test('an index with no runs (an empty file) answers the per-run queries empty, not with an error', () => {
  for (const input of ['', '\n\n', new Uint8Array()]) {
    const ix = TrajectoryIndex.fromJsonl(input);
    assert.deepEqual([ix.length, ix.runs(), ix.errors(), ix.turns(), ix.stepPath(), ix.stepGraph(), ix.assessments(), [...ix.turnRecords(undefined, 0)], [...ix.turnRecords(undefined, null)]], [0, [], [], [], [], null, [], [], []]);
    assert.deepEqual(ix.budget(), { turns: [], limits: { tokens: null, toolCalls: null, ms: null } });
    // A run named that is not there is still refused.
    assert.throws(() => ix.turns('r'), (e) => e.code === 'INVALID_ARGUMENT' && /no run "r" in this index \(runs: none\)/.test(e.message));
    ix.free();
  }
});

test('a string reads the same wherever its quote, escape, control character or non-ASCII text falls (the scan goes 16 bytes at a time)', () => {
  const rec = (seq, text) => JSON.stringify({ schema_version: 1, seq, run_id: 'r', depth: 0, recorded_at_unix_ms: 1, payload: { kind: 'custom', name: 'note', data: text } });
  const texts = [];
  for (let k = 0; k < 40; k++) for (const odd of ['"', '\\', '\n', '\u0001', 'é', '日', '😀', '\u007f']) texts.push(`${'a'.repeat(k)}${odd}${'b'.repeat(k % 17)}needle${odd}`);
  const text = texts.map((t, i) => rec(i, t)).join('\n');
  for (const input of [text, new TextEncoder().encode(text)]) {
    const ix = TrajectoryIndex.fromJsonl(input);
    assert.deepEqual(ix.errors(), []);
    assert.equal(ix.length, texts.length);
    texts.forEach((t, i) => assert.equal(ix.get(i).payload.data, t));
    assert.equal(ix.search('needle').count, texts.length);
    ix.free();
  }
  // A raw control character (not escaped) is refused at its column, wherever it falls.
  for (let k = 0; k < 40; k++) {
    const line = rec(0, `${'a'.repeat(k)}@${'b'.repeat(20)}`).replace('@', '\u0001');
    const ix = TrajectoryIndex.fromJsonl(line);
    assert.deepEqual(ix.errors().map((e) => e.message), [`invalid JSON at column ${line.indexOf('\u0001') + 1}: control character (\\u0000-\\u001F) found while parsing a string`], `at ${k}`);
    ix.free();
  }
  // Half of an emoji, as JSON.stringify escapes it, is refused in parseTrajectoryJsonl's words; a whole one is read.
  const cut = [rec(0, 'a😀'), rec(1, 'a😀'.slice(0, -1)), rec(2, '\ude00b')].join('\n');
  const ix = TrajectoryIndex.fromJsonl(cut);
  const { errors } = parseTrajectoryJsonl(cut, { lenient: true });
  assert.deepEqual([ix.length, ix.errors().map((e) => [e.line, e.code, e.message])], [1, errors.map((e) => [e.line, e.code, e.message.replace(/^line \d+: /, '')])]);
  assert.equal(ix.errors().length, 2);
  ix.free();
});

test('bad lines are kept as errors with their line; the rest loads; bad input is refused with a code', () => {
  const good = (seq) => JSON.stringify({ schema_version: 1, seq, run_id: 'r', depth: 0, recorded_at_unix_ms: 1, payload: { kind: 'custom', name: 'x', data: { s: 'a"b' } } });
  const text = [good(0), '{"seq":1, oops', good(2), JSON.stringify({ schema_version: 9, seq: 3, recorded_at_unix_ms: 1, payload: { kind: 'custom' } }), '', good(3), '{"seq":4,"recorded_at_unix_ms":1}'].join('\n');
  const ix = TrajectoryIndex.fromJsonl(text);
  assert.equal(ix.length, 3);
  const errors = ix.errors();
  assert.deepEqual(errors.map((e) => e.line), [2, 3, 4, 7]);
  assert.match(errors[0].message, /^invalid JSON at column \d+: /);
  // The parser's words (one check for both); the line is beside it, as for every problem the index lists.
  assert.match(errors[1].message, /^run "r" jumps from seq 0 to 2: seq 1 is missing$/, "the parser's words: one check for both");
  assert.match(errors[2].message, /schema_version 9 is newer/);
  assert.equal(errors[3].message, 'missing field "payload"');
  assert.deepEqual(errors.map((e) => e.code), ['JSONL_PARSE', 'SEQ_GAP', 'UNSUPPORTED_SCHEMA_VERSION', 'INVALID_RECORD']);
  assert.equal(ix.search('a"b').count, 3, 'escaped strings are searched unescaped');
  const refused = (f, code, re) => assert.throws(f, (e) => e instanceof Error && e.code === code && re.test(e.message));
  refused(() => TrajectoryIndex.fromJsonl(42), 'INVALID_ARGUMENT', /input must be JSONL text or a Uint8Array/);
  refused(() => ix.get(3), 'INVALID_ARGUMENT', /get\(i\): i must be a record index from 0 to 2, got 3/);
  refused(() => ix.info(-1), 'INVALID_ARGUMENT', /info\(i\)/);
  refused(() => ix.filter({ kind: 'tool_end' }), 'INVALID_ARGUMENT', /did you mean "tool_ended"/);
  refused(() => ix.filter({ errorOnly: true }), 'INVALID_ARGUMENT', /did you mean "errorsOnly"/);
  refused(() => ix.filter({ minSeverity: 'high' }), 'INVALID_ARGUMENT', /minSeverity must be "info", "caution" or "warning"/);
  refused(() => ix.turns('nope'), 'INVALID_ARGUMENT', /no run "nope" in this index \(runs: "r"\)/);
  refused(() => ix.search(7), 'INVALID_ARGUMENT', /q must be a string or a RegExp/);
  refused(() => ix.search('a', { run: 'r' }), 'INVALID_ARGUMENT', /did you mean "runId"/);
  refused(() => ix.get(Number.NaN), 'INVALID_ARGUMENT', /got NaN$/);
  ix.free();
  // Every query refuses a freed index, rather than answer from what is left.
  const queries = { text: () => ix.text(0), get: () => ix.get(0), info: () => ix.info(0), search: () => ix.search('a'), errors: () => ix.errors(),
    runs: () => ix.runs(), counts: () => ix.counts(), turns: () => ix.turns(), turnRecords: () => ix.turnRecords('r', 0), filter: () => ix.filter({}),
    budget: () => ix.budget(), stepPath: () => ix.stepPath(), stepGraph: () => ix.stepGraph(), assessments: () => ix.assessments() };
  for (const [name, q] of Object.entries(queries)) refused(q, 'INVALID_ARGUMENT', new RegExp(`^${name}\\(.*\\): this index was freed`));
  assert.deepEqual([ix.length, ix.byteLength], [0, 0]);
  // Judging a freed index says so, rather than judge it as a run with no records.
  refused(() => checkRun(ix), 'INVALID_ARGUMENT', /^checkRun: run: this TrajectoryIndex was freed$/);
  refused(() => matchTrajectory(ix, []), 'INVALID_ARGUMENT', /^matchTrajectory: run: this TrajectoryIndex was freed$/);
  const empty = TrajectoryIndex.fromJsonl('');
  assert.equal(empty.length, 0);
  assert.deepEqual(empty.turns(), [], 'no runs: no turns (see the test of an empty index)');
});

test('a stream cut at either end of a call still counts the call once, and its failure', () => {
  let seq = 0;
  const rec = (payload) => JSON.stringify({ schema_version: 1, seq: seq++, run_id: 'r', depth: 0, recorded_at_unix_ms: seq, payload });
  const text = [
    rec({ kind: 'turn_started', turn_index: 0 }),
    // The start of this call was lost: only its failed end is there.
    rec({ kind: 'tool_ended', tool_call_id: 'a', tool_name: 'read', result: 'boom', is_error: true }),
    // Two calls in parallel, both ended.
    rec({ kind: 'tool_started', tool_call_id: 'b', tool_name: 'read', args: {} }),
    rec({ kind: 'tool_started', tool_call_id: 'c', tool_name: 'read', args: {} }),
    rec({ kind: 'tool_ended', tool_call_id: 'b', tool_name: 'read', result: 'ok', is_error: false }),
    rec({ kind: 'tool_ended', tool_call_id: 'c', tool_name: 'read', result: 'ok', is_error: false }),
    rec({ kind: 'turn_ended', turn_index: 0 }),
    rec({ kind: 'turn_started', turn_index: 1 }),
    // A call that never ended (the run was cut).
    rec({ kind: 'tool_started', tool_call_id: 'd', tool_name: 'read', args: {} }),
  ].join('\n');
  const ix = TrajectoryIndex.fromJsonl(text);
  const [run] = ix.runs();
  assert.deepEqual([run.toolCalls, run.failedCalls], [4, 1]);
  assert.deepEqual(ix.turns().map((t) => t.toolCalls), [3, 1]);
  assert.deepEqual(ix.budget().turns.map((t) => t.toolCalls), [3, 1]);
  ix.free();
});

test('as parseTrajectoryJsonl reads it: a byte-order mark is skipped, an unknown kind is reported (and kept), a seq past 2^53 - 1 is named', () => {
  const rec = (seq, payload) => JSON.stringify({ schema_version: 1, seq, run_id: 'r', depth: 0, recorded_at_unix_ms: 1, payload });
  const ix = TrajectoryIndex.fromJsonl(`\uFEFF${rec(0, { kind: 'run_started', identity: { run_id: 'r' } })}\n${rec(1, { kind: 'tool_strated', tool_call_id: 'a', tool_name: 'x' })}\n{"schema_version":1,"seq":9007199254740993,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"custom","name":"x"}}`);
  assert.equal(ix.length, 2, 'the first line is a record; the unknown kind is kept');
  assert.equal(ix.get(0).payload.kind, 'run_started');
  assert.deepEqual(ix.errors().map((e) => [e.line, e.code]), [[2, 'INVALID_RECORD'], [3, 'INVALID_RECORD']]);
  assert.match(ix.errors()[0].message, /kind "tool_strated" is not a record kind \(did you mean "tool_started"\?\); the record is kept as it is/);
  // In the parser's words: a seq past 2^53 - 1 is a value of the wrong kind, which the parser reads and names.
  assert.equal(ix.errors()[1].message, 'seq: 9007199254740993 is past the largest exact JS integer (9007199254740991)');
  // The parser agrees on the same text.
  assert.throws(() => parseTrajectoryJsonl(rec(1, { kind: 'tool_strated' })), (e) => e.code === 'INVALID_RECORD' && e.message === 'line 1: payload.kind: kind "tool_strated" is not a record kind (did you mean "tool_started"?)');
  assert.equal(parseTrajectoryJsonl(`\uFEFF${rec(0, { kind: 'run_started', identity: { run_id: 'r' } })}`).length, 1);
  ix.free();
});
