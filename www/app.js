// The run viewer: open files and runs on the left, the run's turns in a
// virtualised list in the middle, its step graph, budget and findings on the
// right, with the run's judgement and checks; compare (two runs, or two
// batches), search, keyboard and hash links tie them together.
import { TrajectoryIndex } from './pkg/web.js';
import { initWasm, readFile, fetchDoc, embeddedDocs, sampleList, onDrop } from './load.js';
import { $, esc, json, download, parseHash, hashFor, outcomeText, outcomeOk, outcomeBadge, fmtMs, plural } from './util.js';
import { runCtx, rowsFor, rowHtml, turnMarkdown, payloadAt, checksHtml, ICON } from './cards.js';
import { batchCompare } from './batches.js';
import { VirtualList } from './turns.js';
import { Outline } from './outline.js';
import { graphSvg } from './graph.js';
import { budgetData, budgetSvg } from './budget.js';
import * as find from './search.js';
import { compare, compareHtml, compareMarkdown, compareJson } from './compare.js';
import { liveSimulation, liveObjective } from './live.js';

const S = { docs: [], samples: [], doc: null, v: null, sel: -1, pos: -1, res: null, cmp: null, bat: null };
const runKey = (r) => r.runId ?? '';
const base = (name) => name.replace(/\.[^.]*$/, '');
const estimate = (r) => (r.t ? 64 + r.t.records * 26 : 16 + r.recs.length * 24);

/** A count in the run's header: "1 turn", "2 turns". @param {number} n @param {string} word */
const stat = (n, word) => `<span>${plural(n, word).replace(/^\d+/, '<b>$&</b>')}</span>`;
const list = new VirtualList($('turns'), (k) => rowHtml(S.v.ctx, S.v.rows[k]), decorate);
list.onView = countOffscreen;
const outline = new Outline($('outline'), $('side'), outlineItem);

/** Outline entry k: a link to its turn (or to its records, for rows outside turns), marked for errors and findings. */
function outlineItem(k) {
  const v = S.v;
  const r = v.rows[k];
  const text = r.t
    ? `turn ${r.t.turn}${r.t.step ? ` · ${esc(r.t.step)}` : ''}${r.t.errors ? ' ✖' : ''}${find.within(v.flagged, r.lo, r.hi) ? ' ⚑' : ''}`
    : `records ${r.lo}–${r.hi}`;
  return `<a href="${v.ctx.href(r.t ? { turn: r.t.turn } : { rec: r.lo })}" data-row="${k}" class="${r.t?.errors ? 'bad' : ''}">${text}</a>`;
}

/** Where record i shows in a row: its own element, the call it was merged into, else the row's header. */
const recEl = (row, i) => row.querySelector(`[data-rec="${i}"],[data-recs~="${i}"]`) ?? row.firstElementChild;

/** Marks a freshly rendered row: selection, the focused record, search hits (the card and the matching text) and filter matches. */
function decorate(el, k) {
  const row = S.v.rows[k];
  if (row.t) el.dataset.turn = row.t.turn;
  el.classList.toggle('sel', k === S.sel);
  for (const [set, cls] of [[S.res?.hits, 'hit'], [S.res?.filtered, 'fhit']]) {
    for (let j = set ? find.lower(set, row.lo) : 0; set && j < set.length && set[j] <= row.hi; j++) {
      const at = recEl(el, set[j]);
      at?.classList.add(cls);
      // Several records can share an element (a call's start and end): mark its text once.
      if (cls === 'hit' && at && !at.dataset.marked) { at.dataset.marked = '1'; find.mark(at, S.res.needle); }
    }
  }
}

// ---- files and runs ----

function addDoc(doc) {
  const old = S.docs.findIndex((d) => d.name === doc.name);
  if (old >= 0) S.docs.splice(old, 1, doc); else S.docs.push(doc);
  renderDocs();
  return doc;
}

