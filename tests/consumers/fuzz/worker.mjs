// Runs fuzz inputs against the installed package and reports each outcome
// to the parent (fuzz.mjs). One input at a time: a trap may poison the
// WebAssembly instance and a synchronous hang blocks this thread, so the
// parent watches the time and replaces this worker when needed.
import { parentPort, workerData } from 'node:worker_threads';
import * as at from 'agent-trajectories';
import { makeCase, prepare, isCoded, describe, messageProblem, codedProblems, isOwnException, STOP, SEP } from './gen.mjs';

// A promise that has not settled after this long is a hang (the runs' own timers are at most 30 ms);
// inputs with huge step graphs get SLOW_LIMIT_MS.
const STEP_LIMIT_MS = workerData?.stepLimitMs ?? 1500;
const SLOW_LIMIT_MS = 6000;
// The valid artifacts made by the package (a run result, a recording, a snapshot): made once by the parent.
const V = workerData?.V ?? await prepare(at);

// No network: an input whose fetch was changed or removed falls back to the global fetch.
globalThis.fetch = async () => { throw new TypeError('fetch failed (the fuzz worker has no network)'); };

// The package may log (a dropped record without onError goes to console.warn): keep it, check it.
let current = null;
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  console[level] = (...args) => {
    if (!current) return;
    const text = args.map((a) => { try { return typeof a === 'string' ? a : a instanceof Error ? `${a.name}: ${a.message}` : String(a); } catch { return '?'; } }).join(' ');
    const p = messageProblem(text);
    if (p && current.logged++ < 1) current.findings.push({ cat: 'invariant', exp: current.exp, msg: `a console.${level} message ${p}${SEP}${text.slice(0, 300)}`, step: current.env.step });
  };
}
const stray = (how) => (reason) => {
  if (reason === STOP || (reason && reason.cause === STOP)) return;
  const f = { cat: isTrap(reason) ? 'trap' : 'uncoded', msg: `an ${how}: ${uncodedMessage(reason)}` };
  if (current) current.findings.push({ ...f, exp: current.exp, step: current.env.step }); // while that call was running
  else if (last) late.push({ ...f, exp: last.exp, i: last.i, repro: last.repro, msg: `${f.msg} (after the input had finished)` });
};
let last = null;
const late = [];
process.on('unhandledRejection', stray('unhandled rejection'));
process.on('uncaughtException', stray('uncaught exception'));

export const OWN = "the input's own exception escaped unwrapped";
export const NON_ERROR = 'a non-Error value was thrown';
function uncodedMessage(e) {
  let isErr = false;
  try { isErr = e instanceof Error; } catch { /* revoked proxy */ }
  if (!isErr) return `${NON_ERROR}${SEP}${describe(e)}`;
  return isOwnException(e) ? `${OWN}${SEP}${describe(e)}` : describe(e);
}
const isTrap = (e) => { try { return e instanceof WebAssembly.RuntimeError; } catch { return false; } };
const isStop = (e) => { try { return e === STOP || (e instanceof Error && (e.message.includes(STOP.message) || e.cause === STOP)); } catch { return false; } };
const HANG = Symbol('hang');
function settle(p, ms) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(HANG), ms);
    p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
  });
}

