// Bundled where `ai` IS installed (tests/node_modules): the AI SDK adapters
// from agent-trajectories/ai, with no generateText passed, over the AI SDK's
// own mock model, in the browser. Reports to window.__result.
import { init, createTrajectory, runTrajectory } from 'agent-trajectories';
import { withAISdkAgent, fromAISdkModel } from 'agent-trajectories/ai';
import { MockLanguageModelV4 } from 'ai/test';

const usage = { inputTokens: { total: 3 }, outputTokens: { total: 2 } };
const says = (text) => new MockLanguageModelV4({
  doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
});

async function main() {
  await init();
  const trajectory = createTrajectory({
    goal: 'book a table', persona: { description: 'terse' },
    steps: { steps: [{ id: 'ask', instruction: 'ask for a table' }], start: 'ask', terminals: ['ask'] },
  }, withAISdkAgent({ model: says('Booked for two.') }));
  const result = await runTrajectory(trajectory, { userModel: fromAISdkModel(says('A table, please.')), clock: () => 0 });
  const answer = result.steps[0].agentMessages.at(-1).content;
  return {
    end: result.end.reason,
    user: result.steps[0].userMessage.content,
    agent: typeof answer === 'string' ? answer : answer.map((p) => p.text ?? '').join(''),
  };
}

main().then(
  (result) => { window.__result = result; },
  (e) => { window.__result = { error: String(e?.stack ?? e) }; },
);