function renderDocs() {
  $('docs').innerHTML = S.docs.map((d, di) => `<div class="doc"><div class="doc-h"><b title="${esc(d.name)}">${esc(d.name)}</b>${d.live ? ' <span class="badge">live</span>' : ''}
    <button data-close="${di}" aria-label="Close ${esc(d.name)}">×</button></div>
    ${d.errors.length ? `<p class="file-error" role="alert">${d.errors.slice(0, 3).map((e) => `⚠ ${esc(d.name)}${e.line ? ` line ${e.line}` : ''}: ${esc(e.message)}`).join('<br>')}${d.errors.length > 3 ? `<br>and ${d.errors.length - 3} more bad lines` : ''}</p>` : ''}
    ${d.index.runs().map((r) => `<button class="run-btn" data-doc="${di}" data-run="${esc(runKey(r))}" style="--depth:${r.depth}" aria-current="${S.v?.doc === d && S.v.run.runId === r.runId}">
      ${esc(r.runId ?? '(unnamed run)')}<small>${plural(r.turns, 'turn')} · ${plural(r.toolCalls, 'call')}${r.failedCalls ? ` · ${r.failedCalls} failed` : ''} · <span class="${outcomeOk(r.outcome) ? 'ok' : 'bad'}">${esc(outcomeText(r.outcome))}</span></small></button>`).join('')}</div>`).join('')
    || '<p class="muted">No file open. Open a record JSONL, a step JSONL, stepTraces.json or a saved batch, or drop one here.</p>';
  $('batch-btn').hidden = batchDocs().length < 2;
}

async function openFiles(files) {
  let batches = 0;
  for (const f of files) {
    try { S.doc = addDoc(await readFile(f)); batches += !!S.doc.batch; } catch (e) { addDoc({ name: f.name, index: TrajectoryIndex.fromJsonl(''), errors: [{ line: 0, message: e.message }] }); }
  }
  if (S.doc) showRun(S.doc);
  // A batch opened beside another: the two side by side.
  if (batches && batchDocs().length > 1) openBatches();
}

async function openSample(s, show = true) {
  let doc = S.docs.find((d) => d.name === s.file);
  if (!doc) {
    try { doc = addDoc(await fetchDoc(`runs/${s.file}`, s.file)); } catch (e) { doc = addDoc({ name: s.file, index: TrajectoryIndex.fromJsonl(''), errors: [{ line: 0, message: e.message }] }); }
  }
  if (show) showRun(doc);
  return doc;
}

function showRun(doc, key = null) {
  S.doc = doc;
  const ix = doc.index;
  const runs = ix.runs();
  const run = runs.find((r) => runKey(r) === key) ?? runs.find((r) => r.depth === 0) ?? runs[0];
  S.sel = -1;
  if (!run) {
    S.v = null;
    $('summary').innerHTML = `<h2>${esc(doc.name)}</h2><p class="muted">No runs in this file${doc.live ? ' yet' : ''}.</p>`;
    for (const id of ['graph', 'budget', 'findings']) $(id).innerHTML = '';
    outline.clear();
    list.set([], estimate);
    renderDocs();
    return;
  }
  const ctx = runCtx(doc, run);
  S.v = { doc, run, ctx, all: rowsFor(ctx), rows: [], fam: find.family(ix, run), budget: budgetData(ix, run) };
  S.v.flagged = Uint32Array.from(ctx.findings.map((f) => f.record)).sort(); // records with a finding, for the outline's ⚑
  S.pos = run.first - 1;
  const dur = run.startedAt != null && run.endedAt != null ? fmtMs(run.endedAt - run.startedAt) : '—';
  $('summary').innerHTML = `<h2>${esc(doc.name)} <span class="muted">· ${esc(run.runId ?? '(unnamed run)')}</span>${run.parentRunId != null ? ` <a href="${hashFor(doc.name, run.parentRunId)}">↰ parent run</a>` : ''}</h2>
    <div class="stats">${stat(run.records, 'record')}${stat(run.turns, 'turn')}${stat(run.toolCalls, 'call')}
    <span class="${run.failedCalls ? 'bad' : ''}"><b>${run.failedCalls}</b> failed</span>${stat(run.assessments, 'finding')}<span><b>${dur}</b></span>
    ${outcomeBadge(run.outcome, 'outcome')}</div>`;
  $('graph').innerHTML = graphSvg(ix, run) || '<p class="muted">No steps in this run.</p>';
  $('checks').innerHTML = checksHtml(ctx);
  $('findings').innerHTML = ctx.findings.map((f) => `<li class="sev-${esc(f.severity)}"><a href="${ctx.href({ finding: f.k })}">${ICON[f.severity] ?? '•'} <b>${esc(f.severity)}</b> ${esc(f.assessment?.observerName)}: ${esc(f.assessment?.summary)}</a></li>`).join('')
    || '<li class="muted">No findings.</li>';
  const kind = $('kind').value;
  const kinds = Object.keys(S.v.fam.reduce((all, id) => ({ ...all, ...ix.counts(id) }), {})).sort();
  $('kind').innerHTML = `<option value="">all kinds</option>${kinds.map((k) => `<option${k === kind ? ' selected' : ''}>${esc(k)}</option>`).join('')}`;
  applyQuery();
  renderDocs();
}

