// The run viewer (www/ over the package with TrajectoryIndex) on the two scale
// inputs in headless Chromium: time to the first rendered turn after opening
// ?src=<file>, frames while scrolling the turn list end to end, a search, the
// JS heap; beside a naive page that JSON.parses every line and renders one
// table row per record, in the same browser and run.
// Usage: node tests/bench/viewer-scale.mjs  (env PACKAGE_DIR: the package
// dir, default tests/.work/tarball/package; the inputs are written by
// tests/bench/viewer-data.mjs into tests/.work/scale when missing)
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeRun } from './viewer-data.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from '../js/chromium.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, 'tests/.work/scale');
const PKG = resolve(process.env.PACKAGE_DIR ?? join(ROOT, 'tests/.work/tarball/package'));
const INPUTS = [
  { name: 'big-results.jsonl', shape: { turns: 2000, callsPerTurn: 2, resultBytes: 25_000 } },
  { name: 'many-records.jsonl', shape: { turns: 25_000, callsPerTurn: 2, resultBytes: 600 } },
];
const TERM = 'needle-1999-1';
const STEPS = 200; // scroll steps, one per animation frame
const LONG = 100; // ms: a frame this long is a visible stall
const BASELINE_LIMIT = 60_000; // ms the naive page gets for its first paint (and again for its scroll)
const T0 = performance.now();

if (!existsSync(join(PKG, 'web.js'))) {
  console.error(`no package with the index at ${PKG} (web.js missing); set PACKAGE_DIR`);
  process.exit(1);
}

// ---- inputs ----

mkdirSync(DATA, { recursive: true });
for (const input of INPUTS) {
  input.file = join(DATA, input.name);
  if (!existsSync(input.file) || statSync(input.file).size === 0) {
    console.error(`writing ${input.name}…`);
    await writeRun(input.file, input.shape);
  }
  input.bytes = statSync(input.file).size;
  input.records = await countLines(input.file);
}

async function countLines(file) {
  let n = 0;
  let last = 10;
  for await (const chunk of createReadStream(file)) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
    last = chunk.at(-1);
  }
  return n + (last === 10 ? 0 : 1);
}

// ---- the site: www/, the package as pkg/, the inputs, the baseline page ----

