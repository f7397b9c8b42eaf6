// Seeded fuzz run of every export of the installed package.
//
//   node fuzz.mjs                          # FUZZ_SEED (default: today's date, UTC, as YYYYMMDD), FUZZ_INPUTS (default 100000)
//   FUZZ_SEED=20261123 FUZZ_INPUTS=20000 node fuzz.mjs
//   FUZZ_SEED=20261123 FUZZ_ONLY=1234,5678 node fuzz.mjs   # replay single inputs, with their reproduction
//   FUZZ_WORKERS=2 FUZZ_OUT=findings.txt node fuzz.mjs
//
// Inputs run in worker threads (2 by default); a worker that does not
// report within the time limit is terminated and its input recorded as a
// hang; after a trap or a hang the worker is replaced; the run goes on from
// the next input. Every outcome must be a success or an AgentTrajectoriesError
// with a string code; see README.md for the categories.
import { Worker } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { makeCase, prepare } from './gen.mjs';

const WORKER = new URL('./worker.mjs', import.meta.url);
export const CATEGORIES = ['ok', 'coded', 'uncoded', 'trap', 'hang', 'crash', 'invariant', 'harness'];

export function defaultSeed(date = new Date()) {
  return Number(date.toISOString().slice(0, 10).replaceAll('-', ''));
}

export function optionsFromEnv(env = process.env) {
  const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) >>> 0 : defaultSeed();
  const inputs = env.FUZZ_INPUTS ? Number(env.FUZZ_INPUTS) : 100_000;
  // One more worker than cores: inputs often wait on timers (abort signals, late answers, hang limits).
  const workers = env.FUZZ_WORKERS ? Number(env.FUZZ_WORKERS) : Math.max(2, availableParallelism() + 1);
  const only = env.FUZZ_ONLY ? env.FUZZ_ONLY.split(',').map((x) => Number(x.trim())).filter(Number.isInteger) : null;
  return { seed, inputs, workers, only, out: env.FUZZ_OUT || null };
}

