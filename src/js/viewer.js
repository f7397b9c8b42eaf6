// agent-trajectories/viewer: runs written into one self-contained HTML file
// (the run viewer, its styles and script, the package's modules and its
// WebAssembly inlined) that opens from file:// with no server and no
// network, so a run can be attached to a bug report and opened anywhere.
// The page is viewer.html, built from www/ by scripts/viewer.mjs; this
// module only fills it. It never loads the WebAssembly itself, so it is
// cheap to import.

const NAME = 'AgentTrajectoriesError';
const OPTIONS = ['title'];
// The page imports the package by this specifier (scripts/viewer.mjs); here
// it becomes a data: URL, the only kind a one-file page can import.
const PACKAGE_SPECIFIER = './pkg/web.js';
const DATA_MARK = '<!--at-data-->';

function fail(code, message, cause) {
  const err = new Error(message, cause === undefined ? undefined : { cause });
  err.name = NAME;
  err.code = code;
  return err;
}

const isPlain = (v) => [Object.prototype, null].includes(Object.getPrototypeOf(v));
function show(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'object') return isPlain(v) ? 'an object' : `a ${v.constructor?.name || 'class instance'}`;
  return typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : String(v);
}
const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && 'seq' in v && 'payload' in v;

/** One run as `{ name, text }`; `where` names it in errors. */
function runOf(input, i, where) {
  const name = `run-${i + 1}.jsonl`;
  if (typeof input === 'string') return { name, text: input };
  if (input instanceof Uint8Array) return { name, text: decode(input, where) };
  const plain = input !== null && typeof input === 'object' && !Array.isArray(input) && isPlain(input);
  if (!plain) {
    throw fail('INVALID_ARGUMENT', `${where} must be JSONL text, UTF-8 bytes or { name?, text } / { name?, records }, got ${show(input)}`);
  }
  const keys = Object.keys(input);
  const unknown = keys.find((k) => !['name', 'text', 'records'].includes(k));
  if (unknown !== undefined) {
    throw fail('INVALID_ARGUMENT', `${where}: unknown key ${JSON.stringify(unknown)} (a run is { name?, text } or { name?, records })`);
  }
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name === '')) {
    throw fail('INVALID_ARGUMENT', `${where}.name must be a non-empty string, got ${show(input.name)}`);
  }
  const named = input.name ?? name;
  if ((input.text === undefined) === (input.records === undefined)) {
    throw fail('INVALID_ARGUMENT', `${where} needs exactly one of text (JSONL) and records (an array of trajectory records)`);
  }
  if (input.text !== undefined) {
    if (typeof input.text === 'string') return { name: named, text: input.text };
    if (input.text instanceof Uint8Array) return { name: named, text: decode(input.text, `${where}.text`) };
    throw fail('INVALID_ARGUMENT', `${where}.text must be JSONL text or its UTF-8 bytes, got ${show(input.text)}`);
  }
  if (!Array.isArray(input.records)) throw fail('INVALID_ARGUMENT', `${where}.records must be an array of trajectory records, got ${show(input.records)}`);
  return { name: named, text: jsonl(input.records, `${where}.records`) };
}

function decode(bytes, where) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    throw fail('INVALID_ARGUMENT', `${where} is not UTF-8 text`, e);
  }
}

/** Records as JSONL, one line each; a record JSON cannot carry is refused by index. */
function jsonl(records, where) {
  return records
    .map((r, i) => {
      if (r === null || typeof r !== 'object' || Array.isArray(r)) throw fail('INVALID_ARGUMENT', `${where}[${i}] must be a trajectory record (an object), got ${show(r)}`);
      try {
        return JSON.stringify(r);
      } catch (e) {
        throw fail('INVALID_ARGUMENT', `${where}[${i}] is not JSON data: ${e?.message ?? e}`, e);
      }
    })
    .join('\n');
}