// ---- search, filters, outline ----

function applyQuery(keepScroll = false) {
  const v = S.v;
  if (!v) return;
  S.res = find.run(v.doc.index, v.fam, find.readQuery());
  const f = S.res.filtered;
  v.rows = f ? v.all.filter((r) => find.within(f, r.lo, r.hi) > 0) : v.all;
  S.sel = -1;
  list.set(v.rows, estimate, keepScroll);
  outline.set(v.rows.length);
  renderBudget();
}

function countOffscreen() {
  const r = S.res;
  const rows = S.v?.rows ?? [];
  if (!r) return;
  const [a, b] = list.visible();
  // On screen: in a row the viewport shows, and its own element inside the viewport (a long card may hold it below the fold).
  const box = $('turns').getBoundingClientRect();
  const on = (set) => {
    let n = 0;
    for (let k = a; rows.length && k <= b; k++) {
      const el = list.row(k);
      for (let j = find.lower(set, rows[k].lo); j < set.length && set[j] <= rows[k].hi; j++) {
        const r = el ? recEl(el, set[j]).getBoundingClientRect() : null;
        if (r && r.bottom > box.top && r.top < box.bottom) n++;
      }
    }
    return n;
  };
  const out = [];
  if (r.error) out.push(`invalid pattern: ${r.error}`);
  if (r.hits) out.push(`${r.count} matches in ${r.hits.length} records · ${r.hits.length - on(r.hits)} off screen`);
  if (r.filtered) out.push(`${r.filtered.length} records pass the filters · ${r.filtered.length - on(r.filtered)} off screen`);
  $('match-count').textContent = out.join(' · ');
}

function clearFilters() {
  $('kind').value = '';
  $('errors-only').checked = false;
  $('min-sev').value = '';
  applyQuery();
}

// ---- navigation ----

/** The row of the view holding record i, or -1. */
function rowOf(i) {
  const rows = S.v?.rows ?? [];
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (rows[m].lo <= i) lo = m; else hi = m - 1; }
  return rows[lo] && rows[lo].lo <= i && i <= rows[lo].hi ? lo : -1;
}

function select(k) {
  S.sel = k;
  for (const el of document.querySelectorAll('.row.sel')) el.classList.remove('sel');
  list.row(k)?.classList.add('sel');
  outline.mark(k);
  renderBudget();
}

function renderBudget() {
  if (S.v) $('budget').innerHTML = budgetSvg(S.v.budget, S.v.rows[S.sel]?.t?.turn ?? S.v.rows.find((r) => r.t)?.t.turn);
}

function goRow(k, rec = null, extra = null) {
  const v = S.v;
  if (!v || k < 0 || k >= v.rows.length) return;
  list.scrollTo(k);
  select(k);
  S.pos = rec ?? v.rows[k].lo;
  document.querySelector('.flash')?.classList.remove('flash');
  const el = rec == null ? list.row(k) : list.row(k) && recEl(list.row(k), rec);
  if (el) {
    if (rec != null) el.scrollIntoView({ block: 'center' });
    el.classList.add('flash');
  }
  history.replaceState(null, '', v.ctx.href(extra ?? (rec != null ? { rec } : v.rows[k].t ? { turn: v.rows[k].t.turn } : { rec: v.rows[k].lo })));
}

function goRec(i, extra) {
  if (rowOf(i) < 0 && S.res?.filtered) clearFilters(); // a link to a record the filters hide
  goRow(rowOf(i), i, extra);
}

