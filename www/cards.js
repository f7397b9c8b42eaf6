// A run's rows (its turns, and the records between them) and what a row
// shows: messages, tool calls with their result or error, the step choice,
// findings pinned to the call they fired at, child runs under the call that
// started them; a judge's judgement of a turn closes that turn's card.
// Records are parsed (index.get) only for rows on screen, and the custom
// records outside turns (where judgements are) once per run.
import { readOutcome, readModelUsage, checkRun } from './pkg/web.js';
import { esc, json, short, parts, toolValue, partError, outcomeOf, outcomeText, outcomeOk, fmtMs, hashFor, plural } from './util.js';

const GATE = 4096; // bytes of a payload shown before "show all"
const GAP_CHUNK = 40; // records per row outside turns, so a turnless run still virtualises
export const ICON = { info: 'ℹ', caution: '⚠', warning: '‼' };

/** Everything a run's rows need, computed once per run. */
export function runCtx(doc, run) {
  const ix = doc.index;
  const findings = ix.assessments(run.runId).map((f, k) => ({ ...f, k: k + 1 }));
  const byCall = new Map();
  for (const f of findings) if (f.callRecord != null) byCall.set(f.callRecord, [...(byCall.get(f.callRecord) ?? []), f]);
  const children = new Map();
  const orphans = new Map(); // child runs not started by a call: shown where their first record is
  for (const r of ix.runs()) {
    if (r.parentRunId !== run.runId || r.depth <= run.depth) continue;
    if (r.parentCall != null) children.set(r.parentCall, [...(children.get(r.parentCall) ?? []), r]); else orphans.set(r.first, r);
  }
  const judgements = judgementsOf(doc, run);
  return {
    doc, ix, run, findings, byCall, children, orphans, judgements,
    // A batch's runs carry their judgements as data (a step export has no judgement records): each closes its turn's card.
    judged: new Map(judgements.filter((x) => x.rec == null && !x.j.final).map((x) => [x.j.turn, x.j])),
    byRec: new Map(findings.map((f) => [f.record, f])),
    ended: ix.filter({ kind: 'tool_ended', runId: run.runId }), // the run's Nth call is ended[N - 1]: "#N" in evidence
    href: (extra) => hashFor(doc.name, run.runId, extra),
  };
}

/**
 * A run's judgements, in order, with their record (null for a batch run's,
 * which are data): `custom` records named judgement outside its turns.
 */
function judgementsOf(doc, run) {
  const b = doc.batch?.runs.find((r) => r.id === run.runId);
  if (b) return (b.judgements ?? []).map((j) => ({ j, rec: null }));
  const ix = doc.index;
  // 'judgement' is the core's name for the record (well_known::JUDGEMENT), as the record carries it.
  return [...ix.turnRecords(run.runId, null)].filter((i) => ix.info(i).kind === 'custom')
    .map((i) => ({ p: ix.get(i).payload, rec: i })).filter((x) => x.p.name === 'judgement' && x.p.data).map((x) => ({ j: x.p.data, rec: x.rec }));
}

/**
 * The rows of a run in record order: one per turn, and the run's own records
 * outside turns (run_started, run_ended, ...) in chunks. `lo`/`hi` are the
 * record range a row covers (child runs' records included), to find a record's row.
 * A turn's row runs on to the judgement of that turn (`more`: the records after
 * turn_ended up to it, the judge's usage among them).
 */
export function rowsFor(ctx) {
  const { ix, run } = ctx;
  const after = new Map(ctx.judgements.filter((x) => x.rec != null && !x.j.final).map((x) => [x.j.turn, x.rec]));
  const rows = [];
  const orphans = new Set(ix.runs().filter((r) => r.parentRunId === run.runId && r.parentCall == null && r.depth > run.depth).map((r) => r.first));
  const gap = (a, b) => {
    let recs = [];
    for (let i = a; i <= b; i++) {
      if (ix.info(i).runId !== run.runId && !orphans.has(i)) continue;
      recs.push(i);
      if (recs.length === GAP_CHUNK) { rows.push({ recs, lo: recs[0], hi: i }); recs = []; }
    }
    if (recs.length) rows.push({ recs, lo: recs[0], hi: recs.at(-1) });
  };
  let next = run.first;
  const turns = ix.turns(run.runId);
  for (const [k, t] of turns.entries()) {
    gap(next, t.first - 1);
    // Only up to the next turn: a judgement recorded out of place stays where it is.
    const j = after.get(t.turn) < (turns[k + 1]?.first ?? Infinity) ? after.get(t.turn) : undefined;
    const more = [];
    for (let i = t.last + 1; i <= j; i++) if (ix.info(i).runId === run.runId) more.push(i);
    rows.push({ t, lo: t.first, hi: more.at(-1) ?? t.last, more });
    next = Math.max(next, t.last + 1, j + 1 || 0);
  }
  gap(next, run.last);
  return rows;
}

