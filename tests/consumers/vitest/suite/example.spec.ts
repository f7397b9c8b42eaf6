import { expect, test } from 'vitest';
import { createTrajectory, runTrajectory, type AgentHandle, type Model } from 'agent-trajectories';

// The agent under test (here a scripted one): books a table when asked.
const agent: AgentHandle = {
  async respond() {
    return [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'book', input: { city: 'Paris', people: 2 } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'book', output: { type: 'text', value: 'booked for 8pm' } }] },
      { role: 'assistant', content: 'Booked: a table for two at 8pm. Enjoy!' },
    ];
  },
};
// The simulated user and the judge: scripted here, models in a real suite.
const user: Model = async () => 'A table for two in Paris tonight, please.';
const criteria = ['books a table', 'polite'];
const judge: Model = async () =>
  JSON.stringify({ criteria: criteria.map((name) => ({ name, verdict: 'pass', reasoning: 'the conversation shows it' })) });

// Judged after every turn: a pass of every criterion ends the run with its goal reached.
const run = await runTrajectory(
  createTrajectory({ goal: 'book a table for two', persona: { description: 'a terse diner' }, maxTurns: 3 }, agent),
  { userModel: user, judge: { model: judge, criteria } },
);

test('the agent books a table for two, politely', async () => {
  expect(run).toReachGoal();
  expect(run).toMatchTrajectory([{ toolName: 'book', input: { people: 2 } }], { args: 'subset' });
  expect(run).toPassChecks({ maxTurns: 3, maxFailedCalls: 0 });
  expect(run).toHaveNoFindingsAtOrAbove('caution');
  await expect(run).toPassJudge(criteria, { model: judge });
});
