// The agent and model adapters against the real `ai` and `@mastra/core`
// packages and their mock models, through the installed tarball.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as at from 'agent-trajectories';
import * as atAi from 'agent-trajectories/ai';
import { generateText, jsonSchema, stepCountIs, tool, ToolLoopAgent } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Agent as MastraAgent } from '@mastra/core/agent';

const usage = { inputTokens: { total: 3 }, outputTokens: { total: 2 } };
const text = (t) => ({ content: [{ type: 'text', text: t }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });
const call = (id, input) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
});

/** A mock model that calls `lookup` once per turn, then answers with text. */
function toolModel() {
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last.role === 'tool') return text(`the table is booked (${++n})`);
      return call(`call-${n + 1}`, { city: 'Lisbon' });
    },
  });
}
const lookup = tool({
  description: 'find a table',
  inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: async ({ city }) => ({ city, free: 2 }),
});
const userModel = at.fromAISdkModel(new MockLanguageModelV4({ doGenerate: async () => text('I want a table') }));
const def = { goal: 'book a table', persona: { description: 'terse' }, maxTurns: 2, conversationId: 'c' };

function checkToolTurns(r) {
  assert.equal(r.steps.length, 2);
  assert.equal(r.end.reason, 'max-turns');
  for (const s of r.steps) {
    assert.equal(s.userMessage.content, 'I want a table');
    const roles = s.agentMessages.map((m) => m.role);
    assert.deepEqual(roles, ['assistant', 'tool', 'assistant'], 'tool call, its result, the answer');
    assert.equal(s.agentMessages[0].content.find((p) => p.type === 'tool-call').toolName, 'lookup');
    assert.equal(s.agentMessages[1].content[0].toolCallId, s.agentMessages[0].content.find((p) => p.type === 'tool-call').toolCallId, 'pairing');
  }
}

test('withAISdkAgent(generateText config): a tool call round trip per turn, fed to records', async () => {
  const sink = new at.MemorySink();
  const agent = at.withAISdkAgent({ model: toolModel(), tools: { lookup }, stopWhen: stepCountIs(3) });
  const r = await at.runTrajectory(at.createTrajectory(def, agent), { userModel, clock: () => 0, sink });
  checkToolTurns(r);
  const kinds = sink.records().map((x) => x.payload.kind);
  assert.equal(kinds.filter((k) => k === 'tool_started').length, 2);
  assert.equal(kinds.filter((k) => k === 'tool_ended').length, 2);
  assert.match(r.steps[1].agentMessages[2].content.map?.((p) => p.text).join('') ?? r.steps[1].agentMessages[2].content, /booked \(2\)/);
});

test('withAISdkAgent(agent with generate): an AI SDK ToolLoopAgent', async () => {
  const agent = at.withAISdkAgent(new ToolLoopAgent({ model: toolModel(), tools: { lookup }, stopWhen: stepCountIs(3) }));
  checkToolTurns(await at.runTrajectory(at.createTrajectory(def, agent), { userModel, clock: () => 0 }));
});

test('withAISdkAgent: generateText can be passed in (the Workers way)', async () => {
  let used = 0;
  const agent = at.withAISdkAgent({ model: toolModel(), tools: { lookup }, stopWhen: stepCountIs(3), generateText: (o) => { used++; return generateText(o); } });
  checkToolTurns(await at.runTrajectory(at.createTrajectory(def, agent), { userModel, clock: () => 0 }));
  assert.equal(used, 2);
  assert.throws(() => at.withAISdkAgent({ model: toolModel(), prompt: 'x' }), { code: 'INVALID_ARGUMENT' });
});

