// The step graph as SVG: steps in columns by how many steps they wait for,
// precondition edges, and the path the run took, numbered in order; each
// step's final state from the run's custom "step_states" record. Without a
// recorded graph (custom "step_graph") the steps are those the run's
// step_selected records name, in the order first seen, and their states are
// read off the path.
import { esc, outcomeOk, outcomeText } from './util.js';

const W = 88;
const H = 28;
const GX = 40;
const GY = 22; // room for a line of custom preconditions under a node
const TOP = 16; // room for the visit numbers above the first row
const STATES = { satisfied: 'reached', failed: 'failed', blocked: 'blocked', skipped: 'skipped', idle: 'never', in_progress: 'open' };

export function graphSvg(ix, run) {
  const path = ix.stepPath(run.runId);
  const graph = ix.stepGraph(run.runId);
  let steps = graph?.steps;
  if (!steps) {
    const seen = new Set();
    for (const p of path) for (const id of [p.stepId, ...p.candidates.map((c) => c.stepId)]) if (id != null) seen.add(id);
    steps = [...seen].map((id) => ({ id, requires: [], preconditions: [] }));
  }
  if (!steps.length) return '';
  const byId = new Map(steps.map((s) => [s.id, s]));
  const depth = new Map();
  const layer = (id, seen = new Set()) => {
    if (depth.has(id)) return depth.get(id);
    if (seen.has(id)) return 0; // a cycle in requires: do not recurse forever
    seen.add(id);
    const req = (byId.get(id)?.requires ?? []).filter((r) => byId.has(r));
    const d = req.length ? 1 + Math.max(...req.map((r) => layer(r, seen))) : 0;
    depth.set(id, d);
    return d;
  };
  const pos = new Map();
  const perCol = [];
  steps.forEach((s, k) => {
    const col = graph ? layer(s.id) : 0; // without a graph: one column, in the order first seen
    const row = (perCol[col] = (perCol[col] ?? 0) + 1) - 1;
    pos.set(s.id, { x: 8 + col * (W + GX), y: TOP + row * (H + GY) });
  });

  // Visits in path order. The recorded final state names each step's; a
  // stream without one: a step never visited is never reached, and one
  // visited is failed only when every visit's turn had an error (a tool
  // error on the way to a goal is not the step's failure).
  const errs = new Map(ix.turns(run.runId).map((t) => [t.turn, t.errors]));
  const visits = new Map();
  path.forEach((p, n) => { if (p.stepId != null) visits.set(p.stepId, [...(visits.get(p.stepId) ?? []), { n: n + 1, err: errs.get(p.turn) > 0 }]); });
  const reachedGoal = run.outcome?.reason === 'goal-reached';
  const state = (s) => STATES[s.status] ?? (!visits.has(s.id) ? 'never'
    : visits.get(s.id).every((v) => v.err) && !(reachedGoal && s.id === path.at(-1)?.stepId) ? 'failed' : 'reached');

  const mid = (p, side) => ({ x: p.x + (side ? W : 0), y: p.y + H / 2 });
  const edges = steps.flatMap((s) => (s.requires ?? []).filter((r) => pos.has(r)).map((r) => {
    const a = mid(pos.get(r), 1);
    const b = mid(pos.get(s.id), 0);
    return `<path class="req" d="M${a.x} ${a.y} L${b.x - 4} ${b.y}" marker-end="url(#arr)"><title>${esc(s.id)} requires ${esc(r)}${s.preconditions?.length ? `: ${esc(s.preconditions.join(', '))}` : ''}</title></path>`;
  }));
  const taken = [];
  for (let n = 1; n < path.length; n++) {
    const a = pos.get(path[n - 1].stepId);
    const b = pos.get(path[n].stepId);
    if (!a || !b || a === b) continue;
    // Within a column: an arc on the right; forwards: a straight line; backwards: a curve below.
    const [ay, by] = [a.y + H / 2, b.y + H / 2];
    const d = a.x === b.x ? `M${a.x + W} ${ay} C${a.x + W + 36} ${ay} ${b.x + W + 36} ${by} ${b.x + W + 4} ${by}`
      : b.x > a.x ? `M${a.x + W} ${ay + 5} L${b.x - 4} ${by + 5}`
        : `M${a.x + W / 2} ${a.y + H} Q${(a.x + b.x + W) / 2} ${Math.max(a.y, b.y) + H + 22} ${b.x + W / 2} ${b.y + H + 3}`;
    taken.push(`<path class="taken" d="${d}" marker-end="url(#arr2)"/>`);
  }
  const graphTerminals = new Set(graph?.terminals ?? []);
  const nodes = steps.map((s) => {
    const { x, y } = pos.get(s.id);
    const v = visits.get(s.id) ?? [];
    const st = state(s);
    const custom = (s.preconditions ?? []).filter((p) => p.startsWith('custom('));
    const cls = `node st-${st}${graphTerminals.has(s.id) ? ' terminal' : ''}${(graph?.start ?? path[0]?.stepId) === s.id ? ' start' : ''}`;
    return `<g class="${cls}" data-step="${esc(s.id)}" tabindex="0" role="button" aria-label="step ${esc(s.id)}: ${st}${v.length ? `, visited ${v.map((e) => e.n).join(', ')}` : ''}">
      <rect x="${x}" y="${y}" width="${W}" height="${H}" rx="6"/><text x="${x + W / 2}" y="${y + H / 2 + 4}">${esc(s.id.length > 13 ? `${s.id.slice(0, 12)}…` : s.id)}</text>
      ${v.length ? `<text class="order" x="${x + W - 2}" y="${y - 3}">${v.map((e) => e.n).join(',')}</text>` : ''}
      ${custom.length ? `<text class="cond" x="${x + W / 2}" y="${y + H + 13}">if ${esc(custom.map((c) => c.slice(7, -1)).join(', ').slice(0, 24))}</text>` : ''}
      <title>${esc(s.id)} (${st}${s.attempts ? `, ${s.attempts} attempt${s.attempts === 1 ? '' : 's'}` : ''})${s.preconditions?.length ? `\nwaits for: ${esc(s.preconditions.join(', '))}` : ''}</title></g>`;
  });
  // The run's end, next to the last step it was on.
  const last = pos.get(path.at(-1)?.stepId);
  let end = '';
  if (last && run.outcome) {
    const ex = Math.max(...[...pos.values()].map((p) => p.x)) + W + GX + 24;
    end = `<path class="taken" d="M${last.x + W} ${last.y + H / 2} L${ex - 4} ${last.y + H / 2}" marker-end="url(#arr2)"/>
      <g class="outcome ${outcomeOk(run.outcome) ? 'ok' : 'bad'}"><rect x="${ex}" y="${last.y}" width="${W + 20}" height="${H}" rx="14"/><text x="${ex + (W + 20) / 2}" y="${last.y + H / 2 + 4}">■ ${esc(run.outcome.reason ?? run.outcome.status)}</text><title>${esc(outcomeText(run.outcome))}</title></g>`;
  }
  const w = Math.max(...[...pos.values()].map((p) => p.x)) + W + (end ? 2 * W + GX + 24 : 56);
  const h = Math.max(...[...pos.values()].map((p) => p.y)) + H + 34;
  // Shrinks to the panel down to 70 %, then scrolls: the labels stay readable.
  return `<svg id="graph-svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" style="width: 100%; max-width: ${w}px; min-width: ${Math.round(w * 0.7)}px; height: auto" role="img" aria-label="Step graph: ${path.length} steps taken">
    <defs><marker id="arr" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L8 4L0 8z" class="req-head"/></marker>
    <marker id="arr2" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L8 4L0 8z" class="taken-head"/></marker></defs>
    ${edges.join('')}${taken.join('')}${nodes.join('')}${end}</svg>
    <p class="legend"><span class="st-reached">${graph?.steps?.some((s) => s.status) ? 'satisfied' : 'reached'}</span> <span class="st-failed">failed</span> <span class="st-blocked">blocked</span> <span class="st-skipped">skipped</span> <span class="st-never">never reached</span> <span class="st-open">in progress</span> · numbers: order taken${graph ? ' · thick border: terminal' : ''}</p>`;
}
