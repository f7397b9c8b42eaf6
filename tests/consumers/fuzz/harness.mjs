// The harness's side of a case: Env, the per-case state the callbacks
// share (call counts, timers, the stop when a run outlasts its limits);
// the callbacks, clocks and sinks a case hands to the package, each well
// behaved or not (throws, rejects, returns garbage, never settles, answers
// late); and step(), one call of a case with what to check after it.
import { tag, show } from './render.mjs';
import { hostile } from './hostile.mjs';
import { wild } from './mutate.mjs';
import { T0, fnx, err, steppingClock } from './inputs.mjs';
import { SEP } from './checks.mjs';

export const STOP = err('the harness stopped this run');

/** Per-case state shared by the callbacks the case hands to the package. */
export class Env {
  constructor() {
    this.calls = {};
    this.findings = [];
    this.timers = [];
    this.arms = [];
    this.start = 0;
    this.signalMs = null;
    this.signalFired = false;
    this.maxTurns = null;
    this.stopped = false;
    this.errorsSeen = []; // errors the package handed to onError callbacks
    this.stash = {};
    this.limitMs = 1200; // the worker sets it from its step limit
    this.turnSlack = 1000; // turns past maxTurns after which a run counts as one that does not end
  }
  begin() { this.start = performance.now(); }
  arm() { this.armedAt = performance.now(); for (const a of this.arms.splice(0)) a(); }
  later(ms, fn) { this.timers.push(ms ? setTimeout(fn, ms) : setImmediate(fn)); }
  end() { for (const t of this.timers) { clearTimeout(t); clearImmediate(t); } this.timers = []; }
  finding(cat, exp, msg) { this.findings.push({ cat, exp, msg, step: this.step }); }
  tick(who) {
    this.calls[who] = (this.calls[who] ?? 0) + 1;
    if (this.stopped) throw STOP;
    const now = performance.now();
    const t = now - this.start;
    // Judged after a whole turn: a run yields once per turn, not while it
    // sets up (50,000 steps take a few hundred ms to read and validate).
    if (this.signalMs !== null && this.armedAt && !this.signalFired && (this.calls.agent ?? 0) >= 2 && now - this.armedAt > this.signalMs + 500) {
      this.stopped = true;
      this.finding('hang', this.exp, `the run never yields to the event loop: its AbortSignal's abort timer never fires${SEP}timer ${this.signalMs} ms, not fired after ${Math.round(now - this.armedAt)} ms and ${this.calls.agent ?? 0} agent calls`);
      throw STOP;
    }
    if (who === 'agent' && this.maxTurns !== null && this.calls.agent > this.maxTurns && !this.overTurns) {
      this.overTurns = true;
      this.finding('invariant', 'runTrajectory', `the run goes past maxTurns${SEP}maxTurns ${this.maxTurns}, the agent was asked for turn ${this.calls.agent}`);
    }
    // A run that should have ended: counted in turns, so the outcome does not depend on the machine's speed.
    // (With an abort signal armed, the signal decides: the run must stop when it fires.)
    if (who === 'agent' && this.maxTurns !== null && this.maxTurns <= 1000 && this.signalMs === null && this.calls.agent > this.maxTurns + this.turnSlack) {
      this.stopped = true;
      this.finding('hang', this.exp, `does not end: runs on past maxTurns${SEP}still running ${this.turnSlack} turns past maxTurns ${this.maxTurns}; ${Object.entries(this.calls).map(([k, v]) => `${v} ${k} calls`).join(', ')}`);
      throw STOP;
    }
    if (this.start && t > this.limitMs) {
      // Past the time limit: a finding only when the input says the run should be over by now (maxTurns ≤ 1000).
      this.stopped = true;
      const past = (this.calls.agent ?? 0) > this.maxTurns;
      // (A legitimately long run, say 1,000 turns each warning of a dropped record, can outlast the limit.)
      if (this.maxTurns !== null && (past || this.maxTurns <= 20)) this.finding('hang', this.exp, `does not end: ${past ? 'runs on past maxTurns' : 'still calling back at the time limit'}${SEP}still calling back after ${Math.round(this.limitMs)} ms; maxTurns ${this.maxTurns}; ${Object.entries(this.calls).map(([k, v]) => `${v} ${k} calls`).join(', ')}`);
      throw STOP;
    }
  }
}

