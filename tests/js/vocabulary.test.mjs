// Enum parity, through the tarball: every closed set of words the package
// declares in TypeScript (index.d.ts as the compiler reads it) is exactly
// the core's set, as the installed module reports it (__vocabulary). A
// word added to a Rust enum and not to the types, or the reverse, fails
// here naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const installed = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');

const glue = await import(pathToFileURL(join(installed, 'agent_trajectories.js')).href);
glue.initSync({ module: readFileSync(join(installed, 'agent_trajectories_bg.wasm')) });
const core = glue.__vocabulary();

const program = ts.createProgram([join(installed, 'index.d.ts')], { noEmit: true, strict: true });
const checker = program.getTypeChecker();
const file = program.getSourceFile(join(installed, 'index.d.ts'));
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(file)).map((s) => [s.name, s]));

/** The string literals a declared type (an alias, or a type reached by `pick`) is the union of. */
function literals(name, pick = (t) => t) {
  const symbol = exported.get(name);
  assert.ok(symbol, `index.d.ts does not export ${name}`);
  const type = pick(checker.getDeclaredTypeOfSymbol(symbol));
  const members = type.isUnion() ? type.types : [type];
  const words = members.map((t) => {
    assert.ok(t.isStringLiteral(), `${name}: ${checker.typeToString(t)} is not a string literal`);
    return t.value;
  });
  return words.sort();
}

const sorted = (xs) => [...xs].sort();
const property = (t, key) => checker.getTypeOfSymbol(t.getProperty(key));

test('the TypeScript unions of index.d.ts are the core\'s words', () => {
  assert.deepEqual(literals('ErrorCode'), sorted(core.errorCodes.map((c) => c.code)), 'ErrorCode');
  assert.deepEqual(literals('RecordKind'), sorted(core.recordKinds), 'RecordKind');
  assert.deepEqual(literals('RunStatus'), sorted(core.statuses), 'RunStatus');
  assert.deepEqual(literals('StopReason'), sorted(core.stopReasons), 'StopReason');
  assert.deepEqual(literals('Verdict'), sorted(core.verdicts), 'Verdict');
});

test('the hand-written types that spell a closed set use all of it', () => {
  // The payload union: one member per record kind, each tagged by it.
  assert.deepEqual(literals('TrajectoryPayloadKind'), sorted(core.recordKinds), 'TrajectoryPayload kinds');
  assert.deepEqual(literals('RunOutcome', (t) => property(t, 'status')), sorted(core.statuses), 'RunOutcome.status');
  const batchSummary = checker.getDeclaredTypeOfSymbol(exported.get('BatchSummary'));
  const keysOf = (key) => sorted(checker.getPropertiesOfType(property(batchSummary, key)).map((p) => p.name));
  assert.deepEqual(keysOf('byVerdict'), sorted(core.verdicts), 'BatchSummary.byVerdict');
  assert.deepEqual(keysOf('byReason'), sorted(core.stopReasons), 'BatchSummary.byReason');
});

test('the core lists each word once, and every list is non-empty', () => {
  for (const [name, words] of Object.entries({ ...core, errorCodes: core.errorCodes.map((c) => c.code) })) {
    assert.ok(words.length > 0, `${name} is empty`);
    assert.equal(new Set(words).size, words.length, `${name} lists a word twice`);
  }
  for (const c of core.errorCodes) assert.ok(c.when.length > 10, `${c.code} has no description`);
});
