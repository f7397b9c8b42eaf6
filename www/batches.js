// Two saved batches side by side, baseline and current (a batch file is
// `JSON.stringify(await runTrajectories(...))`). compareBatches decides what
// regressed, improved, was added or removed, and orders the items
// (regressions first); this file only lays its answer out, each side's runs
// linked to their turns.
import { compareBatches } from './pkg/web.js';
import { esc, hashFor, plural } from './util.js';

// Per-run figures may be averages over repeats: one decimal.
const num = (n) => (+n.toFixed(1)).toLocaleString('en');
const signed = (n) => (n == null ? '—' : `${n > 0 ? '+' : n < 0 ? '−' : ''}${num(Math.abs(n))}`);

/** One side of an item: passed or not, per-run figures, judge criteria that failed, and its runs (those with records open). */
function side(doc, s, id, open) {
  if (!s) return '<td class="muted">—</td>';
  // A run's item: its `item` (repeats), else its id, as compareBatches pairs them.
  const runs = doc.batch.runs.filter((r) => (r.item ?? r.id) === id && open.has(r.id));
  return `<td><b class="${s.passed ? 'ok' : 'bad'}">${s.passed ? 'pass' : 'fail'} ${s.passes}/${s.runs}</b> · ${num(s.turns)} turns · ${num(s.tokens)} tokens${s.findings ? ` · ${plural(s.findings, 'finding')}` : ''}
    ${s.failedJudges.length ? `<br><span class="bad">judge failed: ${esc(s.failedJudges.join(', '))}</span>` : ''}<br>${runs.map((r) => `<a href="${hashFor(doc.name, r.id)}">${esc(r.id)}</a>`).join(' ')}</td>`;
}

/** The comparison of two batch docs: `{ diff, html }`; compareBatches' coded error when a side is not a batch. */
export function batchCompare(A, B) {
  const diff = compareBatches(A.batch, B.batch);
  const open = new Set([...A.index.runs(), ...B.index.runs()].map((r) => r.runId));
  const n = (k) => diff[k].length;
  const html = `<p id="bat-summary" class="${n('regressed') || n('newlyFailedJudges') ? 'bad' : 'ok'}">${n('regressed')} regressed, ${n('improved')} improved, ${n('added')} added, ${n('removed')} removed · judge criteria newly failed: ${n('newlyFailedJudges')} · ${plural(diff.items.length, 'item')}</p>
    <table class="cmp" id="bat-table"><tr><th>status</th><th>item</th><th>baseline: ${esc(A.name)}</th><th>current: ${esc(B.name)}</th><th>Δ turns</th><th>Δ tokens</th><th>Δ findings</th></tr>
    ${diff.items.map((it) => `<tr class="st-${it.status}" data-item="${esc(it.id)}"><td>${it.status}${it.newlyFailedJudges.length ? `<br><small>newly failed: ${esc(it.newlyFailedJudges.join(', '))}</small>` : ''}</td><td><b>${esc(it.id)}</b></td>
      ${side(A, it.baseline, it.id, open)}${side(B, it.current, it.id, open)}<td>${signed(it.turns)}</td><td>${signed(it.tokens)}</td><td>${signed(it.findings)}</td></tr>`).join('')}</table>`;
  return { diff, html };
}
