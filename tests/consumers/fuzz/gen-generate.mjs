// Inputs for generate: runTrajectory and createTrajectory with changed
// definitions and options, agents, simulated users, policies, step
// callbacks, sinks and clocks that misbehave, abort signals (a timer,
// aborted, hostile); the exports of a result (toJSONL, toConversation,
// summarize, toArtifacts, writeArtifacts) on the package's own results and
// changed ones; DefaultPolicy.evaluate. A result must be well formed
// (resultProblems) and accepted by the exports.
import { tag, show } from './render.mjs';
import { mutated, peek, valid, wild } from './mutate.mjs';
import { fnx, err, msg, pipelineOpts, chainDef, freeDef, bareDef, DEF_CLOSED, DEF_NUMERIC, RUN_CLOSED, policyCtx, user, clone } from './inputs.mjs';
import { SEP, messageFinding, firstDiff, errShape, roundTripProblems, describe } from './checks.mjs';
import { behaviour, clockFor, sinkFor, step, unknownOf, atomsOf } from './harness.mjs';
import { customObserverFor } from './gen-observe.mjs';
// (gen.mjs imports this module too; DOCUMENTED_CODES is read only while a case runs.)
import { DOCUMENTED_CODES } from './gen.mjs';

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

export function genRun(r, at, V, env) {
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

export function genCreate(r, at, V, env) {
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

export function genExport(r, at, V, env, exp) {
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

export function genPolicy(r, at, V, env) {
  const ctx = r.weighted([[75, () => mutated(r, at, policyCtx, 'B.policyCtx()')], [10, () => valid(policyCtx(), 'B.policyCtx()')], [15, () => wild(r, at, {}, 'ctx')]])();
  const ctor = r.chance(0.1) ? wild(r, at, {}, 'ctor arg') : null;
  return { exp: 'DefaultPolicy', steps: [step('DefaultPolicy.evaluate', `new DefaultPolicy(${ctor ? ctor.expr : ''}).evaluate(${ctx.expr})`, () => new at.DefaultPolicy(ctor?.v).evaluate(ctx.v))], env, atoms: atomsOf(ctx, ctor) };
}