/** The next (dir 1) or previous (dir -1) row holding a turn, from the selected one; the current one at either end. */
function nextTurnRow(dir) {
  const rows = S.v.rows;
  for (let k = S.sel + dir; k >= 0 && k < rows.length; k += dir) if (rows[k].t) return k;
  return S.sel >= 0 ? S.sel : rows.findIndex((r) => r.t);
}

function goNext(recs, dir = 1) {
  const i = find.next(recs, S.pos, dir);
  if (i != null) goRec(i);
}

/** Opens what the hash names (#run=<file>:<runId>&turn=|rec=|finding=); false when it names nothing open or served. */
async function fromHash() {
  const h = parseHash();
  if (!h) return false;
  let doc = S.docs.find((d) => d.name === h.file);
  const sample = S.samples.find((x) => x.file === h.file);
  if (!doc && sample) doc = await openSample(sample, false);
  if (!doc) return false;
  if (S.v?.doc !== doc || runKey(S.v.run) !== h.runId) showRun(doc, h.runId);
  closeCompare();
  const f = h.finding != null && S.v?.ctx.findings[h.finding - 1];
  if (f) goRec(f.record, { finding: h.finding });
  else if (h.rec != null) goRec(h.rec);
  else if (h.turn != null) goRow(S.v.rows.findIndex((r) => r.t?.turn === h.turn));
  return true;
}

// ---- compare ----

function runOptions() {
  return S.docs.flatMap((d, di) => d.index.runs().map((r) => `<option value="${di}|${esc(runKey(r))}">${esc(d.name)} · ${esc(r.runId ?? '(unnamed run)')}</option>`)).join('');
}
const picked = (value) => {
  const k = value.indexOf('|');
  const doc = S.docs[Number(value.slice(0, k))];
  return { doc, run: doc.index.runs().find((r) => runKey(r) === value.slice(k + 1)) };
};

function openCompare() {
  if (!S.v) return;
  const opts = runOptions();
  $('cmp-a').innerHTML = opts;
  $('cmp-b').innerHTML = opts;
  const a = `${S.docs.indexOf(S.v.doc)}|${runKey(S.v.run)}`;
  $('cmp-a').value = a;
  // B: by default a top-level run of the open file whose name shares the longest start with A's.
  const common = (x) => { let n = 0; while (n < x.length && x[n] === S.v.doc.name[n]) n++; return n; };
  const others = [...$('cmp-b').options].map((o) => o.value).filter((v) => v !== a && picked(v).run.depth === 0);
  $('cmp-b').value = others.sort((x, y) => common(picked(y).doc.name) - common(picked(x).doc.name))[0] ?? a;
  $('compare').hidden = false;
  document.querySelector('main').classList.add('comparing');
  renderCompare();
}

function renderCompare() {
  S.cmp = compare(picked($('cmp-a').value), picked($('cmp-b').value));
  $('cmp-body').innerHTML = compareHtml(S.cmp);
}

function closeCompare() {
  $('compare').hidden = $('batches').hidden = true;
  document.querySelector('main').classList.remove('comparing');
}

// ---- batches ----

const batchDocs = () => S.docs.filter((d) => d.batch);

/** Baseline: the first batch opened; current: the last. */
function openBatches() {
  const opts = batchDocs().map((d) => `<option value="${S.docs.indexOf(d)}">${esc(d.name)}</option>`).join('');
  $('bat-a').innerHTML = $('bat-b').innerHTML = opts;
  $('bat-b').selectedIndex = batchDocs().length - 1;
  closeCompare();
  $('batches').hidden = false;
  document.querySelector('main').classList.add('comparing');
  renderBatches();
}

function renderBatches() {
  try {
    S.bat = batchCompare(S.docs[$('bat-a').value], S.docs[$('bat-b').value]);
    $('bat-body').innerHTML = S.bat.html;
  } catch (e) {
    S.bat = null;
    $('bat-body').innerHTML = `<p class="bad" role="alert">${esc(e.message)}</p>`;
  }
}

// ---- live runs ----

