// agent-trajectories/viewer: runs written into one self-contained HTML file
// (the run viewer, its styles and script, the package's modules and its
// WebAssembly inlined) that opens from file:// with no server and no
// network, so a run can be attached to a bug report and opened anywhere.
// The page is viewer.html, built from www/ by scripts/viewer.mjs; this
// module only fills it. It never loads the WebAssembly itself, so it is
// cheap to import.

import { fail, checkKeys, utf8 } from './util.js';
import { nearest } from './nearest.js';

/** @typedef {import('./viewer-types').ViewerRun} ViewerRun */
/** @typedef {import('./viewer-types').ViewerOptions} ViewerOptions */
/** @typedef {{ name: string, text: string }} Doc */

const OPTIONS = ['title'];
// The page imports the package by this specifier (scripts/viewer.mjs); here
// it becomes a data: URL, the only kind a one-file page can import.
const PACKAGE_SPECIFIER = './pkg/web.js';
const DATA_MARK = '<!--at-data-->';

/** @param {any} v */
const isPlain = (v) => [Object.prototype, null].includes(Object.getPrototypeOf(v));
/**
 * A value as the viewer's errors name it.
 * @param {any} v
 * @returns {string}
 */
function show(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'object') return isPlain(v) ? 'an object' : `a ${v.constructor?.name || 'class instance'}`;
  return typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : String(v);
}
/** @param {any} v */
const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && 'seq' in v && 'payload' in v;

/**
 * One run as `{ name, text }`; `where` names it in errors.
 * @param {any} input
 * @param {number} i
 * @param {string} where
 * @returns {Doc}
 */
function runOf(input, i, where) {
  const name = `run-${i + 1}.jsonl`;
  if (typeof input === 'string') return { name, text: input };
  if (input instanceof Uint8Array) return { name, text: utf8(input, where) };
  const plain = input !== null && typeof input === 'object' && !Array.isArray(input) && isPlain(input);
  if (!plain) {
    throw fail('INVALID_ARGUMENT', `${where} must be JSONL text, UTF-8 bytes or { name?, text } / { name?, records }, got ${show(input)}`);
  }
  // A batch result handed over as it is: say how the page takes one (as a saved batch file's text).
  const hint = Array.isArray(input.runs) ? '; a batch result is given as its JSON text: { name, text: JSON.stringify(batch) }' : '';
  const keys = ['name', 'text', 'records'];
  checkKeys(input, keys, where, (key) => {
    const near = nearest(key, keys);
    return `${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (a run is { name?, text } or { name?, records }${hint})`;
  }, 'key');
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name === '')) {
    throw fail('INVALID_ARGUMENT', `${where}.name must be a non-empty string, got ${show(input.name)}`);
  }
  const named = input.name ?? name;
  if ((input.text === undefined) === (input.records === undefined)) {
    throw fail('INVALID_ARGUMENT', `${where} needs exactly one of text (JSONL) and records (an array of trajectory records)`);
  }
  if (input.text !== undefined) {
    if (typeof input.text === 'string') return { name: named, text: input.text };
    if (input.text instanceof Uint8Array) return { name: named, text: utf8(input.text, `${where}.text`) };
    throw fail('INVALID_ARGUMENT', `${where}.text must be JSONL text or its UTF-8 bytes, got ${show(input.text)}`);
  }
  if (!Array.isArray(input.records)) throw fail('INVALID_ARGUMENT', `${where}.records must be an array of trajectory records, got ${show(input.records)}`);
  return { name: named, text: jsonl(input.records, `${where}.records`) };
}

/**
 * Records as JSONL, one line each; a record JSON cannot carry is refused by index.
 * @param {readonly unknown[]} records
 * @param {string} where
 */
function jsonl(records, where) {
  return records
    .map((r, i) => {
      if (r === null || typeof r !== 'object' || Array.isArray(r)) throw fail('INVALID_ARGUMENT', `${where}[${i}] must be a trajectory record (an object), got ${show(r)}`);
      try {
        return JSON.stringify(r);
      } catch (e) {
        throw fail('INVALID_ARGUMENT', `${where}[${i}] is not JSON data: ${/** @type {any} */ (e)?.message ?? e}`, e);
      }
    })
    .join('\n');
}

