// Background loop benchmark: iterations per second of BackgroundAgentRunner
// with an instant scripted model over a 200-file virtual filesystem, and the
// cost per iteration early (iterations 1-50) vs late (951-1,000) in one run,
// beside a plain-JS loop doing the same work (a Map as the filesystem, the
// prompt built as a string). Prints a table; asserts nothing.
// Usage: scripts/build.sh && node tests/bench/background.mjs [package dir=pkg]
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = resolve(process.argv[2] ?? 'pkg');
const { BackgroundAgentRunner } = await import(pathToFileURL(`${dir}/node.mjs`).href);
const { QUICK, report } = await import('./report.mjs');

const ITERATIONS = QUICK ? 100 : 1_000;
const files = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`src/mod_${i}.rs`, `fn f${i}() {}\n`.repeat(20)]));
// Each decision reads one file and notes it on the plan; the first makes the plan.
const decision = (n) => n === 0
  ? { toolCalls: [{ toolName: 'plan_create', input: { steps: ['read everything'] } }] }
  : { toolCalls: [{ toolName: 'read_file', input: { path: `repo/src/mod_${n % 200}.rs`, limit: 5 } }, { toolName: 'plan_update_step', input: { step: 1, note: `read ${n % 200}` } }] };

async function runner() {
  let n = 0;
  const started = [];
  const model = async (req) => (req.purpose === 'decide' ? decision(n++) : 'done');
  const r = new BackgroundAgentRunner({
    model,
    clock: () => 1_700_000_000_000,
    config: { maxIterations: ITERATIONS, enableReflection: false },
    onRecord: (rec) => { if (rec.payload.kind === 'iteration_started') started.push(performance.now()); },
  });
  const t = performance.now();
  const result = await r.run({ objective: 'Read the repository', hostMounts: [{ path: 'repo', files }] });
  const total = performance.now() - t;
  if (result.iterations !== ITERATIONS) throw new Error(`ran ${result.iterations} iterations: ${result.reason}`);
  const per = (a, b) => ((started[b] - started[a]) * 1000) / (b - a);
  return { total, early: per(0, 50), late: per(ITERATIONS - 50, ITERATIONS - 1) };
}

// The same work in plain JS: a Map as the filesystem, the plan as an
// array, the scratchpad as a string, the scripted model awaited.
async function plain() {
  const vfs = new Map(Object.entries(files).map(([p, t]) => [`repo/${p}`, t]));
  const plan = [];
  const last = [];
  const started = [];
  const t = performance.now();
  for (let n = 0; n < ITERATIONS; n++) {
    started.push(performance.now());
    const pad = `Objective: Read the repository\nPlan:\n${plan.map((s, i) => `${i + 1}. ${s.title}\n${s.notes.map((x) => `   - ${x}`).join('\n')}`).join('\n')}\nFiles:\n${[...vfs.keys()].slice(0, 100).join('\n')}\n${last.map((c) => JSON.stringify(c)).join('\n')}`;
    const answer = await (async () => decision(n))(pad);
    for (const c of answer.toolCalls) {
      if (c.toolName === 'plan_create') plan.push(...c.input.steps.map((title) => ({ title, notes: [] })));
      else if (c.toolName === 'read_file') last.push({ c, r: vfs.get(c.input.path).split('\n').slice(0, 5).join('\n') });
      else { const notes = plan[0].notes; notes.push(c.input.note); if (notes.length > 16) notes.shift(); }
      if (last.length > 5) last.shift();
    }
    await new Promise((r) => setImmediate(r));
  }
  const total = performance.now() - t;
  const per = (a, b) => ((started[b] - started[a]) * 1000) / (b - a);
  return { total, early: per(0, 50), late: per(ITERATIONS - 50, ITERATIONS - 1) };
}

await runner(); // warm the JIT
const rows = [['BackgroundAgentRunner', await runner()], ['plain JS, same work', await plain()]];
console.log(`background loop: ${ITERATIONS} iterations, instant scripted model, 200-file VFS, Node ${process.version}\n`);
console.log(`${''.padEnd(24)}${'iterations/s'.padStart(14)}${'µs/it @1-50'.padStart(14)}${'µs/it @951-1000'.padStart(17)}`);
for (const [name, r] of rows) {
  console.log(`${name.padEnd(24)}${Math.round((ITERATIONS * 1000) / r.total).toLocaleString('en').padStart(14)}${r.early.toFixed(0).padStart(14)}${r.late.toFixed(0).padStart(17)}`);
}
const [ours, base] = rows.map(([, r]) => (ITERATIONS * 1000) / r.total);
report({ bench: 'background', path: `background loop, ${ITERATIONS.toLocaleString('en')} iterations over a 200-file VFS`, unit: 'it/s', lower: false, ours, baseline: base, target: { ratio: 0.5 } });
