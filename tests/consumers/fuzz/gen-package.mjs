// Inputs for the package as a whole: its small exports (init,
// trajectorySchemaVersion, TRAJECTORY_SCHEMA_VERSION, ObserverContext), and
// fully random arguments to any export, constructor or method.
import { show } from './render.mjs';
import { wild } from './mutate.mjs';
import { T0, pipelineOpts } from './inputs.mjs';
import { step, atomsOf } from './harness.mjs';

export function genMisc(r, at, V, env) {
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
export function genRandom(r, at, V, env) {
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
