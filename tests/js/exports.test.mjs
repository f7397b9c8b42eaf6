// Every entry of the package (each `default` of package.json's exports
// beside its `types`) exports at run time exactly the values its .d.ts
// declares, as the TypeScript compiler reads the declarations
// (checker.getExportsOfModule, values only): a declared name that is not
// exported, or an export that is not declared, fails naming it.
// workerd.js imports its .wasm as a module, which Node cannot load: its
// export list is read from its source (the reader is checked against the
// entries Node does load).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const repo = fileURLToPath(new URL('../../', import.meta.url));
// The unpacked tarball (scripts/test.sh sets PACKAGE_DIR).
const installed = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');
const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));

/** [code, types] of every condition of the exports map that names both, once each. */
function entries() {
  const pairs = new Map();
  const walk = (node) => {
    if (node === null || typeof node !== 'object') return;
    if (typeof node.default === 'string' && typeof node.types === 'string') pairs.set(node.default, node.types);
    for (const v of Object.values(node)) walk(v);
  };
  walk(manifest.exports);
  return [...pairs].map(([code, types]) => [code.replace(/^\.\//, ''), types.replace(/^\.\//, '')]);
}

/** The value exports the TypeScript compiler sees in each .d.ts file. */
function declaredValues(files) {
  const program = ts.createProgram(files.map((f) => join(installed, f)), {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, strict: true,
  });
  const checker = program.getTypeChecker();
  return new Map(files.map((f) => {
    const source = program.getSourceFile(join(installed, f));
    assert.ok(source, `${f}: not read by the compiler`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    assert.ok(moduleSymbol, `${f}: not a module`);
    const values = checker.getExportsOfModule(moduleSymbol).filter((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return (target.flags & ts.SymbolFlags.Value) !== 0;
    });
    return [f, values.map((s) => s.name).sort()];
  }));
}

/** The export names an ES module's source declares (`export { a as b }`, `export const`, `export function`, ...). */
function sourceExports(file) {
  const text = readFileSync(join(installed, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const names = [];
  const exported = (node) => ts.getModifiers?.(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const bound = (name) => (ts.isIdentifier(name) ? [name.text] : name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bound(e.name))));
  for (const st of source.statements) {
    if (ts.isExportDeclaration(st)) {
      assert.ok(st.exportClause && ts.isNamedExports(st.exportClause), `${file}: \`export * from\` cannot be read statically`);
      names.push(...st.exportClause.elements.map((e) => e.name.text));
    } else if (ts.isExportAssignment(st)) {
      names.push('default');
    } else if (ts.isVariableStatement(st) && exported(st)) {
      names.push(...st.declarationList.declarations.flatMap((d) => bound(d.name)));
    } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && exported(st)) {
      const isDefault = ts.getModifiers(st).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      names.push(isDefault ? 'default' : st.name.text);
    }
  }
  return names.sort();
}

// Loaded from a copy inside the repository, so that the optional peer
// dependencies (ai, @opentelemetry/api) resolve from tests/node_modules.
mkdirSync(join(repo, 'tests', '.work'), { recursive: true });
const copy = mkdtempSync(join(repo, 'tests', '.work', 'exports-'));
cpSync(installed, copy, { recursive: true });
const requireCopy = createRequire(join(copy, 'package.json'));

/** The names an entry exports when loaded (workerd.js: read from its source). */
async function runtimeExports(file) {
  if (file === 'workerd.js') return sourceExports(file);
  const ns = file.endsWith('.cjs') ? requireCopy(`./${file}`) : await import(pathToFileURL(join(copy, file)).href);
  // require(esm) gives the module namespace; `__esModule` is Node's interop marker on it, not an export.
  return Object.keys(ns).filter((k) => !(file.endsWith('.cjs') && k === '__esModule')).sort();
}

const pairs = entries();
const declared = declaredValues([...new Set(pairs.map(([, types]) => types))]);

test('the exports map names every entry with its types', () => {
  const codes = pairs.map(([code]) => code);
  for (const entry of ['node.mjs', 'node.cjs', 'web.js', 'workerd.js', 'ai.js', 'otel.js', 'viewer.js']) assert.ok(codes.includes(entry), `${entry} is not in the exports map`);
});

for (const [code, types] of pairs) {
  test(`${code}: its exports are exactly the values ${types} declares`, async () => {
    const runtime = await runtimeExports(code);
    const values = declared.get(types);
    const undeclared = runtime.filter((n) => !values.includes(n));
    const missing = values.filter((n) => !runtime.includes(n));
    assert.ok(values.length > 0, `${types} declares no values`);
    assert.deepEqual({ undeclared, missing }, { undeclared: [], missing: [] },
      `${code}: exported but not declared in ${types}: ${undeclared.join(', ') || 'none'}; declared but not exported: ${missing.join(', ') || 'none'}`);
  });
}

test('the static reader of export lists agrees with Node on every ES module entry it can load', async () => {
  for (const [code] of pairs.filter(([c]) => !c.endsWith('.cjs') && c !== 'workerd.js')) {
    assert.deepEqual(sourceExports(code), await runtimeExports(code), code);
  }
});

test('workerd.js exports what web.js exports, init included', async () => {
  assert.deepEqual(sourceExports('workerd.js'), await runtimeExports('web.js'));
});

test.after(() => rmSync(copy, { recursive: true, force: true }));