/**
 * The runs argument: one run, an array of runs, or the records of one run.
 * @param {unknown} runs
 * @param {string} fn
 * @returns {Doc[]}
 */
function runsOf(runs, fn) {
  if (Array.isArray(runs)) {
    if (runs.length > 0 && runs.every(isRecord)) return [{ name: 'run-1.jsonl', text: jsonl(runs, `${fn}: runs`) }];
    return runs.map((r, i) => runOf(r, i, `${fn}: runs[${i}]`));
  }
  if (runs === undefined) throw fail('INVALID_ARGUMENT', `${fn}: runs is required: JSONL text, { name?, text }, { name?, records }, or an array of them (an empty array writes the viewer alone)`);
  return [runOf(runs, 0, `${fn}: runs`)];
}

/**
 * @param {any} options
 * @param {string} fn
 * @returns {ViewerOptions}
 */
function optionsOf(options, fn) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw fail('INVALID_ARGUMENT', `${fn}: options must be an object, got ${show(options)}`);
  checkKeys(options, OPTIONS, `${fn}: options`, () => `; did you mean "title"? (options: ${OPTIONS.join(', ')})`);
  if (options.title !== undefined && typeof options.title !== 'string') throw fail('INVALID_ARGUMENT', `${fn}: options.title must be a string, got ${show(options.title)}`);
  return options;
}

// The package's own files: read from disk in Node, fetched beside this
// module elsewhere (a page served with the package next to it). The
// node: import is hidden from bundlers, which would refuse it for browsers.
/** @param {string} name @returns {Promise<any>} */
const importNode = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);
/**
 * @param {string} file
 * @returns {Promise<Uint8Array>}
 */
async function own(file) {
  // `file`, not a literal: Vite turns `new URL(`./${x}`, import.meta.url)`
  // into a glob over the whole folder, which broke a Vite app's dev server
  // that imported this entry, and copied every file of the package into its build.
  const url = new URL(file, import.meta.url);
  try {
    if (url.protocol === 'file:') return new Uint8Array(await (await importNode('node:fs/promises')).readFile(url));
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw unread(file, /** @type {any} */ (e)?.message ?? e, e);
  }
}

/**
 * A bundle that took viewer.js away from the package's files (or a server
 * that answers another page for them, as a dev server's fallback does):
 * the caller's set-up, said with what to do (the README's bundler notes).
 * @param {string} file
 * @param {unknown} why
 * @param {unknown} [cause]
 */
const unread = (file, why, cause) => fail(
  'NOT_INITIALIZED',
  `viewer: cannot read the package's ${file} (${why}): the viewer reads the package's own files from beside viewer.js; when bundling, leave agent-trajectories out of the bundle (esbuild --external:agent-trajectories) so they are read from node_modules`,
  cause,
);

/** @param {Uint8Array} bytes */
function base64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, /** @type {any} */ (bytes.subarray(i, i + 0x8000)));
  return btoa(bin);
}

/** @param {Uint8Array} bytes */
const text = (bytes) => new TextDecoder().decode(bytes);
/** @param {string} source */
const moduleUrl = (source) => `data:text/javascript;base64,${base64(new TextEncoder().encode(source))}`;
/** @param {string} s */
const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => /** @type {Record<string, string>} */ ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/**
 * `source` with every quoted import of `from` pointing at `to`; the import must be there.
 * @param {string} source
 * @param {string} from
 * @param {string} to
 * @param {string} file
 */
function link(source, from, to, file) {
  const quoted = new RegExp(`(["'])${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1`, 'g');
  if (!quoted.test(source)) throw unread(file, `what was read does not import ${from}`);
  return source.replace(quoted, JSON.stringify(to));
}

