// Live runs in the page, through the package: a generated conversation
// (createTrajectory + runTrajectory, a scripted simulated user and a scripted
// agent) and a background objective (BackgroundAgentRunner, a scripted model).
// Records stream out through onRecord as they are made; the short pauses
// stand in for model latency so the streaming is visible.
import { createTrajectory, runTrajectory, BackgroundAgentRunner } from './pkg/web.js';

const pause = () => new Promise((ok) => setTimeout(ok, 120));

const SAYS = {
  greet: 'Hi! I would like a table tonight.',
  hours: 'Are you open tonight?',
  book: 'Please book a table for two at 8pm.',
  confirm: 'What is my booking reference?',
};

export async function liveSimulation(onRecord) {
  const userModel = async (req) => {
    await pause();
    if (req.purpose === 'rank-steps') {
      const ids = [...req.messages[0].content.matchAll(/^- ([\w-]+): /gm)].map((m) => m[1]);
      return JSON.stringify({ candidates: ids.map((stepId, k) => ({ stepId, score: k ? 0.3 : 0.9, reasons: [k ? 'later' : 'needed first'] })) });
    }
    return SAYS[/What to do in this message: (\w+)/.exec(req.system)?.[1]] ?? 'Thanks.';
  };
  let n = 0;
  const call = (input, output) => {
    const id = `live-${++n}`;
    return [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'create_booking', input }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'create_booking', output }] }];
  };
  const agent = {
    async respond(history) {
      await pause();
      const said = history.at(-1).content;
      if (/book/.test(said)) {
        return { messages: [...call({ time: '20:00' }, { type: 'error-text', value: 'no table free at 20:00' }),
          ...call({ time: '20:30' }, { type: 'json', value: { ref: 'BK-7' } }), { role: 'assistant', content: 'Booked for 20:30 instead.' }] };
      }
      return { messages: [{ role: 'assistant', content: /reference/.test(said) ? 'It is BK-7.' : /open/.test(said) ? 'Open until 23:00.' : 'Welcome!' }] };
    },
  };
  const trajectory = createTrajectory({
    goal: 'book a table tonight', persona: { description: 'a terse diner' }, conversationId: 'live-simulation',
    steps: {
      steps: [{ id: 'greet', instruction: 'greet' }, { id: 'hours', instruction: 'hours' },
        { id: 'book', instruction: 'book', preconditions: [{ type: 'stepSatisfied', stepId: 'hours' }] },
        { id: 'confirm', instruction: 'confirm', preconditions: [{ type: 'stepSatisfied', stepId: 'book' }] }],
      start: 'greet', terminals: ['confirm'],
    },
  }, agent);
  return runTrajectory(trajectory, { userModel, clock: () => Date.now(), onRecord });
}

export async function liveObjective(onRecord) {
  const answers = [
    { toolCalls: [{ toolName: 'plan_create', input: { steps: ['Read the patch', 'Check the tests'] } }] },
    { toolCalls: [{ toolName: 'read_file', input: { path: 'diff/changes.patch' } }] }, // a wrong path: reflection retries it
    '{"action": "retry", "input": {"path": "diff/change.patch"}, "reason": "the file is change.patch"}',
    { toolCalls: [{ toolName: 'plan_update_step', input: { step: 1, status: 'done' } }, { toolName: 'grep', input: { text: 'add(', path: 'diff/tests' } }] },
    { toolCalls: [{ toolName: 'plan_update_step', input: { step: 2, status: 'done' } },
      { toolName: 'finish', input: { status: 'completed', summary: 'one API change', deliverable: { verdict: 'approve' } } }] },
    'Approve: add() gained a parameter and the tests call it.',
  ];
  const runner = new BackgroundAgentRunner({ model: async () => { await pause(); return answers.shift(); }, clock: () => Date.now(), onRecord, runId: 'live-objective' });
  const diff = { path: 'diff', files: { 'change.patch': '-fn add(a: i32)\n+fn add(a: i32, b: i32)\n', 'tests/add.rs': 'add(1, 2);\n' } };
  return runner.run({ objective: 'Review the patch in diff/', hostMounts: [diff] });
}
