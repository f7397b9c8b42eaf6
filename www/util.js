// Small helpers shared by the viewer's modules.
export const $ = (id) => document.getElementById(id);
export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
// Short values on one line, longer ones indented.
export const json = (v) => {
  if (typeof v === 'string') return v;
  const s = JSON.stringify(v) ?? '';
  return s.length <= 100 ? s : JSON.stringify(v, null, 2);
};
export const short = (v, n = 120) => { const s = typeof v === 'string' ? v : JSON.stringify(v) ?? ''; return s.length > n ? `${s.slice(0, n)}…` : s; };
export const fmtMs = (ms) => (ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
export const fmtN = (n) => Math.round(n).toLocaleString('en');

// Generated runs record AI SDK tool outputs ({ type, value }); show the value.
export const toolValue = (r) => (r && typeof r === 'object' && 'type' in r && 'value' in r ? r.value : r);
// A tool-result part whose output type is error-text / error-json is a failed call.
export const partError = (o) => typeof o?.type === 'string' && o.type.startsWith('error');
export const outcomeText = (o) => (o ? `${o.status}${o.reason ? ` · ${o.reason}` : ''}` : 'no end recorded');
export const outcomeOk = (o) => o?.status === 'completed' || o?.status === 'ended';

/** A message's parts, whatever its content shape (string or parts). */
export const parts = (m) => (typeof m?.content === 'string' ? [{ type: 'text', text: m.content }] : m?.content ?? []);

/** Offers `text` as a download named `name`. */
export function download(name, text, type = 'application/json') {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// Hash links: #run=<file>:<runId>&turn=3&rec=120&finding=2. The run id may be
// empty (records without run_id), and may itself contain ':' (split at the first).
export function parseHash(h = location.hash) {
  const q = new URLSearchParams(h.replace(/^#/, ''));
  const run = q.get('run');
  if (run == null) return null;
  const k = run.indexOf(':');
  const num = (key) => (q.has(key) ? Number(q.get(key)) : null);
  return { file: k < 0 ? run : run.slice(0, k), runId: k < 0 ? '' : run.slice(k + 1), turn: num('turn'), rec: num('rec'), finding: num('finding') };
}
export const hashFor = (file, runId, extra = {}) => `#${new URLSearchParams({ run: `${file}:${runId ?? ''}`, ...extra })}`;

/** `1 call`, `2 calls`. */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