async function live(name, start) {
  const doc = addDoc({ name, live: true, text: '', index: TrajectoryIndex.fromJsonl(''), errors: [] });
  showRun(doc);
  $('live-status').textContent = `${name}: running…`;
  let timer = null;
  // Rebuilding the index from the text so far is cheap; at most every 150 ms.
  const rebuild = () => {
    timer = null;
    const old = doc.index;
    doc.index = TrajectoryIndex.fromJsonl(doc.text);
    doc.errors = doc.index.errors();
    if (S.doc === doc && $('compare').hidden) {
      showRun(doc, S.v ? runKey(S.v.run) : null);
      if (S.v) list.scrollTo(S.v.rows.length - 1);
    } else renderDocs();
    old.free();
  };
  try {
    const res = await start((r) => { doc.text += `${JSON.stringify(r)}\n`; timer ??= setTimeout(rebuild, 150); });
    $('live-status').textContent = `${name}: finished, ${res.end?.reason ?? res.status}`;
  } catch (e) {
    $('live-status').textContent = `${name}: failed: ${e.message}`;
  }
  clearTimeout(timer);
  rebuild();
}

// ---- events ----

$('file').addEventListener('change', (e) => openFiles([...e.target.files]).then(() => { e.target.value = ''; }));
onDrop($('drop'), openFiles);
let typing = null; // a search per keystroke over a 100 MB run would queue up: wait for a pause
const searchNow = () => { clearTimeout(typing); typing = null; applyQuery(true); };
// Enter: the next match (shift: the previous), searching first if the pause has not come yet.
$('q').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  if (typing) searchNow();
  goNext(S.res?.hits, e.shiftKey ? -1 : 1);
});
$('find').addEventListener('submit', (e) => e.preventDefault());
$('q').addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(searchNow, 120); });
for (const id of ['regex', 'kind', 'errors-only', 'min-sev']) $(id).addEventListener('change', () => applyQuery());
$('live-sim').addEventListener('click', () => live('live-simulation.jsonl', liveSimulation));
$('live-bg').addEventListener('click', () => live('live-objective.jsonl', liveObjective));
$('compare-btn').addEventListener('click', openCompare);
$('cmp-a').addEventListener('change', renderCompare);
$('cmp-b').addEventListener('change', renderCompare);
$('cmp-close').addEventListener('click', closeCompare);
$('batch-btn').addEventListener('click', openBatches);
$('bat-a').addEventListener('change', renderBatches);
$('bat-b').addEventListener('change', renderBatches);
$('bat-close').addEventListener('click', closeCompare);
$('bat-md').addEventListener('click', () => S.bat && download('compare-batches.md', S.bat.diff.markdown, 'text/markdown'));
$('cmp-md').addEventListener('click', () => S.cmp && download('compare.md', compareMarkdown(S.cmp), 'text/markdown'));
$('cmp-json').addEventListener('click', () => S.cmp && download('compare.json', compareJson(S.cmp)));
$('help-btn').addEventListener('click', () => $('help').showModal());
$('theme').addEventListener('click', () => {
  const root = document.documentElement;
  const dark = root.dataset.theme ? root.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  root.dataset.theme = dark ? 'light' : 'dark';
  try { localStorage.setItem('at-theme', root.dataset.theme); } catch { /* storage off: the toggle still works for this visit */ }
});
try { if (localStorage.getItem('at-theme')) document.documentElement.dataset.theme = localStorage.getItem('at-theme'); } catch { /* as above */ }

