// The run viewer: loads the package's web build, parses runs with
// parseTrajectoryJsonl (leniently, so a damaged file still shows what it can)
// and renders every record of a run.
import { init, parseTrajectoryJsonl } from './pkg/web.js';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const short = (v, n = 140) => { const s = typeof v === 'string' ? v : JSON.stringify(v); return s.length > n ? `${s.slice(0, n)}…` : s; };

function messageText(m) {
  if (typeof m.content === 'string') return `${m.role}: ${m.content}`;
  return `${m.role}: ${m.content.map((p) => p.type === 'text' ? p.text
    : p.type === 'tool-call' ? `→ ${p.toolName}(${short(p.input, 80)})`
    : p.type === 'tool-result' ? `← ${p.toolName} ${short(p.output.value, 80)}` : `[${p.type}]`).join(' ')}`;
}

// Generated runs record AI SDK tool outputs ({ type, value }); show the value.
const toolValue = (r) => (r && typeof r === 'object' && 'type' in r && 'value' in r ? r.value : r);

// `run_ended.outcome` is an object, or a bare label ("ended") in records of the original agent runtime.
const outcome = (p) => (typeof p.outcome === 'string' ? { status: p.outcome } : p.outcome);

/** One line saying what a record is about, per payload kind. */
function summary(p) {
  switch (p.kind) {
    case 'run_started': return `${p.identity.run_id}${p.identity.agent ? ` · ${p.identity.agent}` : ''}${p.identity.model_id ? ` · ${p.identity.model_id}` : ''}`;
    case 'run_ended': { const o = outcome(p); return `${o.status}${o.reason ? ` (${o.reason})` : ''}${o.message ? `: ${o.message}` : ''}`; }
    case 'turn_started': return p.turn_index === undefined ? '' : `turn ${p.turn_index}`;
    case 'turn_ended': return messageText(p.assistant);
    case 'message_appended': return messageText(p.message);
    case 'tool_started': return `${p.tool_name}(${short(p.args)})`;
    case 'tool_ended': return `${p.tool_name} ${p.is_error ? 'failed' : 'ok'}: ${short(toolValue(p.result))}`;
    case 'step_selected': return `turn ${p.turn_index} → ${p.step_id ?? 'no step'} (${p.method})${p.method === 'llm-ranked' && p.candidates
      ? `: ${p.candidates.map((c) => `${c.stepId} ${c.score}`).join(', ')}` : ''}${p.ranker_error ? ` · ranker: ${p.ranker_error}` : ''}`;
    case 'provider_request_prepared': return `iteration ${p.iteration}: ${p.message_count} messages, ${p.tool_count} tools${p.model_id ? `, ${p.model_id}` : ''}`;
    case 'output_tokens_escalation': return `attempt ${p.attempt}: ${p.prev_cap} → ${p.new_cap} tokens`;
    case 'custom': return `${p.name} ${short(p.data)}`;
    case 'assessment_produced': return `after call #${p.call_index}: ${p.assessment.observerName} [${p.assessment.severity}] ${p.assessment.summary}`;
    default: return short(Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'kind')));
  }
}

function isError(p) {
  return (p.kind === 'tool_ended' && p.is_error) || (p.kind === 'run_ended' && !['completed', 'ended'].includes(outcome(p).status))
    || (p.kind === 'assessment_produced' && p.assessment.severity === 'warning');
}

function render(title, text) {
  const { records, errors } = parseTrajectoryJsonl(text, { lenient: true });
  const t0 = records[0]?.recorded_at_unix_ms ?? 0;
  const last = records.at(-1)?.recorded_at_unix_ms ?? t0;
  const runs = [...new Set(records.map((r) => r.run_id ?? '(unnamed)'))];
  const tools = records.filter((r) => r.payload.kind === 'tool_ended');
  const failed = tools.filter((r) => r.payload.is_error).length;
  const assessments = records.filter((r) => r.payload.kind === 'assessment_produced');
  const ended = records.filter((r) => r.payload.kind === 'run_ended' && r.depth === 0).at(-1);
  // A generated run's path through its step graph, from step_selected records.
  const path = records.filter((r) => r.payload.kind === 'step_selected')
    .map((r) => `<span class="step ${esc(r.payload.method)}" title="${esc(r.payload.method)}">${esc(r.payload.step_id ?? '—')}</span>`);
  $('run').innerHTML = `
    <h2>${esc(title)}</h2>
    <div class="stats">
      <div class="stat"><b>${records.length}</b>records</div>
      <div class="stat"><b>${runs.length}</b>run${runs.length === 1 ? '' : 's'}</div>
      <div class="stat"><b>${((last - t0) / 1000).toFixed(1)} s</b>duration</div>
      <div class="stat"><b>${tools.length}</b>tool calls</div>
      <div class="stat"><b class="${failed ? 'bad' : ''}">${failed}</b>failed</div>
      <div class="stat"><b>${assessments.length}</b>assessments</div>
      <div class="stat"><b>${ended ? esc(outcome(ended.payload).reason ?? outcome(ended.payload).status) : '—'}</b>outcome</div>
    </div>
    ${path.length ? `<p class="path">steps: ${path.join(' → ')}</p>` : ''}
    ${errors.length ? `<p class="bad">${errors.length} problem(s) (unreadable lines, or seq gaps where records are missing): ${errors.map((e) => `line ${e.line}: ${esc(e.message)}`).join('; ')}</p>` : ''}
    <table>
      <thead><tr><th>seq</th><th>+ms</th><th>run</th><th>kind</th><th>what</th></tr></thead>
      <tbody>${records.map((r) => `
        <tr class="depth-${r.depth}${isError(r.payload) ? ' error' : ''}">
          <td class="num">${r.seq}</td>
          <td class="num">${r.recorded_at_unix_ms - t0}</td>
          <td class="run">${esc(r.run_id ?? '')}</td>
          <td><span class="kind ${esc(r.payload.kind)}">${esc(r.payload.kind)}</span></td>
          <td class="summary">${esc(summary(r.payload))}</td>
        </tr>`).join('')}</tbody>
    </table>`;
}

async function showRun(run, button) {
  document.querySelectorAll('nav button').forEach((b) => b.setAttribute('aria-current', String(b === button)));
  const res = await fetch(`runs/${run.file}`);
  render(run.title, await res.text());
}

await init();
$('file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (file) render(file.name, await file.text());
});
try {
  const { runs } = await (await fetch('runs/index.json')).json();
  $('runs').innerHTML = '';
  for (const run of runs) {
    const b = document.createElement('button');
    b.innerHTML = `${esc(run.title)}<small>${esc(run.file)}</small>`;
    b.addEventListener('click', () => showRun(run, b));
    $('runs').append(b);
  }
  if (runs.length) await showRun(runs[0], $('runs').querySelector('button'));
} catch (err) {
  $('runs').innerHTML = `<p class="muted">No runs/index.json here (${esc(err.message)}). Open a .jsonl file instead.</p>`;
}
