// Tokens, tool calls and time per turn, cumulative, each as a share of its
// limit (or of its own total when the run recorded no limit), so three
// units fit one chart: the y axis is that share, the x axis the turn; the
// cursor is the selected turn. Tokens come from the index (model_usage
// records, whichever spelling it reads), never from the records here.
import { esc, fmtMs, fmtN, outcomeBadge } from './util.js';

const SERIES = [['tokens', 'tokens', fmtN], ['toolCalls', 'tool calls', fmtN], ['ms', 'time', fmtMs]];
const CW = 320; // plot width
const CH = 120; // plot height
const L = 46; // room for the y axis: its ticks and its title
const T = 14; // above the plot: room for the limit's label at 100%

/** Cumulative per-turn usage and limits: computed once per run, drawn on every selection change. */
export function budgetData(ix, run) {
  const { turns, limits } = ix.budget(run.runId);
  const acc = { tokens: 0, toolCalls: 0, ms: 0 };
  const cum = turns.map((t) => ({ turn: t.turn, tokens: (acc.tokens += t.tokens), toolCalls: (acc.toolCalls += t.toolCalls), ms: (acc.ms += t.ms) }));
  return { cum, limits, outcome: run.outcome, records: run.records };
}

/** "a", "a and b", "a, b and c". */
const words = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

export function budgetSvg({ cum, limits, outcome, records }, turn) {
  const badge = outcomeBadge(outcome, 'stop-reason');
  if (!cum.length) {
    // Say why: a run can have records but no turn_started / iteration records
    // to group them by (loops captured before the integrations wrote turns).
    return `${badge}<p class="muted" id="budget-empty">${records
      ? 'Nothing to chart: this run recorded no turns (no turn_started or iteration records), so its tokens, tool calls and time cannot be shown turn by turn. Its records are listed in the middle.'
      : 'Nothing to chart: this run has no records yet.'}</p>`;
  }
  const last = cum.at(-1);
  const scale = Object.fromEntries(SERIES.map(([k]) => [k, limits[k] || last[k] || 1]));
  const top = Math.max(1, ...SERIES.map(([k]) => last[k] / scale[k]));
  const x = (i) => L + (cum.length === 1 ? CW / 2 : (i * CW) / (cum.length - 1));
  const y = (v) => T + CH - (v / top) * CH;
  const lines = SERIES.map(([k]) => `<polyline class="s-${k}" points="${cum.map((c, i) => `${x(i).toFixed(1)},${y(c[k] / scale[k]).toFixed(1)}`).join(' ')}"/>`);
  const unlimited = SERIES.filter(([k]) => !limits[k]).map(([, label]) => label);
  const hasLimit = unlimited.length < SERIES.length;
  // One y unit for all three lines: a share of the limit where one was recorded, else of the run's total.
  const yTitle = !hasLimit ? "% of run's total" : unlimited.length ? '% of limit or total' : '% of limit';
  const ticks = [0, 0.5, 1, ...(top > 1.2 ? [top] : [])];
  const at = Math.max(0, cum.findIndex((c) => c.turn === turn));
  const cur = cum[at];
  const note = !hasLimit
    ? "No budget limits were recorded for this run, so each line shows its share of the run's total (100% is where the run ended)."
    : unlimited.length ? `No limit was recorded for ${words(unlimited)}, so ${unlimited.length > 1 ? 'those lines show their' : 'its line shows its'} share of the run's total.` : '';
  return `${badge}<svg viewBox="0 0 ${L + CW + 14} ${T + CH + 34}" role="img" aria-label="Budget used by turn ${cur.turn}: ${esc(yTitle)} against turn">
    <g class="y-axis"><line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${T + CH}"/>
    ${ticks.map((v) => `<line class="tick" x1="${L - 3}" y1="${y(v)}" x2="${L}" y2="${y(v)}"/><text class="lbl" x="${L - 5}" y="${y(v) + 3}" text-anchor="end">${Math.round(v * 100)}%</text>`).join('')}
    <text class="lbl title" transform="translate(9 ${T + CH / 2}) rotate(-90)" text-anchor="middle">${esc(yTitle)}</text></g>
    <g class="x-axis"><line class="axis" x1="${L}" y1="${T + CH}" x2="${L + CW}" y2="${T + CH}"/>
    <text class="lbl" x="${L}" y="${T + CH + 13}">${cum[0].turn}</text><text class="lbl" x="${L + CW}" y="${T + CH + 13}" text-anchor="end">${last.turn}</text>
    <text class="lbl title" x="${L + CW / 2}" y="${T + CH + 28}" text-anchor="middle">turn</text></g>
    ${hasLimit ? `<line class="limit" x1="${L}" y1="${y(1)}" x2="${L + CW}" y2="${y(1)}"/><text class="lbl" x="${L + CW}" y="${y(1) - 3}" text-anchor="end">limit</text>` : ''}
    ${lines.join('')}
    <line class="cursor" data-turn="${cur.turn}" x1="${x(at)}" y1="${T - 4}" x2="${x(at)}" y2="${T + CH + 4}"/></svg>
    <ul class="budget-legend">${SERIES.map(([k, label, f]) => `<li class="s-${k}"><b>${label}</b> ${f(cur[k])}${limits[k] ? ` / ${f(limits[k])} (${Math.round((100 * cur[k]) / limits[k])}%)` : ''}</li>`).join('')}
    <li class="muted">at turn ${cur.turn}</li>${note ? `<li class="muted budget-note">${note}</li>` : ''}</ul>`;
}