/** The shape of a message, for deduplication: quoted text, numbers and hex ids abstracted. */
export function shapeOf(msg) {
  const m = String(msg).split(' \u2016 ')[0].split(/[\r\n]/)[0]; // the detail after the separator (and further lines) are not part of the shape
  // JSON.parse words its errors in many ways; each export's JSON.parse escape is one finding.
  if (/^(an (unhandled rejection|uncaught exception): )?SyntaxError/.test(m)) return m.replace(/SyntaxError.*/, 'SyntaxError (from JSON.parse)');
  return m
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
    .replace(/`[^`]*`/g, '`…`')
    .replace(/\b[0-9a-f]{16}\b/g, '<key>')
    .replace(/-?\(?\d+\*\*\d+\)?([+-]\d+)?/g, 'N')
    .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi, 'N')
    .replace(/(operator to search for '…' in) .*/, '$1 …')
    .replace(/\s+/g, ' ')
    .slice(0, 200);
}

/**
 * Runs the fuzz; resolves with { seed, inputs, counts, findings (deduplicated),
 * ms, perThousandMs }. `log` gets progress lines.
 */
export async function runFuzz({ seed, inputs, workers = 2, only = null, limitMs = 8000, stepLimitMs = 1500, chunk = 200, log = () => {} }) {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const indices = only ?? null;
  const queue = [];
  if (indices) for (const i of indices) queue.push([i, i + 1]);
  else for (let i = 0; i < inputs; i += chunk) queue.push([i, Math.min(inputs, i + chunk)]);
  const total = indices ? indices.length : inputs;
  const counts = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  const entries = new Map();
  const perInput = [];
  let done = 0;
  let restarts = 0;
  // The parent loads the package too: to make the valid artifacts once (handed to every worker)
  // and to regenerate an input whose worker died, to show it.
  const at = await import('agent-trajectories');
  const V = await prepare(at);

  const addFinding = (i, f, atoms) => {
    const key = `${f.exp}\u0000${f.cat}\u0000${shapeOf(f.msg)}`;
    let e = entries.get(key);
    if (!e) entries.set(key, (e = { exp: f.exp, cat: f.cat, shape: shapeOf(f.msg), msg: f.msg, count: 0, first: i, repro: null, triggers: new Map() }));
    e.count++;
    const sig = [...new Set(atoms ?? [])].slice(0, 4).join('; ') || '(valid input)';
    if (f.repro && (!e.repro || f.repro.length < e.repro.length)) { e.repro = f.repro; e.msg = f.msg; e.reproIndex = i; e.reproSig = sig; e.call = f.call; e.steps = f.steps; }
    e.reproIndex ??= i;
    e.reproSig ??= sig;
    let t = e.triggers.get(sig);
    if (!t) e.triggers.set(sig, (t = { count: 0, repro: f.repro, msg: f.msg, i }));
    t.count++;
    if (f.repro && f.repro.length < (t.repro?.length ?? Infinity)) { t.repro = f.repro; t.msg = f.msg; t.i = i; }
  };
  const timeByExp = {};
  const slowest = [];
  const record = (i, cat, findings, atoms, ms, exp) => {
    if (exp) { const t = (timeByExp[exp] ??= { n: 0, ms: 0, max: 0, maxI: 0 }); t.n++; t.ms += ms; if (ms > t.max) { t.max = ms; t.maxI = i; } }
    if (ms > 50) slowest.push({ i, ms, exp, cat, atoms });
    counts[cat]++;
    done++;
    if (only) perInput.push({ i, cat, findings, atoms, ms });
    for (const f of findings) addFinding(i, f, atoms);
  };
  const describeInput = async (i) => {
    try {
      const c = makeCase(seed, i, at, V);
      return { repro: c.steps.map((s) => s.expr).join('; '), exp: c.exp, atoms: c.atoms };
    } catch (e) {
      return { repro: `(input #${i}; could not be regenerated: ${e.message})`, exp: '?', atoms: [] };
    }
  };

  await new Promise((resolveAll) => {
    let active = 0;
    const spawn = () => {
      if (!queue.length) { if (active === 0) resolveAll(); return; }
      const [from, to] = queue.shift();
      active++;
      const w = new Worker(WORKER, { workerData: { stepLimitMs, V }, resourceLimits: { maxOldGenerationSizeMb: 2048 }, stdout: true, stderr: true });
      w.stdout.resume();
      w.stderr.resume();
      const st = { next: from, to, last: performance.now(), ended: false, ready: false };
      const finish = async (why) => {
        if (st.ended) return;
        st.ended = true;
        clearInterval(watch);
        await w.terminate().catch(() => {});
        if (why && st.next < st.to) {
          const d = await describeInput(st.next);
          const cat = why.cat;
          record(st.next, cat, [{ cat, exp: d.exp, msg: why.msg, repro: d.repro }], d.atoms, 0);
          restarts++;
          if (st.next + 1 < st.to) queue.unshift([st.next + 1, st.to]);
        } else if (st.next < st.to) queue.unshift([st.next, st.to]);
        active--;
        spawn();
      };
      const watch = setInterval(() => {
        const idle = performance.now() - st.last;
        if (!st.ready && idle > 30_000) finish({ cat: 'crash', msg: 'the worker did not start within 30 s' });
        else if (st.ready && idle > limitMs) finish({ cat: 'hang', msg: `no outcome within ${limitMs / 1000} s (the thread was blocked, or a promise never settled and its timer could not fire); the worker was terminated` });
      }, 100);
      w.on('message', (m) => {
        st.last = performance.now();
        if (m.type === 'ready') { st.ready = true; w.postMessage({ type: 'run', seed, from: st.next, to: st.to }); return; }
        if (m.type === 'done') { finish(null); return; }
        if (m.type !== 'result') return;
        for (const f of m.late ?? []) addFinding(f.i, f, []);
        record(m.i, m.cat, m.findings, m.atoms, m.ms, m.exp);
        st.next = m.i + 1;
        if (done % 5000 === 0) log(`  ${done}/${total} inputs, ${((performance.now() - started) / 1000).toFixed(1)} s`);
        if (m.restart) { restarts++; finish(null); }
      });
      w.on('error', (e) => {
        const oom = /memory|heap/i.test(String(e && e.message)) || (e && e.code === 'ERR_WORKER_OUT_OF_MEMORY');
        finish({ cat: oom ? 'hang' : 'crash', msg: `the worker died: ${e && (e.code ?? e.name)}: ${e && e.message}${oom ? ' (ran out of memory: a runaway loop)' : ''}` });
      });
      w.on('exit', (code) => { if (!st.ended) finish({ cat: 'crash', msg: `the worker exited (code ${code}) without reporting` }); });
    };
    for (let k = 0; k < Math.max(1, workers); k++) spawn();
  });

  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const findings = [...entries.values()].map((e) => ({ ...e, triggers: [...e.triggers.entries()].sort((a, b) => b[1].count - a[1].count).map(([sig, t]) => ({ sig, ...t })) }));
  return { seed, inputs: total, counts, findings, ms, perThousandMs: (ms / Math.max(1, total)) * 1000, cpuPerThousandMs: ((cpu.user + cpu.system) / 1000 / Math.max(1, total)) * 1000, restarts, workers, perInput, timeByExp, slowest: slowest.sort((a, b) => b.ms - a.ms).slice(0, 40) };
}

