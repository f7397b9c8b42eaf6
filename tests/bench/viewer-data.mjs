// Writes the viewer's scale inputs: a ~100 MB record JSONL of ~2,000 turns
// with large tool results, and a ~100 MB one of ~200,000 small records.
// Usage: node tests/bench/viewer-data.mjs <dir>  (deterministic)
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `turns` turns of a scripted agent; `resultBytes` per tool result. */
export async function writeRun(file, { turns, callsPerTurn, resultBytes, runId = 'scale' }) {
  const out = createWriteStream(file);
  let seq = 0;
  let at = Date.UTC(2026, 10, 21, 9);
  let calls = 0;
  const line = (payload) => {
    at += 50;
    const ok = out.write(`${JSON.stringify({ schema_version: 1, seq: seq++, run_id: runId, depth: 0, recorded_at_unix_ms: at, payload })}\n`);
    return ok ? null : new Promise((r) => out.once('drain', r));
  };
  const filler = (n, k) => {
    let s = '';
    while (s.length < n) s += `line ${k}.${s.length}: lorem ipsum dolor sit amet, "quoted" value\n`;
    return s.slice(0, n);
  };
  await line({ kind: 'run_started', identity: { run_id: runId, agent: 'scale-agent', model_id: 'scripted-model' } });
  await line({ kind: 'custom', name: 'budget', data: { maxTokens: turns * 1500, maxToolCalls: turns * callsPerTurn + 10 } });
  for (let t = 0; t < turns; t++) {
    await line({ kind: 'turn_started', turn_index: t });
    await line({ kind: 'message_appended', message: { role: 'user', content: `Turn ${t}: please look at file ${t % 97}.` } });
    for (let c = 0; c < callsPerTurn; c++) {
      const id = `call-${++calls}`;
      const args = { path: `src/file_${(t * 7 + c) % 97}.ts`, query: `needle-${t}-${c}` };
      await line({ kind: 'tool_started', tool_call_id: id, tool_name: c % 2 ? 'read_file' : 'search_code', args });
      const failed = calls % 37 === 0;
      await line({ kind: 'tool_ended', tool_call_id: id, tool_name: c % 2 ? 'read_file' : 'search_code', result: failed ? `ENOENT: no such file ${args.path}` : filler(resultBytes, t), is_error: failed });
    }
    await line({ kind: 'custom', name: 'model_usage', data: { inputTokens: 1000 + (t % 50), outputTokens: 200, totalTokens: 1200 + (t % 50) } });
    const answer = { role: 'assistant', content: `Done with turn ${t}.` };
    await line({ kind: 'message_appended', message: answer });
    await line({ kind: 'turn_ended', assistant: answer, tool_results: [], turn_index: t });
  }
  await line({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' }, new_messages: [] });
  await new Promise((r) => out.end(r));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? 'tests/.work/scale';
  mkdirSync(dir, { recursive: true });
  await writeRun(join(dir, 'big-results.jsonl'), { turns: 2000, callsPerTurn: 2, resultBytes: 25_000 });
  await writeRun(join(dir, 'many-records.jsonl'), { turns: 25_000, callsPerTurn: 2, resultBytes: 600 });
  console.log(`wrote ${dir}/big-results.jsonl and ${dir}/many-records.jsonl`);
}