document.addEventListener('click', (e) => {
  const t = e.target;
  const run = t.closest('.run-btn');
  if (run) {
    showRun(S.docs[run.dataset.doc], run.dataset.run);
    // The address names the run shown: a reload, or the link copied, opens it.
    if (S.v) history.pushState(null, '', S.v.ctx.href({}));
    return;
  }
  const close = t.closest('[data-close]');
  if (close) {
    const [doc] = S.docs.splice(Number(close.dataset.close), 1);
    if (S.doc === doc) { S.doc = null; S.docs.length ? showRun(S.docs.at(-1)) : showRun({ name: 'no file', index: TrajectoryIndex.fromJsonl(''), errors: [] }); }
    doc.index.free();
    return renderDocs();
  }
  const node = t.closest('#graph .node');
  if (node) return goRow(S.v.rows.findIndex((r) => r.t?.step === node.dataset.step));
  const sample = t.closest('.sample');
  if (sample) return openSample(S.samples[sample.dataset.k]);
  const side = t.closest('a[data-side]');
  if (side) {
    e.preventDefault();
    const x = side.dataset.side === 'A' ? S.cmp.A : S.cmp.B;
    closeCompare();
    showRun(x.doc, runKey(x.run));
    return goRow(S.v.rows.findIndex((r) => r.t?.turn === Number(side.dataset.turn)));
  }
  const a = t.closest('a[href^="#"]');
  if (a) {
    e.preventDefault();
    history.pushState(null, '', a.getAttribute('href'));
    return fromHash();
  }
  const act = t.closest('#turns button[data-act]');
  if (act && S.v) {
    const { doc } = S.v;
    const ix = doc.index;
    const { act: what, rec, path, turn } = act.dataset;
    if (what === 'all') {
      const pre = act.closest('.gate').previousElementSibling;
      pre.textContent = json(payloadAt(ix, Number(rec), path));
      if (pre.closest('.hit')) find.mark(pre, S.res?.needle); // the full text, marked as the cut one was
      act.remove();
      return list.update(true);
    }
    if (what === 'dl') return download(`${base(doc.name)}-record-${rec}.json`, json(payloadAt(ix, Number(rec), path)));
    const r = ix.runs().find((x) => runKey(x) === act.parentElement.dataset.run);
    const ctx = runCtx(doc, r);
    const t2 = ix.turns(r.runId).find((x) => x.turn === Number(turn));
    const name = `${base(doc.name)}-${(r.runId ?? 'run').replace(/\W+/g, '_')}-turn-${turn}`;
    if (what === 'md') return download(`${name}.md`, turnMarkdown(ctx, t2), 'text/markdown');
    return download(`${name}.json`, JSON.stringify({ file: doc.name, runId: r.runId, turn: t2, records: [...ix.turnRecords(r.runId, t2.turn)].map((i) => ix.get(i)) }, null, 2));
  }
  const row = t.closest('#turns .row');
  if (row && !t.closest('button, a, summary')) { select(Number(row.dataset.row)); S.pos = S.v.rows[S.sel].lo; }
});

addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && e.target.closest?.('.node')) return e.target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  if (e.target.matches?.('input, select, textarea')) {
    if (e.key === 'Escape') e.target.blur();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey || !S.v && e.key !== '?') return;
  const v = S.v;
  const keys = {
    j: () => goRow(nextTurnRow(1)),
    k: () => goRow(nextTurnRow(-1)),
    e: () => goNext(find.run(v.doc.index, v.fam, { errorsOnly: true }).filtered),
    f: () => goNext(Uint32Array.from(v.ctx.findings.map((f) => f.record))),
    '/': () => $('q').focus(),
    n: () => goNext(S.res?.hits, 1),
    N: () => goNext(S.res?.hits, -1),
    '?': () => ($('help').open ? $('help').close() : $('help').showModal()),
    Escape: () => ($('help').open ? $('help').close() : closeCompare()),
  };
  if (!keys[e.key]) return;
  if (e.key !== 'Escape') e.preventDefault(); // Escape keeps its default: a modal dialog's cancel
  keys[e.key]();
});
addEventListener('hashchange', fromHash);

// ---- start ----

await initWasm();
S.samples = await sampleList();
$('samples').innerHTML = S.samples.length ? `<h2>Sample runs</h2>${S.samples.map((s, k) => `<button class="sample" data-k="${k}">${esc(s.title ?? s.file)}<small>${esc(s.file)}</small></button>`).join('')}` : '';
for (const doc of embeddedDocs()) addDoc(doc);
const src = new URLSearchParams(location.search).get('src');
if (src) {
  try { addDoc(await fetchDoc(src)); } catch (e) { addDoc({ name: src, index: TrajectoryIndex.fromJsonl(''), errors: [{ line: 0, message: e.message }] }); }
}
if (!(await fromHash())) {
  if (S.docs.length) showRun(S.docs[0]);
  else if (S.samples.length) await openSample(S.samples[0]);
}
document.body.dataset.ready = 'true';