export const THROWN = [
  ['"a string"', () => 'fuzz: a thrown string'],
  ['undefined', () => undefined],
  ['null', () => null],
  ['42', () => 42],
  ['{ code: "X" }', () => ({ code: 'X', message: 'fuzz: plain object' })],
  ['Symbol("thrown")', () => Symbol('thrown')],
  ['{ get message() { throw … } }', () => Object.defineProperty({}, 'message', { get() { throw err('message getter'); } })],
  ['new Proxy({}, { get() { throw … } })', () => new Proxy({}, { get() { throw err('thrown proxy'); } })],
  ['an AgentTrajectoriesError-lookalike without code', () => Object.assign(new Error('fuzz: lookalike'), { name: 'AgentTrajectoriesError' })],
];

/**
 * A callback for `who` that behaves well (`good`) or not: throws, rejects,
 * returns garbage, throws a non-Error, returns a throwing thenable, never
 * settles (only when `never`: the case then has a signal), answers late,
 * or fails from its second call. Returns { fn, atom }.
 */
export function behaviour(r, at, env, who, good, goodExpr, { sync = false, never = false, okWeight = 72 } = {}) {
  const k = r.weighted([[okWeight, 'ok'], [5, 'throws'], [sync ? 1 : 5, 'rejects'], [7, 'garbage'], [3, 'throws a non-Error'], [1.5, 'returns a throwing thenable'],
    [never ? 4 : 0, 'never settles'], [sync ? 0 : 3, 'answers late'], [2, 'fails from its 2nd call']]);
  let fn;
  switch (k) {
    case 'ok': fn = fnx(goodExpr, (...a) => { env.tick(who); return good(...a); }); break;
    case 'throws': fn = fnx(`() => { throw new Error("fuzz: ${who} threw") }`, () => { env.tick(who); throw err(`${who} threw`); }); break;
    case 'rejects':
      // A callback typed to return a value gets a rejected Promise that is already handled: the point is the wrong type, not an unhandled rejection.
      fn = sync
        ? fnx(`() => Promise.reject(new Error("fuzz: ${who} rejected"))`, () => { env.tick(who); const p = Promise.reject(err(`${who} rejected`)); p.catch(() => {}); return p; })
        : fnx(`async () => { throw new Error("fuzz: ${who} rejected") }`, async () => { env.tick(who); throw err(`${who} rejected`); });
      break;
    case 'garbage': {
      const [g, ge] = hostile(r, undefined, at);
      const asyncly = !sync && r.chance(0.5);
      fn = fnx(asyncly ? `async () => (${ge})` : `() => (${ge})`, asyncly ? async () => { env.tick(who); return g; } : () => { env.tick(who); return g; });
      break;
    }
    case 'throws a non-Error': {
      const [e, make] = r.pick(THROWN);
      fn = fnx(`() => { throw ${e} }`, () => { env.tick(who); throw make(); });
      break;
    }
    case 'returns a throwing thenable': fn = fnx(`() => ({ then() { throw new Error("fuzz: ${who} then") } })`, () => { env.tick(who); return { then() { throw err(`${who} then`); } }; }); break;
    case 'never settles': fn = fnx('() => new Promise(() => {})', () => { env.tick(who); return new Promise(() => {}); }); break;
    case 'answers late': {
      // After a macrotask (setImmediate), or a timer of 1 ms: either way the event loop turns.
      const ms = r.chance(0.7) ? 0 : 1;
      fn = fnx(`async (...a) => { await ${ms ? 'new Promise((r) => setTimeout(r, 1))' : 'new Promise(setImmediate)'}; return (${goodExpr})(...a) }`, (...a) => { env.tick(who); return new Promise((res, rej) => env.later(ms, () => { try { res(good(...a)); } catch (e) { rej(e); } })); });
      break;
    }
    case 'fails from its 2nd call': {
      let n = 0;
      fn = fnx(`/* ${goodExpr} once, then */ () => { throw new Error("fuzz: ${who} failed later") }`, (...a) => { env.tick(who); if (++n > 1) throw err(`${who} failed later`); return good(...a); });
      break;
    }
    default: throw new Error(k);
  }
  return { fn, atom: k === 'ok' ? null : `${who} ${k}`, never: k === 'never settles' };
}

