// Renders the per-runtime entries (the JS layer's modules in src/js bundled
// by esbuild, one bundle per entry with shared chunks), the public types and
// package.json into pkg/, then prints raw / gzip / brotli sizes and enforces
// the gzip budget.
// Usage: node scripts/assemble.mjs <repo root> <work dir> <gzip budget bytes> [package dir, default pkg]
import { readFileSync, writeFileSync, rmSync, readdirSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve, relative, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { buildViewerTemplate } from './viewer.mjs';
import { shortImports } from './short-imports.mjs';
import { coreVocabulary, writeGenerated } from './vocabulary.mjs';
import { enforceBudgets } from './budgets.mjs';
import { minifyShipped } from './minify.mjs';

const [root, work, budgetArg, out] = process.argv.slice(2);
const pkg = out ? resolve(root, out) : join(root, 'pkg');
const budget = Number(budgetArg);

// Everything the glue exports except its own loaders: entries re-export
// these by name, so a new Rust export reaches every runtime without edits.
// wasm-bindgen's own refusals (a method on a freed object, an object used
// from inside its own callback) throw a plain Error from the glue: make them
// this package's coded errors. The build fails if the glue changes shape.
const bindingError = `function __bindingError(message) {
  const gone = 'freed (by free() or a using block), or not one of this package\\'s objects';
  const inUse = 'busy in a call that has not returned (used from its own callback?)';
  const freed = message.startsWith('null pointer passed');
  const busy = /^(recursive use|attempted to take ownership)/.test(message);
  const err = new Error(freed ? \`this object is \${gone}\` : busy ? \`this object is \${inUse}\` : message);
  err.name = 'AgentTrajectoriesError';
  err.code = freed ? 'INVALID_ARGUMENT' : busy ? 'BUSY' : 'INTERNAL';
  return err;
}
`;
{
  const file = 'agent_trajectories.js';
  const text = readFileSync(join(pkg, file), 'utf8');
  const thrower = /(__wbg___wbindgen_throw_[0-9a-f]+: function\(arg0, arg1\) \{\s*)throw new Error\(getStringFromWasm0\(arg0, arg1\)\);/;
  if (!thrower.test(text)) throw new Error(`assemble: ${file}: the glue's __wbindgen_throw changed shape`);
  // free() twice (or a `using` block after an explicit free) is a no-op, as disposing should be.
  const free = /(free\(\) \{\s*const ptr = this\.__destroy_into_raw\(\);)/g;
  const frees = text.match(free)?.length ?? 0;
  if (frees < 5) throw new Error(`assemble: ${file}: the glue's free() changed shape (${frees} found)`);
  // The loaders' old one-argument forms (a bare module or URL, with a
  // console warning) are never used: the entries always pass an object.
  const oldForms = /if \(Object\.getPrototypeOf\((\w+)\) === Object\.prototype\) \{\s*\(\{\w+\} = \w+\)\s*\} else \{\s*console\.warn\('using deprecated parameters[^']*'\)\s*\}/g;
  if (text.match(oldForms)?.length !== 2) throw new Error(`assemble: ${file}: the glue's loaders changed shape`);
  // Each class's finalizer, with its fallback where a runtime has no
  // FinalizationRegistry, written once.
  const registries = /\(typeof FinalizationRegistry === 'undefined'\)\s*\?\s*\{ register: \(\) => \{\}, unregister: \(\) => \{\} \}\s*:\s*new FinalizationRegistry\(/g;
  if ((text.match(registries)?.length ?? 0) < 5) throw new Error(`assemble: ${file}: the glue's finalizers changed shape`);
  // TextEncoder's encodeInto is in every supported runtime (the module
  // imports it itself, for its strings): the glue's fallback is dead.
  const encodeInto = /if \(!\('encodeInto' in cachedTextEncoder\)\) \{\s*cachedTextEncoder\.encodeInto = function \(arg, view\) \{[^}]*\{[^}]*\};\s*\};\s*\}/;
  if (!encodeInto.test(text)) throw new Error(`assemble: ${file}: the glue's encodeInto fallback changed shape`);
  const patched = `function __finalization(f) {
  return typeof FinalizationRegistry === 'undefined' ? { register: () => {}, unregister: () => {} } : new FinalizationRegistry(f);
}
${text}`
    .replace(registries, '__finalization(')
    .replace(encodeInto, '')
    .replace(thrower, '$1throw __bindingError(getStringFromWasm0(arg0, arg1));')
    .replace(free, '$1 if (ptr === 0) return;')
    .replace(oldForms, '({$1} = $1);');
  // Short import names in both (the initSync below instantiates the result: a wrong rename fails the build).
  const short = shortImports(`${bindingError}${patched}`, readFileSync(join(pkg, 'agent_trajectories_bg.wasm')));
  writeFileSync(join(pkg, file), short.glue);
  writeFileSync(join(pkg, 'agent_trajectories_bg.wasm'), short.wasm);
}
const glue = await import(pathToFileURL(join(pkg, 'agent_trajectories.js')).href);
// Names starting with `__` are internals that the JS layer wraps.
const names = Object.keys(glue).filter((n) => n !== 'default' && n !== 'initSync' && !n.startsWith('__')).sort();
glue.initSync({ module: readFileSync(join(pkg, 'agent_trajectories_bg.wasm')) });

// The closed sets of words (error codes, record kinds, built-in observers,
// statuses, stop reasons, verdicts) come from the core, through its native
// `vocabulary` binary: their TypeScript unions and the docs' tables are
// rewritten before anything reads them (scripts/vocabulary.mjs).
for (const file of writeGenerated(root, coreVocabulary(root))) console.log(`assemble: regenerated ${file} from the core's vocabulary`);

const srcJs = join(root, 'src', 'js');
const srcModule = (file) => import(pathToFileURL(join(srcJs, file)).href);
// The glue functions the layer calls (src/js/binding.js): each must be in this glue.
const { GLUE } = await srcModule('binding.js');
const missing = Object.values(GLUE).map(([from]) => from).filter((from) => typeof glue[from] !== 'function');
if (missing.length) throw new Error(`assemble: src/js/binding.js binds ${missing.join(', ')}, which the glue does not export`);
// What the main entries export of the JS layer (src/js/layer.js), beside the glue's exports.
const generated = Object.keys(await srcModule('layer.js')).sort();
const clash = generated.filter((n) => names.includes(n));
if (clash.length) throw new Error(`assemble: ${clash.join(', ')} exported by both the glue and src/js/layer.js`);

const header = '// Generated by scripts/assemble.mjs; do not edit.\n';

// The package is side-effect free (`sideEffects` lists only the vitest
// entry, which extends vitest's expect on import). An entry that only re-exported
// (`export { X } from`) could be skipped by a bundler following the
// re-export straight to the glue or a chunk, and with it the entry's
// set-up (initSync, setBinding; Rolldown does). Exports defined in the
// entry keep the entry, and its set-up, in.
const localExports = (from, list) => list.map((n) => `export const ${n} = ${from}.${n};`).join('\n');
const glueExports = localExports('glue', names);
const layerExports = localExports('layer', generated);
// Constants the Rust core defines, read from the built module so the entries
// never carry a second copy that could drift.
const constantExports = `/** The record schema this build writes (and the newest it reads). */
export const TRAJECTORY_SCHEMA_VERSION = ${glue.trajectorySchemaVersion()};
`;
const noopInit = `/** Ready on import in this runtime; kept so code can await init() everywhere. */
export async function init() {}
`;
// What every main entry imports of the layer; `./agent_trajectories.js`
// (and workerd's .wasm) stay imports of the package's own files.
const mainImports = `import { setBinding } from './binding.js';
import { installFastPaths } from './fast-paths.js';
import * as layer from './layer.js';
`;

// `ai` is an optional peer dependency, so no entry names it where a bundler
// would resolve it: browsers and Workers take `generateText` from the caller
// or from agent-trajectories/ai (which imports it). Node alone still loads it
// by name on first use, for code written before that entry existed; the
// specifier is a run-time value, so bundlers (even for Node) leave it alone.
const nodeImportAi = "((name) => () => import(/* webpackIgnore: true */ /* @vite-ignore */ name))('ai')";

// The entries, as esbuild's entry points (modules resolved from src/js).
const entries = {};
entries['node.mjs'] = `import * as glue from './agent_trajectories.js';
import { readWasm, writeArtifacts } from './node-entry.js';
${mainImports}
// import.meta.url is empty where a bundler turns this module into CommonJS
// (esbuild --format=cjs); __dirname is the bundle's folder there.
const wasmFile = import.meta.url ? new URL('./agent_trajectories_bg.wasm', import.meta.url) : \`\${__dirname}/agent_trajectories_bg.wasm\`;
glue.initSync({ module: readWasm(wasmFile) });
installFastPaths(glue.ObserverPipeline);
setBinding(glue, { importAi: ${nodeImportAi} });
${layerExports}
export { writeArtifacts };
${glueExports}
${constantExports}${noopInit}`;

// Workers forbid compiling wasm from bytes at run time: import the module.
entries['workerd.js'] = `import wasmModule from './agent_trajectories_bg.wasm';
import * as glue from './agent_trajectories.js';
${mainImports}
glue.initSync({ module: wasmModule });
installFastPaths(glue.ObserverPipeline);
setBinding(glue);
${layerExports}
${glueExports}
${constantExports}${noopInit}`;

// Browsers: no top-level await (it deadlocks some bundlers), so every export
// is guarded until `await init()` and throws NOT_INITIALIZED before it
// (src/js/web-entry.js); the layer's calls into the glue are guarded too,
// each naming the public API the user called (src/js/binding.js).
entries['web.js'] = `import initWasm, * as glue from './agent_trajectories.js';
import { useLoader, init, guard } from './web-entry.js';
${mainImports}
useLoader(initWasm);
export { init };
installFastPaths(glue.ObserverPipeline);
${names.map((n) => `export const ${n} = guard('${n}', glue.${n});`).join('\n')}
setBinding(glue, { wrap: guard });
${layerExports}
${constantExports}`;

// agent-trajectories/ai: the AI SDK adapters with `generateText` from `ai`
// bound, for any runtime. The one file that names `ai`, an optional peer
// dependency: only code that imports this entry needs it installed.
const aiAbout = `// The AI SDK adapters with \`generateText\` from \`ai\` (an optional peer
// dependency) bound: the same functions as the main entry's, without passing
// \`generateText\`. Only code that imports this entry needs \`ai\` installed.
`;
entries['ai.js'] = `import { generateText } from 'ai';
import { aiSdkAdapters } from './models.js';
export const { withAISdkAgent, fromAISdkModel } = aiSdkAdapters(() => () => ({ generateText }));
`;

// agent-trajectories/otel: records as OpenTelemetry GenAI spans. The one
// file that names @opentelemetry/api, an optional peer dependency.
const otelAbout = `// Records as OpenTelemetry GenAI spans, through a Tracer of
// @opentelemetry/api (an optional peer dependency): only code that imports
// this entry needs it installed.
`;
entries['otel.js'] = `import { trace, context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import * as otel from './otel.js';
otel.setOtelApi({ trace, context, SpanKind, SpanStatusCode });
export const exportSpans = otel.exportSpans;
export const spanSink = otel.spanSink;
`;

// agent-trajectories/viewer: runs written into the one-file viewer. The page
// (viewer.html) is www/ bundled; the entry fills it and never loads the wasm.
const viewerAbout = `// The run viewer as one self-contained HTML file, with runs in it.
`;
entries['viewer.js'] = `import * as viewer from './viewer.js';
export const viewerHtml = viewer.viewerHtml;
export const writeViewerHtml = viewer.writeViewerHtml;
`;

// agent-trajectories/vitest: matchers for eval suites. The one file that
// names vitest, an optional peer dependency. It asks the main entry by the
// package's own name (a self-reference), so the runtime's entry is loaded
// and set up as the user's tests load it: one instance, the same classes
// (a TrajectoryIndex is recognised), whichever condition picked it.
const vitestAbout = `// Matchers for vitest (an optional peer dependency): importing this entry
// extends vitest's expect with them. Only code that imports it needs vitest.
`;
entries['vitest.js'] = `import { expect } from 'vitest';
import * as at from 'agent-trajectories';
import { vitestMatchers } from './vitest.js';
export const matchers = vitestMatchers(at);
expect.extend(matchers);
`;

// agent-trajectories/report: runs judged by checkRun, reported for CI. Like
// vitest.js it reaches the main entry by the package's own name, so it
// bundles none of the layer and shares the app's loaded module.
const reportAbout = `// Runs judged by checkRun and written for CI: JUnit XML, GitHub Actions
// output, markdown and text. Loads the main entry by the package's name.
`;
entries['report.js'] = `import * as report from './report.js';
${['judgeRuns', 'junitReport', 'githubReport', 'markdownReport', 'textReport'].map((n) => `export const ${n} = report.${n};`).join('\n')}
`;
// cli.mjs, the package's bin (`npx agent-trajectories`): Node only. It
// imports the main entry, ./viewer and ./report by the package's name.
entries['cli.mjs'] = `import { cli } from './cli.js';
process.exitCode = await cli();
`;

// One esbuild build over every entry, with code splitting: a module two
// entries use ships once, in a chunk (chunk-<hash>.js, beside the entries,
// where a Worker's module list finds it too) that both import, so the
// package keeps one instance of the layer's state per process (and node.cjs
// is node.mjs through require(esm)). The glue, the .wasm and the optional
// peer dependencies stay imports.
const CHUNKS = 'chunk-*.js';
const esbuild = createRequire(join(root, 'tools', 'package.json'))('esbuild');
const wellKnown = glue.__wellKnown();
const entryPlugin = {
  name: 'agent-trajectories-entries',
  setup(b) {
    b.onResolve({ filter: /^entry:/ }, (args) => ({ path: args.path.slice('entry:'.length), namespace: 'entry' }));
    b.onLoad({ filter: /.*/, namespace: 'entry' }, (args) => ({ contents: entries[args.path], resolveDir: srcJs, loader: 'js' }));
    // The package's own files, next to the entries (only the entries import them).
    b.onResolve({ filter: /^\.\/agent_trajectories(_bg\.wasm|\.js)$/ }, (args) => {
      if (args.namespace !== 'entry') throw new Error(`assemble: ${args.importer} imports ${args.path}; only the entries may (src/js/binding.js is how the layer reaches the glue)`);
      return { path: args.path, external: true };
    });
    // The core's well-known record names, from the built module.
    b.onLoad({ filter: /[\\/]src[\\/]js[\\/]well-known\.js$/ }, () => ({ contents: `export const WELL_KNOWN = ${JSON.stringify(wellKnown)};\n`, loader: 'js' }));
  },
};
const bundled = await esbuild.build({
  entryPoints: Object.keys(entries).map((name) => ({ in: `entry:${name}`, out: name.replace(/\.m?js$/, '') })),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  charset: 'utf8',
  outdir: pkg,
  chunkNames: '[name]-[hash]',
  external: ['node:*', 'ai', '@opentelemetry/api', '@cfworker/json-schema', 'vitest', 'agent-trajectories', 'agent-trajectories/*'],
  plugins: [entryPlugin],
  metafile: true,
  write: false,
  logLevel: 'warning',
});
// node.mjs is the one entry with its own extension (esbuild writes .js).
const outName = (path) => {
  const rel = relative(pkg, path).split('\\').join('/');
  return rel === 'node.js' ? 'node.mjs' : rel === 'cli.js' ? 'cli.mjs' : rel;
};
for (const f of readdirSync(pkg)) if (/^chunk-.*\.js$/.test(f)) rmSync(join(pkg, f));
const chunkFiles = [];
for (const f of bundled.outputFiles) {
  const name = outName(f.path);
  const about = { 'ai.js': aiAbout, 'otel.js': otelAbout, 'viewer.js': viewerAbout, 'vitest.js': vitestAbout, 'report.js': reportAbout }[name] ?? '';
  writeFileSync(join(pkg, name), `${header}${about}${f.text}`);
  if (/^chunk-.*\.js$/.test(name)) chunkFiles.push(name);
}
// What each entry loads (itself and the chunks it imports, not the glue or the .wasm).
const loads = (entry) => {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of bundled.metafile.outputs[file].imports) if (!i.external) visit(i.path);
  };
  visit(relative(process.cwd(), join(pkg, entry.replace(/\.mjs$/, '.js'))).split('\\').join('/'));
  return [...seen].map((f) => outName(resolve(f)));
};
// The layer's generation code stays out of the entries that do not export it.
for (const entry of ['ai.js', 'otel.js', 'viewer.js', 'vitest.js']) {
  const text = loads(entry).map((f) => readFileSync(join(pkg, f), 'utf8')).join('\n');
  for (const marker of ['runTrajectory', 'ObserverPipeline', 'BackgroundAgentRunner', 'TrajectoryIndex', 'runTrajectories']) {
    if (text.includes(marker)) throw new Error(`assemble: ${entry} loads ${marker}, which is the main entries' (check what src/js modules it imports)`);
  }
}
// vitest is an optional peer dependency: only vitest.js may import it, so
// that no other entry, nor a chunk they share, needs it installed.
for (const [file, out] of Object.entries(bundled.metafile.outputs)) {
  const name = outName(resolve(file));
  if (name !== 'vitest.js' && out.imports.some((i) => i.path === 'vitest')) throw new Error(`assemble: ${name} imports vitest; only vitest.js may (an optional peer dependency)`);
}
// The tool entries (report.js, cli.mjs) reach the layer through the
// package's name: of the modules the main entries bundle, they may bundle
// only util.js (what every module shares), and no other entry loads theirs
// but nearest.js, which the OpenTelemetry entry's option check shares.
{
  const outputOf = new Map(Object.keys(bundled.metafile.outputs).map((k) => [outName(resolve(k)), k]));
  const modules = (entry) => new Set(loads(entry).flatMap((f) => Object.keys(bundled.metafile.outputs[outputOf.get(f)].inputs)));
  const mainModules = modules('node.mjs');
  const toolModules = new Set();
  for (const entry of ['report.js', 'cli.mjs']) {
    for (const m of modules(entry)) {
      if (m.startsWith('entry:')) continue;
      if (mainModules.has(m) && !m.endsWith('src/js/util.js')) throw new Error(`assemble: ${entry} bundles ${m}, a module of the main entries; import it from 'agent-trajectories' instead`);
      if (!mainModules.has(m) && !m.endsWith('src/js/nearest.js')) toolModules.add(m);
    }
  }
  for (const entry of Object.keys(entries).filter((e) => !['report.js', 'cli.mjs'].includes(e))) {
    const own = [...modules(entry)].find((m) => toolModules.has(m));
    if (own) throw new Error(`assemble: ${entry} bundles ${own}, which only the tool entries (report.js, cli.mjs) may`);
  }
}

// CommonJS: the ES module itself, through require(esm) (Node ^20.19 and
// >= 22.12, the package's engines). One copy of the glue and the JS layer
// ships instead of two, and require() and import share one instance.
writeFileSync(join(pkg, 'node.cjs'), `${header}'use strict';
module.exports = require('./node.mjs');
`);
writeFileSync(join(pkg, 'ai.cjs'), `${header}${aiAbout}'use strict';
module.exports = require('./ai.js');
`);
writeFileSync(join(pkg, 'otel.cjs'), `${header}${otelAbout}'use strict';
module.exports = require('./otel.js');
`);
writeFileSync(join(pkg, 'viewer.cjs'), `${header}${viewerAbout}'use strict';
module.exports = require('./viewer.js');
`);
writeFileSync(join(pkg, 'vitest.cjs'), `${header}${vitestAbout}'use strict';
module.exports = require('./vitest.js');
`);
writeFileSync(join(pkg, 'report.cjs'), `${header}${reportAbout}'use strict';
module.exports = require('./report.js');
`);

// Public types. src/js's .d.ts files import each other's names (and stand-ins
// for the glue's, from binding-types.d.ts) for the type check of src/js;
// here they are one file, so those imports go, and each imported name must
// be declared in it.
const typeImport = /^import type \{([^}]*)\} from '\.\/([\w-]+)';\n/gm;
const importedNames = [];
// A fragment's leading // lines (before its imports) speak of the source file and stay there.
const fragment = (file) => readFileSync(join(srcJs, file), 'utf8').replace(/^(\/\/[^\n]*\n)+/, '').replace(typeImport, (_, list) => {
  importedNames.push(...list.split(',').map((n) => n.trim()).filter(Boolean));
  return '';
}).trim();
// The glue's declarations up to its loader internals, plus init().
// wasm-bindgen types every parameter as required; toConversation's id is optional (it defaults to the run's).
const optionalId = 'export function toConversation(result: TrajectoryResult, conversationId: string | null): Conversation;';
const glueDts = readFileSync(join(work, 'web', 'agent_trajectories.d.ts'), 'utf8');
if (!glueDts.includes(optionalId)) throw new Error('assemble: glue .d.ts changed shape (toConversation)');
const dts = glueDts.replace(optionalId, optionalId.replace('conversationId: string | null', 'conversationId?: string | null'));
const cut = dts.indexOf('export type InitInput');
if (cut < 0) throw new Error('assemble: glue .d.ts changed shape (no InitInput)');
// Each declaration file opens with its entry's name and what it is for
// (editors show it, and the API reference names its modules by it).
const moduleDoc = (name, about) => `/**\n${about.replace(/^\/\/ ?/gm, ' * ')} * @module ${name}\n */\n`;
const mainAbout = `// Capture, observe, generate and replay agent runs, in Node, browsers and
// Workers: every runtime's API (Node adds writeArtifacts).
`;
const publicTypes = `${fragment('vocabulary.d.ts')}

${fragment('records.d.ts')}

${fragment('trajectory-index-types.d.ts')}

${dts.slice(0, cut).trim()}

/**
 * Loads the WebAssembly module. Required once in browsers (before any other
 * call); resolves at once in Node and Workers, where import loads it.
 * \`input\`: a URL (string or URL), Request, Response, bytes or a compiled
 * WebAssembly.Module; default: the .wasm beside the entry. Typed without DOM
 * names so Node-only projects compile without the DOM lib.
 */
export function init(input?: string | object): Promise<void>;

/** The record schema this build writes (and the newest it reads). */
export const TRAJECTORY_SCHEMA_VERSION: ${glue.trajectorySchemaVersion()};

${fragment('generate-types.d.ts')}

${fragment('ai-sdk-types.d.ts')}

${fragment('mastra-types.d.ts')}

${fragment('background-types.d.ts')}

${fragment('judge-types.d.ts')}
`;
const undeclared = [...new Set(importedNames)].filter((n) => !new RegExp(`^export (declare )?(interface|type|class|function|const) ${n}\\b`, 'm').test(publicTypes));
if (undeclared.length) throw new Error(`assemble: src/js's .d.ts files import ${undeclared.join(', ')}, which index.d.ts does not declare`);
if (/function writeArtifacts\b/.test(publicTypes)) {
  throw new Error('assemble: writeArtifacts is Node-only; declare it in src/js/node-types.d.ts, not in the shared types');
}
// Types per runtime, picked by the same conditions as the code: index.d.ts
// (browsers, Workers, bundlers) and index.d.cts have what every entry has;
// Node's add writeArtifacts, so a browser or Worker build cannot compile a
// call that would fail to link. An entry's declarations ship once, in its
// .d.cts file, which its .d.ts re-exports: an ES module's types may
// re-export a CommonJS file's (not the other way round), and tsc reads
// them alike in every resolution mode (tests/consumers/typescript-*). A
// second copy made the tarball 28 KB gzip bigger.
const declareOnce = (name, about, types) => {
  writeFileSync(join(pkg, `${name}.d.cts`), `${header}${about}${types}`);
  writeFileSync(join(pkg, `${name}.d.ts`), `${header}${about}export * from './${name}.cjs';\n`);
};
declareOnce('index', moduleDoc('agent-trajectories', mainAbout), publicTypes);
// A fragment's own types (Node's additions, the exporter's) import what
// they use of index.d.ts by name.
const ownTypes = (file) => {
  importedNames.length = 0;
  const text = fragment(file);
  return (from) => `import type { ${importedNames.join(', ')} } from '${from}';\n\n${text}\n`;
};
const nodeOnly = ownTypes('node-types.d.ts');
const nodeTypes = (from) => `${header}${moduleDoc('agent-trajectories (Node)', "// Node's types: everything every runtime has, plus what only Node has.\n")}export * from '${from}';
${nodeOnly(from)}`;
writeFileSync(join(pkg, 'node.d.mts'), nodeTypes('./index.js'));
writeFileSync(join(pkg, 'node.d.cts'), nodeTypes('./index.cjs'));
const aiTypes = (from) => `${header}${moduleDoc('agent-trajectories/ai', aiAbout)}export { withAISdkAgent, fromAISdkModel } from '${from}';
`;
writeFileSync(join(pkg, 'ai.d.ts'), aiTypes('./index.js'));
writeFileSync(join(pkg, 'ai.d.cts'), aiTypes('./index.cjs'));
const otelTypes = ownTypes('otel-types.d.ts');
declareOnce('otel', moduleDoc('agent-trajectories/otel', otelAbout), otelTypes('./index.cjs'));
declareOnce('viewer', moduleDoc('agent-trajectories/viewer', viewerAbout), `${fragment('viewer-types.d.ts')}\n`);
// vitest's Assertion (expect(x).toReachGoal()) and its asymmetric matchers
// (expect.toReachGoal()) gain the matchers. vitest 3.2 and 4 declare
// Assertion<T = any>; a merged declaration must repeat its parameters. The
// import of vitest is needed: without it, tsc (5.9) drops the augmentation
// when this file is read before any file that imports vitest (a setupFiles
// module importing only this entry).
const vitestOwn = ownTypes('vitest-types.d.ts');
const vitestTypes = (from) => `${header}${moduleDoc('agent-trajectories/vitest', vitestAbout)}import type {} from 'vitest';
${vitestOwn(from)}
declare module 'vitest' {
  interface Assertion<T = any> extends TrajectoryMatchers {}
  interface AsymmetricMatchersContaining extends TrajectoryAsymmetricMatchers {}
}
`;
writeFileSync(join(pkg, 'vitest.d.ts'), vitestTypes('./index.js'));
writeFileSync(join(pkg, 'vitest.d.cts'), vitestTypes('./index.cjs'));
const reportOwn = ownTypes('report-types.d.ts');
declareOnce('report', moduleDoc('agent-trajectories/report', reportAbout), reportOwn('./index.cjs'));