const CAT_TITLES = { trap: 'traps', hang: 'hangs', crash: 'crashes', uncoded: 'uncoded errors', invariant: 'broken invariants', harness: 'harness errors (a bug in the fuzzer itself)' };

export function summaryTable(s) {
  const c = s.counts;
  const rows = [
    ['inputs', s.inputs], ['ok', c.ok], ['coded errors', c.coded], ['uncoded', c.uncoded], ['traps', c.trap], ['hangs', c.hang],
    ['crashes', c.crash], ['broken invariants', c.invariant], ...(c.harness ? [['harness errors', c.harness]] : []),
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return [
    `seed ${s.seed} (FUZZ_SEED=${s.seed}), ${s.inputs} inputs, ${s.workers} workers, ${(s.ms / 1000).toFixed(1)} s (${s.perThousandMs.toFixed(0)} ms per 1,000 inputs; ${(s.cpuPerThousandMs / 1000).toFixed(1)} CPU s per 1,000), ${s.restarts} worker restarts`,
    ...rows.map(([k, v]) => `  ${k.padEnd(w)}  ${String(v).padStart(7)}`),
    '  (each input counted once, by its worst outcome: trap > hang > crash > uncoded > broken invariant > coded > ok)',
  ].join('\n');
}

// Control characters are written as escapes, so the report stays plain text.
const clean = (s) => String(s ?? '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const clip = (s, n = 400) => { const t = clean(s); return t.length > n ? `${t.slice(0, n - 1)}…` : t; };
/** A finding's message for people: detail after " — ", lines joined. */
const shown = (msg) => String(msg).replace(' \u2016 ', ' — ').replace(/\r?\n/g, ' ⏎ ');

/** The findings, deduplicated by (export, category, message shape), grouped by export. `perCategory` limits the console version. */
export function findingsReport(s, { perCategory = Infinity, triggers = 2, compact = false } = {}) {
  const lines = [];
  const order = ['trap', 'hang', 'crash', 'uncoded', 'invariant', 'harness'];
  if (perCategory !== Infinity) {
    for (const cat of order) {
      const list = s.findings.filter((f) => f.cat === cat).sort((a, b) => b.count - a.count);
      if (!list.length) continue;
      lines.push(`\n${CAT_TITLES[cat]}: ${list.length} distinct (${list.reduce((n, f) => n + f.count, 0)} occurrences)${list.length > perCategory ? `; the ${perCategory} most frequent:` : ''}`);
      for (const f of list.slice(0, perCategory)) {
        lines.push(`  - ${f.exp}: ${clip(shown(f.msg), 220)}  [${f.count}×]`);
        lines.push(`      repro: ${clip(f.repro, 300)}`);
      }
    }
    return lines.join('\n');
  }
  const byExp = new Map();
  for (const f of s.findings) {
    const top = f.exp.split(/[ .(]/)[0];
    if (!byExp.has(top)) byExp.set(top, []);
    byExp.get(top).push(f);
  }
  const exps = [...byExp.keys()].sort((a, b) => byExp.get(b).reduce((n, f) => n + f.count, 0) - byExp.get(a).reduce((n, f) => n + f.count, 0));
  for (const exp of exps) {
    const list = byExp.get(exp).sort((a, b) => order.indexOf(a.cat) - order.indexOf(b.cat) || b.count - a.count);
    const tally = order.map((c) => [c, list.filter((f) => f.cat === c).reduce((n, f) => n + f.count, 0)]).filter(([, n]) => n).map(([c, n]) => `${n} ${c}`).join(', ');
    lines.push(`\n## ${exp} — ${list.length} distinct findings (${tally})`);
    if (compact) {
      list.forEach((f, k) => {
        lines.push(`${k + 1}. [${f.cat}] ${f.exp}: ${clip(shown(f.msg.split(/[\r\n]/)[0]), 300)} — ${f.count} input${f.count === 1 ? '' : 's'}`);
        lines.push(`   input #${f.reproIndex} (${clip(f.reproSig, 160)}):`);
        // Several calls: the one that failed first, then the calls before it.
        if (f.steps > 1 && f.call) lines.push(`   ${clip(f.call, 300)}`, `     after: ${clip(f.repro.slice(0, Math.max(0, f.repro.length - f.call.length - 2)), 300)}`);
        else lines.push(`   ${clip(f.repro, 380)}`);
      });
      continue;
    }
    for (const f of list) {
      lines.push(`\n- [${f.cat}] ${f.exp}: ${clip(shown(f.msg), 500)}`);
      lines.push(`  ${f.count} input${f.count === 1 ? '' : 's'}; shortest reproduction (input #${f.reproIndex}):`);
      lines.push(`    ${clip(f.repro, 700)}`);
      const others = f.triggers.filter((t) => t.repro !== f.repro);
      if (f.triggers.length > 1) lines.push(`  ${f.triggers.length} kinds of input: ${f.triggers.slice(0, 6).map((t) => `${clip(t.sig, 90)} ×${t.count}`).join(' | ')}${f.triggers.length > 6 ? ' | …' : ''}`);
      const seen = new Set([f.repro]);
      const more = others.sort((a, b) => a.repro.length - b.repro.length).filter((t) => !seen.has(t.repro) && seen.add(t.repro));
      for (const t of more.slice(0, triggers)) lines.push(`    also #${t.i}: ${clip(t.repro, 400)}`);
    }
  }
  return lines.join('\n');
}

export function fullReport(s, { compact = false } = {}) {
  return [
    'agent-trajectories seeded fuzz: every outcome must be a success or an AgentTrajectoriesError with a string code.',
    summaryTable(s),
    '',
    `Findings, deduplicated by (export, category, message shape): ${s.findings.length}.`,
    'Reproductions use the valid inputs of gen.mjs: B.* (README-shaped inputs) and V.* (made by the package at start: a run result, a model recording, a pipeline snapshot);',
    '"X with .a.b = v" means the valid input X with one field changed; "kinds of input" lists the changes that led to the same finding.',
    `Re-run one input: FUZZ_SEED=${s.seed} FUZZ_ONLY=<input #> node tests/consumers/fuzz/fuzz.mjs`,
    findingsReport(s, { compact }),
    '',
  ].join('\n');
}

// CLI
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const o = optionsFromEnv();
  console.log(`fuzz: seed ${o.seed} (FUZZ_SEED), ${o.only ? `inputs ${o.only.join(',')}` : `${o.inputs} inputs (FUZZ_INPUTS)`}, ${o.workers} workers`);
  const s = await runFuzz({ ...o, log: (l) => console.log(l) });
  if (o.only) {
    for (const p of s.perInput) {
      console.log(`\ninput #${p.i}: ${p.cat} (${p.ms.toFixed(1)} ms); triggers: ${p.atoms.join('; ') || '-'}`);
      for (const f of p.findings) console.log(`  [${f.cat}] ${f.exp}: ${f.msg}\n    repro: ${f.repro}`);
      if (!p.findings.length) {
        const { at, V } = { at: await import('agent-trajectories'), V: null };
        const c = makeCase(o.seed, p.i, at, V ?? await prepare(at));
        console.log(`    input: ${c.steps.map((x) => x.expr).join('; ')}`);
      }
    }
  }
  console.log(summaryTable(s));
  if (process.env.FUZZ_PROFILE) for (const [e, t] of Object.entries(s.timeByExp).sort((a, b) => b[1].ms - a[1].ms)) console.log(`  ${e.padEnd(28)} ${String(t.n).padStart(6)} inputs ${(t.ms / 1000).toFixed(2).padStart(7)} s  mean ${(t.ms / t.n).toFixed(2)} ms  max ${t.max.toFixed(0)} ms (#${t.maxI})`);
  if (process.env.FUZZ_PROFILE) for (const x of s.slowest) console.log(`  slow #${x.i} ${x.ms.toFixed(0)} ms ${x.exp} ${x.cat}: ${x.atoms.join('; ').slice(0, 150)}`);
  console.log(findingsReport(s, { perCategory: 8 }));
  const report = fullReport(s);
  if (o.out) { writeFileSync(o.out, report); console.log(`\nfull findings: ${o.out}`); }
  if (process.env.FUZZ_COMPACT_OUT) writeFileSync(process.env.FUZZ_COMPACT_OUT, fullReport(s, { compact: true }));
  if (process.env.FUZZ_JSON) writeFileSync(process.env.FUZZ_JSON, JSON.stringify({ ...s, perInput: undefined }, null, 1));
  const bad = s.counts.uncoded + s.counts.trap + s.counts.hang + s.counts.crash + s.counts.invariant + s.counts.harness;
  process.exitCode = bad ? 1 : 0;
}