export const rowRecords = (ctx, row) => (row.t ? [...ctx.ix.turnRecords(ctx.run.runId, row.t.turn), ...row.more] : row.recs);

/** The records of a row as display items: calls merge their start, end and the message parts that carry them. */
export function collect(ctx, recs) {
  const items = [];
  const calls = new Map();
  const call = (id, i) => {
    let c = calls.get(id);
    if (!c) { calls.set(id, (c = { call: true, rec: i, recs: [] })); items.push(c); }
    c.recs.push(i); // every record merged into the call, so a link to any of them finds it
    return c;
  };
  let agentText = false;
  for (const i of recs) {
    if (ctx.orphans.has(i)) { items.push({ child: ctx.orphans.get(i) }); continue; }
    const p = ctx.ix.get(i).payload;
    if (p.kind === 'tool_started') Object.assign(call(p.tool_call_id, i), { name: p.tool_name, args: p.args, argAt: [i, 'args'], start: i });
    else if (p.kind === 'tool_ended') Object.assign(call(p.tool_call_id, i), { name: p.tool_name, result: toolValue(p.result), err: p.is_error, resAt: [i, 'result'], end: i });
    else if (p.kind === 'message_appended') {
      const m = p.message;
      parts(m).forEach((q, k) => {
        const at = (f) => [i, typeof m.content === 'string' ? 'message.content' : `message.content.${k}.${f}`];
        if (q.type === 'tool-call') { const c = call(q.toolCallId, i); if (!('args' in c)) Object.assign(c, { name: q.toolName, args: q.input, argAt: at('input') }); }
        else if (q.type === 'tool-result') { const c = call(q.toolCallId, i); if (!('result' in c)) Object.assign(c, { name: q.toolName, result: toolValue(q.output), err: partError(q.output), resAt: at('output') }); }
        else if (q.type === 'text') { if (q.text) { items.push({ role: m.role, text: q.text, rec: i, at: at('text') }); agentText ||= m.role === 'assistant'; } }
        else items.push({ ev: `${m.role} ${q.type}`, text: short(q), rec: i });
      });
    } else if (p.kind === 'turn_ended') {
      // Usually a repeat of the last message_appended; shown only when a stream recorded no assistant message.
      if (!agentText) for (const q of parts(p.assistant)) if (q.type === 'text' && q.text) items.push({ role: 'assistant', text: q.text, rec: i, at: [i, 'assistant'] });
    } else if (p.kind === 'step_selected') items.push({ step: p, rec: i });
    else if (p.kind === 'assessment_produced') items.push({ finding: ctx.byRec.get(i), rec: i });
    else if (p.kind === 'custom' && p.name === 'judgement' && p.data) items.push({ judge: p.data, rec: i });
    // A run_ended is marked by how the viewer reads its outcome: the index counts only a status other than completed as an error.
    else if (p.kind === 'run_ended') items.push({ ev: p.kind, text: summary(p), err: !outcomeOk(readOutcome(p.outcome)), rec: i });
    else if (p.kind !== 'turn_started' && p.kind !== 'iteration_started') items.push({ ev: p.kind, text: summary(p), err: ctx.ix.info(i).isError, rec: i });
  }
  // A finding shows under the call it fired at when that call is in the same row.
  const ends = new Set([...calls.values()].map((c) => c.end));
  return items.filter((it) => !(it.finding && ends.has(it.finding.callRecord)));
}

