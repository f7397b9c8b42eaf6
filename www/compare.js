// Two runs side by side: turns aligned by step id (a longest common
// subsequence of the step paths, so an extra step in one run does not shift
// every later turn), by index when the runs have no steps; the first
// divergence is the first aligned row whose step, tool-call names or error
// state differ.
import { runCtx, collect } from './cards.js';
import { esc, fmtMs, fmtN, outcomeText } from './util.js';

/** Per turn: step, tool names (records or message parts), error state. */
function turnsOf({ doc, run }) {
  const ctx = runCtx(doc, run);
  const ix = doc.index;
  return ix.turns(run.runId).map((t) => {
    const calls = collect(ctx, ix.turnRecords(run.runId, t.turn)).filter((it) => it.call);
    return { turn: t.turn, step: t.step, tools: calls.map((c) => c.name), err: t.errors > 0 || calls.some((c) => c.err) };
  });
}

function align(a, b) {
  const bySteps = a.some((t) => t.step) && b.some((t) => t.step) && a.length * b.length <= 4e6;
  if (!bySteps) return Array.from({ length: Math.max(a.length, b.length) }, (_, k) => [a[k] ?? null, b[k] ?? null]);
  // L[i][j]: the LCS length of a[i..] and b[j..], then walked from the start.
  const L = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) L[i][j] = a[i].step === b[j].step ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const rows = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i].step === b[j].step) rows.push([a[i++], b[j++]]);
    else if (j >= b.length || (i < a.length && L[i + 1][j] >= L[i][j + 1])) rows.push([a[i++], null]);
    else rows.push([null, b[j++]]);
  }
  return rows;
}

const why = ([x, y]) => (!x || !y ? `only in run ${x ? 'A' : 'B'}` : x.step !== y.step ? 'step differs'
  : x.tools.join() !== y.tools.join() ? 'tool calls differ' : x.err !== y.err ? 'error state differs' : null);

function totals({ doc, run }, turns) {
  const b = doc.index.budget(run.runId).turns;
  const sum = (k) => b.reduce((s, t) => s + t[k], 0);
  return { outcome: outcomeText(run.outcome), turns: turns.length, tokens: sum('tokens'), toolCalls: turns.reduce((s, t) => s + t.tools.length, 0),
    errors: turns.filter((t) => t.err).length, ms: (run.endedAt ?? doc.index.info(run.last).at) - (run.startedAt ?? doc.index.info(run.first).at) };
}

export function compare(A, B) {
  const [ta, tb] = [turnsOf(A), turnsOf(B)];
  const rows = align(ta, tb).map((r) => ({ a: r[0], b: r[1], why: why(r) }));
  return { A, B, rows, first: rows.findIndex((r) => r.why), totals: [totals(A, ta), totals(B, tb)] };
}

const name = (X) => `${X.doc.name} · ${X.run.runId ?? '(unnamed)'}`;
const cell = (t) => (t ? `turn ${t.turn} · ${t.step ?? '—'} · ${t.tools.join(', ') || 'no calls'}${t.err ? ' · ✖ error' : ''}` : '—');
const DELTAS = [['turns', fmtN], ['toolCalls', fmtN], ['errors', fmtN], ['tokens', fmtN], ['ms', fmtMs]];
const delta = (a, b, f) => `${f(a)} → ${f(b)} (${b - a >= 0 ? '+' : '−'}${f(Math.abs(b - a))})`;

export function compareHtml(res) {
  const [ta, tb] = res.totals;
  const d = res.rows[res.first];
  return `<p id="divergence" class="${d ? 'bad' : 'ok'}">${d ? `First divergence at row ${res.first + 1}: ${esc(d.why)} (A ${esc(cell(d.a))} / B ${esc(cell(d.b))})` : 'No divergence: the runs take the same steps and calls.'}</p>
    <table class="deltas"><tr><th></th><th>A</th><th>B</th></tr><tr><th>outcome</th><td>${esc(ta.outcome)}</td><td>${esc(tb.outcome)}</td></tr>
    ${DELTAS.map(([k, f]) => `<tr><th>${k}</th><td colspan="2">${delta(ta[k], tb[k], f)}</td></tr>`).join('')}</table>
    <table class="cmp" id="cmp-table"><tr><th>#</th><th>A: ${esc(name(res.A))}</th><th>B: ${esc(name(res.B))}</th></tr>
    ${res.rows.map((r, k) => `<tr class="${k === res.first ? 'diverge' : r.why ? 'differs' : ''}"><td>${k + 1}${k === res.first ? ' ⚑' : ''}</td>
      <td class="${r.a?.err ? 'bad' : ''}">${r.a ? `<a href="#" data-side="A" data-turn="${r.a.turn}">${esc(cell(r.a))}</a>` : '—'}</td>
      <td class="${r.b?.err ? 'bad' : ''}">${r.b ? `<a href="#" data-side="B" data-turn="${r.b.turn}">${esc(cell(r.b))}</a>` : '—'}</td></tr>`).join('')}</table>`;
}

export function compareMarkdown(res) {
  const [ta, tb] = res.totals;
  const d = res.rows[res.first];
  return [`# Compare`, '', `- A: ${name(res.A)} (${ta.outcome})`, `- B: ${name(res.B)} (${tb.outcome})`,
    `- first divergence: ${d ? `row ${res.first + 1}, ${d.why}` : 'none'}`, ...DELTAS.map(([k, f]) => `- ${k}: ${delta(ta[k], tb[k], f)}`), '',
    '| # | A | B |', '|---|---|---|', ...res.rows.map((r, k) => `| ${k + 1}${k === res.first ? ' ⚑' : ''} | ${cell(r.a)} | ${cell(r.b)} |`), ''].join('\n');
}

export const compareJson = (res) => JSON.stringify({ a: name(res.A), b: name(res.B), firstDivergence: res.first < 0 ? null : { row: res.first + 1, why: res.rows[res.first].why },
  totals: { a: res.totals[0], b: res.totals[1] }, rows: res.rows }, null, 2);
