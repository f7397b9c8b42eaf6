// The seeded fuzz run of every export (fuzz.mjs), as a test: every outcome
// must be a success or an AgentTrajectoriesError with a string code, and no
// invariant may break. The summary table and the findings are printed
// either way, so the log shows the figures.
//
//   node --test tests/consumers/fuzz/                       # FUZZ_SEED, FUZZ_INPUTS, FUZZ_WORKERS as for fuzz.mjs
//   FUZZ_SEED=20261123 FUZZ_INPUTS=20000 node --test tests/consumers/fuzz/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { runFuzz, optionsFromEnv, summaryTable, findingsReport, fullReport } from './fuzz.mjs';

const o = optionsFromEnv();
const s = await runFuzz({ ...o, log: (l) => console.log(l) });
const print = (text) => console.log(text);
print(summaryTable(s));
// The figures, also where scripts/test.sh shows them (its "report:" lines).
for (const line of summaryTable(s).split('\n')) console.log(`report: ${line}`);
print(findingsReport(s, { perCategory: 10 }));
if (o.out) writeFileSync(o.out, fullReport(s));

const list = (cat) => s.findings.filter((f) => f.cat === cat).map((f) => `${f.exp}: ${f.msg.slice(0, 160)} [${f.count}×]\n    ${f.repro.slice(0, 300)}`).join('\n');
test(`fuzz (seed ${s.seed}, ${s.inputs} inputs): every input ran`, () => {
  const total = Object.values(s.counts).reduce((a, b) => a + b, 0);
  assert.equal(total, s.inputs);
  assert.equal(s.counts.harness, 0, `the fuzzer itself failed:\n${list('harness')}`);
});
test('fuzz: no traps (WebAssembly.RuntimeError)', () => assert.equal(s.counts.trap, 0, list('trap')));
test('fuzz: no uncoded errors (anything thrown is an AgentTrajectoriesError with a code)', () => assert.equal(s.counts.uncoded, 0, list('uncoded')));
test('fuzz: no hangs', () => assert.equal(s.counts.hang, 0, list('hang')));
test('fuzz: no crashed workers', () => assert.equal(s.counts.crash, 0, list('crash')));
test('fuzz: no broken invariants', () => assert.equal(s.counts.invariant, 0, list('invariant')));
