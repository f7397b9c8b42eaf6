// The capture contract, runtime-agnostic: every consumer (Node ESM, Node
// CJS, Chromium, workerd) runs these checks against the installed tarball.
// Each check returns nothing or throws; `runScenario` reports one result per
// check so the host test runner can count them.

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function eq(actual, expected, message) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\n  expected: ${e}\n  actual:   ${a}`);
}

export function expectCode(fn, code, message) {
  try {
    fn();
  } catch (err) {
    assert(err instanceof Error, `${message}: threw a non-Error ${err}`);
    eq([err.name, err.code], ['AgentTrajectoriesError', code], `${message}: error name and code (${err.message})`);
    return err;
  }
  throw new Error(`${message}: expected ${code}, nothing was thrown`);
}

/** What `console.warn` was given while `fn` ran (and one macrotask after, for late rejections): a list of argument lists. */
export async function warnings(fn) {
  const warned = [];
  const warn = console.warn;
  console.warn = (...args) => warned.push(args);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 0));
  } finally {
    console.warn = warn;
  }
  return warned;
}

export async function expectRejection(promise, code, message) {
  try {
    await promise;
  } catch (err) {
    eq([err.name, err.code], ['AgentTrajectoriesError', code], `${message} (${err.message})`);
    return err;
  }
  throw new Error(`${message}: expected a rejection with ${code}`);
}

const tick = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small but complete run: identity, a turn with a tool round trip, the end. */
export function recordSampleRun(recorder) {
  recorder.record({ kind: 'run_started', identity: { run_id: 'run-1', agent: 'support-bot', model_id: 'mock' } });
  recorder.record({ kind: 'turn_started', turn_index: 0 });
  recorder.record({ kind: 'message_appended', message: { role: 'user', content: 'Where is my order?' } });
  recorder.record({
    kind: 'message_appended',
    message: { role: 'assistant', content: [{ type: 'tool-call', id: 'call-1', name: 'lookup_order', args: { id: 42 } }] },
  });
  recorder.record({ kind: 'tool_started', tool_call_id: 'call-1', tool_name: 'lookup_order', args: { id: 42 } });
  recorder.record({ kind: 'tool_ended', tool_call_id: 'call-1', tool_name: 'lookup_order', result: { status: 'shipped' }, is_error: false });
  recorder.record({
    kind: 'turn_ended',
    assistant: { role: 'assistant', content: 'It shipped yesterday.' },
    tool_results: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'lookup_order', result: { status: 'shipped' } }] }],
  });
  recorder.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' } });
}

export const checks = {
  'records a run into a JS sink and a JSONL sink, in seq order with versions and clock time'(at) {
    const seen = [];
    let now = 1_700_000_000_000;
    const clock = () => now++;
    const jsRec = new at.TrajectoryRecorder({ record: (r) => { seen.push(r); } }, { clock });
    recordSampleRun(jsRec);
    const jsonl = new at.JsonlSink();
    now = 1_700_000_000_000;
    recordSampleRun(new at.TrajectoryRecorder(jsonl, { clock }));
    eq(seen.map((r) => r.seq), [0, 1, 2, 3, 4, 5, 6, 7], 'dense seq');
    assert(seen.every((r) => r.schema_version === at.trajectorySchemaVersion() && r.schema_version === 1), 'schema_version 1 on every record');
    eq(at.TRAJECTORY_SCHEMA_VERSION, 1, 'the constant is exported');
    assert(seen.every((r) => r.run_id === 'run-1' && r.depth === 0), 'run identity stamped');
    eq(seen.map((r) => r.recorded_at_unix_ms), [...Array(8).keys()].map((i) => 1_700_000_000_000 + i), 'time from the injected clock');
    eq(seen.map((r) => r.payload.kind), ['run_started', 'turn_started', 'message_appended', 'message_appended', 'tool_started', 'tool_ended', 'turn_ended', 'run_ended'], 'kinds');
    eq(seen[3].payload.message.content[0], { type: 'tool-call', toolCallId: 'call-1', toolName: 'lookup_order', input: { id: 42 } }, 'shorthand tool call normalised');
    eq(seen[6].payload.tool_results[0].content[0].output, { type: 'json', value: { status: 'shipped' } }, 'AI SDK 4 result normalised');
    eq(jsonl.length, 8, 'eight JSONL lines');
    eq(at.parseTrajectoryJsonl(jsonl.text()), seen, 'JSONL parses back to what the JS sink saw');
  },

  'round trip: records -> JSONL -> parse -> identical, CRLF and trailing newline tolerated'(at) {
    const mem = new at.MemorySink();
    recordSampleRun(new at.TrajectoryRecorder(mem, { clock: () => 5 }));
    const records = mem.records();
    const text = at.serializeTrajectoryJsonl(records);
    eq(text, mem.toJsonl(), 'serialise agrees with the sink');
    eq(at.parseTrajectoryJsonl(text), records, 'identical after parse');
    eq(at.parseTrajectoryJsonl(text.replaceAll('\n', '\r\n') + '\r\n'), records, 'CRLF');
    eq(at.serializeTrajectoryJsonl(at.parseTrajectoryJsonl(text)), text, 'byte-identical second trip');
    // A NaN is said as NaN (JSON would make it null), by every reader of a JS record.
    const nan = { ...records[0], seq: NaN };
    eq(expectCode(() => at.serializeTrajectoryJsonl([nan]), 'INVALID_RECORD', 'a NaN seq').message, 'records[0]: seq: invalid value: the number NaN, expected a whole number (0 or more)', 'NaN, not null');
    eq(expectCode(() => new at.MemorySink().record(nan), 'INVALID_RECORD', 'a NaN seq').message, 'record: seq: invalid value: the number NaN, expected a whole number (0 or more)', 'the sink too');
  },

  'a bad JSONL line is a coded error naming its line; lenient keeps the good ones'(at) {
    const mem = new at.MemorySink();
    recordSampleRun(new at.TrajectoryRecorder(mem, { clock: () => 5 }));
    const lines = mem.toJsonl().trimEnd().split('\n');
    lines.splice(2, 0, '{"seq": oops}');
    const err = expectCode(() => at.parseTrajectoryJsonl(lines.join('\n')), 'JSONL_PARSE', 'strict parse');
    eq(err.line, 3, 'line number');
    assert(err.message.startsWith('line 3:'), `message says where: ${err.message}`);
    const lenient = at.parseTrajectoryJsonl(lines.join('\n'), { lenient: true });
    eq(lenient.records.length, 8, 'good records kept');
    eq(lenient.errors.map((e) => [e.line, e.code]), [[3, 'JSONL_PARSE']], 'bad line listed');
  },

  'versions: missing reads as 0, newer is refused'(at) {
    const old = at.parseTrajectoryJsonl('{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}');
    eq(old[0].schema_version, 0, 'missing schema_version reads as 0');
    const err = expectCode(
      () => at.parseTrajectoryJsonl('{"schema_version":1,"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}\n{"schema_version":2,"seq":1,"recorded_at_unix_ms":1,"payload":{"kind":"warp"}}'),
      'UNSUPPORTED_SCHEMA_VERSION',
      'newer schema',
    );
    eq(err.line, 2, 'names the line');
    expectCode(() => new at.MemorySink().record({ schema_version: 99, seq: 0, depth: 0, recorded_at_unix_ms: 1, payload: { kind: 'turn_started' } }), 'UNSUPPORTED_SCHEMA_VERSION', 'sink refuses a newer record');
  },

  'bad payloads are refused with a coded error and record nothing'(at) {
    const mem = new at.MemorySink();
    const rec = new at.TrajectoryRecorder(mem);
    expectCode(() => rec.record({ kind: 'no_such_kind' }), 'INVALID_RECORD', 'unknown kind');
    expectCode(() => rec.record({ kind: 'tool_ended', tool_call_id: 'x' }), 'INVALID_RECORD', 'missing field');
    expectCode(() => rec.record({ kind: 'message_appended', message: { role: 'robot', content: 'hi' } }), 'INVALID_RECORD', 'bad message');
    // A key the kind does not have is a slip, named; never dropped.
    const slip = expectCode(() => rec.record({ kind: 'tool_ended', tool_call_id: 'c', tool_name: 'x', result: 1, is_error: false, is_eror: true }), 'INVALID_RECORD', 'an unknown field');
    // An error saved as JSON (a batch file's run.error) keeps what it says.
    eq(JSON.parse(JSON.stringify(slip)), { message: slip.message, name: 'AgentTrajectoriesError', code: 'INVALID_RECORD' }, 'the error as JSON');
    const js = expectCode(() => at.recordingAgent(5), 'INVALID_ARGUMENT', 'a JS layer error');
    eq(JSON.parse(JSON.stringify(js)).message, js.message, 'a JS layer error as JSON');
    assert(slip.message.startsWith('payload: unknown field "is_eror"; did you mean "is_error"?'), slip.message);
    const camel = expectCode(() => rec.record({ kind: 'tool_ended', tool_call_id: 'c', tool_name: 'x', result: 1, isError: true }), 'INVALID_RECORD', 'the AI SDK\'s spelling');
    // Half of a UTF-16 pair (a string cut inside an emoji) is recorded as U+FFFD, not refused: the record would be lost.
    const cut = new at.MemorySink();
    const cutter = new at.TrajectoryRecorder(cut, { runId: 'r', clock: () => 1 });
    cutter.record({ kind: 'tool_ended', tool_call_id: 'a', tool_name: 't', result: { text: '👍 great'.slice(1), pair: '😀', written: '\\ud83d' }, is_error: false });
    eq(cut.records()[0].payload.result, { text: '\ufffd great', pair: '😀', written: '\\ud83d' }, 'the lone half as U+FFFD; a whole pair, and a backslash written before "ud83d", kept');
    eq(at.parseTrajectoryJsonl(at.serializeTrajectoryJsonl(cut.records())).length, 1, 'and the line reads back');
    cut.free();
    assert(camel.message.startsWith('payload: unknown field "isError"; did you mean "is_error"?'), camel.message);
    const nested = expectCode(() => rec.record({ kind: 'run_started', identity: { run_id: 'r', agnet: 'a' } }), 'INVALID_RECORD', 'an unknown field of the identity');
    assert(nested.message.startsWith('payload.identity: unknown field "agnet"; did you mean "agent"?'), nested.message);
    expectCode(() => rec.record({ kind: 'custom', name: 'n', data: { big: 1n } }), 'INVALID_RECORD', 'a BigInt is a bad payload too');
    // JSON has no NaN: JSON.stringify would write null, read as "not given".
    for (const n of [NaN, Infinity]) {
      const e = expectCode(() => rec.record({ kind: 'turn_started', turn_index: n }), 'INVALID_RECORD', `turn_index ${n}`);
      eq(e.message, `payload.turn_index: invalid value: the number ${n}, which JSON cannot hold`, `turn_index ${n}: message`);
    }
    expectCode(() => new at.TrajectoryRecorder({}), 'INVALID_ARGUMENT', 'sink without record()');
    expectCode(() => new at.TrajectoryRecorder(mem, { onSinkError: 'explode' }), 'INVALID_ARGUMENT', 'unknown policy');
    eq([mem.length, rec.nextSeq], [0, 0], 'nothing recorded');
  },

  'child runs get their own seq space, parent_run_id and depth'(at) {
    const mem = new at.MemorySink();
    const parent = new at.TrajectoryRecorder(mem, { clock: () => 1 });
    parent.record({ kind: 'run_started', identity: { run_id: 'parent' } });
    const child = parent.child('child');
    child.record({ kind: 'run_started', identity: { run_id: 'child' } });
    parent.record({ kind: 'turn_started' });
    child.record({ kind: 'turn_started' });
    eq(mem.records().map((r) => [r.run_id, r.seq, r.parent_run_id ?? null, r.depth]), [
      ['parent', 0, null, 0], ['child', 0, 'parent', 1], ['parent', 1, null, 0], ['child', 1, 'parent', 1],
    ], 'interleaved stream');
    parent.record({ kind: 'run_ended', outcome: { status: 'completed' } });
    const late = expectCode(() => parent.child('late'), 'INVALID_ARGUMENT', 'a child after its parent ended');
    assert(late.message.includes('run parent already ended'), late.message);
  },

  async 'an async sink receives records in seq order'(at) {
    const seen = [];
    const rec = new at.TrajectoryRecorder({
      async record(r) {
        await tick((r.seq * 7) % 4); // later records would overtake earlier ones if not serialised
        seen.push(r.seq);
      },
    });
    for (let i = 0; i < 25; i++) rec.record({ kind: 'custom', name: 'step', data: i });
    assert(rec.pending > 0, 'deliveries still pending before flush');
    await rec.flush();
    eq(seen, [...Array(25).keys()], 'order kept');
    eq(rec.pending, 0, 'drained');
  },

  async "onSinkError 'drop' reports through onError and continues"(at) {
    const reported = [];
    const kept = [];
    const rec = new at.TrajectoryRecorder(
      { record: (r) => (r.seq === 1 ? Promise.reject(new Error('disk full')) : r.seq === 2 ? (() => { throw new Error('sync boom'); })() : void kept.push(r.seq)) },
      { onError: (e, r) => reported.push([e.code, r.seq, e.message]) },
    );
    for (let i = 0; i < 4; i++) rec.record({ kind: 'turn_started' });
    await rec.flush();
    eq(kept, [0, 3], 'others delivered');
    eq(reported.map(([c, s]) => [c, s]), [['SINK_FAILED', 1], ['SINK_FAILED', 2]], 'both failures reported, async and sync');
    assert(reported[0][2].includes('disk full') && reported[0][2].includes('seq 1'), `message says where: ${reported[0][2]}`);
    eq(rec.dropped, 2, 'dropped count');
  },

  async 'an onError that rejects is said on the console, never left unhandled'(at) {
    const warned = await warnings(async () => {
      const rec = new at.TrajectoryRecorder({ record: () => { throw new Error('sink down'); } }, { onError: async () => { throw new Error('reporter down'); } });
      rec.record({ kind: 'turn_started' });
      await rec.flush();
    });
    eq(warned.length, 1, 'said once');
    assert(String(warned[0][0]).includes('onError rejected'), String(warned[0][0]));
    // What was being reported, as a line (not the error object, whose stack a console prints), and the reason.
    assert(typeof warned[0][1] === 'string' && warned[0][1].startsWith('[SINK_FAILED] '), String(warned[0][1]));
    eq(warned[0][2]?.message, 'reporter down', 'and the reason');
  },

  async "onSinkError 'fail' surfaces a sync throw and an async rejection as SINK_FAILED"(at) {
    const syncRec = new at.TrajectoryRecorder({ record: (r) => { if (r.seq === 1) throw new Error('nope'); } }, { onSinkError: 'fail' });
    syncRec.record({ kind: 'turn_started' });
    expectCode(() => syncRec.record({ kind: 'turn_started' }), 'SINK_FAILED', 'sync throw surfaces at once');
    expectCode(() => syncRec.record({ kind: 'turn_started' }), 'SINK_FAILED', 'stays failed');
    eq(syncRec.undelivered().map((r) => r.seq), [1], 'the failed record is kept, not lost');

    const asyncRec = new at.TrajectoryRecorder({ record: (r) => (r.seq === 0 ? Promise.reject(new Error('gone')) : undefined) }, { onSinkError: 'fail' });
    asyncRec.record({ kind: 'turn_started' });
    asyncRec.record({ kind: 'turn_started' });
    await expectRejection(asyncRec.flush(), 'SINK_FAILED', 'flush rejects');
    expectCode(() => asyncRec.record({ kind: 'turn_started' }), 'SINK_FAILED', 'next record throws');
    eq(asyncRec.undelivered().map((r) => r.seq), [0, 1], 'failed and queued records kept');
  },

  async 'JsonlSink hands each line to an async writer, in order'(at) {
    const chunks = [];
    const sink = new at.JsonlSink(async (line) => { await tick(line.includes('"seq":0') ? 3 : 0); chunks.push(line); });
    const rec = new at.TrajectoryRecorder(sink, { clock: () => 9 });
    recordSampleRun(rec);
    await rec.flush();
    eq(chunks.length, 8, 'one chunk per record');
    assert(chunks.every((c) => c.endsWith('\n')), 'newline-terminated');
    eq(at.parseTrajectoryJsonl(chunks.join('')).map((r) => r.seq), [0, 1, 2, 3, 4, 5, 6, 7], 'ordered');
    // A writer that rejects is named as the writer, not as a sink's record().
    const failing = new at.TrajectoryRecorder(new at.JsonlSink(async () => { throw new Error('EPIPE'); }), { runId: 'w', onSinkError: 'fail' });
    failing.record({ kind: 'turn_started' });
    let err;
    try { await failing.flush(); } catch (e) { err = e; }
    eq([err?.code, /JsonlSink writer threw: EPIPE/.test(err?.message), err?.cause?.message], ['SINK_FAILED', true, 'EPIPE'], `a rejecting writer (${err?.message})`);
    // A freed sink is refused when it is given, not once per record.
    const freed = new at.JsonlSink();
    freed.free();
    eq(expectCode(() => new at.TrajectoryRecorder(freed), 'SINK_FAILED', 'a freed sink').message, 'the sink was freed; records given to it could never be read', 'said so');
    // null and undefined are no sink at all, not freed ones.
    for (const none of [null, undefined]) {
      eq(expectCode(() => new at.TrajectoryRecorder(none), 'INVALID_ARGUMENT', `a ${none} sink`).message, 'sink must be a MemorySink, a JsonlSink or an object with a record(r) method', `${none}: said so`);
    }
    // The options given first, the sink among them: said to go second.
    const first = expectCode(() => new at.TrajectoryRecorder({ sink: new at.MemorySink(), runId: 'r' }), 'INVALID_ARGUMENT', 'options for the sink');
    eq(first.message, 'sink must be a MemorySink, a JsonlSink or an object with a record(r) method, got the options (they go second: new TrajectoryRecorder(sink, { runId, clock, ... }))', 'said so');
  },

  'a run refuses records after run_ended and a contradicting identity'(at) {
    const rec = new at.TrajectoryRecorder(new at.MemorySink(), { runId: 'a' });
    expectCode(() => rec.record({ kind: 'run_started', identity: { run_id: 'b' } }), 'INVALID_ARGUMENT', 'other run id');
    rec.record({ kind: 'run_ended', outcome: { status: 'completed' } });
    expectCode(() => rec.record({ kind: 'turn_started' }), 'INVALID_ARGUMENT', 'after the end');
  },

  'normalizeMessages accepts old and shorthand shapes, and names the bad index'(at) {
    const out = at.normalizeMessages([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'ls', args: { dir: '/' } }] },
      { role: 'tool', content: [{ type: 'tool-result', id: 'a', name: 'ls', result: 'boom', isError: true }] },
    ]);
    eq(out[0].content[0].input, { dir: '/' }, 'args -> input');
    eq(out[1].content[0].output, { type: 'error-text', value: 'boom' }, 'result + isError -> error-text');
    const err = expectCode(() => at.normalizeMessages([{ role: 'user', content: 'x' }, { role: 'user', content: 7 }]), 'INVALID_MESSAGE', 'bad content');
    const slip = expectCode(() => at.normalizeMessages([{ role: 'assistant', content: [{ type: 'txt', text: 'x' }] }]), 'INVALID_MESSAGE', 'a part type slipped');
    assert(slip.message.includes('part type "txt" is not one this library reads; did you mean "text"?'), slip.message);
    eq(at.normalizeMessages([{ role: 'user', content: [{ type: 'image', image: 'data:,' }] }])[0].content[0].type, 'image', 'other parts kept');
    assert(err.message.startsWith('messages[1]:'), err.message);
  },

  'a seq gap is an error naming the run and the missing seq; lenient lists it and keeps the records'(at) {
    const sink = new at.MemorySink();
    recordSampleRun(new at.TrajectoryRecorder(sink, { clock: () => 9 }));
    const lines = sink.toJsonl().trim().split('\n');
    const gap = [...lines.slice(0, 3), ...lines.slice(4)].join('\n');
    const err = expectCode(() => at.parseTrajectoryJsonl(gap), 'SEQ_GAP', 'a lost record');
    eq([err.line, err.message], [4, 'line 4: run "run-1" jumps from seq 2 to 4: seq 3 is missing'], 'where and what');
    const lenient = at.parseTrajectoryJsonl(gap, { lenient: true });
    eq([lenient.records.length, lenient.errors.map((e) => [e.line, e.code])], [7, [[4, 'SEQ_GAP']]], 'listed, records kept');
    eq(at.parseTrajectoryJsonl(new TextEncoder().encode(sink.toJsonl())).length, 8, 'UTF-8 bytes read too');
    // A line of bytes that is not UTF-8 is a bad line, by number, as TrajectoryIndex says it.
    const [first, ...rest] = sink.toJsonl().split('\n');
    const broken = new Uint8Array([...new TextEncoder().encode(`${first}\n`), 0xff, 0xfe, 0x0a, ...new TextEncoder().encode(rest.join('\n'))]);
    const notUtf8 = expectCode(() => at.parseTrajectoryJsonl(broken), 'JSONL_PARSE', 'a line that is not UTF-8');
    eq([notUtf8.line, notUtf8.message], [2, 'line 2: the line is not UTF-8 text'], 'its line');
    const { records: kept, errors: said } = at.parseTrajectoryJsonl(broken, { lenient: true });
    eq([kept.length, said[0].line, said[0].message], [8, 2, 'line 2: the line is not UTF-8 text'], 'lenient: the rest read');
    const index = at.TrajectoryIndex.fromJsonl(broken);
    eq(index.errors()[0].message, 'the line is not UTF-8 text', 'the index says it in the same words');
    index.free();
    expectCode(() => at.parseTrajectoryJsonl(123), 'INVALID_ARGUMENT', 'a number is not text');
    expectCode(() => at.parseTrajectoryJsonl(sink.toJsonl(), { lenient: 'yes' }), 'INVALID_ARGUMENT', 'lenient is a boolean');
    expectCode(() => at.parseTrajectoryJsonl(sink.toJsonl(), { lenint: true }), 'INVALID_ARGUMENT', 'unknown option');
  },

  'records as the original agent runtime writes them are read and kept'(at) {
    const head = (seq, kind) => `{"schema_version":1,"seq":${seq},"run_id":"orig","depth":0,"recorded_at_unix_ms":1700000000000,"payload":{"kind":"${kind}"`;
    const text = [
      `${head(0, 'run_started')},"identity":{"run_id":"orig"}}}`,
      `${head(1, 'tool_gate_applied')},"iteration":0,"plugin":"readonly","allow":["read","grep"]}}`,
      `${head(2, 'tool_gate_conflict_resolved')},"iteration":0,"plugins":["a","b"],"chosen_plugin":"a","allow":["read"],"reason":"most restrictive"}}`,
      `${head(3, 'run_ended')},"outcome":"ended","new_messages":[]}}`,
    ].join('\n') + '\n';
    const records = at.parseTrajectoryJsonl(text);
    eq([records[1].payload.allow, records[3].payload.outcome], [['read', 'grep'], 'ended'], 'read as written');
    eq(at.serializeTrajectoryJsonl(records), text, 'written back byte for byte');
  },

  'integers past 2^53 and clocks outside a Date are refused where they enter'(at) {
    const line = (seq) => `{"schema_version":1,"seq":${seq},"depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}`;
    expectCode(() => at.parseTrajectoryJsonl(line('18446744073709551615')), 'INVALID_RECORD', 'a seq of 2^64-1');
    const rec = new at.TrajectoryRecorder(new at.MemorySink(), { clock: () => 1e300 });
    expectCode(() => rec.record({ kind: 'turn_started' }), 'CALLBACK_FAILED', 'a clock returning 1e300');
    eq(rec.nextSeq, 0, 'nothing recorded');
    expectCode(() => new at.TrajectoryRecorder(new at.MemorySink(), { onSinkErorr: 'fail' }), 'INVALID_ARGUMENT', 'a misspelt option');
    expectCode(() => new at.TrajectoryRecorder(new at.MemorySink(), { runId: 'r' }).child(123), 'INVALID_ARGUMENT', 'child(123)');
  },

  async 'a freed sink refuses records instead of losing them; free() twice is a no-op; a BOM is not line 1'(at) {
    const sink = new at.MemorySink();
    const rec = new at.TrajectoryRecorder(sink, { onSinkError: 'fail', runId: 'r' });
    sink.free();
    sink.free();
    const err = expectCode(() => rec.record({ kind: 'turn_started' }), 'SINK_FAILED', 'recording into a freed MemorySink');
    assert(err.message.includes('was freed'), err.message);
    expectCode(() => sink.records(), 'INVALID_ARGUMENT', 'using a freed sink');
    eq(rec.child().parentRunId, 'r', 'child() without an id');
    const boom = new RangeError('disk full');
    const failing = new at.TrajectoryRecorder({ record() { throw boom; } }, { onSinkError: 'fail' });
    const e = expectCode(() => failing.record({ kind: 'turn_started' }), 'SINK_FAILED', 'a throwing sink');
    eq(e.cause === boom, true, "the sink's own error is the cause");
    eq(at.parseTrajectoryJsonl(`\ufeff${JSON.stringify({ schema_version: 1, seq: 0, depth: 0, recorded_at_unix_ms: 1, payload: { kind: 'turn_started' } })}`).length, 1, 'BOM');
  },
};
