// A batch fanned out on Cloudflare Queues (docs/objective-loop.md, "Past
// one machine", shows this file): POST /enqueue sends one message per
// trajectory; the queue consumer runs each with runTrajectory (both models
// through fromOpenAIChat, env.LLM_URL), writes the run's records and
// artifacts to R2 and its result to the result store (R2, results/); GET
// /summary aggregates the batch. A message redelivered, or sent twice, for a
// run whose result is stored is acknowledged without running it again, and
// one delivered while its run is in flight (the run id is claimed in R2 by
// a put that succeeds only if absent) waits for that run's result.
// (starts/ counts every start, for the test to prove none ran twice.)
import { createTrajectory, runTrajectory, fromOpenAIChat, toArtifacts, summarizeBatch, JsonlSink } from './node_modules/agent-trajectories/workerd.js';

const definition = (runId) => ({
  goal: 'book a table for two',
  persona: { description: 'a diner in a hurry' },
  conversationId: runId,
  maxTurns: 4,
  steps: {
    steps: [{ id: 'greet', instruction: 'say hello' }, { id: 'book', instruction: 'book a table', preconditions: [{ type: 'stepSatisfied', stepId: 'greet' }] }],
    start: 'greet',
    terminals: ['book'],
  },
});

const chatAgent = (chat) => ({
  async respond(history, { abortSignal } = {}) {
    const { text } = await chat({ purpose: 'decide', messages: [...history] }, { abortSignal }); // (a copy: the history is read-only)
    return { messages: [{ role: 'assistant', content: text }] };
  },
});

async function runOne(job, attempts, env) {
  const { batch, runId } = job;
  const model = (name) => fromOpenAIChat({ baseURL: env.LLM_URL, model: name, apiKey: 'test-key' });
  await env.RUNS.put(`starts/${batch}/${runId}/${crypto.randomUUID()}`, '');
  const trajectory = createTrajectory(definition(runId), chatAgent(model(job.agentModel ?? 'agent')));
  const sink = new JsonlSink();
  const result = await runTrajectory(trajectory, { userModel: model(job.userModel ?? 'user'), sink, clock: () => Date.now() });
  const prefix = `runs/${batch}/${runId}/`;
  await env.RUNS.put(`${prefix}records.jsonl`, sink.text());
  for (const [name, text] of Object.entries(toArtifacts(result, trajectory))) await env.RUNS.put(prefix + name, text);
  const end = result.steps.at(-1)?.end ?? result.end;
  // Last: a result stored means the run is done, whatever is delivered again.
  await env.RUNS.put(`results/${batch}/${runId}.json`, JSON.stringify({ id: runId, reason: end.reason, verdict: end.verdict, turns: result.steps.length, tokens: result.steps.reduce((n, s) => n + (s.tokens ?? 0), 0), attempts }));
}

async function list(bucket, prefix) {
  const keys = [];
  let cursor;
  do {
    const page = await bucket.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const batch = url.searchParams.get('batch') ?? 'default';
    if (url.pathname === '/enqueue') {
      const { items } = await request.json();
      // sendBatch takes at most 100 messages.
      for (let i = 0; i < items.length; i += 100) await env.QUEUE.sendBatch(items.slice(i, i + 100).map((item) => ({ body: { batch, ...item } })));
      return Response.json({ queued: items.length });
    }
    if (url.pathname === '/summary') {
      const runs = await Promise.all((await list(env.RUNS, `results/${batch}/`)).map(async (key) => (await env.RUNS.get(key)).json()));
      const starts = {};
      for (const key of await list(env.RUNS, `starts/${batch}/`)) {
        const id = key.split('/')[2];
        starts[id] = (starts[id] ?? 0) + 1;
      }
      return Response.json({ summary: summarizeBatch(runs), runs, starts });
    }
    if (url.pathname === '/object') {
      const obj = await env.RUNS.get(url.searchParams.get('key'));
      return obj ? new Response(obj.body) : new Response('missing', { status: 404 });
    }
    return new Response('not found', { status: 404 });
  },

  async queue(batch, env) {
    await Promise.all(batch.messages.map(async (msg) => {
      const job = msg.body;
      if (await env.RUNS.head(`results/${job.batch}/${job.runId}.json`)) return msg.ack(); // done already: a duplicate or a redelivery
      if (job.failFirstDelivery && msg.attempts === 1) return msg.retry(); // a delivery lost before the run started
      // One claim per run id (a put only if absent): a copy delivered while the run is in flight waits and finds its result.
      const claim = await env.RUNS.put(`claims/${job.batch}/${job.runId}`, String(msg.attempts), { onlyIf: { etagDoesNotMatch: '*' } });
      if (claim === null) return msg.retry({ delaySeconds: 1 });
      await runOne(job, msg.attempts, env);
      msg.ack();
    }));
  },
};
