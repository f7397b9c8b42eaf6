// Inputs for capture: TrajectoryRecorder (options, clocks, sinks that
// fail, a script of record/child/flush/undelivered calls), MemorySink and
// JsonlSink (with writers that misbehave). The records that reach a sink
// must read back and round-trip.
import { show } from './render.mjs';
import { mutated, valid, wild } from './mutate.mjs';
import { PAYLOADS, PAYLOAD_KINDS, stamp, childRecord } from './inputs.mjs';
import { SEP, recordProblems, errShape, readBack, roundTripProblems, isCoded, describe } from './checks.mjs';
import { behaviour, clockFor, sinkFor, step, unknownOf, atomsOf } from './harness.mjs';

export function genRecorder(r, at, V, env) {
  const sink = sinkFor(r, at, env);
  const steps = [];
  let opts;
  const clock = clockFor(r, at, env);
  const onErrorB = behaviour(r, at, env, 'onError', (...a) => { if (a.length >= 2) env.errorsSeen.push(a[0]); }, '(e, record) => { errors.push(e) }', { sync: true, okWeight: 80 });
  const base = () => ({ clock: clock.fn, onSinkError: r.pick(['drop', 'fail']), onError: onErrorB.fn, runId: 'run-1' });
  const mode = r.weighted([[45, 'valid'], [35, 'mutated'], [8, 'none'], [6, 'partial'], [6, 'wild']]);
  if (mode === 'valid') opts = valid(base());
  else if (mode === 'mutated') opts = mutated(r, at, base, null, { closed: [''] });
  else if (mode === 'none') opts = null;
  else if (mode === 'partial') { const o = base(); delete o.runId; if (r.chance(0.5)) delete o.onError; opts = valid(o); }
  else opts = wild(r, at, {}, 'opts');
  const extraAtoms = [...sink.atoms, ...(clock.atom ? [clock.atom] : []), ...(onErrorB.atom ? [onErrorB.atom] : [])];
  const ctorExpr = `rec = new TrajectoryRecorder(${show(sink.v)}${opts ? `, ${opts.expr}` : ''})`;
  steps.push(step('TrajectoryRecorder', ctorExpr, () => { env.stash.rec = opts ? new at.TrajectoryRecorder(sink.v, opts.v) : new at.TrajectoryRecorder(sink.v); return env.stash.rec; }, { unknown: unknownOf(opts), stopOnError: true }));
  // A script of calls; payloads follow a plausible run, some mutated.
  const n = r.int(1, 7);
  let kinds = ['run_started', ...Array.from({ length: n }, () => r.pick(PAYLOAD_KINDS.filter((k) => k !== 'run_started' && k !== 'run_ended')))];
  if (r.chance(0.4)) kinds.push('run_ended');
  if (r.chance(0.2)) kinds = kinds.slice(1);
  const argsAtoms = [];
  let hasChild = false;
  for (const kind of kinds) {
    const op = r.weighted([[70, 'record'], [6, 'child'], [6, 'flush'], [4, 'undelivered'], [6, 'getters'], [2, 'free']]);
    if (op === 'record') {
      const who = hasChild && r.chance(0.4) ? 'child' : 'rec';
      const m = r.weighted([[60, 'valid'], [34, 'mutated'], [6, 'wild']]);
      const a = m === 'valid' ? valid(PAYLOADS[kind]()) : m === 'mutated' ? mutated(r, at, PAYLOADS[kind], `B.payload.${kind}()`) : wild(r, at, {}, 'payload');
      argsAtoms.push(...a.atoms);
      steps.push(step('TrajectoryRecorder.record', `${who}.record(${a.expr})`, () => {
        const target = who === 'child' && env.stash.child ? env.stash.child : env.stash.rec;
        const before = target.nextSeq;
        const seq = target.record(a.v);
        env.stash.lastSeq = { seq, before, after: target.nextSeq };
        return seq;
      }, { after: () => { const { seq, before, after } = env.stash.lastSeq; return seq !== before || after !== before + 1 ? [`record() returned seq ${show(seq)} with nextSeq ${before} → ${after}`] : []; } }));
    } else if (op === 'child') {
      const a = r.chance(0.6) ? valid(r.pick(['sub-run', undefined, null])) : wild(r, at, 'x', 'runId');
      argsAtoms.push(...a.atoms);
      hasChild = true;
      steps.push(step('TrajectoryRecorder.child', `child = rec.child(${a.expr})`, () => { env.stash.child = env.stash.rec.child(a.v); return env.stash.child; },
        { after: (c) => (c.depth !== env.stash.rec.depth + 1 ? [`child depth ${c.depth} under depth ${env.stash.rec.depth}`] : []) }));
    } else if (op === 'flush') steps.push(step('TrajectoryRecorder.flush', 'await rec.flush()', () => env.stash.rec.flush()));
    else if (op === 'undelivered') steps.push(step('TrajectoryRecorder.undelivered', 'rec.undelivered()', () => env.stash.rec.undelivered(), { after: (u) => recordProblems(u, 'undelivered()', { suffix: true }) }));
    else if (op === 'getters') steps.push(step('TrajectoryRecorder getters', '[rec.runId, rec.parentRunId, rec.depth, rec.nextSeq, rec.pending, rec.dropped]', () => { const x = env.stash.rec; return [x.runId, x.parentRunId, x.depth, x.nextSeq, x.pending, x.dropped]; },
      { after: (g) => (g.slice(2).every((v) => Number.isSafeInteger(v) && v >= 0) ? [] : [`a count getter is not a whole number: ${show(g)}`]) }));
    else steps.push(step('TrajectoryRecorder.free', 'rec.free(); rec.record({ kind: "turn_started" })', () => { env.stash.rec.free(); return env.stash.rec.record({ kind: 'turn_started' }); }, { stopAfter: true }));
  }
  steps.push(step('TrajectoryRecorder.flush', 'await rec.flush()', () => env.stash.rec.flush()));
  const final = () => {
    const out = [];
    for (const e of env.errorsSeen) if (!isCoded(e)) { out.push(`onError was handed a non-coded error${SEP}${describe(e)}`); break; }
    if (sink.memory) out.push(...roundTripProblems(at, sink.memory.records(), 'the MemorySink\'s records'));
    if (sink.got) out.push(...roundTripProblems(at, sink.got, 'the records a JS sink received'));
    if (sink.jsonl) {
      try { out.push(...roundTripProblems(at, readBack(at, sink.jsonl.text()), 'the JsonlSink\'s text')); } catch (e) { out.push(`parseTrajectoryJsonl refuses a JsonlSink's text(): ${errShape(e)}${SEP}${describe(e)}`); }
    }
    if (sink.lines && sink.lines.length) {
      try { readBack(at, sink.lines.join('')); } catch (e) { out.push(`parseTrajectoryJsonl refuses the lines a JsonlSink wrote: ${errShape(e)}${SEP}${describe(e)}`); }
    }
    return out;
  };
  return { exp: 'TrajectoryRecorder', steps, env, atoms: [...atomsOf(opts), ...extraAtoms, ...argsAtoms], final, async: true };
}