test('withMastraAgent: a Mastra Agent over a mock model', async () => {
  const agent = new MastraAgent({ id: 'booker', name: 'booker', instructions: 'Book tables.', model: new MockLanguageModelV4({ doGenerate: async () => text('Booked for two.') }) });
  const r = await at.runTrajectory(at.createTrajectory(def, at.withMastraAgent(agent)), { userModel, clock: () => 0 });
  assert.equal(r.steps.length, 2);
  const answer = r.steps[0].agentMessages.filter((m) => m.role === 'assistant').at(-1);
  const content = typeof answer.content === 'string' ? answer.content : answer.content.map((p) => p.text ?? '').join('');
  assert.match(content, /Booked for two/);
  assert.throws(() => at.withMastraAgent({}), { code: 'INVALID_ARGUMENT' });
});

/** A mock model that never answers; it reports the abortSignal it was called with. */
function hangingModel(seen) {
  return new MockLanguageModelV4({
    doGenerate: ({ abortSignal }) => {
      seen.push(abortSignal);
      return new Promise((_, reject) => abortSignal?.addEventListener('abort', () => reject(abortSignal.reason)));
    },
  });
}
const timed = (ms) => ({
  goal: 'book a table', persona: { description: 'terse' },
  steps: { steps: [{ id: 'ask', instruction: 'ask for a table', timeoutMs: ms }], start: 'ask', terminals: ['ask'] },
});

test('a step timeout aborts the in-flight AI SDK and Mastra calls through abortSignal', async () => {
  for (const make of [
    (m) => at.withAISdkAgent({ model: m }),
    (m) => at.withAISdkAgent(new ToolLoopAgent({ model: m })),
    (m) => at.withMastraAgent(new MastraAgent({ id: 'slow', name: 'slow', instructions: 'x', model: m })),
  ]) {
    const seen = [];
    const r = await at.runTrajectory(at.createTrajectory(timed(30), make(hangingModel(seen))), { userModel, clock: () => 0 });
    assert.equal(r.end.error.code, 'TIMEOUT');
    assert.equal(seen.length, 1, 'the model was called');
    assert.ok(seen[0], 'the model got an abortSignal');
    assert.equal(seen[0].aborted, true, 'and it was aborted when the step timed out');
  }
});

test('a call whose signal is read only after the run stopped waiting sees it aborted, with the reason', async () => {
  let options;
  const agent = { respond: (_history, o) => { options = o; return new Promise(() => {}); } };
  const r = await at.runTrajectory(at.createTrajectory(timed(30), agent), { userModel, clock: () => 0 });
  assert.equal(r.end.error.code, 'TIMEOUT');
  // Read late: the signal is made on first read, and is aborted already.
  assert.equal(options.abortSignal.aborted, true);
  assert.equal(options.abortSignal.reason.name, 'AbortError');
  assert.match(options.abortSignal.reason.message, /stopped waiting for this call/);
  // An answered call's signal is never aborted.
  let answered;
  await at.runTrajectory(at.createTrajectory(timed(1000), { respond: async (_h, o) => { answered = o; return [{ role: 'assistant', content: 'hi' }]; } }), { userModel, clock: () => 0 });
  assert.equal(answered.abortSignal.aborted, false);
  assert.deepEqual(Object.keys(answered), ['abortSignal']);
});

test('aborting the run aborts the user model call (fromAISdkModel)', async () => {
  const seen = [];
  const controller = new AbortController();
  const agent = { respond: async () => [{ role: 'assistant', content: 'hi' }] };
  const pending = at.runTrajectory(at.createTrajectory(timed(1000), agent), { userModel: at.fromAISdkModel(hangingModel(seen)), clock: () => 0, signal: controller.signal });
  setTimeout(() => controller.abort(), 30);
  const r = await pending;
  assert.equal(r.end.reason, 'aborted');
  assert.equal(seen[0]?.aborted, true);
});