function summary(p) {
  switch (p.kind) {
    case 'run_started': return [p.identity?.run_id, p.identity?.agent, p.identity?.model_id].filter(Boolean).join(' · ');
    case 'run_ended': { const o = outcomeOf(readOutcome(p.outcome)); return `${o.text}${o.detail ? `: ${o.detail}` : ''}`; }
    case 'run_terminated': return `${p.status} · ${p.reason}`;
    case 'simulator_issue': return `simulated user, turn ${p.turn_index}, attempt ${p.attempt}: ${p.issue}${p.retried ? ' (asked again)' : ' (gave up)'}: ${short(p.text)}`;
    case 'iteration_completed': return `iteration ${p.iteration}: ${p.decision}${p.tools?.length ? ` (${p.tools.join(', ')})` : ''}${p.failed ? ' · failed' : ''}${p.error ? `: ${short(p.error)}` : ''}`;
    case 'provider_request_prepared': return `${p.message_count} messages, ${p.tool_count} tools${p.model_id ? `, ${p.model_id}` : ''}`;
    case 'custom': {
      const g = p.data;
      if (p.name === 'step_graph' && Array.isArray(g?.steps)) return `step graph: ${g.steps.length} steps, start ${g.start}, terminal ${(g.terminals ?? []).join(', ')} (drawn under Steps)`;
      // Either spelling of the usage fields, read by the core.
      const u = p.name === 'model_usage' ? readModelUsage(g) : undefined;
      if (u) return `${u.totalTokens} tokens${u.source ? ` (${u.source})` : ''}${u.inputTokens !== undefined ? `: ${u.inputTokens} in, ${u.outputTokens ?? 0} out` : ''}${u.finishReason ? ` · finish ${u.finishReason}` : ''}`;
      if (p.name === 'fork' && typeof g?.parentRunId === 'string') return `forked from ${g.parentRunId}: its first ${g.atTurn} turn${g.atTurn === 1 ? '' : 's'} kept as recorded, the rest live`;
      if (p.name === 'step_states' && Array.isArray(g?.states)) return `final step states: ${g.states.map((x) => `${x.stepId} ${x.status}`).join(', ')}`;
      return `${p.name} ${short(p.data)}`;
    }
    case 'output_tokens_escalation': return `attempt ${p.attempt}: ${p.prev_cap} → ${p.new_cap} tokens`;
    default: { const { kind, ...rest } = p; return short(rest); }
  }
}

/** A payload, cut at the size gate with "show all" and "download" (which re-read the record by `at`). */
function payload(v, at) {
  const text = json(v);
  if (text.length <= GATE) return `<pre>${esc(text)}</pre>`;
  const ref = `data-rec="${at[0]}" data-path="${at[1]}"`;
  return `<pre>${esc(text.slice(0, GATE))}…</pre><div class="gate">${(text.length / 1024).toFixed(1)} KB <button data-act="all" ${ref}>show all</button> <button data-act="dl" ${ref}>download</button></div>`;
}

/** The value a gated payload button refers to. */
export function payloadAt(ix, rec, path) {
  let v = ix.get(rec).payload;
  for (const k of path.split('.')) v = v?.[k];
  return toolValue(v);
}

/** "#2", "calls #2, #3" in a finding's text link to those calls of the run. */
const linkCalls = (ctx, text) => esc(text).replace(/#(\d+)/g, (m, n) => {
  const r = ctx.ended[n - 1];
  return r === undefined ? m : `<a class="call-link" href="${ctx.href({ rec: r })}">#${n}</a>`;
});

