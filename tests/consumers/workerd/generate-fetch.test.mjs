// Generation inside workerd with real fetch: the simulated user and the
// agent call a chat completions endpoint served from this process on
// 127.0.0.1 (the only network the run may use).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { worker } from '../../js/workerd.mjs';
import { startChatServer } from '../../js/chat-server.mjs';

let server, mf;
before(async () => {
  server = await startChatServer();
  mf = worker(fileURLToPath(new URL('./generate-fetch.mjs', import.meta.url)), { bindings: { LLM_URL: server.url } });
});
after(async () => {
  await mf?.dispose();
  await server?.close();
});

async function run(query = '') {
  const res = await mf.dispatchFetch(`http://localhost/${query}`);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

test('a user model and an agent on fetch reach the goal inside workerd', async () => {
  const before = server.requests.length;
  const out = await run();
  const steps = out.result.steps;
  assert.deepEqual(steps.map((s) => s.stepId), ['greet', 'hours', 'book']);
  assert.deepEqual(steps.map((s) => s.selection.method), ['start', 'llm-ranked', 'preconditions-ordered']);
  assert.equal(steps[1].selection.candidates[0].stepId, 'hours');
  assert.equal(out.result.end.reason, 'goal-reached');
  assert.equal(steps[0].userMessage.content, 'Please, say hello.');
  // The booking turn: assistant tool call, tool result, assistant text, in order.
  assert.deepEqual(steps[2].agentMessages.map((m) => m.role), ['assistant', 'tool', 'assistant']);
  assert.match(steps[2].agentMessages[2].content, /^Done: \{"booked":true,"people":2,"table":7\}$/);
  assert.deepEqual(out.tools.map((p) => [p.kind, p.tool_name]), [['tool_started', 'book_table'], ['tool_ended', 'book_table']]);
  assert.equal(out.kinds[0], 'run_started');
  assert.equal(out.kinds.at(-1), 'run_ended');
  assert.equal(out.jsonl.length, 3);
  assert.equal(JSON.parse(out.jsonl[2]).conversationId, 'workerd-fetch');
  assert.match(out.summary, /3 turns, ended: goal-reached/);

  // What reached the endpoint: 3 user messages, 1 ranking, 4 agent calls.
  const seen = server.requests.slice(before);
  assert.equal(seen.filter((r) => r.body.model === 'user' && !r.body.response_format).length, 3);
  assert.equal(seen.filter((r) => r.body.response_format?.type === 'json_object').length, 1);
  assert.equal(seen.filter((r) => r.body.model === 'agent').length, 4);
  assert.ok(seen.every((r) => r.authorization === 'Bearer test-key'));
  const afterTool = seen.filter((r) => r.body.model === 'agent').at(-1).body.messages;
  assert.deepEqual(afterTool.slice(-2).map((m) => m.role), ['assistant', 'tool']);
  assert.equal(afterTool.at(-1).tool_call_id, afterTool.at(-2).tool_calls[0].id);
});

test('an endpoint error ends the run with error, keeping what came before', async () => {
  const out = await run('?agentModel=missing');
  assert.equal(out.result.end.reason, 'error');
  assert.equal(out.result.end.error.code, 'CALLBACK_FAILED');
  assert.equal(out.result.end.error.side, 'agent');
  assert.match(out.result.end.error.message, /answered 400: .*unknown model missing/);
  assert.equal(out.result.steps.length, 1);
  assert.equal(out.result.steps[0].userMessage.content, 'Please, say hello.');
  assert.equal(out.kinds.at(-1), 'run_ended');
});