/** Runs input `i`; returns { cat, findings, atoms, exp, ms, restart }. */
async function runOne(seed, i) {
  const t0 = performance.now();
  let c;
  try {
    c = makeCase(seed, i, at, V);
  } catch (e) {
    const trap = isTrap(e);
    return { cat: trap ? 'trap' : 'harness', findings: [{ cat: trap ? 'trap' : 'harness', exp: '(generating the input)', msg: describe(e), repro: `(input #${i})` }], atoms: [], exp: '?', ms: performance.now() - t0, restart: true };
  }
  const state = { exp: c.exp, findings: [], logged: 0, env: c.env };
  const limit = c.slow ? SLOW_LIMIT_MS : STEP_LIMIT_MS;
  c.env.limitMs = limit * 0.8;
  c.env.begin();
  current = state;
  const repro = (k) => c.steps.slice(0, k + 1).map((s) => s.expr).join('; ');
  let coded = false;
  let restart = false;
  // `call`: the call that failed (k), shown before the calls that led to it; a check of the whole outcome has none.
  const add = (cat, exp, msg, k, whole = false) => state.findings.push({ cat, exp, msg, repro: repro(k), call: whole ? undefined : c.steps[k]?.expr, steps: whole ? 1 : k + 1 });
  let k = 0;
  steps: for (; k < c.steps.length; k++) {
    const st = c.steps[k];
    c.env.step = k;
    let res;
    try {
      res = st.run();
      if (res instanceof Promise) res = await settle(res, limit);
    } catch (e) {
      if (e === HANG) {
        // After a trap (an uncaught one, from a callback the module ran) a pending promise is its consequence, not a second finding.
        if (!state.findings.some((f) => f.cat === 'trap')) add('hang', st.exp, `did not settle within ${limit} ms`, k);
        restart = true;
        break;
      }
      if (isStop(e) || c.env.stopped) break;
      if (isTrap(e)) { add('trap', st.exp, `${e.message}`, k); restart = true; break; }
      if (isCoded(e)) {
        coded = true;
        for (const v of codedProblems(e)) add('invariant', st.exp, v, k);
        for (const v of (st.onCoded ? st.onCoded(e) : [])) add('invariant', st.exp, v, k);
        if (st.stopOnError) break;
        continue;
      }
      add('uncoded', st.exp, uncodedMessage(e), k);
      break;
    }
    if (c.env.stopped) break;
    try {
      for (const v of (st.after ? st.after(res) : [])) add('invariant', st.exp, v, k);
    } catch (e) {
      if (isTrap(e)) { add('trap', st.exp, `while checking its result: ${e.message}`, k); restart = true; break steps; }
      add('invariant', st.exp, `checking its result threw ${describe(e)}`, k);
    }
    for (const u of st.unknown ?? []) add('invariant', st.exp, `an unknown key in ${u.in ? `.${u.in}` : 'the options'} is accepted without an error${SEP}${JSON.stringify(u.key)}${u.for ? ` (a misspelling of ${JSON.stringify(u.for)})` : ' (added)'}`, k);
    if (st.stopAfter) break;
  }
  if (!restart && !c.env.stopped && c.final && !state.findings.some((f) => f.cat === 'uncoded' || f.cat === 'trap')) {
    try {
      for (const v of c.final()) add('invariant', c.finalExp ?? c.exp, v, Math.min(k, c.steps.length - 1), true);
    } catch (e) {
      if (isTrap(e)) { add('trap', c.finalExp ?? c.exp, `while checking the outcome: ${e.message}`, c.steps.length - 1, true); restart = true; }
      else add('invariant', c.finalExp ?? c.exp, `checking the outcome threw ${describe(e)}`, c.steps.length - 1, true);
    }
  }
  for (const f of c.env.findings) { const k2 = f.step ?? c.steps.length - 1; state.findings.push({ cat: f.cat, exp: f.exp, msg: f.msg, repro: repro(k2), call: c.steps[k2]?.expr, steps: k2 + 1 }); }
  c.env.end();
  if (c.async) await new Promise((r) => setImmediate(r));
  current = null;
  last = { i, exp: c.exp, repro: repro(c.steps.length - 1) };
  for (const f of state.findings) {
    if (f.repro) continue;
    const k2 = Math.min(f.step ?? c.steps.length - 1, c.steps.length - 1);
    Object.assign(f, { repro: repro(k2), call: c.steps[k2]?.expr, steps: k2 + 1 });
    delete f.step;
  }
  if (state.findings.some((f) => f.cat === 'hang' || f.cat === 'trap')) restart = true;
  const order = ['trap', 'hang', 'harness', 'uncoded', 'invariant'];
  const cat = order.find((o) => state.findings.some((f) => f.cat === o)) ?? (coded ? 'coded' : 'ok');
  return { cat, findings: state.findings, atoms: c.atoms, exp: c.exp, ms: performance.now() - t0, restart };
}

parentPort.on('message', async (m) => {
  if (m.type !== 'run') return;
  for (let i = m.from; i < m.to; i++) {
    const out = await runOne(m.seed, i);
    // Findings of a case reported late (a stray rejection after it ended) travel with the next report.
    parentPort.postMessage({ type: 'result', i, ...out, late: late.splice(0) });
    if (out.restart) return; // the parent replaces this worker and goes on from i + 1
  }
  parentPort.postMessage({ type: 'done' });
});
parentPort.postMessage({ type: 'ready' });