const site = mkdtempSync(join(tmpdir(), 'at-viewer-scale-'));
cpSync(join(ROOT, 'www'), site, { recursive: true });
cpSync(PKG, join(site, 'pkg'), { recursive: true });
for (const { name, file } of INPUTS) {
  try { symlinkSync(file, join(site, name)); } catch { cpSync(file, join(site, name)); }
}
writeFileSync(join(site, 'blank.html'), '<!doctype html><meta charset="utf-8"><title>blank</title>');
writeFileSync(join(site, 'baseline.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>naive baseline</title>
<style>html, body { margin: 0; height: 100%; } #wrap { height: 100vh; overflow: auto; } table { border-collapse: collapse; font: 12px system-ui, sans-serif; width: 100%; } td { border-bottom: 1px solid #ddd; padding: 2px 6px; vertical-align: top; }</style>
</head><body><div id="wrap"></div>
<script type="module">
const B = (window.__base = {});
const raf = () => new Promise((r) => requestAnimationFrame(r));
try {
  const src = new URLSearchParams(location.search).get('src');
  const text = await (await fetch(src)).text();
  B.fetched = performance.now();
  const recs = [];
  for (const line of text.split('\\n')) if (line) recs.push(JSON.parse(line));
  B.parsed = performance.now();
  window.__recs = recs; // kept, as a viewer keeps what it shows
  B.records = recs.length;
  const table = document.createElement('table');
  const body = table.appendChild(document.createElement('tbody'));
  const cell = (tr, text) => { tr.appendChild(document.createElement('td')).textContent = text; };
  for (const r of recs) { // (not insertRow: its cost grows with the rows already there, minutes for 225,000)
    const tr = body.appendChild(document.createElement('tr'));
    cell(tr, r.payload?.kind ?? '');
    cell(tr, r.seq);
    cell(tr, JSON.stringify(r.payload).slice(0, 200));
  }
  B.built = performance.now();
  document.getElementById('wrap').append(table);
  B.appended = performance.now();
  await raf();
  await raf();
  B.painted = performance.now();
} catch (e) {
  B.error = String(e?.stack ?? e);
}
</script></body></html>
`);

// ---- in-page instruments ----

/** Before any page script: when the first turn row enters the DOM and its frame, ready, the wasm memory. */
function instrument() {
  const B = (window.__bench = { turnDom: null, turnFrame: null, ready: null, memories: [] });
  const mo = new MutationObserver(() => {
    if (B.turnDom == null && document.querySelector('#turns .row[data-turn]')) {
      B.turnDom = performance.now();
      requestAnimationFrame(() => { B.turnFrame = performance.now(); });
    }
    if (B.ready == null && document.body?.dataset.ready === 'true') B.ready = performance.now();
    if (B.turnDom != null && B.ready != null) mo.disconnect();
  });
  mo.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-ready'] });
  // The module's memory holds the index's copy of the bytes and its columns: not in the JS heap.
  const keep = (out) => {
    const exp = (out.instance ?? out).exports;
    for (const v of Object.values(exp ?? {})) if (v instanceof WebAssembly.Memory) B.memories.push(v);
    return out;
  };
  for (const fn of ['instantiate', 'instantiateStreaming']) {
    const orig = WebAssembly[fn];
    WebAssembly[fn] = (...a) => orig.apply(WebAssembly, a).then(keep);
  }
}

/** Scrolls `sel` top to bottom in `steps` frames; frame lengths from rAF, long animation frames with their scripts. */
async function scrollThrough({ sel, steps, long, limit }) {
  const el = document.querySelector(sel);
  const raf = () => new Promise((r) => requestAnimationFrame(r));
  const loafs = [];
  const kinds = PerformanceObserver.supportedEntryTypes;
  const type = kinds.includes('long-animation-frame') ? 'long-animation-frame' : kinds.includes('longtask') ? 'longtask' : null;
  const take = (list) => {
    for (const e of list.getEntries()) {
      loafs.push({
        start: e.startTime, ms: e.duration, blocking: e.blockingDuration ?? null,
        layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : null,
        scripts: (e.scripts ?? []).map((s) => ({ ms: s.duration, layout: s.forcedStyleAndLayoutDuration, invoker: s.invoker, fn: s.sourceFunctionName, src: `${s.sourceURL.split('/').pop()}:${s.sourceCharPosition}` })),
      });
    }
  };
  const po = type && new PerformanceObserver(take);
  po?.observe({ type });
  const frames = [];
  let last = await raf();
  const start = last;
  const frame = async () => { const t = await raf(); frames.push(t - last); last = t; };
  const max = () => Math.max(0, el.scrollHeight - el.clientHeight);
  for (let i = 1; i <= steps && last - start < limit; i++) {
    el.scrollTop = (max() * i) / steps;
    await frame();
  }
  // The virtual list measures rows as they render, so the bottom may move: follow it until it stays.
  for (let k = 0; k < 20 && el.scrollTop < max() - 1 && last - start < limit; k++) { el.scrollTop = max(); await frame(); }
  await frame();
  await frame();
  if (po) { take({ getEntries: () => po.takeRecords() }); po.disconnect(); }
  return {
    type, frames: frames.length, ms: last - start, maxFrame: Math.max(...frames), over: frames.filter((f) => f > long).length,
    atEnd: el.scrollTop >= max() - 1, timedOut: last - start >= limit, scrollHeight: el.scrollHeight,
    worst: loafs.sort((a, b) => b.ms - a.ms).slice(0, 3),
  };
}

/** `p`, or a TimeoutError after `ms`; then the renderer is crashed, as a page busy in layout answers nothing (not even close). */
function deadline(p, ms, cdp) {
  let timer;
  const late = new Promise((_, fail) => {
    timer = setTimeout(() => {
      cdp.send('Page.crash').catch(() => {});
      fail(Object.assign(new Error(`Timeout: over ${ms / 1000} s`), { over: true }));
    }, ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const heap = async (page, cdp) => {
  await cdp.send('HeapProfiler.collectGarbage').catch(() => {});
  const { usedSize, embedderHeapUsedSize } = await cdp.send('Runtime.getHeapUsage').catch(() => ({}));
  const pm = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
  const wasm = await page.evaluate(() => window.__bench?.memories.reduce((s, m) => s + m.buffer.byteLength, 0) ?? null);
  return { pm, used: usedSize ?? null, dom: embedderHeapUsedSize ?? null, wasm };
};

// ---- the viewer ----

async function viewer(url, input) {
  return withPage(`${url}blank.html`, async (page, { errors }) => {
    let crashed = false;
    page.on('crash', () => { crashed = true; });
    const cdp = await page.context().newCDPSession(page);
    await page.addInitScript(instrument);
    const out = { errors };
    try {
      await page.goto(`${url}index.html?src=${input.name}`, { waitUntil: 'commit' });
      await page.waitForFunction(() => window.__bench?.turnFrame != null, null, { timeout: 120_000, polling: 100 });
      await page.waitForFunction(() => window.__bench?.ready != null, null, { timeout: 60_000, polling: 100 });
      Object.assign(out, await page.evaluate((name) => {
        const r = performance.getEntriesByType('resource').find((e) => e.name.endsWith(`/${name}`));
        const app = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/app.js'));
        const { turnDom, turnFrame, ready } = window.__bench;
        return { turnDom, turnFrame, ready, fetchStart: r?.fetchStart, fetchEnd: r?.responseEnd, appStart: app?.fetchStart, rows: document.querySelectorAll('#turns .row').length };
      }, input.name));
      out.heap = await heap(page, cdp);
      out.scroll = await page.evaluate(scrollThrough, { sel: '#turns', steps: STEPS, long: LONG, limit: 60_000 });
      // A search as typed: one input event (the box waits 120 ms for a pause in typing), until #match-count says the result.
      await page.evaluate(() => {
        const S = (window.__search = { input: null, done: null, frame: null, text: null, loafs: [] });
        const take = (entries) => {
          for (const e of entries) S.loafs.push({ ms: e.duration, layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : null, scripts: (e.scripts ?? []).map((x) => ({ ms: x.duration, layout: x.forcedStyleAndLayoutDuration, invoker: x.invoker, fn: x.sourceFunctionName, src: `${x.sourceURL.split('/').pop()}:${x.sourceCharPosition}` })) });
        };
        const po = new PerformanceObserver((l) => take(l.getEntries()));
        if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) po.observe({ type: 'long-animation-frame' });
        S.stop = () => { take(po.takeRecords()); po.disconnect(); };
        const mc = document.getElementById('match-count');
        const before = mc.textContent;
        document.getElementById('q').addEventListener('input', () => { S.input ??= performance.now(); }, { capture: true, once: true });
        const mo = new MutationObserver(() => {
          if (mc.textContent === before) return;
          mo.disconnect();
          Object.assign(S, { done: performance.now(), text: mc.textContent });
          requestAnimationFrame(() => { S.frame = performance.now(); });
        });
        mo.observe(mc, { childList: true, characterData: true, subtree: true });
      });
      await page.fill('#q', TERM);
      await page.waitForFunction(() => window.__search.frame != null, null, { timeout: 60_000, polling: 50 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      out.search = await page.evaluate(() => { window.__search.stop(); const { stop, ...s } = window.__search; return s; });
      out.heapAfter = await heap(page, cdp);
      // The index alone, timed again on the same bytes (warm), to split what followed the fetch.
      out.reindex = await page.evaluate(async ([name, term]) => {
        const { TrajectoryIndex } = await import(new URL('pkg/web.js', location.href).href);
        const bytes = new Uint8Array(await (await fetch(name)).arrayBuffer());
        const t = performance.now();
        const ix = TrajectoryIndex.fromJsonl(bytes);
        const ms = performance.now() - t;
        const t2 = performance.now();
        const hits = ix.search(term).count;
        const searchMs = performance.now() - t2;
        const n = ix.length;
        ix.free();
        return { ms, n, searchMs, hits };
      }, [input.name, TERM]);
    } catch (e) {
      out.failed = crashed ? 'page crashed' : String(e.message).split('\n')[0];
    }
    return out;
  });
}

// ---- the naive baseline ----

async function baseline(url, input) {
  return withPage(`${url}blank.html`, async (page) => {
    let crashed = false;
    page.on('crash', () => { crashed = true; });
    const cdp = await page.context().newCDPSession(page);
    const out = {};
    try {
      await page.goto(`${url}baseline.html?src=${input.name}`, { waitUntil: 'commit' });
      // The stages so far, every second, so that a page that runs out of time still tells where it was.
      const watch = setInterval(() => { page.evaluate(() => window.__base).then((x) => Object.assign(out, x), () => {}); }, 1000);
      try {
        await deadline(page.waitForFunction(() => window.__base?.painted != null || window.__base?.error != null, null, { timeout: 0, polling: 100 }), BASELINE_LIMIT, cdp);
      } finally { clearInterval(watch); }
      Object.assign(out, await page.evaluate(() => window.__base));
      if (out.error) throw new Error(out.error);
      out.heap = await heap(page, cdp);
      out.scroll = await deadline(page.evaluate(scrollThrough, { sel: '#wrap', steps: STEPS, long: LONG, limit: BASELINE_LIMIT }), BASELINE_LIMIT + 15_000, cdp);
    } catch (e) {
      const stage = out.painted == null ? 'no paint' : 'scroll not done';
      out.failed = e.over ? `${stage} within ${BASELINE_LIMIT / 1000} s (page stopped)` : crashed ? `page crashed (${stage})` : String(e.message).split('\n')[0];
    }
    return out;
  });
}

// ---- run ----

const { url, close } = await serveStatic(site);
const results = [];
try {
  for (const input of INPUTS) {
    const log = (what) => console.error(`${((performance.now() - T0) / 1000).toFixed(0).padStart(4)} s  ${input.name}: ${what}`);
    log('viewer');
    const v = await viewer(url, input);
    log('baseline');
    const b = await baseline(url, input);
    log('done');
    results.push({ input, v, b });
  }
} finally {
  await close();
  rmSync(site, { recursive: true, force: true });
}

// ---- report ----

const ms = (x) => (x == null || Number.isNaN(x) ? '—' : `${Math.round(x)}`);
const mb = (x) => (x == null ? '—' : (x / 1e6).toFixed(0));
const frameCell = (s) => (s ? `${ms(s.maxFrame)} / ${s.over} of ${s.frames}` : '—');
console.log(`\nViewer over ${PKG === resolve(ROOT, 'tests/.work/tarball/package') ? 'tests/.work/tarball/package' : 'PACKAGE_DIR'}; headless Chromium, ${STEPS} scroll steps one per frame; times from navigation start.\n`);
console.log('| input | MB | records | viewer first turn (ms) | viewer max frame (ms) / frames >100 ms | viewer search (ms) | viewer heap JS / DOM / wasm (MB) | baseline first paint (ms) | baseline max frame (ms) / frames >100 ms | baseline heap JS / DOM (MB) | notes |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const { input, v, b } of results) {
  const notes = [];
  if (v.fetchEnd != null) notes.push(`viewer first turn: fetch started ${ms(v.fetchStart)}, done ${ms(v.fetchEnd)}; then the index (${ms(v.reindex?.ms)} when timed again on the same bytes) and the run's first render; data-ready ${ms(v.ready)}`);
  if (v.search) notes.push(`search "${TERM}" timed from the input event, incl. the box's 120 ms typing pause, to the frame after "${v.search.text}"; index.search alone ${ms(v.reindex?.searchMs)}`);
  if (v.scroll && !v.scroll.atEnd) notes.push('viewer scroll did not reach the end');
  if (v.failed) notes.push(`viewer failed: ${v.failed}`);
  if (v.errors?.length) notes.push(`viewer page errors: ${v.errors.length} (${v.errors[0].split('\n')[0]})`);
  if (b.fetched != null) notes.push(`baseline: fetched ${ms(b.fetched)}, parsed ${ms(b.parsed)}, rows built ${ms(b.built)}, appended ${ms(b.appended)}, painted ${ms(b.painted)}${b.painted == null ? ' (still in layout or paint)' : ''}`);
  if (b.scroll?.timedOut) notes.push(`baseline scroll stopped after ${Math.round(b.scroll.ms / 1000)} s`);
  if (b.failed) notes.push(`baseline failed: ${b.failed}`);
  console.log(`| ${input.name} | ${(input.bytes / 1e6).toFixed(1)} | ${input.records} | ${ms(v.turnFrame)} | ${frameCell(v.scroll)} | ${v.search ? ms(v.search.frame - v.search.input) : '—'} | ${v.heap ? `${mb(v.heap.used)} / ${mb(v.heap.dom)} / ${mb(v.heap.wasm)}` : '—'} | ${b.failed && b.painted == null ? b.failed : ms(b.painted)} | ${frameCell(b.scroll)} | ${b.heap ? `${mb(b.heap.used)} / ${mb(b.heap.dom)}` : '—'} | ${notes.join('; ').replaceAll('|', '\\|')} |`);
}

console.log('\nLongest animation frames (duration, then its scripts) while scrolling, and during the search:');
for (const { input, v, b } of results) {
  for (const [who, s] of [['viewer', v.scroll], ['baseline', b.scroll]]) {
    if (!s) continue;
    const worst = s.worst.map((f) => `${ms(f.ms)} ms${f.layout != null ? ` (style+layout ${ms(f.layout)})` : ''}${f.scripts.length ? `: ${f.scripts.map((x) => `${x.invoker} ${x.fn || '(anonymous)'} ${x.src} ${ms(x.ms)} ms, forced layout ${ms(x.layout)}`).join(', ')}` : ''}`);
    console.log(`- ${input.name} ${who} (${s.type ?? 'no frame timing'}; ${s.frames} frames in ${ms(s.ms)} ms, scroll height ${s.scrollHeight}px): ${worst.join(' | ') || 'none over 50 ms'}`);
  }
}
for (const { input, v } of results) {
  const top = (v.search?.loafs ?? []).sort((a, b) => b.ms - a.ms).slice(0, 2);
  if (top.length) console.log(`- ${input.name} viewer search: ${top.map((f) => `${ms(f.ms)} ms${f.layout != null ? ` (style+layout ${ms(f.layout)})` : ''}${f.scripts.length ? `: ${f.scripts.map((x) => `${x.invoker} ${x.fn || '(anonymous)'} ${x.src} ${ms(x.ms)} ms, forced layout ${ms(x.layout)}`).join(', ')}` : ''}`).join(' | ')}`);
}
const h = (x) => (x ? `JS ${mb(x.used)} MB (performance.memory ${mb(x.pm)} MB), DOM ${mb(x.dom)} MB${x.wasm ? `, wasm ${mb(x.wasm)} MB` : ''}` : '—');
console.log(`\nHeap after load and a GC (CDP Runtime.getHeapUsage; performance.memory is coarse without --enable-precise-memory-info): ${results.map(({ input, v, b }) => `${input.name} viewer ${h(v.heap)} (after the search ${h(v.heapAfter)}), baseline ${h(b.heap)}`).join('; ')}`);
console.log(`Total ${(performance.now() - T0) / 1000 | 0} s.`);
