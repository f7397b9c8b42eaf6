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

// How a run ended comes from the core (readOutcome, through the index's
// runs()): its status, its verdict and whether it passed. Only a passed run
// is green; this file only puts the end into words.
const REASONS = {
  'max-turns': 'reached the turn limit',
  'max-steps': 'reached the step limit before the model finished',
  'max-iterations': 'reached the iteration limit',
  'agent-loop': 'the agent went round in circles',
  'policy-violation': 'a policy was broken',
  'no-step-match': 'no step could come next',
  'model-abandoned': 'the agent gave up',
  length: 'the answer was cut off at the token limit',
  'content-filter': "the provider's content filter stopped the answer",
};
const VERDICTS = { agent: "the agent's failure", simulator: "the simulated user's fault, not the agent's", harness: 'a harness callback failed, not the agent', aborted: 'stopped by the caller' };
const reasonWords = (r) => REASONS[r] ?? (r?.startsWith('max-failures') ? 'too many failures in a row' : r?.startsWith('deliverable-failed') ? 'the deliverable could not be made' : null);

/** A run's end as readOutcome gives it ({ status, reason?, message?, verdict, passed } or null) as { ok, text, detail }. */
export function outcomeOf(o) {
  if (!o) return { ok: false, text: 'no end recorded', detail: null };
  const { status, reason, message, verdict } = o;
  const ok = o.passed === true;
  const done = ok;
  const code = reason ? ` (${reason})` : '';
  let text;
  if (done) text = `${status}${reason ? ` · ${reason}` : ''}`;
  else if (status === 'error') text = `error: ${short(message ?? reasonWords(reason) ?? 'no message recorded', 160)}${reason && reason !== 'error' ? code : ''}`;
  else if (status === 'aborted') text = `aborted${reason && reason !== 'aborted' ? code : ''}`;
  else if (reason?.startsWith('stopped-on-')) text = `stopped on a${/^[aeiou]/.test(reason.slice(11)) ? 'n' : ''} ${reason.slice(11)}`;
  else text = reason ? `stopped: ${reasonWords(reason) ? `${reasonWords(reason)}${code}` : reason}` : `${status}: ended before its goal`;
  if (verdict && verdict !== 'pass') text += ` · verdict: ${verdict}${VERDICTS[verdict] ? ` (${VERDICTS[verdict]})` : ''}`;
  // The message, where the text does not already say it (an error's does).
  return { ok, text, detail: status === 'error' ? null : message ?? null };
}
export const outcomeText = (o) => outcomeOf(o).text;
export const outcomeOk = (o) => outcomeOf(o).ok;
/** The outcome as a green or red badge; its message, when there is one, on hover. */
export function outcomeBadge(o, id) {
  const { ok, text, detail } = outcomeOf(o);
  return `<span class="badge ${ok ? 'ok' : 'bad'}" id="${id}"${detail ? ` title="${esc(detail)}"` : ''}>${esc(text)}</span>`;
}

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
