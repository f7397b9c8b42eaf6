// Tokens, tool calls and time per turn, cumulative, each as a share of its
// limit (or of its own total when the run recorded no limit), so three
// units fit one chart; the cursor is the selected turn.
import { esc, fmtMs, fmtN, outcomeText, outcomeOk } from './util.js';

const SERIES = [['tokens', 'tokens', fmtN], ['toolCalls', 'tool calls', fmtN], ['ms', 'time', fmtMs]];
const CW = 340;
const CH = 120;

/** Cumulative per-turn usage and limits: computed once per run, drawn on every selection change. */
export function budgetData(ix, run) {
  const { turns, limits } = ix.budget(run.runId);
  const acc = { tokens: 0, toolCalls: 0, ms: 0 };
  const cum = turns.map((t) => ({ turn: t.turn, tokens: (acc.tokens += t.tokens), toolCalls: (acc.toolCalls += t.toolCalls), ms: (acc.ms += t.ms) }));
  return { cum, limits, outcome: run.outcome };
}

export function budgetSvg({ cum, limits, outcome }, turn) {
  const badge = `<span class="badge ${outcomeOk(outcome) ? 'ok' : 'bad'}" id="stop-reason">${esc(outcomeText(outcome))}</span>`;
  if (!cum.length) return `${badge}<p class="muted">No turns to chart.</p>`;
  const last = cum.at(-1);
  const scale = Object.fromEntries(SERIES.map(([k]) => [k, limits[k] || last[k] || 1]));
  const top = Math.max(1, ...SERIES.map(([k]) => last[k] / scale[k]));
  const x = (i) => 30 + (cum.length === 1 ? CW / 2 : (i * CW) / (cum.length - 1));
  const y = (v) => 8 + CH - (v / top) * CH;
  const lines = SERIES.map(([k]) => `<polyline class="s-${k}" points="${cum.map((c, i) => `${x(i).toFixed(1)},${y(c[k] / scale[k]).toFixed(1)}`).join(' ')}"/>`);
  const hasLimit = SERIES.some(([k]) => limits[k]);
  const at = Math.max(0, cum.findIndex((c) => c.turn === turn));
  const cur = cum[at];
  return `${badge}<svg viewBox="0 0 ${CW + 40} ${CH + 30}" role="img" aria-label="Budget used by turn ${cur.turn}">
    <line class="axis" x1="30" y1="${8 + CH}" x2="${CW + 30}" y2="${8 + CH}"/>
    ${hasLimit ? `<line class="limit" x1="30" y1="${y(1)}" x2="${CW + 30}" y2="${y(1)}"/><text class="lbl" x="2" y="${y(1) + 4}">limit</text>` : ''}
    ${lines.join('')}
    <line class="cursor" data-turn="${cur.turn}" x1="${x(at)}" y1="4" x2="${x(at)}" y2="${CH + 12}"/>
    <text class="lbl" x="30" y="${CH + 26}">turn ${cum[0].turn}</text><text class="lbl" x="${CW + 30}" y="${CH + 26}" text-anchor="end">turn ${last.turn}</text></svg>
    <ul class="budget-legend">${SERIES.map(([k, label, f]) => `<li class="s-${k}"><b>${label}</b> ${f(cur[k])}${limits[k] ? ` / ${f(limits[k])} (${Math.round((100 * cur[k]) / limits[k])}%)` : ''}</li>`).join('')}
    <li class="muted">at turn ${cur.turn}${hasLimit ? '' : ' · no limits recorded: shares of the run total'}</li></ul>`;
}
