// Enum parity, through the tarball: every closed set of words the package
// declares in TypeScript (index.d.ts as the compiler reads it) is exactly
// the core's set, as the core's `vocabulary` binary prints it. A word
// added to a Rust enum and not to the types, or the reverse, fails here
// naming it; so does a built-in observer's option the types do not offer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { coreVocabulary } from '../../scripts/vocabulary.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const installed = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');

const core = coreVocabulary(repo);

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
  assert.deepEqual(literals('BuiltinObserverName'), sorted(core.observers.map((o) => o.name)), 'BuiltinObserverName');
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

test("each built-in observer's options type offers exactly the options the core reads", () => {
  const config = checker.getDeclaredTypeOfSymbol(exported.get('ObserverConfig'));
  const byName = new Map();
  for (const member of config.types) {
    const observer = property(member, 'observer');
    if (observer.isStringLiteral()) byName.set(observer.value, checker.getNonNullableType(property(member, 'options')));
  }
  for (const o of core.observers) {
    assert.ok(byName.has(o.name), `ObserverConfig has no member for '${o.name}'`);
    const keys = sorted(checker.getPropertiesOfType(byName.get(o.name)).map((p) => p.name));
    assert.deepEqual(keys, sorted(Object.keys(o.defaults)), `'${o.name}' options`);
  }
});

test('the core lists each word once, and every list is non-empty', () => {
  const lists = { ...core, errorCodes: core.errorCodes.map((c) => c.code), records: core.records.map((r) => r.kind), observers: core.observers.map((o) => o.name) };
  for (const [name, words] of Object.entries(lists)) {
    assert.ok(words.length > 0, `${name} is empty`);
    assert.equal(new Set(words).size, words.length, `${name} lists a word twice`);
  }
  for (const c of core.errorCodes) assert.ok(c.when.length > 10, `${c.code} has no description`);
});