function findingHtml(ctx, f) {
  const a = f.assessment ?? {};
  return `<div class="finding sev-${esc(f.severity)}" data-rec="${f.record}" data-finding="${f.k}" role="note" aria-label="${esc(f.severity)} finding">
    <a class="anchor" href="${ctx.href({ finding: f.k })}">${ICON[f.severity] ?? '•'} finding ${f.k}</a> <b>${esc(f.severity)}</b> · ${esc(a.observerName)} after call #${f.callIndex}: ${linkCalls(ctx, a.summary ?? '')}
    ${(a.observations ?? []).map((o) => `<div class="obs">${esc(o.category)}: ${linkCalls(ctx, o.description ?? '')}${o.evidence ? `<pre class="evidence">${linkCalls(ctx, o.evidence)}</pre>` : ''}</div>`).join('')}
    ${(a.suggestions ?? []).length ? `<ul>${a.suggestions.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>` : ''}</div>`;
}

function callHtml(ctx, c) {
  const n = c.end === undefined ? -1 : ctx.ended.indexOf(c.end) + 1;
  const kids = c.start === undefined ? [] : ctx.children.get(c.start) ?? [];
  return `<div class="call${c.err ? ' error' : ''}" data-rec="${c.rec}" data-recs="${c.recs.join(' ')}">
    <div class="call-h">${c.err ? '<span class="icon" aria-hidden="true">✖</span>' : '<span class="icon" aria-hidden="true">⚙</span>'} <b>${esc(c.name)}</b>${n > 0 ? ` <a class="recl" href="${ctx.href({ rec: c.end })}">call #${n}</a>` : ''}${c.err ? ' <span class="err-word">error</span>' : ''}</div>
    ${c.argAt ? payload(c.args ?? null, c.argAt) : ''}
    ${c.resAt ? `<div class="res">${c.err ? '<b>Error:</b> ' : '→ '}${payload(c.result ?? null, c.resAt)}</div>` : '<div class="res muted">no result recorded</div>'}
    ${(ctx.byCall.get(c.end) ?? []).map((f) => findingHtml(ctx, f)).join('')}
    ${kids.map((k) => childHtml(ctx, k)).join('')}</div>`;
}

/** A child run inline under its call (first turns only: a long one opens as a run of its own). */
function childHtml(ctx, child) {
  const cctx = runCtx(ctx.doc, child);
  const rows = rowsFor(cctx);
  return `<details class="child" open><summary>↳ child run <b>${esc(child.runId)}</b> · ${plural(child.turns, 'turn')} · ${plural(child.toolCalls, 'call')} · <span class="${outcomeOk(child.outcome) ? 'ok' : 'bad'}">${esc(outcomeText(child.outcome))}</span>
    <a href="${cctx.href({})}">open</a></summary>${rows.slice(0, 12).map((r) => rowHtml(cctx, r)).join('')}${rows.length > 12 ? `<p class="muted">${rows.length - 12} more rows: open the child run.</p>` : ''}</details>`;
}

function stepHtml(p) {
  return `<div class="stepsel"><span class="chip">step ${esc(p.step_id ?? 'none')}</span> chosen by <b>${esc(p.method)}</b>${p.ranker_error ? ` <span class="bad">ranker error: ${esc(p.ranker_error)}</span>` : ''}
    ${p.candidates?.length ? `<table class="cands"><tr><th>candidate</th><th>score</th><th>reasons</th></tr>${p.candidates.map((c) => `<tr${c.stepId === p.step_id ? ' class="chosen"' : ''}><td>${esc(c.stepId)}</td><td>${Number(c.score).toFixed(2)}</td><td>${esc((c.reasons ?? []).join('; '))}</td></tr>`).join('')}</table>` : ''}</div>`;
}

const VERDICT = { pass: '✓', fail: '✖', inconclusive: '?' };
/** A judgement: the core's heading, then each criterion's verdict and reasoning; why the answer could not be read. */
export const judgementHtml = (j, rec) => `<div class="judge jv-${esc(j.verdict)}"${rec == null ? '' : ` data-rec="${rec}"`} role="note"><b>⚖ ${esc(String(j.message ?? '').split('\n')[0])}</b>
  <ul>${(j.criteria ?? []).map((c) => `<li class="jv-${esc(c.verdict)}">${VERDICT[c.verdict] ?? '•'} <b>${esc(c.name)}</b> ${esc(c.verdict)}: ${esc(c.reasoning)}</li>`).join('')}</ul>${j.error ? `<p class="bad">${esc(j.error.code)}: ${esc(j.error.message)}</p>` : ''}</div>`;

function itemHtml(ctx, it) {
  if (it.call) return callHtml(ctx, it);
  if (it.judge) return judgementHtml(it.judge, it.rec);
  if (it.child) return childHtml(ctx, it.child);
  if (it.step) return `<div data-rec="${it.rec}">${stepHtml(it.step)}</div>`;
  if (it.finding) return findingHtml(ctx, it.finding);
  if (it.role) return `<div class="msg ${esc(it.role)}" data-rec="${it.rec}"><span class="role">${esc(it.role)}</span>${payload(it.text, it.at)}</div>`;
  return `<div class="ev${it.err ? ' error' : ''}" data-rec="${it.rec}">${it.err ? '<span class="icon" aria-hidden="true">✖</span> ' : ''}<span class="kind">${esc(it.ev)}</span> ${esc(it.text)}</div>`;
}

export function turnHeader(ctx, t) {
  return `<header class="turn-h"><a href="${ctx.href({ turn: t.turn })}">Turn ${t.turn}</a>${t.step ? ` <span class="chip">${esc(t.step)}</span>` : ''}
    <span class="muted">${plural(t.toolCalls, 'call')} · ${fmtMs(t.endedAt - t.startedAt)}</span>${t.errors ? ` <span class="err-word">✖ ${t.errors} error${t.errors > 1 ? 's' : ''}</span>` : ''}
    <span class="acts" data-run="${esc(ctx.run.runId ?? '')}"><button data-act="md" data-turn="${t.turn}" aria-label="Export turn ${t.turn} as Markdown">MD</button><button data-act="json" data-turn="${t.turn}" aria-label="Export turn ${t.turn} as JSON">JSON</button></span></header>`;
}

export function rowHtml(ctx, row) {
  const j = row.t && ctx.judged.get(row.t.turn);
  const body = collect(ctx, rowRecords(ctx, row)).map((it) => itemHtml(ctx, it)).join('') + (j ? judgementHtml(j) : '');
  return row.t ? `${turnHeader(ctx, row.t)}<div class="turn-b">${body}</div>` : `<div class="outside">${body}</div>`;
}

/** A turn as Markdown: messages, calls with results, findings. */
export function turnMarkdown(ctx, t) {
  const out = [`## ${ctx.doc.name} · ${ctx.run.runId ?? ''} · turn ${t.turn}${t.step ? ` (step ${t.step})` : ''}`, ''];
  const row = rowsFor(ctx).find((r) => r.t?.turn === t.turn);
  const items = collect(ctx, rowRecords(ctx, row));
  if (ctx.judged.get(t.turn)) items.push({ judge: ctx.judged.get(t.turn) });
  for (const it of items) {
    if (it.role) out.push(`**${it.role}:** ${it.text}`, '');
    else if (it.call) {
      out.push(`- \`${it.name}(${short(it.args, 400)})\` → ${it.err ? '**error**: ' : ''}${short(it.result, 400)}`);
      for (const f of ctx.byCall.get(it.end) ?? []) out.push(`  - ${f.severity} · ${f.assessment?.observerName}: ${f.assessment?.summary}`);
    } else if (it.step) out.push(`- step **${it.step.step_id ?? 'none'}** (${it.step.method})`);
    else if (it.finding) out.push(`- ${it.finding.severity} · ${it.finding.assessment?.observerName}: ${it.finding.assessment?.summary}`);
    else if (it.judge) out.push(`- ${it.judge.message}`);
    else out.push(`- ${it.ev}: ${it.text}`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * The run's final judgement (or of the run judged whole), and checkRun with
 * its defaults (the run passed) and no finding at warning or above.
 */
export function checksHtml(ctx) {
  const fin = ctx.judgements.findLast((x) => x.j.final || x.j.turn == null);
  let out = fin ? judgementHtml(fin.j) : '<p class="muted">No judgement of the whole run.</p>';
  try {
    const c = checkRun(ctx.ix, { ...(ctx.run.runId == null ? {} : { runId: ctx.run.runId }), failOnSeverity: 'warning' });
    out += `<p id="checks-head" class="${c.pass ? 'ok' : 'bad'}">${esc(c.message.split('\n')[0])}</p><ul class="checks">${c.checks.map((k) => `<li class="${k.pass ? 'ok' : 'bad'}">${k.pass ? '✓' : '✖'} <b>${k.check}</b>: ${esc(k.message)}</li>`).join('')}</ul>`;
  } catch (e) {
    out += `<p class="bad" id="checks-head">${esc(e.message)}</p>`;
  }
  return out;
}
