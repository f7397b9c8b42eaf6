// Node CommonJS consumer: `require` of the installed tarball.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const at = require('agent-trajectories');

test('require resolves the CommonJS entry, ready without init()', () => {
  assert.match(require.resolve('agent-trajectories'), /\/node_modules\/agent-trajectories\/node\.cjs$/);
  const rec = new at.TrajectoryRecorder(new at.MemorySink());
  assert.equal(rec.record({ kind: 'turn_started' }), 0);
});

test('scenarios', async (t) => {
  const { suites } = await import('../../js/scenarios.mjs');
  for (const [suite, checks] of Object.entries(suites)) {
    for (const [name, check] of Object.entries(checks)) await t.test(`${suite}: ${name}`, () => check(at));
  }
});

test('agent-trajectories/ai resolves its CommonJS file and binds generateText', async () => {
  assert.match(require.resolve('agent-trajectories/ai'), /\/node_modules\/agent-trajectories\/ai\.cjs$/);
  const ai = require('agent-trajectories/ai');
  const { MockLanguageModelV4 } = await import('ai/test');
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({ content: [{ type: 'text', text: 'hi there' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }, warnings: [] }),
  });
  assert.deepEqual(await ai.fromAISdkModel(model)({ purpose: 'user-message', messages: [{ role: 'user', content: 'x' }] }), { text: 'hi there', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });
});
