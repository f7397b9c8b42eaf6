// Inputs for observe: ObserverPipeline with changed options, a custom
// observer that misbehaves, and a script of calls (tool calls, tokens,
// budgets, injectInto, snapshots, restores, a kept context); then its
// snapshot must be JSON-safe and restore to the same pipeline.
// ObserverPipeline.restore on changed snapshots.
import { tag, show } from './render.mjs';
import { Rng } from './rng.mjs';
import { hostile } from './hostile.mjs';
import { mutated, valid, wild } from './mutate.mjs';
import { T0, fnx, err, msg, toolCalls, budget, customObserver, pipelineOpts, PIPELINE_CLOSED, PIPELINE_NUMERIC, BUDGET_NUMERIC, clone } from './inputs.mjs';
import { SEP, messageProblem, messageFinding, firstDiff, errShape, roundTripProblems, isCoded, describe } from './checks.mjs';
import { THROWN, behaviour, clockFor, step, unknownOf, atomsOf } from './harness.mjs';

export function customObserverFor(r, at, env) {
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

export function genPipeline(r, at, V, env) {
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

export function genRestore(r, at, V, env) {
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