test('agent-trajectories/ai: the adapters with generateText bound (no generateText passed)', async () => {
  assert.match(import.meta.resolve('agent-trajectories/ai'), /\/node_modules\/agent-trajectories\/ai\.js$/);
  const r = await at.runTrajectory(at.createTrajectory(def, atAi.withAISdkAgent({ model: toolModel(), tools: { lookup }, stopWhen: stepCountIs(3) })), {
    userModel: atAi.fromAISdkModel(new MockLanguageModelV4({ doGenerate: async () => text('I want a table') })), clock: () => 0,
  });
  checkToolTurns(r);
  // generateText can still be injected.
  let used = 0;
  const agent = atAi.withAISdkAgent({ model: toolModel(), tools: { lookup }, stopWhen: stepCountIs(3), generateText: (o) => { used++; return generateText(o); } });
  checkToolTurns(await at.runTrajectory(at.createTrajectory(def, agent), { userModel, clock: () => 0 }));
  assert.equal(used, 2);
  assert.throws(() => atAi.withAISdkAgent({ model: toolModel(), prompt: 'x' }), { code: 'INVALID_ARGUMENT' });
});

test('usage: each adapter answers with the call\'s total tokens as numbers (AI SDK totalUsage over every step, Mastra usage)', async () => {
  const history = [{ role: 'user', content: 'a table in Lisbon' }];
  // toolModel: a tool call, then text — two model calls of 3 input + 2 output tokens each.
  const viaAgent = await at.withAISdkAgent(new ToolLoopAgent({ model: toolModel(), tools: { lookup } })).respond(history);
  assert.deepEqual(viaAgent.usage, { inputTokens: 6, outputTokens: 4, totalTokens: 10 }, 'ToolLoopAgent: both steps');
  const viaConfig = await at.withAISdkAgent({ model: toolModel(), tools: { lookup }, stopWhen: stepCountIs(3) }).respond(history);
  assert.deepEqual(viaConfig.usage, { inputTokens: 6, outputTokens: 4, totalTokens: 10 }, 'generateText config: both steps');
  const mastra = new MastraAgent({ id: 'booker', name: 'booker', instructions: 'Book tables.', model: new MockLanguageModelV4({ doGenerate: async () => text('Booked.') }) });
  assert.deepEqual((await at.withMastraAgent(mastra).respond(history)).usage, { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, 'Mastra');
  const user = await userModel({ purpose: 'user-message', system: 's', messages: history });
  assert.deepEqual(user, { text: 'I want a table', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } }, 'fromAISdkModel');
});

test('an AI SDK agent whose model fails: the adapter rejects with a coded error keeping the client\'s error as cause', async () => {
  const broken = new MockLanguageModelV4({ doGenerate: async () => { throw new Error('upstream 503'); } });
  for (const [handle, where] of [
    [at.withAISdkAgent(new ToolLoopAgent({ model: broken })), 'agent.generate'],
    [at.withAISdkAgent({ model: broken }), 'generateText'],
    [at.withMastraAgent(new MastraAgent({ id: 'b', name: 'b', instructions: 'x', model: broken })), 'agent.generate'],
  ]) {
    const err = await handle.respond([{ role: 'user', content: 'hi' }]).then(() => null, (e) => e);
    assert.ok(err, `${where}: rejected`);
    assert.equal(err.name, 'AgentTrajectoriesError');
    assert.equal(err.code, 'CALLBACK_FAILED');
    assert.ok(err.message.includes(where), err.message);
    assert.ok(err.cause instanceof Error, `${where}: the client's error is the cause`);
  }
  // In a run: the run's error keeps the client's own error as its cause (not the adapter's, one level up).
  class Upstream extends Error {}
  const failing = new MockLanguageModelV4({ doGenerate: async () => { throw new Upstream('upstream 503'); } });
  const t = at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 1 }, at.withAISdkAgent({ model: failing }));
  const { end } = await at.runTrajectory(t, { userModel: async () => 'hi' });
  assert.deepEqual([end.reason, end.error.side, end.error.code], ['error', 'agent', 'CALLBACK_FAILED']);
  assert.ok(end.error.cause instanceof Upstream, `the cause is the client's error: ${end.error.cause}`);
  assert.ok(end.error.message.startsWith('agent.respond threw: withAISdkAgent: generateText threw'), end.error.message);
});
