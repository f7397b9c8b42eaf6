// The fuzz inputs: valid inputs taken from the README (B), mutated one field
// at a time, plus fully random values, for every export of the package.
// `makeCase(seed, i, at, V)` builds input `i` deterministically from the
// seed: a list of calls (steps), each with the export it exercises, a JS
// expression of the call (for the reproduction) and what to check after it.
import { readFileSync } from 'node:fs';
import { Rng, caseSeed, tag, show, strExpr, hostile, mutated, valid, wild, peek } from './values.mjs';

export const T0 = 1767225600000; // 2026-01-01T00:00:00Z
const fnx = (expr, f) => tag(f, expr);
const err = (m) => new Error(`fuzz: ${m}`);
export const STOP = err('the harness stopped this run');

// ---- valid inputs (B) ---------------------------------------------------

const msg = {
  system: () => ({ role: 'system', content: 'You are a support bot.' }),
  user: () => ({ role: 'user', content: 'Where is my order?' }),
  assistantParts: () => ({ role: 'assistant', content: [{ type: 'reasoning', text: 'look it up' }, { type: 'text', text: 'Checking.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_order', input: { id: 42 } }] }),
  toolResult: () => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup_order', output: { type: 'json', value: { status: 'shipped' } } }] }),
  sdk4Call: () => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'refund', args: { amount: 5 } }] }),
  sdk4Result: () => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'refund', result: 'ok', isError: false }] }),
  shorthand: () => ({ role: 'assistant', content: [{ type: 'tool-call', id: 'c3', name: 'search', args: { q: 'x' } }] }),
  errorText: () => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'search', output: { type: 'error-text', value: 'not found' } }] }),
  image: () => ({ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', image: 'data:image/png;base64,AAAA', mediaType: 'image/png' }], providerOptions: { openai: { detail: 'low' } } }),
  assistant: () => ({ role: 'assistant', content: 'Your order has shipped.' }),
};

const assessment = () => ({ observerName: 'stall', summary: 'the same call failed 3 times', observations: [{ category: 'repeat', description: 'run_tests failed 3 times', evidence: 'calls #1, #2, #3' }], suggestions: ['read the error'], severity: 'caution', timestamp: T0 });

export const PAYLOADS = {
  run_started: () => ({ kind: 'run_started', identity: { run_id: 'run-1', agent: 'support-bot', model_id: 'model-a' } }),
  run_ended: () => ({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached', message: 'done' }, new_messages: [msg.assistant()] }),
  turn_started: () => ({ kind: 'turn_started', turn_index: 0 }),
  turn_ended: () => ({ kind: 'turn_ended', assistant: msg.assistantParts(), tool_results: [msg.toolResult()], turn_index: 0, step_id: 'greet' }),
  step_selected: () => ({ kind: 'step_selected', turn_index: 0, step_id: 'greet', method: 'start', candidates: [{ stepId: 'greet', score: 1, reasons: ['start step'] }] }),
  message_appended: () => ({ kind: 'message_appended', message: msg.user() }),
  message_appended_sdk4: () => ({ kind: 'message_appended', message: msg.sdk4Call() }),
  tool_started: () => ({ kind: 'tool_started', tool_call_id: 'c1', tool_name: 'lookup_order', args: { id: 42 } }),
  tool_ended: () => ({ kind: 'tool_ended', tool_call_id: 'c1', tool_name: 'lookup_order', result: { status: 'shipped' }, is_error: false }),
  provider_request_prepared: () => ({ kind: 'provider_request_prepared', iteration: 0, model_id: 'model-a', system_prompt_chars: 120, message_count: 3, tool_count: 2, tools: ['lookup_order', 'refund'] }),
  context_transform_applied: () => ({ kind: 'context_transform_applied', iteration: 1, plugin: 'trim', before_count: 10, after_count: 5 }),
  tool_gate_applied: () => ({ kind: 'tool_gate_applied', iteration: 1, plugin: 'gate', allow: true }),
  tool_gate_conflict_resolved: () => ({ kind: 'tool_gate_conflict_resolved', iteration: 1, plugins: ['a', 'b'], chosen_plugin: 'a', allow: false, reason: 'first wins' }),
  output_tokens_escalation: () => ({ kind: 'output_tokens_escalation', attempt: 1, prev_cap: 1024, new_cap: 2048 }),
  assessment_produced: () => ({ kind: 'assessment_produced', call_index: 3, assessment: assessment() }),
  custom: () => ({ kind: 'custom', name: 'request', data: { url: 'https://example.test/a', n: [1, 2.5, null, true] } }),
};
const PAYLOAD_KINDS = Object.keys(PAYLOADS);

const stamp = (payload, seq, extra = {}) => ({ schema_version: 1, seq, run_id: 'run-1', depth: 0, recorded_at_unix_ms: T0 + seq, ...extra, payload });
const RECORD_KINDS = ['run_started', 'turn_started', 'step_selected', 'message_appended', 'tool_started', 'tool_ended', 'turn_ended', 'assessment_produced', 'custom', 'provider_request_prepared', 'run_ended'];
/** A valid run's records, seq 0..n-1. */
const recordList = (n = RECORD_KINDS.length) => RECORD_KINDS.slice(0, n - 1).concat('run_ended').map((k, i) => stamp(PAYLOADS[k](), i));
const childRecord = () => stamp(PAYLOADS.custom(), 0, { run_id: 'child-1', parent_run_id: 'run-1', depth: 1 });

const toolCalls = {
  failing: (i = 0) => ({ toolName: 'run_tests', params: { path: 'tests/test_parser.py' }, success: false, errorMessage: `AssertionError at tests/test_parser.py:${41 + i}` }),
  read: () => ({ toolName: 'read_file', params: { path: 'src/parser/lexer.rs' }, success: true }),
  write: () => ({ toolName: 'write_file', params: { path: 'src/other/x.rs', content: 'fn main() {}' }, success: true }),
  summarised: () => ({ toolName: 'check_job', params: { id: 7 }, paramsSummary: 'job 7', success: true }),
};
const budget = () => ({ deadline: T0 + 30 * 60_000, elapsedSeconds: 10, maxTokens: 50_000, tokensUsed: 100, maxToolCalls: 100 });

function steppingClock(step = 1000) {
  let t = T0;
  return fnx(`(() => { let t = ${T0}; return () => (t += ${step}) })()`, () => (t += step));
}

function customObserver() {
  return {
    name: 'mine',
    shouldRun: fnx('(ctx) => ctx.callIndex % 2 === 1', (ctx) => ctx.callIndex % 2 === 1),
    observe: fnx('(ctx) => ({ summary: `error rate ${ctx.errorRate(5)}`, severity: "caution", observations: [{ category: "c", description: "d", evidence: "e" }], suggestions: ["retry"] })',
      (ctx) => ({ summary: `error rate ${ctx.errorRate(5)}`, severity: 'caution', observations: [{ category: 'c', description: 'd', evidence: 'e' }], suggestions: ['retry'] })),
  };
}
const pipelineOpts = (custom = true) => ({
  clock: steppingClock(2000),
  budget: budget(),
  maxAgeCalls: 20,
  observers: [
    { observer: 'resources', trigger: { everyNCalls: 10 }, options: { cautionThreshold: 0.3, warningThreshold: 0.1 } },
    { observer: 'stall', trigger: { everyNCalls: 5, afterConsecutiveErrors: 3 }, options: { pollingTools: ['check_job'], window: 20 } },
    { observer: 'error-cascade', trigger: { afterConsecutiveErrors: 3 }, options: { threshold: 3 } },
    { observer: 'drift', trigger: { everyNCalls: 10, everyNSeconds: 60 }, options: { scope: ['src/parser/', 'tests/'] } },
    ...(custom ? [{ observer: customObserver(), trigger: { onEveryCall: true } }] : []),
  ],
});
const PIPELINE_CLOSED = ['', 'budget', 'observers.*', 'observers.*.trigger', 'observers.*.options'];

const chainDef = () => ({
  goal: 'book a table for two',
  persona: { name: 'Ana', description: 'a terse diner', guardrails: ['no small talk'] },
  conversationId: 'conv-1',
  maxTurns: 6,
  steps: {
    steps: [
      { id: 'greet', instruction: 'say hello', hints: ['be brief'] },
      { id: 'ask', instruction: 'ask for a table', preconditions: [{ type: 'stepSatisfied', stepId: 'greet' }], maxAttempts: 3 },
      { id: 'confirm', instruction: 'confirm the booking', preconditions: [{ type: 'stepSatisfied', stepId: 'ask' }] },
    ],
    start: 'greet',
    terminals: ['confirm'],
  },
});
const freeDef = () => ({
  goal: 'explore the menu',
  persona: { description: 'a curious visitor' },
  maxTurns: 5,
  steps: { steps: [{ id: 's', instruction: 'open' }, { id: 'a', instruction: 'ask about prices' }, { id: 'b', instruction: 'ask about hours' }], start: 's' },
  ranker: { threshold: 0.5, contextSteps: 2, topK: 2 },
  loopDetection: { maxConsecutiveSameStep: 3, maxCycleLength: 4, maxCycleRepetitions: 2 },
  userContextSteps: 2,
  metadata: { suite: 'fuzz' },
});
const bareDef = () => ({ goal: 'say hi', persona: { description: 'a visitor' }, maxTurns: 3 });
const DEF_CLOSED = ['', 'persona', 'steps', 'steps.steps.*', 'steps.steps.*.preconditions.*', 'loopDetection', 'ranker'];
const DEF_NUMERIC = ['maxTurns', 'loopDetection.maxConsecutiveSameStep', 'loopDetection.maxCycleLength', 'loopDetection.maxCycleRepetitions', 'loopDetection.maxCycleRepetitions',
  'ranker.threshold', 'ranker.contextSteps', 'ranker.topK', 'userContextSteps', 'steps.steps.0.maxAttempts', 'steps.steps.1.maxAttempts', 'steps.steps.0.timeoutMs'];
const PIPELINE_NUMERIC = ['maxAgeCalls', 'budget.deadline', 'budget.elapsedSeconds', 'budget.maxTokens', 'budget.tokensUsed', 'budget.maxToolCalls',
  'observers.0.trigger.everyNCalls', 'observers.1.trigger.afterConsecutiveErrors', 'observers.3.trigger.everyNSeconds',
  'observers.0.options.cautionThreshold', 'observers.0.options.warningThreshold', 'observers.1.options.window', 'observers.1.options.repeatThreshold',
  'observers.1.options.failingRepeatThreshold', 'observers.1.options.sameTargetThreshold', 'observers.1.options.targetWindow', 'observers.2.options.threshold',
  'observers.3.options.window', 'observers.3.options.threshold'];
const BUDGET_NUMERIC = ['deadline', 'elapsedSeconds', 'maxTokens', 'tokensUsed', 'maxToolCalls'];
const RUN_CLOSED = [''];

const request = () => ({
  purpose: 'user-message',
  system: 'You are role-playing the USER.\nPersona: Ana. a terse diner',
  messages: [msg.user(), msg.assistantParts(), msg.toolResult()],
  tools: [{ name: 'lookup_order', description: 'find an order', inputSchema: { type: 'object', properties: { id: { type: 'number' } } } }],
  responseFormat: 'text',
});
const policyCtx = () => ({
  turnIndex: 1, maxTurns: 6, stepTraces: [], selectedStepId: 'ask', terminals: ['confirm'], exhausted: false,
  snapshot: { satisfied: new Set(['greet']), attemptsByStep: new Map([['greet', 1]]), states: [] },
  defaultDecision: { stop: false },
});
const chatBody = () => ({
  choices: [{ message: { content: 'hello', tool_calls: [{ id: 't1', type: 'function', function: { name: 'lookup_order', arguments: '{"id":42}' } }] } }],
  usage: { prompt_tokens: 12, completion_tokens: 3 },
});

/** The valid inputs, by the names the reproductions use. */
export const B = {
  'B.payload(kind)': PAYLOADS,
  'B.records(n)': recordList,
  'B.record(kind, seq)': (kind, seq) => stamp(PAYLOADS[kind](), seq),
  'B.jsonl(n, withChild)': (n = RECORD_KINDS.length, withChild = false) => `${jsonlLines(n, withChild).join('\n')}\n`,
  'B.bareDef()': bareDef,
  'B.user(rank, reply, ids)': user,
  'B.messages()': () => Object.values(msg).map((f) => f()),
  'B.toolCall': toolCalls,
  'B.budget()': budget,
  'B.pipelineOpts()': pipelineOpts,
  'B.chainDef()': chainDef,
  'B.freeDef()': freeDef,
  'B.request()': request,
  'B.policyCtx()': policyCtx,
  'B.chatBody()': chatBody,
};

// ---- live valid artifacts (made once per process, deterministic) --------

/** Valid run results, a model recording, a pipeline snapshot: made by the package itself. */
export async function prepare(at) {
  const agent = { respond: async (h) => ({ messages: [msg.assistantParts(), msg.toolResult(), { role: 'assistant', content: `noted (${h.length})` }] }) };
  let n = 0;
  const user = at.recordingModel(async (req) => (req.purpose === 'user-message' ? `message ${++n}` : '{"candidates":[]}'));
  const good = await at.runTrajectory(at.createTrajectory(chainDef(), agent), { userModel: user, clock: () => T0 });
  const failed = await at.runTrajectory(at.createTrajectory(chainDef(), { respond: async () => { throw err('agent exploded'); } }), { userModel: async () => 'hi', clock: () => T0 });
  const p = new at.ObserverPipeline(pipelineOpts(false));
  for (let i = 0; i < 6; i++) p.recordToolCall(i % 2 ? toolCalls.read() : toolCalls.failing(i));
  p.recordTokens(1200);
  const snapshot = p.snapshot();
  p.free();
  return { result: good, failed, recording: user.recording, snapshot, def: chainDef() };
}
const clone = (v) => structuredClone(v);

// ---- the harness's side of a case ----------------------------------------

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

const THROWN = [
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
function behaviour(r, at, env, who, good, goodExpr, { sync = false, never = false, okWeight = 72 } = {}) {
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
function clockFor(r, at, env, who = 'clock') {
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
function sinkFor(r, at, env, { never = false } = {}) {
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

// ---- checks shared by the cases ---------------------------------------------

const RUST_FORMS = /\bSome\(|\bJsValue\(|\bNone\b|\bOk\(|\bErr\(/;
const ONE_PLURAL = /(?<![\d.])1 (calls|turns|records|lines|steps|errors|items|times|attempts|messages|entries|observers|tokens|seconds|candidates|failures)\b/;
/** Text after SEP in a finding is detail: it is shown, but findings are deduplicated on the text before it. */
export const SEP = ' \u2016 ';
// Where in a message a problem sits: the words before it, with quoted text and numbers abstracted.
const site = (m, at) => m.slice(Math.max(0, at - 40), at).replace(/"(?:[^"\\]|\\.)*"?/g, '"…"').replace(/\d+/g, 'N').replace(/^\S*\s/, '…');
/** What is wrong with a message meant for people (with where it sits), or null. */
export function messageProblem(m) {
  if (typeof m !== 'string') return `is not a string (${typeof m})`;
  if (m.trim() === '') return 'is empty';
  const rust = RUST_FORMS.exec(m);
  if (rust) return `contains the Rust debug form ${JSON.stringify(rust[0])} (after "${site(m, rust.index)}")`;
  const one = ONE_PLURAL.exec(m);
  if (one) return `says ${JSON.stringify(one[0])} (after "${site(m, one.index)}")`;
  // (Inside quotes it is the caller's own text, quoted back.)
  const obj = m.search(/(?<!")\[object Object\]/);
  if (obj >= 0) return `contains "[object Object]" (after "${site(m, obj)}")`;
  return null;
}
/** `label` + the message's problem + the message as detail, or null. */
const messageFinding = (label, m) => { const p = messageProblem(m); return p ? `${label} ${p}${SEP}${show(m, 300)}` : null; };

/** The first path where two JSON-like values differ, or null. */
export function firstDiff(a, b, path = '') {
  if (Object.is(a, b)) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && a === b ? null : `${path || '(root)'}: ${show(a, 60)} vs ${show(b, 60)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path || '(root)'}: array vs object`;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  if (ka.length !== kb.length) return `${path || '(root)'}: keys [${ka.join(',')}] vs [${kb.join(',')}]`;
  for (const k of ka) {
    const d = firstDiff(a[k], b[k], `${path}${Array.isArray(a) ? `[${k}]` : `.${k}`}`);
    if (d) return d;
  }
  return null;
}

/** Problems of records the package itself produced (seq, timestamps). */
function recordProblems(records, what, { suffix = false } = {}) {
  const out = [];
  if (!Array.isArray(records)) return [`records the package produced are not an array${SEP}${what}`];
  const next = new Map();
  for (const rec of records) {
    if (!rec || typeof rec !== 'object') { out.push(`records the package produced hold a non-object${SEP}${what}`); break; }
    const run = `${rec.run_id ?? ''}|${rec.parent_run_id ?? ''}|${rec.depth}`;
    const want = next.get(run) ?? (suffix ? rec.seq : 0); // undelivered() starts wherever delivery stopped
    if (rec.seq !== want) { out.push(`records the package produced: seq not 0..n-1 per run${SEP}${what}: seq ${show(rec.seq, 30)} where ${want} was due`); break; }
    next.set(run, want + 1);
    if (!Number.isSafeInteger(rec.recorded_at_unix_ms) || rec.recorded_at_unix_ms < 0) { out.push(`records the package produced: recorded_at_unix_ms is not a whole number of milliseconds in 0..2^53${SEP}${what}: recorded_at_unix_ms ${show(rec.recorded_at_unix_ms, 30)}`); break; }
  }
  return out;
}

// ---- steps -------------------------------------------------------------------

/**
 * A step: `exp` the export exercised, `expr` the call as JS, `run()` the
 * call; optional: `after(result)` problems (strings) with a successful
 * result, `onCoded(err)` problems with a coded error (by default a coded
 * error is fine), `unknown` option keys that should have been refused,
 * `stopOnError` (a coded error ends the input), `stopAfter`.
 */
const step = (exp, expr, run, extra = {}) => ({ exp, expr, run, ...extra });
const unknownOf = (...args) => args.flatMap((a) => (a && a.unknownKeys) || []);
const atomsOf = (...args) => args.flatMap((a) => (a && a.atoms) || []);

// ---- case generators ------------------------------------------------------------

/** An error's code and the first words of its message, for the part of a finding that is deduplicated on. */
const errShape = (e) => { try { return `${e.code ?? e.name} ${String(e.message).split(/[:;]/)[0].slice(0, 60)}`; } catch { return '?'; } };

/** Records: round trip through serialize and parse (strict); problems as strings. */
// A stream written from records the caller handed in (or one a failing sink
// lost records from) may skip seqs: reporting that is SEQ_GAP's job, not a
// broken invariant. Any other problem reading it back is one.
function readBack(at, text) {
  const { records, errors } = at.parseTrajectoryJsonl(text, { lenient: true });
  const other = errors.find((e) => e.code !== 'SEQ_GAP');
  if (other) {
    const err = new Error(other.message);
    err.name = 'AgentTrajectoriesError';
    err.code = other.code;
    throw err;
  }
  return records;
}

function roundTripProblems(at, records, what) {
  const out = recordProblems(records, what);
  let text;
  try { text = at.serializeTrajectoryJsonl(records); } catch (e) { return [...out, `serializeTrajectoryJsonl refuses records the package produced: ${errShape(e)}${SEP}${what}: ${describe(e)}`]; }
  let back;
  try { back = readBack(at, text); } catch (e) { return [...out, `parseTrajectoryJsonl refuses serializeTrajectoryJsonl(records the package produced): ${errShape(e)}${SEP}${what}: ${describe(e)}`]; }
  const again = at.serializeTrajectoryJsonl(back);
  if (again !== text) out.push(`serialize → parse → serialize of records the package produced is not byte-identical${SEP}${what}`);
  return out;
}

function genRecorder(r, at, V, env) {
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

function genMemorySink(r, at, V, env) {
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

function genJsonlSink(r, at, V, env) {
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

// JSONL text mutations.
function jsonlText(r) {
  const n = r.chance(0.3) ? r.int(1, 3) : RECORD_KINDS.length;
  const child = r.chance(0.15);
  const lines = jsonlLines(n, child);
  return { lines, name: `B.jsonl(${n}${child ? ', true' : ''})` };
}
/** `n` records of a run (and a child run's record) as JSONL lines. */
const jsonlLines = (n, child = false) => [...recordList(n), ...(child ? [childRecord()] : [])].map((x) => JSON.stringify(x));
function mutateJsonl(r, at) {
  const { lines, name } = jsonlText(r);
  const descs = [];
  const atoms = [];
  const times = r.chance(0.8) ? 1 : 2;
  let bom = false;
  let eol = '\n';
  for (let t = 0; t < times; t++) {
    const i = r.int(0, lines.length - 1);
    const op = r.weighted([[35, 'field'], [8, 'number-text'], [6, 'truncate'], [5, 'delete-char'], [5, 'insert-char'], [4, 'dup'], [4, 'drop'], [3, 'swap'], [3, 'blank'], [3, 'join'],
      [4, 'line'], [3, 'seq-gap'], [3, 'schema'], [2, 'bom'], [2, 'crlf'], [2, 'cr'], [1, 'huge']]);
    switch (op) {
      case 'field': {
        let obj;
        try { obj = JSON.parse(lines[i]); } catch { obj = { broken: lines[i] }; }
        const m = mutated(r, at, () => obj, `line ${i + 1}`);
        let s;
        try { s = JSON.stringify(m.v); } catch { s = undefined; }
        if (typeof s !== 'string') { lines[i] = String(lines[i]).slice(0, -1); descs.push(`line ${i + 1} loses its last character`); atoms.push('line truncated'); break; }
        lines[i] = s;
        descs.push(`line ${i + 1}: ${m.descs.join('; ')}`);
        atoms.push(...m.atoms.map((a) => `line.${a}`));
        break;
      }
      case 'number-text': {
        const field = r.pick(['seq', 'schema_version', 'depth', 'recorded_at_unix_ms']);
        const text = r.pick(['18446744073709551615', '9007199254740993', '1e400', '-0', '1.0', '1e2', '-1', '1.5', '0x10', '01', '2147483648', '4294967296', 'NaN', 'Infinity', '"1"', 'null', 'true', '[]', '{}']);
        lines[i] = lines[i].replace(new RegExp(`"${field}":[^,}]*`), `"${field}":${text}`);
        descs.push(`line ${i + 1}: "${field}":${text}`);
        atoms.push(`${field}=${text}`);
        break;
      }
      case 'truncate': { const at2 = r.int(0, lines[i].length - 1); lines[i] = lines[i].slice(0, at2); descs.push(`line ${i + 1} truncated to ${at2} chars`); atoms.push('line truncated'); break; }
      case 'delete-char': { const at2 = r.int(0, lines[i].length - 1); lines[i] = lines[i].slice(0, at2) + lines[i].slice(at2 + 1); descs.push(`line ${i + 1}: character ${at2} deleted`); atoms.push('char deleted'); break; }
      case 'insert-char': { const at2 = r.int(0, lines[i].length); const c = r.pick(['{', '}', '"', ',', '\\', '\u0000', '\ud800', 'x', ' ', '\u2028', '\ufeff']); lines[i] = lines[i].slice(0, at2) + c + lines[i].slice(at2); descs.push(`line ${i + 1}: ${JSON.stringify(c)} inserted at ${at2}`); atoms.push(`char inserted`); break; }
      case 'dup': lines.splice(i, 0, lines[i]); descs.push(`line ${i + 1} duplicated`); atoms.push('line duplicated'); break;
      case 'drop': if (lines.length > 1) { lines.splice(i, 1); descs.push(`line ${i + 1} removed (seq gap)`); atoms.push('line removed'); } break;
      case 'swap': { const j = r.int(0, lines.length - 1); [lines[i], lines[j]] = [lines[j], lines[i]]; descs.push(`lines ${i + 1} and ${j + 1} swapped`); atoms.push('lines swapped'); break; }
      case 'blank': lines.splice(i, 0, r.pick(['', '   ', '\t'])); descs.push(`a blank line before line ${i + 1}`); atoms.push('blank line'); break;
      case 'join': if (i + 1 < lines.length) { lines.splice(i, 2, lines[i] + lines[i + 1]); descs.push(`lines ${i + 1} and ${i + 2} joined`); atoms.push('lines joined'); } break;
      case 'line': { const l = r.pick(['null', '[]', '1', '"x"', '{}', 'true', '{"schema_version":1}', '{"payload":{"kind":"custom","name":"x"}}', '[{}]', '{"schema_version":2,"seq":0,"depth":0,"recorded_at_unix_ms":0,"payload":{"kind":"custom","name":"x"}}']); lines.splice(i, 0, l); descs.push(`line ${i + 1} = ${l}`); atoms.push(`line=${l.slice(0, 20)}`); break; }
      case 'seq-gap': { let obj; try { obj = JSON.parse(lines[i]); } catch { break; } if (obj && typeof obj === 'object') { obj.seq = (obj.seq ?? 0) + r.pick([2, 5, -1, 1000]); lines[i] = JSON.stringify(obj); descs.push(`line ${i + 1}: seq = ${obj.seq}`); atoms.push('seq gap'); } break; }
      case 'schema': { const v = r.pick([0, 2, 99, -1, 1.5, '1', null]); lines[i] = lines[i].replace(/"schema_version":[^,]*/, `"schema_version":${JSON.stringify(v)}`); descs.push(`line ${i + 1}: schema_version ${JSON.stringify(v)}`); atoms.push(`schema_version=${JSON.stringify(v)}`); break; }
      case 'bom': bom = true; descs.push('a byte-order mark first'); atoms.push('BOM'); break;
      case 'crlf': eol = '\r\n'; descs.push('CRLF line ends'); atoms.push('CRLF'); break;
      case 'cr': eol = '\r'; descs.push('CR-only line ends'); atoms.push('CR'); break;
      case 'huge': { let obj; try { obj = JSON.parse(lines[i]); } catch { break; } if (obj && obj.payload) { obj.payload = { kind: 'custom', name: 'big', data: 'x'.repeat(2_000_000) }; lines[i] = JSON.stringify(obj); descs.push(`line ${i + 1}: a 2 MB custom payload`); atoms.push('huge line'); } break; }
      default: break;
    }
  }
  const text = (bom ? '\ufeff' : '') + lines.join(eol) + (r.chance(0.8) ? eol : '');
  const expr = text.length <= 300 ? JSON.stringify(text) : `${name} with ${descs.join('; ') || 'nothing changed'}`;
  return { v: text, expr, atoms, unknownKeys: [] };
}

function genParse(r, at, V, env) {
  const text = r.weighted([[80, () => mutateJsonl(r, at)], [8, () => { const t = jsonlText(r); return valid(`${t.lines.join('\n')}\n`, t.name); }], [12, () => wild(r, at, '', 'text')]])();
  const optsKind = r.weighted([[40, 'none'], [35, 'lenient'], [10, 'strict'], [15, 'mutated']]);
  const opts = optsKind === 'none' ? null : optsKind === 'lenient' ? valid({ lenient: true }) : optsKind === 'strict' ? valid({ lenient: false }) : r.chance(0.6) ? mutated(r, at, () => ({ lenient: true }), '{ lenient: true }', { closed: [''] }) : wild(r, at, {}, 'opts');
  const lv = opts ? peek(opts.v, 'lenient') : undefined;
  const lenient = lv === true;
  // Only a boolean or absent `lenient` says which shape must come back.
  const shapeKnown = !(opts && opts.atoms.some((a) => /getter|proxy|\(value\)/.test(a))) && (lv === undefined || typeof lv === 'boolean') && !(opts && opts.v !== null && typeof opts.v !== 'object' && opts.v !== undefined);
  const isText = typeof text.v === 'string';
  const expr = `parseTrajectoryJsonl(${text.expr}${opts ? `, ${opts.expr}` : ''})`;
  const after = (res) => {
    const out = [];
    if (!Array.isArray(res) && res && typeof res === 'object' && 'errors' in res) {
      if (!lenient && shapeKnown) return [`{ lenient: true } was not asked for (${opts ? opts.expr : 'no opts'}), yet the lenient shape came back`];
      if (!res || !Array.isArray(res.records) || !Array.isArray(res.errors)) return ['lenient parse did not return { records, errors }'];
      let last = 0;
      for (const e of res.errors) {
        if (!Number.isInteger(e.line) || e.line <= last) { out.push(`lenient errors: line ${show(e.line)} out of order or not a line number`); break; }
        last = e.line;
        if (typeof e.code !== 'string') out.push(`lenient error without code: ${show(e)}`);
        else if (!DOCUMENTED_CODES.has(e.code)) out.push(`lenient error code ${JSON.stringify(e.code)} is not a documented ErrorCode`);
        const p = messageFinding('a lenient bad-line message', e.message);
        if (p) out.push(p);
      }
      out.push(...roundTripProblems(at, res.records, 'the records lenient parse kept').filter((p) => !p.includes('seq')));
      // Strict must agree: same records when there are no errors, else the first bad line.
      if (isText) {
        try {
          const strict = at.parseTrajectoryJsonl(text.v);
          if (res.errors.length) out.push(`strict parse accepts what lenient parse reports bad${SEP}line ${res.errors[0].line}: ${res.errors[0].message}`);
          else { const d = firstDiff(strict, res.records); if (d) out.push(`strict and lenient parse return different records${SEP}${d}`); }
        } catch (e) {
          if (isCoded(e) && res.errors.length && e.line !== res.errors[0].line) out.push(`strict parse fails at another line than lenient parse reports first${SEP}strict: line ${e.line}, lenient: line ${res.errors[0].line}`);
          if (isCoded(e) && !res.errors.length) out.push(`strict parse refuses what lenient parse accepts: ${errShape(e)}${SEP}${describe(e)}`);
        }
      }
      return out;
    }
    if (!Array.isArray(res)) return [`parse returned ${show(res, 60)}`];
    if (lenient && shapeKnown) out.push('{ lenient: true } was asked for, yet an array came back');
    out.push(...roundTripProblems(at, res, 'the parsed records').filter((p) => !p.includes('seq')));
    return out;
  };
  const onCoded = (e) => (isText && ['JSONL_PARSE', 'INVALID_RECORD', 'UNSUPPORTED_SCHEMA_VERSION'].includes(e.code) && !(Number.isInteger(e.line) && e.line >= 1) ? [`${e.code} error without err.line`] : []);
  return { exp: 'parseTrajectoryJsonl', steps: [step('parseTrajectoryJsonl', expr, () => (opts ? at.parseTrajectoryJsonl(text.v, opts.v) : at.parseTrajectoryJsonl(text.v)), { after, onCoded, unknown: unknownOf(opts) })], env, atoms: atomsOf(text, opts) };
}

function genSerialize(r, at, V, env) {
  const n = r.chance(0.3) ? r.int(1, 3) : RECORD_KINDS.length;
  const a = r.weighted([[75, () => mutated(r, at, () => recordList(n), `B.records(${n})`)], [10, () => valid(recordList(), 'B.records()')], [15, () => wild(r, at, [], 'records')]])();
  const after = (text) => {
    if (typeof text !== 'string') return [`returned ${show(text, 60)}`];
    try {
      const back = readBack(at, text);
      if (at.serializeTrajectoryJsonl(back) !== text) return ['serialize → parse → serialize is not byte-identical'];
    } catch (e) { return [`parseTrajectoryJsonl refuses serializeTrajectoryJsonl's output: ${errShape(e)}${SEP}${describe(e)}`]; }
    return [];
  };
  return { exp: 'serializeTrajectoryJsonl', steps: [step('serializeTrajectoryJsonl', `serializeTrajectoryJsonl(${a.expr})`, () => at.serializeTrajectoryJsonl(a.v), { after })], env, atoms: a.atoms };
}

function genNormalize(r, at, V, env) {
  const a = r.weighted([[80, () => mutated(r, at, B['B.messages()'], 'B.messages()')], [5, () => valid(B['B.messages()'](), 'B.messages()')], [15, () => wild(r, at, [], 'messages')]])();
  const after = (out) => {
    if (!Array.isArray(out)) return [`returned ${show(out, 60)}`];
    try {
      const again = at.normalizeMessages(out);
      const d = firstDiff(again, out);
      return d ? [`not idempotent: normalizeMessages(normalizeMessages(x)) differs from normalizeMessages(x)${SEP}${d}`] : [];
    } catch (e) { return [`normalizeMessages refuses its own output: ${errShape(e)}${SEP}${describe(e)}`]; }
  };
  return { exp: 'normalizeMessages', steps: [step('normalizeMessages', `normalizeMessages(${a.expr})`, () => at.normalizeMessages(a.v), { after })], env, atoms: a.atoms };
}

function customObserverFor(r, at, env) {
  const k = r.weighted([[40, 'ok'], [8, 'throws'], [10, 'garbage'], [6, 'bad-assessment'], [4, 'shouldRun-garbage'], [5, 'ctx-hostile'], [5, 'keeps-ctx'], [4, 'reenters'], [3, 'throws-nonerror'], [3, 'slow-async']]);
  const o = customObserver();
  const name = 'mine';
  switch (k) {
    case 'ok': break;
    case 'throws': o.observe = fnx('() => { throw new Error("fuzz: observer threw") }', () => { throw err('observer threw'); }); break;
    case 'throws-nonerror': { const [e, make] = r.pick(THROWN); o.observe = fnx(`() => { throw ${e} }`, () => { throw make(); }); break; }
    case 'garbage': { const [g, ge] = hostile(r, undefined, at); o.observe = fnx(`() => (${ge})`, () => g); break; }
    case 'bad-assessment': {
      const a = mutated(r, at, () => ({ summary: 's', severity: 'caution', observations: [{ category: 'c', description: 'd', evidence: 'e' }], suggestions: ['x'], timestamp: T0 }), 'an assessment');
      o.observe = fnx(`() => (${a.expr})`, () => a.v);
      break;
    }
    case 'shouldRun-garbage': { const [g, ge] = hostile(r, true, at); o.shouldRun = fnx(`() => (${ge})`, () => g); break; }
    case 'ctx-hostile': {
      const method = r.pick(['recentToolCalls', 'toolCallsSince', 'errorRate']);
      const [g, ge] = hostile(r, 1, at);
      o.observe = fnx(`(ctx) => ({ summary: String(ctx.${method}(${ge}).length ?? ctx.${method}(${ge})), severity: "info" })`, (ctx) => { const v = ctx[method](g); return { summary: `n=${Array.isArray(v) ? v.length : v}`, severity: 'info' }; });
      break;
    }
    case 'keeps-ctx': o.observe = fnx('(ctx) => { kept = ctx; return null }', (ctx) => { env.stash.ctx = ctx; return null; }); break;
    case 'reenters': o.observe = fnx('() => { pipeline.recordToolCall(B.toolCall.read()); return null }', () => { env.stash.pipeline.recordToolCall(toolCalls.read()); return null; }); break;
    case 'slow-async': o.observe = fnx('async () => ({ summary: "s", severity: "info" })', async () => ({ summary: 's', severity: 'info' })); break;
    default: break;
  }
  tag(o, `{ name: ${JSON.stringify(name)}, shouldRun: ${show(o.shouldRun)}, observe: ${show(o.observe)} }`);
  return { o, atom: k === 'ok' ? null : `custom observer ${k}` };
}

function genPipeline(r, at, V, env) {
  const cust = customObserverFor(r, at, env);
  const clock = clockFor(r, at, env);
  const onErr = r.chance(0.3) ? behaviour(r, at, env, 'onError', (...a) => { if (a.length >= 2) env.errorsSeen.push(a[0]); }, '(e, observerName) => { errors.push(e) }', { sync: true, okWeight: 70 }) : null;
  const recSink = r.chance(0.25) ? new at.MemorySink() : null;
  const make = () => {
    const o = pipelineOpts(false);
    o.clock = clock.fn;
    o.observers.push({ observer: cust.o, trigger: { onEveryCall: true } });
    if (onErr) o.onError = onErr.fn;
    if (recSink) o.recorder = tag(new at.TrajectoryRecorder(recSink, { clock: () => T0 }), 'new TrajectoryRecorder(new MemorySink(), { clock: () => ' + T0 + ' })');
    return o;
  };
  const mode = r.weighted([[45, 'valid'], [45, 'mutated'], [10, 'wild']]);
  const opts = mode === 'valid' ? valid(make()) : mode === 'mutated' ? mutated(r, at, make, null, { closed: PIPELINE_CLOSED, numeric: PIPELINE_NUMERIC }) : wild(r, at, {}, 'opts');
  // The valid options, written as what they add to B.pipelineOpts(false).
  const named = `{ ...B.pipelineOpts(false), clock: ${show(clock.fn)}, observers: [...B.pipelineOpts(false).observers, { observer: ${show(cust.o)}, trigger: { onEveryCall: true } }]${onErr ? `, onError: ${show(onErr.fn)}` : ''}${recSink ? ', recorder: new TrajectoryRecorder(new MemorySink(), { clock: () => T0 })' : ''} }`;
  if (mode === 'valid') opts.expr = named;
  else if (mode === 'mutated' && opts.expr.startsWith('[')) opts.expr = `${opts.expr.slice(0, opts.expr.indexOf('] in ') + 5)}${named}`;
  const atoms = [...atomsOf(opts), ...(cust.atom ? [cust.atom] : []), ...(clock.atom ? [clock.atom] : []), ...(onErr?.atom ? [onErr.atom] : [])];
  const steps = [step('ObserverPipeline', `pipeline = new ObserverPipeline(${opts.expr})`, () => { env.stash.pipeline = new at.ObserverPipeline(opts.v); }, { unknown: unknownOf(opts), stopOnError: true })];
  const n = r.int(2, 9);
  const toolKinds = Object.keys(toolCalls);
  for (let i = 0; i < n; i++) {
    const op = r.weighted([[40, 'call'], [14, 'callMut'], [7, 'tokens'], [6, 'budget'], [6, 'context'], [3, 'current'], [7, 'inject'], [4, 'recent'], [5, 'snapshot'], [4, 'restore'], [3, 'getters'], [cust.atom === 'custom observer keeps-ctx' ? 6 : 0, 'staleCtx'], [1, 'free']]);
    if (op === 'call' || op === 'callMut') {
      const k = r.pick(toolKinds);
      const a = op === 'call' ? valid(toolCalls[k](i)) : r.chance(0.85) ? mutated(r, at, () => toolCalls[k](i), `B.toolCall.${k}()`, { closed: [''] }) : wild(r, at, {}, 'call');
      atoms.push(...a.atoms);
      steps.push(step('ObserverPipeline.recordToolCall', `pipeline.recordToolCall(${a.expr})`, () => env.stash.pipeline.recordToolCall(a.v), {
        unknown: unknownOf(a),
        after: (cur) => {
          if (cur === undefined) return [];
          const out = [];
          if (!cur || !Array.isArray(cur.assessments)) return [`recordToolCall returned ${show(cur, 80)}`];
          for (const as of cur.assessments) {
            for (const s of [as.summary, ...(as.observations ?? []).map((o) => o.description), ...(as.observations ?? []).map((o) => o.evidence ?? 'x')]) {
              const p = messageProblem(s);
              if (p && !(p === 'is empty' && as.observerName === 'mine')) { out.push(`assessment text (${as.observerName}) ${p}${SEP}${show(s, 200)}`); break; }
            }
          }
          return out;
        },
      }));
    } else if (op === 'tokens') {
      const a = r.chance(0.4) ? valid(1200) : wild(r, at, 1, 'n');
      atoms.push(...a.atoms);
      steps.push(step('ObserverPipeline.recordTokens', `pipeline.recordTokens(${a.expr})`, () => env.stash.pipeline.recordTokens(a.v)));
    } else if (op === 'budget') {
      const a = r.chance(0.25) ? valid(budget()) : r.chance(0.8) ? mutated(r, at, budget, 'B.budget()', { closed: [''], numeric: BUDGET_NUMERIC }) : wild(r, at, {}, 'budget');
      atoms.push(...a.atoms);
      steps.push(step('ObserverPipeline.setBudget', `pipeline.setBudget(${a.expr})`, () => env.stash.pipeline.setBudget(a.v), { unknown: unknownOf(a) }));
    } else if (op === 'context') steps.push(step('ObserverPipeline.context', 'pipeline.context()', () => env.stash.pipeline.context(), { after: (c) => (typeof c !== 'string' ? [`context() returned ${show(c, 40)}`] : c ? [messageFinding('context()', c)].filter(Boolean) : []) }));
    else if (op === 'current') steps.push(step('ObserverPipeline.current', 'pipeline.current()', () => env.stash.pipeline.current()));
    else if (op === 'inject') {
      const m = r.chance(0.5) ? valid([msg.system(), msg.user()]) : r.chance(0.8) ? mutated(r, at, () => [msg.system(), msg.user(), msg.assistantParts(), msg.toolResult()], 'B.messages().slice(0, 4)') : wild(r, at, [], 'messages');
      const o = r.weighted([[40, () => null], [30, () => valid({ position: r.pick(['end', 'after-system']) })], [20, () => mutated(r, at, () => ({ position: 'after-system' }), '{ position: "after-system" }', { closed: [''] })], [10, () => wild(r, at, {}, 'opts')]])();
      atoms.push(...atomsOf(m, o));
      steps.push(step('ObserverPipeline.injectInto', `pipeline.injectInto(${m.expr}${o ? `, ${o.expr}` : ''})`, () => (o ? env.stash.pipeline.injectInto(m.v, o.v) : env.stash.pipeline.injectInto(m.v)), {
        unknown: unknownOf(o),
        after: (out) => (!Array.isArray(out) ? [`injectInto returned ${show(out, 60)}`] : out.length < (Array.isArray(m.v) ? m.v.length : 0) ? ['injectInto dropped messages'] : []),
      }));
    } else if (op === 'recent') {
      const a = r.chance(0.4) ? valid(3) : wild(r, at, 1, 'n');
      atoms.push(...a.atoms);
      steps.push(step('ObserverPipeline.recentToolCalls', `pipeline.recentToolCalls(${a.expr})`, () => env.stash.pipeline.recentToolCalls(a.v)));
    } else if (op === 'snapshot') steps.push(step('ObserverPipeline.snapshot', 'snap = pipeline.snapshot()', () => { env.stash.snap = env.stash.pipeline.snapshot(); return env.stash.snap; }));
    else if (op === 'restore') {
      const s = r.chance(0.5) ? { v: null, expr: 'pipeline.snapshot()', atoms: [] } : mutated(r, at, () => env.stash.pipeline ? env.stash.pipeline.snapshot() : clone(V.snapshot), 'pipeline.snapshot()');
      // The mutated snapshot is made when the step runs (it needs the live pipeline), so its expression is built then too.
      const lazy = s.v === null ? null : { seed: r.int(0, 2 ** 30) };
      atoms.push(lazy ? 'restore(mutated snapshot)' : 'restore(snapshot)');
      const st = step('ObserverPipeline.restore', '', () => {
        let snap = env.stash.pipeline.snapshot();
        if (lazy) {
          const m = mutated(new Rng(lazy.seed), at, () => snap, 'pipeline.snapshot()');
          snap = m.v;
          st.expr = `pipeline = ObserverPipeline.restore(${m.expr}, <the same opts>)`;
        }
        env.stash.pipeline = at.ObserverPipeline.restore(snap, opts.v);
      });
      st.expr = lazy ? 'pipeline = ObserverPipeline.restore(<pipeline.snapshot(), mutated>, <the same opts>)' : 'pipeline = ObserverPipeline.restore(pipeline.snapshot(), <the same opts>)';
      steps.push(st);
    } else if (op === 'getters') steps.push(step('ObserverPipeline getters', '[pipeline.budget, pipeline.state, pipeline.callCount]', () => { const p = env.stash.pipeline; return [p.budget, p.state, p.callCount]; }));
    else if (op === 'staleCtx') {
      const method = r.pick(['recentToolCalls', 'toolCallsSince', 'errorRate', 'budget', 'state', 'callIndex']);
      const [g, ge] = hostile(r, 1, at);
      const call = ['budget', 'state', 'callIndex'].includes(method) ? `kept.${method}` : `kept.${method}(${ge})`;
      steps.push(step('ObserverContext (kept after observe)', call, () => { const c = env.stash.ctx; if (!c) return null; return typeof c[method] === 'function' ? c[method](g) : c[method]; }));
    } else steps.push(step('ObserverPipeline.free', 'pipeline.free(); pipeline.context()', () => { env.stash.pipeline.free(); env.stash.freed = true; return env.stash.pipeline.context(); }, { stopAfter: true }));
  }
  const final = () => {
    const out = [];
    const p = env.stash.pipeline;
    for (const e of env.errorsSeen) if (!isCoded(e)) { out.push(`onError was handed a non-coded error${SEP}${describe(e)}`); break; }
    if (!p || env.stash.freed || atoms.some((a) => a.includes('getter-flips') || a.includes('proxy') || a.includes('mutated snapshot'))) return out;
    let snap;
    try { snap = p.snapshot(); } catch (e) { if (isCoded(e)) out.push(`snapshot() refuses: ${errShape(e)}${SEP}${describe(e)}`); return out; }
    let json;
    try { json = JSON.parse(JSON.stringify(snap)); } catch (e) { out.push(`snapshot() is not JSON-safe: ${e.message}`); return out; }
    const d = firstDiff(json, snap);
    if (d) out.push(`snapshot() is not JSON-safe: a JSON round trip changes it${SEP}${d}`);
    try {
      const q = at.ObserverPipeline.restore(json, opts.v);
      const d2 = firstDiff(q.snapshot(), snap);
      if (d2) out.push(`ObserverPipeline.restore(snapshot()).snapshot() differs from snapshot()${SEP}${d2}`);
      if (q.context() !== p.context()) out.push('the restored pipeline\'s context() differs');
      q.free();
    } catch (e) { out.push(`ObserverPipeline.restore refuses the pipeline's own snapshot(): ${errShape(e)}${SEP}${describe(e)}`); }
    if (recSink) out.push(...roundTripProblems(at, recSink.records(), 'the assessment_produced records'));
    return out;
  };
  return { exp: 'ObserverPipeline', steps, env, atoms, final, finalExp: 'ObserverPipeline.snapshot/restore' };
}

function genRestore(r, at, V, env) {
  const s = r.chance(0.9) ? mutated(r, at, () => clone(V.snapshot), 'V.snapshot (a valid snapshot() after 6 calls)') : wild(r, at, {}, 'snapshot');
  const o = r.chance(0.8) ? valid(pipelineOpts(false), 'B.pipelineOpts(false)') : r.chance(0.5) ? mutated(r, at, () => pipelineOpts(false), 'B.pipelineOpts(false)', { closed: PIPELINE_CLOSED }) : wild(r, at, {}, 'opts');
  const steps = [
    step('ObserverPipeline.restore', `p = ObserverPipeline.restore(${s.expr}, ${o.expr})`, () => { env.stash.p = at.ObserverPipeline.restore(s.v, o.v); }, { stopOnError: true, unknown: unknownOf(o) }),
    step('ObserverPipeline.recordToolCall', 'p.recordToolCall(B.toolCall.failing())', () => env.stash.p.recordToolCall(toolCalls.failing())),
    step('ObserverPipeline.context', 'p.context()', () => env.stash.p.context()),
    step('ObserverPipeline.snapshot', 'ObserverPipeline.restore(p.snapshot(), opts)', () => at.ObserverPipeline.restore(env.stash.p.snapshot(), o.v), {
      // Options whose getters answer differently the second time are other options then.
      onCoded: (e) => ((o.atoms ?? []).some((a) => /getter|proxy/i.test(a)) ? [] : [`restore refuses a snapshot() of a pipeline it restored: ${errShape(e)}${SEP}${describe(e)}`]),
    }),
  ];
  return { exp: 'ObserverPipeline.restore', steps, env, atoms: atomsOf(s, o) };
}

// ---- generation ----------------------------------------------------------------

function agentFor(r, at, env, never, def) {
  const variants = [
    ['async (h) => ({ messages: [{ role: "assistant", content: `reply ${h.length}` }] })', async (h) => ({ messages: [{ role: 'assistant', content: `reply ${h.length}` }] })],
    ['async () => [{ role: "assistant", content: "ok" }]', async () => [{ role: 'assistant', content: 'ok' }]],
    ['() => ({ messages: [assistant with a tool call, its tool result, "done"] })', () => ({ messages: [msg.assistantParts(), msg.toolResult(), { role: 'assistant', content: 'done' }] })],
    ['async () => ({ messages: [AI SDK 4 call + result, shorthand call + error result, "ok"] })', async () => ({ messages: [msg.sdk4Call(), msg.sdk4Result(), msg.shorthand(), msg.errorText(), { role: 'assistant', content: 'ok' }] })],
    ['async () => ({ messages: [{ role: "assistant", content: "" }] })', async () => ({ messages: [{ role: 'assistant', content: '' }] })],
    ['async () => ({ messages: [failing tool call + error result, "retrying"] })', async () => ({ messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'f1', toolName: 'run_tests', input: { path: 'tests/a.py' } }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'f1', toolName: 'run_tests', output: { type: 'error-text', value: 'AssertionError at tests/a.py:3' } }] }, { role: 'assistant', content: 'retrying' }] })],
  ];
  const [goodExpr, good] = r.pick(variants);
  let b;
  if (r.chance(0.12)) {
    // A reply that looks right but carries a mutated message.
    const m = mutated(r, at, () => [msg.assistantParts(), msg.toolResult(), msg.assistant()], '[B.messages().assistantParts, .toolResult, .assistant]');
    b = { fn: fnx(`async () => ({ messages: ${m.expr} })`, async () => { env.tick('agent'); return { messages: m.v }; }), atom: `agent replies ${m.atoms.join(', ')}` };
  } else b = behaviour(r, at, env, 'agent', good, goodExpr, { never });
  const agent = { respond: b.fn };
  tag(agent, `{ respond: ${show(b.fn)} }`);
  return { agent, atom: b.atom, never: b.never };
}

/**
 * The simulated user of the runs: `B.user(rank, reply, ids)`. `rank` is how
 * it answers the ranker ('none', 'all', 'not json', 'ghost', 'huge scores',
 * 'alternate': one step after the other, for cycles); `reply` the shape of
 * its messages ('string', '{text}', '{text,usage}').
 */
export function user(rank = 'none', reply = 'string', ids = []) {
  let n = 0;
  let turn = 0;
  const ranked = () => {
    switch (rank) {
      case 'all': return JSON.stringify({ candidates: ids.map((id, i) => ({ stepId: id, score: 1 - i / 10, reasons: ['fits'] })) });
      case 'not json': return 'not json at all';
      case 'ghost': return JSON.stringify({ candidates: [{ stepId: 'ghost', score: 2 }, { stepId: ids[0], score: 'high' }] });
      case 'huge scores': return JSON.stringify({ candidates: ids.map((id) => ({ stepId: id, score: 1e300 })) });
      case 'alternate': return JSON.stringify({ candidates: [{ stepId: ids[1 + (turn++ % Math.max(1, ids.length - 1))], score: 0.9 }] });
      default: return '{"candidates":[]}';
    }
  };
  const message = (k) => (reply === 'string' ? `user message ${k}` : reply === '{text}' ? { text: `user message ${k}` } : { text: `hi ${k}`, usage: { inputTokens: 10, outputTokens: 3 } });
  return (req) => (req && req.purpose === 'rank-steps' ? ranked() : message(++n));
}

function userModelFor(r, at, env, never, ids) {
  const rank = ids.length > 1 && r.chance(0.4) ? 'alternate' : r.pick(['none', 'all', 'not json', 'ghost', 'huge scores']);
  const reply = r.pick(['string', '{text}', '{text,usage}']);
  const good = user(rank, reply, ids);
  const goodExpr = `B.user(${JSON.stringify(rank)}, ${JSON.stringify(reply)}${rank === 'none' || rank === 'not json' ? '' : `, ${JSON.stringify(ids)}`})`;
  const b = behaviour(r, at, env, 'userModel', good, goodExpr, { never });
  return { fn: b.fn, atom: b.atom, never: b.never };
}

function policyFor(r, at, env, never) {
  const k = r.weighted([[55, 'none'], [6, 'DefaultPolicy'], [6, 'defers'], [7, 'never-stops'], [4, 'undefined'], [5, 'stops'], [10, 'hostile'], [7, 'mutated-decision']]);
  const D = () => new at.DefaultPolicy();
  switch (k) {
    case 'none': return { v: undefined, atom: null };
    case 'DefaultPolicy': return { v: tag(D(), 'new DefaultPolicy()'), atom: 'policy: DefaultPolicy' };
    case 'defers': return { v: tag({ evaluate: (ctx) => { env.tick('policy'); return D().evaluate(ctx); } }, '{ evaluate: (ctx) => new DefaultPolicy().evaluate(ctx) }'), atom: 'policy: defers to DefaultPolicy' };
    case 'never-stops': { const sync = r.chance(0.5); return { v: fnx(sync ? '() => ({ stop: false })' : 'async () => ({ stop: false })', sync ? () => { env.tick('policy'); return { stop: false }; } : async () => { env.tick('policy'); return { stop: false }; }), atom: 'policy never stops' }; }
    case 'undefined': return { v: fnx('() => undefined', () => { env.tick('policy'); return undefined; }), atom: 'policy returns undefined' };
    case 'stops': return { v: fnx('(ctx) => (ctx.turnIndex >= 1 ? { stop: true, reason: "policy-violation", summary: "leak" } : ctx.defaultDecision)', (ctx) => { env.tick('policy'); return ctx.turnIndex >= 1 ? { stop: true, reason: 'policy-violation', summary: 'leak' } : ctx.defaultDecision; }), atom: 'policy stops at turn 1' };
    case 'mutated-decision': {
      const m = mutated(r, at, () => ({ stop: true, reason: 'policy-violation', completed: false, summary: 'leak' }), '{ stop: true, reason: "policy-violation", completed: false, summary: "leak" }');
      return { v: fnx(`() => (${m.expr})`, () => { env.tick('policy'); return m.v; }), atom: `policy decision ${m.atoms.join(', ')}` };
    }
    default: {
      const b = behaviour(r, at, env, 'policy', (ctx) => ctx.defaultDecision, '(ctx) => ctx.defaultDecision', { never, okWeight: 0 });
      return { v: r.chance(0.5) ? b.fn : tag({ evaluate: b.fn }, `{ evaluate: ${show(b.fn)} }`), atom: b.atom, never: b.never };
    }
  }
}

function decorateSteps(r, at, env, def, never) {
  const atoms = [];
  let nev = false;
  const steps = def.steps?.steps;
  if (!Array.isArray(steps) || steps.length > 100) return { atoms, never: false };
  for (const s of steps) {
    if (r.chance(0.1)) {
      const b = behaviour(r, at, env, 'isSatisfied', (ctx) => Boolean(ctx && ctx.step), '(ctx) => Boolean(ctx.step)', { never, okWeight: 50 });
      s.isSatisfied = b.fn;
      if (b.atom) atoms.push(b.atom);
      nev ||= b.never;
    }
    if (r.chance(0.1)) {
      const b = behaviour(r, at, env, 'precondition', (ctx) => Array.isArray(ctx.stepTraces), '(ctx) => Array.isArray(ctx.stepTraces)', { never, okWeight: 50 });
      s.preconditions = [...(s.preconditions ?? []), { type: 'custom', name: 'db', evaluate: b.fn }];
      if (b.atom) atoms.push(b.atom);
      nev ||= b.never;
    }
    if (r.chance(0.08)) { s.timeoutMs = r.pick([1, 5, 20]); atoms.push(`timeoutMs ${s.timeoutMs}`); }
  }
  return { atoms, never: nev };
}

function defFor(r) {
  const k = r.weighted([[32, 'chain'], [25, 'free'], [30, 'bare'], [10, 'readme'], [0.6, 'chain2000'], [0.1, 'chain50000']]);
  if (k === 'chain') return { def: chainDef(), name: 'B.chainDef()' };
  if (k === 'free') return { def: freeDef(), name: 'B.freeDef()' };
  if (k === 'bare') return { def: bareDef(), name: 'B.bareDef()' };
  if (k === 'readme') {
    const d = chainDef();
    d.steps.steps.pop();
    d.steps.terminals = ['ask'];
    delete d.conversationId;
    return { def: d, name: 'the README definition' };
  }
  const n = k === 'chain2000' ? 2000 : 50_000;
  const steps = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, instruction: `do ${i}`, ...(i ? { preconditions: [{ type: 'stepSatisfied', stepId: `s${i - 1}` }] } : {}) }));
  return { def: tag({ goal: 'g', persona: { description: 'd' }, maxTurns: 3, steps: { steps, start: 's0', terminals: [`s${n - 1}`] } }, `{ goal: "g", persona: { description: "d" }, maxTurns: 3, steps: { steps: ${n} chained steps s0 → s${n - 1} (each with a stepSatisfied precondition on the one before), start: "s0", terminals: ["s${n - 1}"] } }`), name: `a ${n}-step chain`, huge: true };
}

const STOP_REASONS = new Set(['goal-reached', 'max-turns', 'policy-violation', 'agent-loop', 'no-step-match', 'error', 'aborted']);
const SIDES = new Set(['user-simulator', 'agent', 'ranker', 'precondition', 'satisfaction', 'policy', 'observer', 'recorder', 'clock']);

/** Problems of a result runTrajectory returned. */
export function resultProblems(at, res, { maxTurns } = {}) {
  const out = [];
  if (!res || typeof res !== 'object' || !Array.isArray(res.steps)) return [`runTrajectory resolved with ${show(res, 80)}`];
  const end = res.end;
  if (!end || typeof end !== 'object') out.push('the result has no end');
  else {
    if (!STOP_REASONS.has(end.reason)) out.push(`end.reason is ${show(end.reason)}`);
    if (typeof end.completed !== 'boolean') out.push(`end.completed is ${show(end.completed)}`);
    // A policy's stop carries the policy's own summary, blank or not; the package's own summaries are checked.
    if (end.summary !== undefined && end.summary.trim() !== '') { const p = messageFinding('end.summary', end.summary); if (p) out.push(p); }
    if (end.reason === 'error') {
      const e = end.error;
      if (!e || typeof e.code !== 'string') out.push(`end.error without a code: ${show(e, 120)}`);
      else {
        if (!DOCUMENTED_CODES.has(e.code)) out.push(`end.error.code ${JSON.stringify(e.code)} is not a documented ErrorCode`);
        const p = messageFinding('end.error.message', e.message);
        if (p) out.push(p);
        if (!SIDES.has(e.side)) out.push(`end.error.side is ${show(e.side)}`);
      }
    }
    if (res.steps.length) { const d = firstDiff(res.steps[res.steps.length - 1].end, end); if (d) out.push(`the last trace's end differs from result.end at ${d}`); }
  }
  res.steps.forEach((s, i) => {
    if (s.turnIndex !== i && out.length < 3) out.push(`steps[${i}].turnIndex is ${show(s.turnIndex)}`);
    if (typeof s.timestamp === 'string' && out.length < 3) {
      const t = Date.parse(s.timestamp);
      if (Number.isNaN(t) || new Date(t).toISOString() !== s.timestamp) out.push(`a StepTrace.timestamp is not an ISO 8601 date JS can read${SEP}steps[${i}].timestamp ${show(s.timestamp)}`);
    }
    if (s.selection?.rankerError !== undefined && out.length < 3) { const p = messageFinding('selection.rankerError', s.selection.rankerError); if (p) out.push(p); }
  });
  if (Number.isInteger(maxTurns) && maxTurns >= 1 && res.steps.length > maxTurns) out.push(`the result has more turns than maxTurns${SEP}${res.steps.length} turns with maxTurns ${maxTurns}`);
  return out;
}

function genRun(r, at, V, env) {
  const { def, name: defName, huge } = defFor(r);
  if (!huge && 'maxTurns' in def) def.maxTurns = r.int(1, 6);
  // Decide first whether a callback may never settle: then the run gets a signal.
  const mayNever = r.chance(0.12);
  const dec = huge ? { atoms: [], never: false } : decorateSteps(r, at, env, def, mayNever);
  const ids = Array.isArray(def.steps?.steps) ? def.steps.steps.slice(0, 5).map((s) => s.id) : [];
  const ag = agentFor(r, at, env, mayNever, def);
  const um = userModelFor(r, at, env, mayNever, ids);
  const pol = policyFor(r, at, env, mayNever);
  const clock = r.chance(0.45) ? null : clockFor(r, at, env);
  const sink = r.chance(0.6) ? null : sinkFor(r, at, env, { never: mayNever });
  const never = ag.never || um.never || pol.never || dec.never || (sink && sink.never);
  const atoms = [...dec.atoms, ag.atom, um.atom, pol.atom, clock?.atom, ...(sink ? sink.atoms : [])].filter(Boolean);
  const opts = { userModel: um.fn };
  if (clock) opts.clock = clock.fn;
  if (sink) opts.sink = sink.v;
  if (r.chance(0.2)) opts.onSinkError = r.pick(['drop', 'fail']);
  if (r.chance(0.12)) {
    const b = behaviour(r, at, env, 'onRecord', () => {}, '() => {}', { sync: true, okWeight: 60 });
    opts.onRecord = b.fn;
    if (b.atom) atoms.push(b.atom);
  }
  const obs = r.weighted([[76, 'none'], [11, 'opts'], [7, 'instance'], [3, 'array'], [3, 'wild']]);
  if (obs === 'opts') { const o = pipelineOpts(false); o.observers.push({ observer: customObserverFor(r, at, env).o, trigger: { onEveryCall: true } }); opts.observers = o; }
  else if (obs === 'instance') opts.observers = tag(new at.ObserverPipeline(pipelineOpts(false)), 'new ObserverPipeline(B.pipelineOpts(false))');
  else if (obs === 'array') opts.observers = pipelineOpts(false).observers;
  else if (obs === 'wild') { const w = wild(r, at, {}, 'observers'); opts.observers = w.v; atoms.push(...w.atoms); }
  if (pol.v !== undefined) opts.policy = pol.v;
  if (r.chance(0.1)) opts.runId = 'run-fuzz';
  // The signal: always when a callback may never settle.
  let signalKind = never ? 'timer' : r.weighted([[75, 'none'], [12, 'timer'], [6, 'aborted'], [7, 'hostile']]);
  if (signalKind === 'timer') {
    const ms = r.pick([5, 10, 20, 30]);
    const ac = new AbortController();
    opts.signal = tag(ac.signal, `AbortSignal.timeout(${ms})`);
    env.signalMs = ms;
    env.arms.push(() => env.later(ms, () => { env.signalFired = true; ac.abort(err('timeout')); }));
  } else if (signalKind === 'aborted') opts.signal = tag(AbortSignal.abort(), 'AbortSignal.abort()');
  else if (signalKind === 'hostile') {
    const h = r.pick([
      () => tag({ aborted: 'yes' }, '{ aborted: "yes" }'),
      () => tag({ aborted: false }, '{ aborted: false } (no addEventListener)'),
      () => tag({ get aborted() { throw err('aborted getter'); }, addEventListener() {}, removeEventListener() {} }, '{ get aborted() { throw new Error("fuzz: aborted getter") }, addEventListener() {}, removeEventListener() {} }'),
      () => tag({ aborted: false, addEventListener() { throw err('addEventListener'); }, removeEventListener() {} }, '{ aborted: false, addEventListener() { throw new Error("fuzz: addEventListener") }, removeEventListener() {} }'),
      () => tag({ aborted: true, reason: 5n, addEventListener() {}, removeEventListener() {} }, '{ aborted: true, reason: 5n, addEventListener() {}, removeEventListener() {} }'),
    ])();
    opts.signal = h;
    atoms.push(`signal ${show(h, 40)}`);
  }
  if (signalKind !== 'none') atoms.push(`signal: ${signalKind}`);
  // Then mutate the definition or the options (or neither).
  const target = r.weighted([[45, 'def'], [30, 'opts'], [25, 'none']]);
  let defArg = valid(def, huge ? show(def) : `${defName}${dec.atoms.length ? ` (with ${dec.atoms.join(', ')})` : ''}`);
  if (!huge && defArg.expr.length < 400) defArg.expr = show(def, 400);
  let optsArg = valid(opts, show(opts, 600));
  const skipNever = never ? (p) => p === 'signal' || p.startsWith('signal.') || p.endsWith('timeoutMs') : undefined;
  if (target === 'def' && !huge) defArg = mutated(r, at, () => def, null, { closed: DEF_CLOSED, skip: skipNever, numeric: DEF_NUMERIC });
  else if (target === 'opts') optsArg = mutated(r, at, () => opts, null, { closed: RUN_CLOSED, skip: skipNever });
  atoms.push(...defArg.atoms, ...optsArg.atoms);
  const viaCreate = r.chance(0.6);
  const maxTurns = !atomsOf(defArg).some((a) => a.startsWith('maxTurns') || a.startsWith('(value)')) ? (peek(defArg.v, 'maxTurns') ?? 20) : undefined;
  env.maxTurns = Number.isSafeInteger(maxTurns) && maxTurns > 0 ? maxTurns : null;
  if (huge) env.turnSlack = 100; // turns are slow with thousands of steps
  const steps = [];
  if (viaCreate) {
    steps.push(step('createTrajectory', `t = createTrajectory(${defArg.expr}, ${show(ag.agent)})`, () => { env.stash.t = at.createTrajectory(defArg.v, ag.agent); }, { unknown: unknownOf(defArg), stopOnError: true }));
  }
  const tExpr = viaCreate ? 't' : `{ ...${defArg.expr}, agent: ${show(ag.agent)} }`;
  steps.push(step('runTrajectory', `await runTrajectory(${tExpr}, ${optsArg.expr})`, () => {
    let t = viaCreate ? env.stash.t : defArg.v;
    if (!viaCreate) { try { Object.defineProperty(t, 'agent', { value: ag.agent, enumerable: true, configurable: true, writable: true }); } catch { /* frozen, revoked, or not an object: passed as it is */ } }
    env.arm();
    return at.runTrajectory(t, optsArg.v);
  }, {
    unknown: unknownOf(optsArg, viaCreate ? null : defArg),
    after: (res) => {
      env.stash.result = res;
      return resultProblems(at, res, { maxTurns: env.maxTurns });
    },
  }));
  // The package must accept the result it produced.
  const exportsOfResult = [
    ['toJSONL', 'toJSONL(result)', () => at.toJSONL(env.stash.result), (ls) => (Array.isArray(ls) && ls.every((l) => { try { JSON.parse(l); return true; } catch { return false; } }) ? [] : ['toJSONL returned lines that are not JSON'])],
    ['toConversation', 'toConversation(result)', () => at.toConversation(env.stash.result), () => []],
    ['summarize', 'summarize(result)', () => at.summarize(env.stash.result), (s) => [messageFinding('summarize(result)', s)].filter(Boolean)],
    ['toArtifacts', 'toArtifacts(result, t)', () => at.toArtifacts(env.stash.result, viaCreate ? env.stash.t : defArg.v), () => []],
  ];
  // toArtifacts also reads the definition: one that traps (a Proxy, a getter
  // that throws) may be refused there, though the run could read around it.
  const hostileDef = !viaCreate && (defArg.atoms ?? []).some((a) => /proxy|getter|__proto__|defineProperty/i.test(a)) || /__proto__|getter|Proxy/.test(defArg.expr ?? '');
  for (const [exp, expr, run, after] of exportsOfResult) {
    const refused = (e) => (env.stash.result && !(exp === 'toArtifacts' && hostileDef) ? [`${exp} refuses a result runTrajectory produced: ${errShape(e)}${SEP}${describe(e)}`] : []);
    steps.push(step(exp, expr, () => (env.stash.result ? run() : undefined), { after: (v) => (env.stash.result ? after(v) : []), onCoded: refused }));
  }
  const final = () => {
    const out = [];
    if (!env.stash.result) return out;
    if (sink?.memory) out.push(...roundTripProblems(at, sink.memory.records(), 'the run\'s MemorySink records'));
    if (sink?.got) out.push(...roundTripProblems(at, sink.got, 'the records the run\'s JS sink received'));
    // A run's records end with run_ended: only the sink itself failing (or a
    // clock that cannot stamp it) may keep it out, and the result says so.
    const side = env.stash.result.end?.error?.side;
    const got = sink?.memory ? sink.memory.records() : sink?.got;
    if (got?.length && side !== 'recorder' && side !== 'clock' && got.at(-1)?.payload?.kind !== 'run_ended') {
      out.push(`the run's records do not end with run_ended${SEP}the last is ${show(got.at(-1)?.payload?.kind)}; the run ended ${show(env.stash.result.end?.reason)}${side ? ` (side ${side})` : ''}`);
    }
    return out;
  };
  return { exp: 'runTrajectory', steps, env, atoms, final, async: true, slow: huge };
}

function genCreate(r, at, V, env) {
  const { def, name, huge } = defFor(r);
  const dec = huge ? { atoms: [] } : decorateSteps(r, at, env, def, false);
  const d = huge || r.chance(0.1) ? valid(def, show(def)) : r.chance(0.9) ? mutated(r, at, () => def, dec.atoms.length ? null : name, { closed: DEF_CLOSED, numeric: DEF_NUMERIC }) : wild(r, at, {}, 'def');
  const agent = r.weighted([[80, () => valid(tag({ respond: async () => [] }, '{ respond: async () => [] }'))], [10, () => mutated(r, at, () => ({ respond: fnx('async () => []', async () => []) }), '{ respond: async () => [] }')], [10, () => wild(r, at, {}, 'agent')]])();
  const after = (t) => (t && t.agent === agent.v ? [] : ['createTrajectory did not return the definition bound to the agent']);
  return { exp: 'createTrajectory', steps: [step('createTrajectory', `createTrajectory(${d.expr}, ${agent.expr})`, () => at.createTrajectory(d.v, agent.v), { unknown: unknownOf(d), after })], env, atoms: [...dec.atoms, ...atomsOf(d, agent)], slow: huge };
}

function resultArg(r, at, V) {
  const k = r.weighted([[45, 'good'], [20, 'failed'], [10, 'empty'], [25, 'wild']]);
  if (k === 'wild') return wild(r, at, {}, 'result');
  const make = k === 'good' ? () => clone(V.result) : k === 'failed' ? () => clone(V.failed) : () => ({ steps: [] });
  const name = k === 'good' ? 'V.result (a goal-reached run of B.chainDef())' : k === 'failed' ? 'V.failed (a run whose agent threw)' : '{ steps: [] }';
  return r.chance(0.85) ? mutated(r, at, make, name) : valid(make(), name);
}

function genExport(r, at, V, env, exp) {
  const res = resultArg(r, at, V);
  let second = null;
  if (exp === 'toConversation' && r.chance(0.5)) second = r.chance(0.5) ? valid(r.pick(['conv-9', null, undefined])) : wild(r, at, 'x', 'conversationId');
  if (exp === 'toArtifacts' || exp === 'writeArtifacts') second = r.chance(0.6) ? valid(chainDef(), 'B.chainDef()') : r.chance(0.7) ? mutated(r, at, chainDef, 'B.chainDef()') : wild(r, at, {}, 'def');
  const args = second ? [res.v, second.v] : [res.v];
  const expr = `${exp}(${res.expr}${second ? `, ${second.expr}` : ''})`;
  const after = {
    toJSONL: (ls) => (Array.isArray(ls) && ls.every((l) => { try { JSON.parse(l); return true; } catch { return false; } }) ? [] : [`toJSONL returned ${show(ls, 60)}`]),
    toConversation: (c) => (c && typeof c.id === 'string' && Array.isArray(c.steps) ? [] : [`toConversation returned ${show(c, 80)}`]),
    summarize: (s) => [messageFinding('summarize(result)', s)].filter(Boolean),
    toArtifacts: (a) => {
      try { JSON.parse(a['stepTraces.json']); JSON.parse(a['trajectory.meta.json']); return []; } catch (e) { return [`toArtifacts wrote JSON that does not parse: ${e.message}`]; }
    },
    writeArtifacts: () => [],
  }[exp];
  const run = exp === 'writeArtifacts'
    ? async () => {
      const { mkdtemp, rm } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dir = await mkdtemp(join(tmpdir(), 'fuzz-artifacts-'));
      try { return await at.writeArtifacts(join(dir, 'out'), ...args); } finally { await rm(dir, { recursive: true, force: true }); }
    }
    : () => at[exp](...args);
  return { exp, steps: [step(exp, exp === 'writeArtifacts' ? `await writeArtifacts(<a temp dir>, ${expr.slice('writeArtifacts('.length)}` : expr, run, { after })], env, atoms: atomsOf(res, second), async: exp === 'writeArtifacts' };
}

function genPolicy(r, at, V, env) {
  const ctx = r.weighted([[75, () => mutated(r, at, policyCtx, 'B.policyCtx()')], [10, () => valid(policyCtx(), 'B.policyCtx()')], [15, () => wild(r, at, {}, 'ctx')]])();
  const ctor = r.chance(0.1) ? wild(r, at, {}, 'ctor arg') : null;
  return { exp: 'DefaultPolicy', steps: [step('DefaultPolicy.evaluate', `new DefaultPolicy(${ctor ? ctor.expr : ''}).evaluate(${ctx.expr})`, () => new at.DefaultPolicy(ctor?.v).evaluate(ctx.v))], env, atoms: atomsOf(ctx, ctor) };
}

function genKey(r, at, V, env) {
  const req = r.weighted([[75, () => mutated(r, at, request, 'B.request()')], [10, () => valid(request(), 'B.request()')], [15, () => wild(r, at, {}, 'request')]])();
  const after = (k) => {
    if (typeof k !== 'string' || !/^[0-9a-f]{16}$/.test(k)) return [`modelRequestKey returned a key that is not 16 hex digits${SEP}${show(k)}`];
    let copy;
    // A getter may answer differently each time it is read: no clone can be compared then.
    if (req.atoms.some((a) => /getter|proxy/.test(a))) return [];
    try { copy = structuredClone(req.v); } catch { return []; }
    try { if (at.modelRequestKey(copy) !== k) return ['modelRequestKey differs for a structured clone of the same request']; } catch { /* clone differs (accessors) */ }
    return [];
  };
  return { exp: 'modelRequestKey', steps: [step('modelRequestKey', `modelRequestKey(${req.expr})`, () => at.modelRequestKey(req.v), { after })], env, atoms: req.atoms };
}

function genRecording(r, at, V, env) {
  // 'aisdk' runs the real `ai` package (slow to load in each new worker): kept rare.
  const mk = r.weighted([[60, 'behaviour'], [2, 'aisdk'], [13, 'mutated-response'], [25, 'wild']]);
  let model;
  const atoms = [];
  if (mk === 'behaviour') {
    const b = behaviour(r, at, env, 'model', async () => ({ text: 'hi', usage: { inputTokens: 1, outputTokens: 2 } }), 'async () => ({ text: "hi", usage: { inputTokens: 1, outputTokens: 2 } })', { okWeight: 50 });
    model = valid(b.fn);
    if (b.atom) atoms.push(b.atom);
  } else if (mk === 'aisdk') model = valid(tag({ doGenerate: async () => ({}) }, '{ doGenerate: async () => ({}) } (an AI SDK model object: runs the real `ai` generateText when it resolves)'));
  else if (mk === 'mutated-response') {
    const m = mutated(r, at, () => ({ text: 'hi', toolCalls: [{ toolCallId: 't1', toolName: 'lookup', input: { id: 1 } }], usage: { inputTokens: 1, outputTokens: 2 } }), 'a model response');
    model = valid(fnx(`async () => (${m.expr})`, async () => m.v));
    atoms.push(...m.atoms.map((a) => `response ${a}`));
  } else model = wild(r, at, () => {}, 'model');
  atoms.push(...model.atoms);
  const req = r.chance(0.7) ? valid(request(), 'B.request()') : r.chance(0.7) ? mutated(r, at, request, 'B.request()') : wild(r, at, {}, 'request');
  atoms.push(...req.atoms);
  const steps = [
    step('recordingModel', `m = recordingModel(${model.expr})`, () => { env.stash.m = at.recordingModel(model.v); }, { stopOnError: true }),
    step('recordingModel (call)', `await m(${req.expr})`, () => env.stash.m(req.v)),
    step('recordingModel .recording', 'm.recording', () => env.stash.m.recording, {
      after: (rec) => {
        if (!rec || !Array.isArray(rec.entries)) return [`.recording is ${show(rec, 60)}`];
        let json;
        try { json = JSON.parse(JSON.stringify(rec)); } catch (e) { return [`.recording is not JSON-safe: ${e.message}`]; }
        env.stash.rec = json;
        return [];
      },
    }),
    step('replayModel', 'await replayModel(JSON.parse(JSON.stringify(m.recording)))(req)', async () => {
      if (!env.stash.rec || !env.stash.rec.entries.length) return undefined;
      const answer = await at.replayModel(env.stash.rec)(req.v);
      const d = firstDiff(answer, env.stash.rec.entries[0].response);
      return d ? { problem: `replayModel answers differently from the recording${SEP}${d}` } : undefined;
    }, {
      after: (x) => (x && x.problem ? [x.problem] : []),
      // A recorded failure is thrown again, with its code and message; anything else coded is a broken replay.
      onCoded: (e) => {
        const first = env.stash.rec?.entries[0];
        if (!first) return [];
        if (first.error) return e.code === first.error.code && e.message === first.error.message ? [] : [`replayModel throws another error than the one it recorded: ${errShape(e)} vs ${first.error.code} ${first.error.message}`];
        return [`replayModel cannot answer the request it recorded: ${errShape(e)}${SEP}${describe(e)}`];
      },
    }),
  ];
  return { exp: 'recordingModel', steps, env, atoms, async: true };
}

function genReplay(r, at, V, env) {
  const k = r.weighted([[55, 'mutated'], [15, 'string'], [10, 'valid'], [20, 'wild']]);
  let recArg;
  if (k === 'mutated') recArg = mutated(r, at, () => clone(V.recording), 'V.recording (recordingModel of a 2-turn run)');
  else if (k === 'string') {
    let s = JSON.stringify(V.recording);
    const cut = r.int(0, s.length);
    const op = r.pick(['truncate', 'garble', 'version', 'empty']);
    if (op === 'truncate') s = s.slice(0, cut); else if (op === 'garble') s = `${s.slice(0, cut)}}{${s.slice(cut)}`; else if (op === 'version') s = s.replace('"version":1', `"version":${r.pick(['2', '"1"', 'null', '0.5', '-1'])}`); else s = r.pick(['', ' ', 'null', '[]', '{}', '"x"']);
    recArg = { v: s, expr: s.length < 120 ? JSON.stringify(s) : `JSON.stringify(V.recording) ${op === 'truncate' ? `cut to ${cut} chars` : op === 'garble' ? `with "}{" inserted at ${cut}` : 'with another version'}`, atoms: [`recording string ${op}`], unknownKeys: [] };
  } else if (k === 'valid') recArg = valid(clone(V.recording), 'V.recording');
  else recArg = wild(r, at, {}, 'recording');
  const req = r.chance(0.5) ? valid(clone(V.recording.entries[0].request), 'V.recording.entries[0].request') : r.chance(0.7) ? mutated(r, at, () => clone(V.recording.entries[0].request), 'V.recording.entries[0].request') : wild(r, at, {}, 'request');
  const steps = [
    step('replayModel', `m = replayModel(${recArg.expr})`, () => { env.stash.m = at.replayModel(recArg.v); }, { stopOnError: true }),
    step('replayModel (call)', `await m(${req.expr})`, () => env.stash.m(req.v), { after: (a) => (a === undefined && k === 'valid' ? ['replay answered undefined'] : []) }),
  ];
  return { exp: 'replayModel', steps, env, atoms: atomsOf(recArg, req), async: true };
}

function genOpenAI(r, at, V, env) {
  const bodyK = r.weighted([[35, 'valid'], [35, 'mutated'], [15, 'text'], [15, 'status']]);
  let body;
  let bodyExpr;
  let status = 200;
  if (bodyK === 'valid') { body = JSON.stringify(chatBody()); bodyExpr = 'JSON.stringify(B.chatBody())'; }
  else if (bodyK === 'mutated') {
    const m = mutated(r, at, chatBody, 'B.chatBody()');
    try { body = JSON.stringify(m.v); } catch { body = '{'; }
    if (typeof body !== 'string') body = 'undefined';
    bodyExpr = `JSON.stringify(${m.expr})`;
  } else if (bodyK === 'text') { body = r.pick(['', 'not json', '{"choices":[]}', '{"choices":[{}]}', 'null', '[]', '{"choices":[{"message":null}]}', '{"choices":[{"message":{"content":null,"tool_calls":[{"id":"t","function":{"name":"f","arguments":"{oops"}}]}}]}', '{"choices":[{"message":{"content":5}}]}', '{"choices":[{"message":{"tool_calls":{}}}]}', '{"choices":[{"message":{"tool_calls":[null]}}]}']); bodyExpr = JSON.stringify(body); }
  else { status = r.pick([500, 429, 404, 0, 302, 199]); body = r.pick(['rate limited', '', 'x'.repeat(1000)]); bodyExpr = strExpr(body); }
  const fk = r.weighted([[65, 'ok'], [8, 'throws'], [8, 'rejects'], [6, 'garbage'], [5, 'text-throws'], [4, 'text-garbage'], [4, 'no-text']]);
  let fetch;
  const okRes = () => ({ ok: status >= 200 && status < 300, status, text: async () => body });
  switch (fk) {
    case 'ok': fetch = fnx(`async () => ({ ok: ${status >= 200 && status < 300}, status: ${status}, text: async () => ${bodyExpr} })`, async () => okRes()); break;
    case 'throws': fetch = fnx('() => { throw new TypeError("fuzz: fetch failed") }', () => { throw new TypeError('fuzz: fetch failed'); }); break;
    case 'rejects': fetch = fnx('async () => { throw new TypeError("fuzz: network down") }', async () => { throw new TypeError('fuzz: network down'); }); break;
    case 'garbage': { const [g, ge] = hostile(r, undefined, at); fetch = fnx(`async () => (${ge})`, async () => g); break; }
    case 'text-throws': fetch = fnx('async () => ({ ok: true, status: 200, text: async () => { throw new Error("fuzz: body stream") } })', async () => ({ ok: true, status: 200, text: async () => { throw err('body stream'); } })); break;
    case 'text-garbage': { const [g, ge] = hostile(r, '', at); fetch = fnx(`async () => ({ ok: true, status: 200, text: async () => (${ge}) })`, async () => ({ ok: true, status: 200, text: async () => g })); break; }
    default: fetch = fnx('async () => ({ ok: true, status: 200 })', async () => ({ ok: true, status: 200 })); break;
  }
  const baseOpts = () => ({ baseURL: 'https://llm.test/v1/', model: 'gpt-test', apiKey: 'k', headers: { 'x-team': 'fuzz' }, temperature: 0.2, fetch });
  const opts = r.weighted([[55, () => valid(baseOpts(), `{ baseURL: "https://llm.test/v1/", model: "gpt-test", apiKey: "k", headers: { "x-team": "fuzz" }, temperature: 0.2, fetch: ${show(fetch)} }`)], [35, () => mutated(r, at, baseOpts, `{ baseURL, model, apiKey, headers, temperature, fetch: ${show(fetch)} }`)], [10, () => wild(r, at, {}, 'options')]])();
  const req = r.weighted([[50, () => valid(request(), 'B.request()')], [40, () => mutated(r, at, request, 'B.request()')], [10, () => wild(r, at, {}, 'request')]])();
  const ac = r.chance(0.3) ? new AbortController() : null;
  const atoms = [...atomsOf(opts, req), `fetch ${fk}`, `body ${bodyK}`];
  const steps = [
    step('fromOpenAIChat', `m = fromOpenAIChat(${opts.expr})`, () => { env.stash.m = at.fromOpenAIChat(opts.v); }, { stopOnError: true }),
    step('fromOpenAIChat (call)', `await m(${req.expr}${ac ? ', { abortSignal: new AbortController().signal }' : ''})`, () => (ac ? env.stash.m(req.v, { abortSignal: ac.signal }) : env.stash.m(req.v)), {
      after: (a) => (!a || typeof a.text !== 'string' ? [`the model answered without a text string${SEP}${show(a, 120)}`] : []),
    }),
  ];
  return { exp: 'fromOpenAIChat', steps, env, atoms, async: true };
}

function genAdapters(r, at, V, env, which) {
  const history = r.chance(0.7) ? valid([msg.user()], '[{ role: "user", content: "Where is my order?" }]') : r.chance(0.6) ? mutated(r, at, () => [msg.user(), msg.assistantParts(), msg.toolResult()], 'B.messages().slice(1, 4)') : wild(r, at, [], 'history');
  const answer = r.weighted([[40, () => valid({ text: 'ok', response: { messages: [msg.assistant()] }, steps: [{ response: { messages: [msg.assistant()] } }], usage: { inputTokens: 1, outputTokens: 2 } }, 'a generateText result')],
    [45, () => mutated(r, at, () => ({ text: 'ok', response: { messages: [msg.assistant()] }, steps: [{ response: { messages: [msg.assistantParts()] } }, { response: { messages: [msg.assistantParts(), msg.toolResult()] } }], usage: { inputTokens: 1, outputTokens: 2 } }), 'a generateText result')],
    [15, () => wild(r, at, {}, 'answer')]])();
  const b = behaviour(r, at, env, 'generate', async () => answer.v, `async () => (${answer.expr})`, { okWeight: 70 });
  const atoms = [...atomsOf(history, answer), ...(b.atom ? [b.atom] : [])];
  let target;
  let ctorExpr;
  let call;
  if (which === 'withAISdkAgent') {
    const k = r.weighted([[45, 'agent'], [45, 'config'], [10, 'wild']]);
    if (k === 'agent') target = r.chance(0.8) ? valid({ generate: b.fn }, `{ generate: ${show(b.fn)} }`) : mutated(r, at, () => ({ generate: b.fn }), `{ generate: ${show(b.fn)} }`);
    else if (k === 'config') target = r.chance(0.7) ? valid({ model: { id: 'm' }, temperature: 0, generateText: b.fn }, `{ model: { id: "m" }, temperature: 0, generateText: ${show(b.fn)} }`) : mutated(r, at, () => ({ model: { id: 'm' }, temperature: 0, generateText: b.fn }), `{ model: { id: "m" }, temperature: 0, generateText: ${show(b.fn)} }`);
    else target = wild(r, at, {}, 'target');
    ctorExpr = `a = withAISdkAgent(${target.expr})`;
    call = () => env.stash.a.respond(history.v, r.chance(0.5) ? { abortSignal: new AbortController().signal } : undefined);
  } else if (which === 'withMastraAgent') {
    target = r.chance(0.85) ? valid({ generate: b.fn }, `{ generate: ${show(b.fn)} }`) : wild(r, at, {}, 'agent');
    ctorExpr = `a = withMastraAgent(${target.expr})`;
    call = () => env.stash.a.respond(history.v);
  } else {
    const optsK = r.weighted([[85, () => valid({ generateText: b.fn }, `{ generateText: ${show(b.fn)} }`)], [10, () => mutated(r, at, () => ({ generateText: b.fn }), `{ generateText: ${show(b.fn)} }`, { closed: [''] })], [5, () => wild(r, at, {}, 'opts')]])();
    target = r.chance(0.85) ? valid({ modelId: 'm', doGenerate: fnx('async () => ({})', async () => ({})) }, '{ modelId: "m", doGenerate: async () => ({}) }') : wild(r, at, {}, 'model');
    atoms.push(...atomsOf(optsK));
    ctorExpr = `a = fromAISdkModel(${target.expr}, ${optsK.expr})`;
    const reqA = r.chance(0.7) ? valid(request(), 'B.request()') : mutated(r, at, request, 'B.request()');
    atoms.push(...reqA.atoms);
    env.stash.opts = optsK;
    const ctor = () => { env.stash.a = at.fromAISdkModel(target.v, optsK.v); };
    return {
      exp: which, env, atoms: [...atoms, ...atomsOf(target)], async: true,
      steps: [
        step(which, ctorExpr, ctor, { stopOnError: true, unknown: unknownOf(optsK) }),
        step(`${which} (call)`, `await a(${reqA.expr})`, () => env.stash.a(reqA.v), { after: (x) => (!x || typeof x !== 'object' ? [`the model answered ${show(x, 60)}`] : []) }),
      ],
    };
  }
  atoms.push(...atomsOf(target));
  return {
    exp: which, env, atoms, async: true,
    steps: [
      step(which, ctorExpr, () => { env.stash.a = which === 'withAISdkAgent' ? at.withAISdkAgent(target.v) : at.withMastraAgent(target.v); }, { stopOnError: true }),
      step(`${which} (respond)`, `await a.respond(${history.expr})`, call, {
        after: (x) => {
          if (!x || !Array.isArray(x.messages)) return [`respond resolved with ${show(x, 60)}`];
          try { at.normalizeMessages(x.messages); } catch (e) { if (!isCoded(e)) return [`respond's messages make normalizeMessages throw an uncoded error${SEP}${describe(e)}`]; }
          return [];
        },
      }),
    ],
  };
}

function genMisc(r, at, V, env) {
  const k = r.weighted([[30, 'version'], [30, 'init'], [20, 'ctx'], [20, 'const']]);
  if (k === 'version') {
    const a = r.chance(0.5) ? null : wild(r, at, undefined, 'arg');
    return { exp: 'trajectorySchemaVersion', env, atoms: atomsOf(a), steps: [step('trajectorySchemaVersion', `trajectorySchemaVersion(${a ? a.expr : ''})`, () => (a ? at.trajectorySchemaVersion(a.v) : at.trajectorySchemaVersion()), { after: (v) => (v === 1 && at.TRAJECTORY_SCHEMA_VERSION === 1 ? [] : [`trajectorySchemaVersion() is ${show(v)}, TRAJECTORY_SCHEMA_VERSION ${show(at.TRAJECTORY_SCHEMA_VERSION)}`]) })] };
  }
  if (k === 'init') {
    const a = r.chance(0.3) ? null : wild(r, at, '', 'input');
    return { exp: 'init', env, atoms: atomsOf(a), async: true, steps: [step('init', `await init(${a ? a.expr : ''})`, () => (a ? at.init(a.v) : at.init()))] };
  }
  if (k === 'ctx') {
    const a = wild(r, at, undefined, 'arg');
    return { exp: 'ObserverContext', env, atoms: a.atoms, steps: [step('ObserverContext', `new ObserverContext(${a.expr})`, () => new at.ObserverContext(a.v)), step('ObserverContext', 'ObserverContext.prototype.errorRate.call({}, 5)', () => at.ObserverContext.prototype.errorRate.call({}, 5))] };
  }
  return { exp: 'TRAJECTORY_SCHEMA_VERSION', env, atoms: [], steps: [step('TRAJECTORY_SCHEMA_VERSION', 'TRAJECTORY_SCHEMA_VERSION', () => at.TRAJECTORY_SCHEMA_VERSION, { after: (v) => (v === at.trajectorySchemaVersion() ? [] : ['differs from trajectorySchemaVersion()']) })] };
}

const CALLABLES = ['parseTrajectoryJsonl', 'serializeTrajectoryJsonl', 'normalizeMessages', 'createTrajectory', 'runTrajectory', 'toJSONL', 'toConversation', 'summarize', 'toArtifacts', 'modelRequestKey', 'recordingModel', 'replayModel', 'fromOpenAIChat', 'withAISdkAgent', 'withMastraAgent', 'fromAISdkModel', 'trajectorySchemaVersion'];
const CLASSES = ['TrajectoryRecorder', 'MemorySink', 'JsonlSink', 'ObserverPipeline', 'DefaultPolicy'];
const METHODS = {
  TrajectoryRecorder: ['record', 'child', 'flush', 'undelivered'],
  MemorySink: ['record', 'records', 'toJsonl', 'clear'],
  JsonlSink: ['record', 'lines', 'take', 'text'],
  ObserverPipeline: ['recordToolCall', 'recordTokens', 'setBudget', 'context', 'current', 'injectInto', 'recentToolCalls', 'snapshot'],
  DefaultPolicy: ['evaluate'],
};
/** Fully random arguments to any export or method. */
function genRandom(r, at, V, env) {
  const n = r.int(0, 3);
  const args = Array.from({ length: n }, (_, i) => wild(r, at, undefined, `arg${i}`));
  const list = args.map((a) => a.expr).join(', ');
  const vals = args.map((a) => a.v);
  if (r.chance(0.55)) {
    const f = r.pick(CALLABLES);
    return { exp: f, env, atoms: [`random args (${n})`, ...args.flatMap((a) => a.atoms)], async: true, steps: [step(f, `${f}(${list})`, () => at[f](...vals), { randomArgs: true })] };
  }
  const C = r.pick(CLASSES);
  const m = r.pick(METHODS[C]);
  const make = {
    TrajectoryRecorder: () => new at.TrajectoryRecorder(new at.MemorySink(), { clock: () => T0 }),
    MemorySink: () => new at.MemorySink(),
    JsonlSink: () => new at.JsonlSink(),
    ObserverPipeline: () => new at.ObserverPipeline(pipelineOpts(false)),
    DefaultPolicy: () => new at.DefaultPolicy(),
  }[C];
  const ctorExpr = { TrajectoryRecorder: `new TrajectoryRecorder(new MemorySink(), { clock: () => ${T0} })`, MemorySink: 'new MemorySink()', JsonlSink: 'new JsonlSink()', ObserverPipeline: 'new ObserverPipeline(B.pipelineOpts(false))', DefaultPolicy: 'new DefaultPolicy()' }[C];
  if (r.chance(0.3)) {
    return { exp: C, env, atoms: [`random ctor args (${n})`, ...args.flatMap((a) => a.atoms)], steps: [step(C, `new ${C}(${list})`, () => new at[C](...vals), { randomArgs: true })] };
  }
  return { exp: `${C}.${m}`, env, atoms: [`random args (${n})`, ...args.flatMap((a) => a.atoms)], async: true, steps: [step(`${C}.${m}`, `${ctorExpr}.${m}(${list})`, () => make()[m](...vals), { randomArgs: true })] };
}

const GENERATORS = [
  [13, genRecorder], [3, genMemorySink], [4, genJsonlSink], [10, genParse], [5, genSerialize], [5, genNormalize],
  [13, genPipeline], [4, genRestore], [5, genCreate], [14, genRun],
  [2.5, (r, at, V, env) => genExport(r, at, V, env, 'toJSONL')], [2.5, (r, at, V, env) => genExport(r, at, V, env, 'toConversation')],
  [2.5, (r, at, V, env) => genExport(r, at, V, env, 'summarize')], [2.5, (r, at, V, env) => genExport(r, at, V, env, 'toArtifacts')],
  [0.4, (r, at, V, env) => genExport(r, at, V, env, 'writeArtifacts')],
  [2, genPolicy], [3, genKey], [3, genRecording], [4, genReplay], [5, genOpenAI],
  [2.5, (r, at, V, env) => genAdapters(r, at, V, env, 'withAISdkAgent')], [1.5, (r, at, V, env) => genAdapters(r, at, V, env, 'withMastraAgent')],
  [1.5, (r, at, V, env) => genAdapters(r, at, V, env, 'fromAISdkModel')],
  [1, genMisc], [6, genRandom],
];

/** Input `i` of the run seeded `seed`. */
export function makeCase(seed, i, at, V) {
  const r = new Rng(caseSeed(seed, i));
  const g = r.weighted(GENERATORS.map(([w, f]) => [w, f]));
  const env = new Env();
  const c = g(r, at, V, env);
  env.exp = c.exp;
  c.index = i;
  c.atoms = (c.atoms ?? []).filter(Boolean);
  return c;
}

// ---- classification helpers (shared with the worker) ---------------------------

/** The error codes the package documents (its `ErrorCode` type), read from the installed index.d.ts. */
export const DOCUMENTED_CODES = (() => {
  // Only if index.d.ts cannot be read (the test of the code list checks that copy against the core's).
  const fallback = ['INVALID_ARGUMENT', 'INVALID_MESSAGE', 'INVALID_RECORD', 'UNSUPPORTED_SCHEMA_VERSION', 'JSONL_PARSE', 'SINK_FAILED', 'CALLBACK_FAILED', 'NOT_INITIALIZED', 'BUSY', 'INTERNAL', 'INVALID_TRAJECTORY', 'TIMEOUT', 'EMPTY_USER_MESSAGE', 'SIMULATOR_ISSUE', 'REPLAY_MISS', 'SEQ_GAP', 'VFS_PATH', 'VFS_LIMIT'];
  try {
    const dts = readFileSync(new URL('./index.d.ts', import.meta.resolve('agent-trajectories/package.json')), 'utf8');
    const m = dts.match(/export type ErrorCode\s*=([^;]*);/);
    const codes = m ? [...m[1].matchAll(/'([A-Z_]+)'/g)].map((x) => x[1]) : [];
    return new Set(codes.length ? codes : fallback);
  } catch { return new Set(fallback); }
})();

/** Problems of a coded error: an undocumented code, INTERNAL, a message people cannot use. */
export function codedProblems(e) {
  const out = [];
  if (!DOCUMENTED_CODES.has(e.code)) out.push(`error code ${JSON.stringify(e.code)} is not one of the documented ErrorCode values${SEP}${String(e.message).slice(0, 200)}`);
  if (e.code === 'INTERNAL') out.push(`an INTERNAL error${SEP}${String(e.message).slice(0, 300)}`);
  const p = messageFinding(`a ${e.code} error's message`, String(e.message));
  if (p) out.push(p);
  return out;
}

/** Whether a thrown value is the fuzz input's own exception (a callback's or a getter's), escaping unwrapped. */
export function isOwnException(e) {
  try {
    if (e instanceof Error) return String(e.message).startsWith('fuzz:');
    return true; // the package never throws non-Errors on its own; these come from the inputs
  } catch { return true; }
}

export function isCoded(e) {
  try {
    return e instanceof Error && e.name === 'AgentTrajectoriesError' && typeof e.code === 'string';
  } catch { return false; }
}
/** A thrown value as text, without running its getters twice or trusting it. */
export function describe(e) {
  try {
    if (e instanceof Error) {
      const name = (() => { try { return e.constructor?.name ?? e.name; } catch { return 'Error'; } })();
      const code = (() => { try { return e.code; } catch { return undefined; } })();
      const m = (() => { try { return String(e.message); } catch { return '<message getter throws>'; } })();
      return `${name}${code !== undefined ? ` [code ${show(code, 30)}]` : ''}${(() => { try { return e.name && e.name !== name ? ` (name ${e.name})` : ''; } catch { return ''; } })()}: ${m}`;
    }
    return `a non-Error: ${show(e, 80)}`;
  } catch { return 'a thrown value that cannot be described'; }
}