export function genMemorySink(r, at, V, env) {
  const steps = [];
  const ctorArgs = r.chance(0.1) ? wild(r, at, undefined, 'ctor arg') : null;
  steps.push(step('MemorySink', `sink = new MemorySink(${ctorArgs ? ctorArgs.expr : ''})`, () => { env.stash.sink = ctorArgs ? new at.MemorySink(ctorArgs.v) : new at.MemorySink(); }, { stopOnError: true }));
  const atoms = atomsOf(ctorArgs);
  const n = r.int(1, 4);
  let seq = 0;
  for (let j = 0; j < n; j++) {
    const op = r.weighted([[60, 'record'], [10, 'records'], [10, 'toJsonl'], [5, 'clear'], [5, 'length'], [2, 'free']]);
    if (op === 'record') {
      const i = seq++;
      const child = r.chance(0.15);
      const a = r.weighted([[30, () => valid(child ? childRecord() : stamp(PAYLOADS[r.pick(PAYLOAD_KINDS)](), i))], [60, () => { const k = r.pick(PAYLOAD_KINDS); return mutated(r, at, () => stamp(PAYLOADS[k](), i), `B.record("${k}", ${i})`); }], [10, () => wild(r, at, {}, 'record')]])();
      atoms.push(...a.atoms);
      steps.push(step('MemorySink.record', `sink.record(${a.expr})`, () => env.stash.sink.record(a.v)));
    } else if (op === 'records') steps.push(step('MemorySink.records', 'sink.records()', () => env.stash.sink.records()));
    else if (op === 'toJsonl') steps.push(step('MemorySink.toJsonl', 'sink.toJsonl()', () => env.stash.sink.toJsonl()));
    else if (op === 'clear') steps.push(step('MemorySink.clear', 'sink.clear()', () => env.stash.sink.clear()));
    else if (op === 'length') steps.push(step('MemorySink.length', 'sink.length', () => env.stash.sink.length, { after: (l) => (Number.isSafeInteger(l) ? [] : [`length is ${show(l)}`]) }));
    else steps.push(step('MemorySink.free', 'sink.free(); sink.records()', () => { env.stash.sink.free(); return env.stash.sink.records(); }, { stopAfter: true }));
  }
  const final = () => {
    if (!env.stash.sink || env.stash.freed) return [];
    let recs;
    try { recs = env.stash.sink.records(); } catch { return []; }
    const out = [];
    try { readBack(at, env.stash.sink.toJsonl()); } catch (e) { out.push(`parseTrajectoryJsonl refuses a MemorySink's toJsonl(): ${errShape(e)}${SEP}${describe(e)}`); }
    try { at.serializeTrajectoryJsonl(recs); } catch (e) { out.push(`serializeTrajectoryJsonl refuses a MemorySink's records(): ${errShape(e)}${SEP}${describe(e)}`); }
    return out;
  };
  return { exp: 'MemorySink', steps, env, atoms, final };
}