await buildViewerTemplate(root, pkg);

// package.json from the template, version and metadata from Cargo.toml.
const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
const field = (k) => cargo.match(new RegExp(`^${k}\\s*=\\s*"([^"]*)"`, 'm'))?.[1] ?? '';
const manifest = readFileSync(join(root, 'pkg.json.template'), 'utf8')
  .replace(/\{\{(\w+)\}\}/g, (_, k) => JSON.stringify(field(k)).slice(1, -1));
const manifestJson = JSON.parse(manifest); // fails the build on a broken template
if (!manifestJson.files.includes(CHUNKS)) throw new Error(`assemble: pkg.json.template's files must list "${CHUNKS}" (the entries' shared chunks)`);
// The background runner validates plain JSON Schemas with @cfworker/json-schema
// (maintained, runs in Workers), loaded on first use.
manifestJson.dependencies = { '@cfworker/json-schema': '^4.1.1' };
writeFileSync(join(pkg, 'package.json'), `${JSON.stringify(manifestJson, null, 2)}\n`);
// The README and the docs pages ship (the README links to them). A link of
// theirs to a file of the repository that does not ship (ARCHITECTURE.md)
// reads as its text there, naming the repository, instead of leading nowhere.
const packedPage = (from, to) => {
  const page = readFileSync(from, 'utf8').replace(/\[([^\]]+)\]\((?![a-z]+:|#)([^)#\s]+)(#[^)\s]*)?\)/g, (link, text, target) =>
    existsSync(resolve(dirname(from), target)) && !shipsFrom(resolve(dirname(from), target)) ? `${text} (in the source repository)` : link);
  writeFileSync(to, page);
};
const shipsFrom = (file) => file === join(root, 'README.md') || file.startsWith(join(root, 'docs'));
packedPage(join(root, 'README.md'), join(pkg, 'README.md'));
mkdirSync(join(pkg, 'docs'), { recursive: true });
for (const f of readdirSync(join(root, 'docs'))) packedPage(join(root, 'docs', f), join(pkg, 'docs', f));

// The shipped files, the chunks by name.
const shippedFiles = manifestJson.files.flatMap((f) => (f === CHUNKS ? chunkFiles.sort() : [f]));

// Minified glue and JS layer (scripts/minify.mjs). What the entries export
// keeps its name (`.name` of functions and classes).
const publicNames = [...generated, ...names, 'init', 'writeArtifacts', 'exportSpans', 'spanSink', 'viewerHtml', 'writeViewerHtml', 'judgeRuns', 'junitReport', 'githubReport', 'markdownReport', 'textReport'];
await minifyShipped(root, pkg, shippedFiles.filter((f) => /\.(js|cjs|mjs)$/.test(f)), publicNames);
if (!readFileSync(join(pkg, 'node.mjs'), 'utf8').includes('/* webpackIgnore: true */')) throw new Error('assemble: node.mjs lost its import(\'ai\') annotations');

// Sizes, and the budgets the build enforces (scripts/budgets.mjs).
const budgets = enforceBudgets({
  pkg,
  files: shippedFiles,
  budget,
  entryLoads: Object.keys(entries).map((entry) => [entry, [...loads(entry), ...(['node.mjs', 'web.js', 'workerd.js'].includes(entry) ? ['agent_trajectories.js'] : [])]]),
});
if (!budgets.ok) process.exit(1);
