// Getting runs into the page: the WebAssembly module (inline in a one-file
// build), files from the picker, drops, ?src=, runs embedded in the page and
// the served runs/index.json. Every source becomes a "doc": a name and a
// TrajectoryIndex over its records (a saved batch: its runs' step exports,
// and the batch itself as `batch`, for the batch comparison).
import { init, TrajectoryIndex, stepsToJsonl } from './pkg/web.js';
import { headKind, jsonKind, stepLines } from './kind.js';

/** Loads the module from the inline base64 copy when the page carries one (one-file build), else next to web.js. */
export function initWasm() {
  const el = document.getElementById('at-wasm');
  if (!el) return init();
  const bin = atob(el.textContent.replace(/\s+/g, ''));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return init(bytes);
}

/** A doc from a file's content (bytes or text): record JSONL, step JSONL, stepTraces.json or a saved batch, told apart by content (kind.js). */
export function openDoc(name, input, src = null) {
  const whole = () => (typeof input === 'string' ? input : new TextDecoder().decode(input));
  const kind = headKind(typeof input === 'string' ? input.slice(0, 65536) : new TextDecoder().decode(input.subarray(0, 65536)));
  let value;
  if (kind === 'json') {
    try { value = jsonKind(JSON.parse(whole().replace(/^\uFEFF/, ''))); } catch { /* not one JSON value: the index names the bad line */ }
    if (value?.batch) return batchDoc(name, value.batch, src);
  }
  if (kind === 'records' || (kind === 'json' && !value)) {
    const index = TrajectoryIndex.fromJsonl(input);
    return { name, src, index, errors: index.errors() };
  }
  const { steps: list, bad: errors } = kind === 'steps' ? stepLines(whole()) : { steps: value.steps, bad: [] };
  // Step exports become record JSONL (the core's rule), so that turns,
  // search, filters and the step path work the same on them.
  const index = TrajectoryIndex.fromJsonl(stepsToJsonl(list));
  return { name, src, index, errors: errors.concat(index.errors()), steps: true };
}

/**
 * A saved batch: each run's step export (`result.steps`) read as the records
 * it stands for, named by the batch's run id (a step export names no run).
 */
function batchDoc(name, batch, src) {
  const runs = batch.runs.filter((r) => Array.isArray(r?.result?.steps) && r.result.steps.length);
  const index = TrajectoryIndex.fromJsonl(runs.map((r) => stepsToJsonl(r.result.steps.map((s) => ({ ...s, conversationId: String(r.id) })))).join('\n'));
  return { name, src, index, errors: index.errors(), steps: true, batch };
}

export async function readFile(file) {
  return openDoc(file.name, new Uint8Array(await file.arrayBuffer()));
}

export async function fetchDoc(url, name = url.split('/').pop()) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return openDoc(name, new Uint8Array(await res.arrayBuffer()), url);
}

/** Runs a one-file build carries: <script type="application/json" id="at-runs">[{name, text}]</script>. */
export function embeddedDocs() {
  const el = document.getElementById('at-runs');
  if (!el) return [];
  return JSON.parse(el.textContent).map((r) => openDoc(r.name, r.text));
}

/** The served sample list, or [] where there is none (file://, a one-file build): not an error. */
export async function sampleList() {
  if (location.protocol === 'file:' || document.getElementById('at-runs')) return [];
  try {
    const res = await fetch('runs/index.json');
    return res.ok ? (await res.json()).runs ?? [] : [];
  } catch {
    return [];
  }
}

/** Files dropped anywhere on the page; `overlay` shows while something is dragged over. */
export function onDrop(overlay, open) {
  const has = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  addEventListener('dragover', (e) => { if (has(e)) { e.preventDefault(); overlay.hidden = false; } });
  addEventListener('dragleave', (e) => { if (!e.relatedTarget) overlay.hidden = true; });
  addEventListener('drop', (e) => {
    e.preventDefault();
    overlay.hidden = true;
    if (e.dataTransfer?.files.length) open([...e.dataTransfer.files]);
  });
}