export function genJsonlSink(r, at, V, env) {
  const steps = [];
  const lines = [];
  const w = r.weighted([[30, 'none'], [50, 'writer'], [10, 'wild']]);
  let writer = null;
  const atoms = [];
  if (w === 'writer') {
    const asyncly = r.chance(0.5);
    const b = behaviour(r, at, env, 'writer', asyncly ? async (l) => { lines.push(l); } : (l) => { lines.push(l); }, asyncly ? 'async (line) => { lines.push(line) }' : '(line) => { lines.push(line) }', { okWeight: 50 });
    writer = { v: b.fn, expr: show(b.fn) };
    if (b.atom) atoms.push(b.atom);
  } else if (w === 'wild') { writer = wild(r, at, () => {}, 'writer'); atoms.push(...writer.atoms); }
  steps.push(step('JsonlSink', `sink = new JsonlSink(${writer ? writer.expr : ''})`, () => { env.stash.sink = writer ? new at.JsonlSink(writer.v) : new at.JsonlSink(); }, { stopOnError: true }));
  const n = r.int(1, 4);
  let seq = 0;
  for (let j = 0; j < n; j++) {
    const op = r.weighted([[60, 'record'], [8, 'lines'], [8, 'take'], [8, 'text'], [5, 'length'], [3, 'recorder']]);
    if (op === 'record') {
      const i = seq++;
      const a = r.weighted([[30, () => valid(stamp(PAYLOADS[r.pick(PAYLOAD_KINDS)](), i))], [60, () => { const k = r.pick(PAYLOAD_KINDS); return mutated(r, at, () => stamp(PAYLOADS[k](), i), `B.record("${k}", ${i})`); }], [10, () => wild(r, at, {}, 'record')]])();
      atoms.push(...a.atoms);
      steps.push(step('JsonlSink.record', `await sink.record(${a.expr})`, () => env.stash.sink.record(a.v)));
    } else if (op === 'recorder') {
      steps.push(step('TrajectoryRecorder', 'rec = new TrajectoryRecorder(sink, { onSinkError: "fail", clock: () => 0 }); rec.record({ kind: "turn_started" }); await rec.flush()', async () => {
        const rec = new at.TrajectoryRecorder(env.stash.sink, { onSinkError: 'fail', clock: () => 0 });
        rec.record({ kind: 'turn_started' });
        await rec.flush();
      }));
    } else steps.push(step(`JsonlSink.${op}`, `sink.${op}${op === 'length' ? '' : '()'}`, () => (op === 'length' ? env.stash.sink.length : env.stash.sink[op]())));
  }
  const final = () => {
    const out = [];
    let text;
    try { text = env.stash.sink.text(); } catch { return out; }
    try { readBack(at, text); } catch (e) { out.push(`parseTrajectoryJsonl refuses a JsonlSink's text(): ${errShape(e)}${SEP}${describe(e)}`); }
    if (lines.length) {
      if (!lines.every((l) => typeof l === 'string' && l.endsWith('\n') && !l.slice(0, -1).includes('\n'))) out.push('the writer was handed something other than one \\n-terminated line');
      try { readBack(at, lines.join('')); } catch (e) { out.push(`parseTrajectoryJsonl refuses the lines a JsonlSink wrote: ${errShape(e)}${SEP}${describe(e)}`); }
    }
    return out;
  };
  return { exp: 'JsonlSink', steps, env, atoms, final, async: true };
}
