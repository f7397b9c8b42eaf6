// Whole-run search (text or regex, index.search) and filters (kind, errors
// only, minimum severity, index.filter) over a run and its child runs.
// Results are record indices, sorted; the list shows rows holding them.
import { $ } from './util.js';

/** The run and its descendants, whose records the view shows. */
export function family(ix, run) {
  const ids = new Set([run.runId]);
  for (const r of ix.runs()) if (r.first > run.first && r.last <= run.last && r.depth > run.depth) ids.add(r.runId);
  return [...ids];
}

const merge = (arrays) => (arrays.length === 1 ? arrays[0] : Uint32Array.from(arrays.flatMap((a) => [...a])).sort());

export function readQuery() {
  return { q: $('q').value, regex: $('regex').checked, kind: $('kind').value, errorsOnly: $('errors-only').checked, minSeverity: $('min-sev').value };
}

/**
 * { hits, count } for the search box (null when empty), { filtered } for the
 * filters (null when none is set), and an error for an invalid pattern.
 */
export function run(ix, runIds, query) {
  const out = { hits: null, count: 0, filtered: null, error: null, needle: null };
  if (query.kind || query.errorsOnly || query.minSeverity) {
    const q = { ...(query.kind && { kind: query.kind }), ...(query.errorsOnly && { errorsOnly: true }), ...(query.minSeverity && { minSeverity: query.minSeverity }) };
    out.filtered = merge(runIds.map((runId) => ix.filter({ ...q, runId })));
  }
  if (query.q) {
    let needle = query.q;
    if (query.regex) {
      try { needle = new RegExp(query.q, 'i'); } catch (e) { out.error = e.message; return out; }
    }
    out.needle = needle;
    const res = runIds.map((runId) => ix.search(needle, { runId }));
    out.count = res.reduce((s, r) => s + r.count, 0);
    out.hits = merge(res.map((r) => r.records));
  }
  return out;
}

/**
 * Wraps each match of `needle` (text, ignoring case, or a RegExp) in the
 * text under `el` in <mark>. It splits DOM text nodes, so the page's own
 * escaping stands and no match is ever parsed as HTML. A match across two
 * elements is not marked; its card still is (class hit).
 */
export function mark(el, needle) {
  if (!needle) return 0;
  const re = typeof needle === 'string'
    ? new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi')
    : new RegExp(needle.source, needle.flags.includes('g') ? needle.flags : `${needle.flags}g`);
  // Not inside another record's element (a finding or child run under a call): that one is marked when it is a hit itself.
  const own = (t) => el.dataset.rec == null || t.parentElement.closest('[data-rec]') === el;
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT, { acceptNode: (t) => (!t.parentElement.closest('mark, button') && own(t) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT) });
  const texts = [];
  while (walk.nextNode()) texts.push(walk.currentNode);
  let n = 0;
  for (const t of texts) {
    const s = t.data;
    const out = [];
    let at = 0;
    re.lastIndex = 0;
    for (let m; (m = re.exec(s));) {
      if (!m[0]) { re.lastIndex++; continue; } // an empty match marks nothing
      const mk = document.createElement('mark');
      mk.textContent = m[0];
      out.push(s.slice(at, m.index), mk);
      at = m.index + m[0].length;
      n++;
    }
    if (at) t.replaceWith(...out, s.slice(at));
  }
  return n;
}

/** The position of the first of the sorted `recs` that is >= v. */
export function lower(recs, v) {
  let a = 0;
  let b = recs.length;
  while (a < b) { const m = (a + b) >> 1; if (recs[m] < v) a = m + 1; else b = m; }
  return a;
}

/** How many of the sorted `recs` fall within [lo, hi]. */
export const within = (recs, lo, hi) => lower(recs, hi + 1) - lower(recs, lo);

/** The first of the sorted `recs` after `pos` (dir 1) or before it (dir -1), wrapping around. */
export function next(recs, pos, dir) {
  if (!recs?.length) return null;
  if (dir > 0) return recs.find((i) => i > pos) ?? recs[0];
  return recs.findLast((i) => i < pos) ?? recs.at(-1);
}