/** The runs argument: one run, an array of runs, or the records of one run. */
function runsOf(runs, fn) {
  if (Array.isArray(runs)) {
    if (runs.length > 0 && runs.every(isRecord)) return [{ name: 'run-1.jsonl', text: jsonl(runs, `${fn}: runs`) }];
    return runs.map((r, i) => runOf(r, i, `${fn}: runs[${i}]`));
  }
  if (runs === undefined) throw fail('INVALID_ARGUMENT', `${fn}: runs is required: JSONL text, { name?, text }, { name?, records }, or an array of them (an empty array writes the viewer alone)`);
  return [runOf(runs, 0, `${fn}: runs`)];
}

function optionsOf(options, fn) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw fail('INVALID_ARGUMENT', `${fn}: options must be an object, got ${show(options)}`);
  const unknown = Object.keys(options).find((k) => !OPTIONS.includes(k));
  if (unknown !== undefined) throw fail('INVALID_ARGUMENT', `${fn}: options: unknown option ${JSON.stringify(unknown)}; did you mean "title"? (options: ${OPTIONS.join(', ')})`);
  if (options.title !== undefined && typeof options.title !== 'string') throw fail('INVALID_ARGUMENT', `${fn}: options.title must be a string, got ${show(options.title)}`);
  return options;
}

// The package's own files: read from disk in Node, fetched beside this
// module elsewhere (a page served with the package next to it). The
// node: import is hidden from bundlers, which would refuse it for browsers.
const importNode = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);
async function own(file) {
  const url = new URL(`./${file}`, import.meta.url);
  try {
    if (url.protocol === 'file:') return new Uint8Array(await (await importNode('node:fs/promises')).readFile(url));
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw fail('INTERNAL', `viewer: cannot read the package's ${file} (${e?.message ?? e}); it ships beside viewer.js and must stay there`, e);
  }
}

function base64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

const text = (bytes) => new TextDecoder().decode(bytes);
const moduleUrl = (source) => `data:text/javascript;base64,${base64(new TextEncoder().encode(source))}`;
const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** `source` with every quoted import of `from` pointing at `to`; the import must be there. */
function link(source, from, to, file) {
  const quoted = new RegExp(`(["'])${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1`, 'g');
  if (!quoted.test(source)) throw fail('INTERNAL', `viewer: ${file} no longer imports ${from}`);
  return source.replace(quoted, JSON.stringify(to));
}

/**
 * The one-file viewer with `runs` in it, as HTML text. `runs`: JSONL text or
 * bytes, `{ name?, text }`, `{ name?, records }`, an array of those, or the
 * records of one run; an empty array gives the viewer alone (files still
 * open in it by picker or drop).
 */
export function viewerHtml(runs, options) {
  return render(runs, options, 'viewerHtml');
}

async function render(runs, options, fn) {
  const docs = runsOf(runs, fn);
  const { title } = optionsOf(options, fn);
  const [page, glue, generate, web, wasm] = await Promise.all(['viewer.html', 'agent_trajectories.js', 'generate.js', 'web.js', 'agent_trajectories_bg.wasm'].map(own));
  // The package's modules as data: URLs, each import pointed at the next.
  let webSource = link(text(web), './agent_trajectories.js', moduleUrl(text(glue)), 'web.js');
  webSource = link(webSource, './generate.js', moduleUrl(text(generate)), 'web.js');
  let html = link(text(page), PACKAGE_SPECIFIER, moduleUrl(webSource), 'viewer.html');
  if (!html.includes(DATA_MARK)) throw fail('INTERNAL', 'viewer: viewer.html has no place for the data');
  // `<` escaped: a run's text can hold "</script>", which would end the element.
  const data = `<script type="application/json" id="at-runs">${JSON.stringify(docs).replace(/</g, '\\u003c')}</script>
  <script type="application/octet-stream" id="at-wasm">${base64(wasm)}</script>`;
  html = html.replace(DATA_MARK, () => data);
  if (title !== undefined) html = html.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`);
  return html;
}

/**
 * Writes {@link viewerHtml} to `file` (Node); resolves with the path. The
 * file opens from file:// by double click.
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
    throw fail('SINK_FAILED', `writeViewerHtml: cannot write ${file}: ${e?.message ?? e}`, e);
  }
  return file;
}
