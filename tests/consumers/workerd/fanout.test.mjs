// Past one machine: a batch of 50 trajectories fanned out on Queues in
// Miniflare (a producer endpoint, a queue consumer that runs each with
// runTrajectory against the scripted chat endpoint on 127.0.0.1, R2 for
// records, artifacts and results), some failing on purpose (the agent's
// endpoint missing, the simulated user's missing), some sent twice, some
// delivered twice: every run accounted for, none lost, none run twice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { worker } from '../../js/workerd.mjs';
import { startChatServer } from '../../js/chat-server.mjs';

let server, mf;
before(async () => {
  server = await startChatServer();
  mf = worker(fileURLToPath(new URL('./fanout-worker.mjs', import.meta.url)), {
    bindings: { LLM_URL: server.url },
    queueProducers: { QUEUE: 'trajectories' },
    queueConsumers: { trajectories: { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 5 } },
    r2Buckets: ['RUNS'],
  });
});
after(async () => {
  await mf?.dispose();
  await server?.close();
});

const get = async (path) => {
  const res = await mf.dispatchFetch(`http://localhost${path}`);
  assert.equal(res.status, 200, path);
  return res;
};

test('50 trajectories on Queues: every run accounted for once, failures told apart, records and artifacts in R2', { timeout: 120_000 }, async (t) => {
  const items = Array.from({ length: 50 }, (_, i) => ({
    runId: `run-${String(i).padStart(2, '0')}`,
    ...(i >= 40 && i < 45 ? { agentModel: 'missing' } : {}), // the agent's endpoint answers 404
    ...(i >= 45 ? { userModel: 'missing' } : {}), // the simulated user's does
    ...(i >= 5 && i < 8 ? { failFirstDelivery: true } : {}),
  }));
  // Runs 0-4 are sent twice, each copy beside the other (so both arrive in one
  // consumer batch, while the run is in flight): a producer that retried its send.
  const sent = items.flatMap((item, i) => (i < 5 ? [item, item] : [item]));
  const res = await mf.dispatchFetch('http://localhost/enqueue?batch=b1', { method: 'POST', body: JSON.stringify({ items: sent }) });
  assert.deepEqual(await res.json(), { queued: 55 });

  let out;
  const t0 = Date.now();
  do {
    await new Promise((r) => setTimeout(r, 500));
    out = await (await get('/summary?batch=b1')).json();
  } while (out.runs.length < 50 && Date.now() - t0 < 90_000);
  const { summary, runs, starts } = out;
  t.diagnostic(`report: fan-out: ${runs.length} results in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${JSON.stringify(summary.byVerdict)}; agentPassRate ${summary.agentPassRate}; ${summary.tokens} tokens`);
  assert.equal(runs.length, 50, 'every run has a result: none lost');
  assert.deepEqual(Object.keys(starts).sort(), items.map((i) => i.runId), 'every run started');
  assert.ok(Object.values(starts).every((n) => n === 1), `none ran twice: ${JSON.stringify(starts)}`);
  assert.deepEqual(summary.byVerdict, { pass: 40, agent: 5, simulator: 5, harness: 0, aborted: 0 });
  assert.deepEqual(summary.byReason, { 'goal-reached': 40, error: 10 });
  assert.equal(summary.agentPassRate, 40 / 45, 'the simulator faults left out');
  assert.equal(summary.passRate, 40 / 50);
  const byId = Object.fromEntries(runs.map((r) => [r.id, r]));
  for (const id of ['run-05', 'run-06', 'run-07']) assert.equal(byId[id].attempts, 2, `${id} ran on its second delivery`);
  // The records and artifacts of a run, in R2.
  const records = (await (await get('/object?key=runs/b1/run-03/records.jsonl')).text()).trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(records[0].payload.kind, 'run_started');
  // Each result's tokens are what its records say the models reported; the summary sums them.
  const usage = records.filter((r) => r.payload.name === 'model_usage').reduce((n, r) => n + r.payload.data.totalTokens, 0);
  assert.ok(usage > 0 && byId['run-03'].tokens === usage, `run-03: ${byId['run-03'].tokens} tokens stored, ${usage} recorded`);
  assert.equal(summary.tokens, runs.reduce((n, r) => n + r.tokens, 0));
  assert.equal(records.at(-1).payload.outcome.verdict, 'pass');
  assert.equal(records.filter((r) => r.payload.kind === 'run_started').length, 1);
  const meta = JSON.parse(await (await get('/object?key=runs/b1/run-44/trajectory.meta.json')).text());
  assert.deepEqual([meta.end.reason, meta.end.verdict, meta.end.error.side], ['error', 'agent', 'agent']);
});