/** A clock: stepping (valid), or returning something no clock should. */
export function clockFor(r, at, env, who = 'clock') {
  if (r.chance(0.7)) return { fn: steppingClock(r.pick([1, 1000])), atom: null };
  const variants = [
    [1e300, '1e300'], [NaN, 'NaN'], [-1, '-1'], [2 ** 53 + 2, '2**53+2'], [2 ** 64, '2**64'], [1.5, '1.5'], [-0, '-0'], [Infinity, 'Infinity'],
    ['5', '"5"'], [5n, '5n'], [undefined, 'undefined'], [null, 'null'], [new Date(T0), `new Date(${T0})`],
  ];
  const k = r.int(0, variants.length + 2);
  if (k < variants.length) {
    const [v, e] = variants[k];
    return { fn: fnx(`() => ${e}`, () => { env.tick(who); return v; }), atom: `clock returns ${e}` };
  }
  if (k === variants.length) { let t = T0; return { fn: fnx(`(() => { let t = ${T0}; return () => (t -= 1000) })()`, () => { env.tick(who); return (t -= 1000); }), atom: 'clock goes backwards' }; }
  if (k === variants.length + 1) return { fn: fnx('() => { throw new Error("fuzz: clock threw") }', () => { env.tick(who); throw err('clock threw'); }), atom: 'clock throws' };
  return { fn: fnx('() => ({ valueOf() { throw new Error("fuzz: valueOf") } })', () => { env.tick(who); return { valueOf() { throw err('valueOf'); } }; }), atom: 'clock returns a throwing valueOf' };
}

/** A sink: MemorySink, JsonlSink (with or without a writer), or a JS object that behaves or not. */
export function sinkFor(r, at, env, { never = false } = {}) {
  const k = r.weighted([[30, 'memory'], [15, 'jsonl'], [15, 'jsonl-writer'], [30, 'js'], [6, 'hostile']]);
  if (k === 'memory') { const s = tag(new at.MemorySink(), 'new MemorySink()'); return { v: s, memory: s, atoms: [] }; }
  if (k === 'jsonl') { const s = tag(new at.JsonlSink(), 'new JsonlSink()'); return { v: s, jsonl: s, atoms: [] }; }
  if (k === 'jsonl-writer') {
    const lines = [];
    const asyncly = r.chance(0.5);
    const b = behaviour(r, at, env, 'writer', asyncly ? async (l) => { lines.push(l); } : (l) => { lines.push(l); }, asyncly ? 'async (line) => { lines.push(line) }' : '(line) => { lines.push(line) }', { never });
    const s = tag(new at.JsonlSink(b.fn), `new JsonlSink(${show(b.fn)})`);
    return { v: s, lines, atoms: b.atom ? [b.atom] : [], never: b.never };
  }
  if (k === 'js') {
    const got = [];
    const asyncly = r.chance(0.4);
    const b = behaviour(r, at, env, 'sink', asyncly ? async (rec) => { got.push(rec); } : (rec) => { got.push(rec); }, asyncly ? 'async (r) => { records.push(r) }' : '(r) => { records.push(r) }', { never });
    const s = { record: b.fn };
    tag(s, `{ record: ${show(b.fn)} }`);
    return { v: s, got: b.atom ? null : got, atoms: b.atom ? [b.atom] : [], never: b.never };
  }
  const w = wild(r, at, {}, 'sink');
  return { v: w.v, atoms: w.atoms, hostile: true };
}

/**
 * A step: `exp` the export exercised, `expr` the call as JS, `run()` the
 * call; optional: `after(result)` problems (strings) with a successful
 * result, `onCoded(err)` problems with a coded error (by default a coded
 * error is fine), `unknown` option keys that should have been refused,
 * `stopOnError` (a coded error ends the input), `stopAfter`.
 */
export const step = (exp, expr, run, extra = {}) => ({ exp, expr, run, ...extra });
export const unknownOf = (...args) => args.flatMap((a) => (a && a.unknownKeys) || []);
export const atomsOf = (...args) => args.flatMap((a) => (a && a.atoms) || []);