// A relative import of a module (`from"./x.js"`, `import"./x.js"`), as the
// package's minified modules write them.
const RELATIVE_IMPORT = /(\bfrom\s*|\bimport\s*)(["'])(\.\.?\/[^"']+)\2/g;

/**
 * The package's module `file` (a path in the package) and every module it
 * imports, each under a name of its own (`@at/<file>`) in `modules` (name →
 * its data: URL, for the page's import map), its relative imports pointed
 * at those names (a data: URL has no place to resolve a relative one
 * from). Each module is in the page once: as data: URLs nested in each
 * other, a chunk two modules import was in the page twice, and base64
 * inside base64 (an empty viewer was 2.8 MB, 1.2 MB of it repeated).
 * @param {string} file
 * @param {Map<string, Promise<string>>} modules
 * @returns {string} the module's name
 */
function linked(file, modules) {
  const name = `@at/${file}`;
  if (!modules.has(name)) {
    const url = (async () => {
      const source = text(await own(file));
      const specs = [...source.matchAll(RELATIVE_IMPORT)].map((m) => m[3]);
      if (file === 'web.js' && !specs.includes('./agent_trajectories.js')) throw unread(file, 'what was read does not import ./agent_trajectories.js');
      // The imported file's path in the package, from `file`'s folder.
      const named = (/** @type {string} */ spec) => linked(new URL(spec, `file:///${file}`).pathname.slice(1), modules);
      return moduleUrl(source.replace(RELATIVE_IMPORT, (_, /** @type {string} */ before, _quote, /** @type {string} */ spec) => `${before}${JSON.stringify(named(spec))}`));
    })();
    // Awaited with the others (render); a second failure is not unhandled.
    url.catch(() => {});
    modules.set(name, url);
  }
  return name;
}

/**
 * The one-file viewer with `runs` in it, as HTML text. `runs`: JSONL text or
 * bytes, `{ name?, text }`, `{ name?, records }`, an array of those, or the
 * records of one run; an empty array gives the viewer alone (files still
 * open in it by picker or drop).
 * @type {typeof import('./viewer-types').viewerHtml}
 */
export function viewerHtml(runs, options) {
  return render(runs, options, 'viewerHtml');
}

/**
 * @param {unknown} runs
 * @param {unknown} options
 * @param {string} fn
 */
async function render(runs, options, fn) {
  const docs = runsOf(runs, fn);
  const { title } = optionsOf(options, fn);
  /** @type {Map<string, Promise<string>>} */
  const modules = new Map();
  const [page, wasm] = await Promise.all([own('viewer.html'), own('agent_trajectories_bg.wasm')]);
  let html = link(text(page), PACKAGE_SPECIFIER, linked('web.js', modules), 'viewer.html');
  // Past the import above, this is the package's own page, without its place for the data: a bug of the package's.
  if (!html.includes(DATA_MARK)) throw fail('INTERNAL', 'viewer: viewer.html has no place for the data');
  // Every module, those found while reading others too.
  for (let n = 0; n !== modules.size; ) {
    n = modules.size;
    await Promise.all(modules.values());
  }
  const imports = Object.fromEntries(await Promise.all([...modules].map(async ([name, url]) => [name, await url])));
  // `<` escaped: a run's text can hold "</script>", which would end the element.
  const data = `<script type="importmap">${JSON.stringify({ imports })}</script>
  <script type="application/json" id="at-runs">${JSON.stringify(docs).replace(/</g, '\\u003c')}</script>
  <script type="application/octet-stream" id="at-wasm">${base64(wasm)}</script>`;
  html = html.replace(DATA_MARK, () => data);
  if (title !== undefined) html = html.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`);
  return html;
}

/**
 * Writes {@link viewerHtml} to `file` (Node); resolves with the path. The
 * file opens from file:// by double click.
 * @type {typeof import('./viewer-types').writeViewerHtml}
 */
export async function writeViewerHtml(file, runs, options) {
  if (typeof file !== 'string' || file === '') throw fail('INVALID_ARGUMENT', `writeViewerHtml: file must be a path (a non-empty string), got ${show(file)}`);
  const html = await render(runs, options, 'writeViewerHtml');
  let fs;
  try {
    fs = await importNode('node:fs/promises');
  } catch (e) {
    throw fail('INVALID_ARGUMENT', 'writeViewerHtml writes a file, so it needs Node; elsewhere call viewerHtml() and save the text', e);
  }
  try {
    const { dirname } = await importNode('node:path');
    await fs.mkdir(dirname(file), { recursive: true }); // as writeArtifacts does for its folder
    await fs.writeFile(file, html);
  } catch (e) {
    throw fail('SINK_FAILED', `writeViewerHtml: cannot write ${file}: ${/** @type {any} */ (e)?.message ?? e}`, e);
  }
  return file;
}
