// Generated conversations for the matchers: a scripted user over a
// three-step chain, agents that book a table (or fail to, or poll in a
// loop), and a scripted rubric judge that grades each criterion by a table
// of rules over the transcript it is shown.
import {
  MemorySink,
  createTrajectory,
  runTrajectories,
  type AgentHandle,
  type BatchRun,
  type Model,
  type ModelMessageInput,
  type ModelRequest,
  type TrajectoryRecord,
  type TrajectoryResult,
  type Trajectory,
} from 'agent-trajectories';

const T0 = Date.UTC(2026, 0, 1);
export const clock = () => T0;

/** The simulated user: the same request every turn. */
export const user: Model = async (req) => (req.purpose === 'rank-steps' ? '{"candidates":[]}' : 'a table for two tonight, please');

export const chain: Trajectory = {
  goal: 'book a table for two',
  persona: { name: 'Ana', description: 'a terse diner' },
  steps: {
    steps: [
      { id: 'greet', instruction: 'say hello' },
      { id: 'ask', instruction: 'ask for a table', preconditions: [{ type: 'stepSatisfied', stepId: 'greet' }] },
      { id: 'confirm', instruction: 'confirm the booking', preconditions: [{ type: 'stepSatisfied', stepId: 'ask' }] },
    ],
    start: 'greet',
    terminals: ['confirm'],
  },
  maxTurns: 6,
};

const call = (id: string, toolName: string, input: Record<string, string | number>): ModelMessageInput => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName, input }],
});
const result = (id: string, toolName: string, value: string, failed = false): ModelMessageInput => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName, output: failed ? { type: 'error-text', value } : { type: 'text', value } }],
});

/** Greets, then on its second turn searches and books (the table `full` or not), then confirms. */
function booking(full: boolean): AgentHandle {
  let turn = 0;
  return {
    async respond() {
      turn++;
      if (turn !== 2) return { messages: [{ role: 'assistant', content: turn === 1 ? 'Hello! How can I help?' : 'Anything else?' }], usage: { inputTokens: 20, outputTokens: 5 } };
      return {
        messages: [
          call('c1', 'search', { q: 'Paris', n: 2 }),
          result('c1', 'search', 'Chez Ana, Le Petit'),
          call('c2', 'book', { city: 'Paris' }),
          result('c2', 'book', full ? 'full' : 'booked for 8pm', full),
          { role: 'assistant', content: full ? 'Whatever, it is full. Try elsewhere.' : 'Booked at Chez Ana for 8pm. Thank you!' },
        ],
        usage: { inputTokens: 40, outputTokens: 12 },
      };
    },
  };
}

/** Polls the same tool every turn, which the stall observer notices. */
const polling: AgentHandle = {
  async respond() {
    return { messages: [call('p', 'poll', {}), result('p', 'poll', 'same'), { role: 'assistant', content: 'still waiting' }] };
  },
};

type Grade = ['pass' | 'fail' | 'inconclusive', string];
/** How the scripted judge grades each criterion it knows, from the transcript. */
const rules: Record<string, (conversation: string) => Grade> = {
  polite: (c) => (/assistant: Whatever/.test(c) ? ['fail', 'the agent answered "Whatever"'] : ['pass', 'the agent was courteous']),
  booked: (c) =>
    c.includes('tool book returns (failed)')
      ? ['fail', 'the booking failed: the restaurant was full']
      : c.includes('tool book returns:')
        ? ['pass', 'a table was booked']
        : ['inconclusive', 'nothing was booked yet'],
};

const textOf = (req: ModelRequest): string =>
  req.messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => ('text' in p ? p.text : '')).join(''))).join('\n');

/** A judge model that reads the criteria from the request and answers each by `rules` (unknown ones: inconclusive). */
export const judgeModel: Model & { asked: number } = Object.assign(
  async (req: ModelRequest) => {
    judgeModel.asked++;
    const text = textOf(req);
    const listed = text.slice(text.indexOf('Criteria:\n') + 'Criteria:\n'.length, text.indexOf('\n\n'));
    const conversation = text.slice(text.indexOf('Conversation:\n'));
    const criteria = listed.split('\n').map((line) => {
      const name = line.slice(2).split(':')[0] ?? '';
      const [verdict, reasoning] = rules[name]?.(conversation) ?? ['inconclusive', `no rule for ${name}`];
      return { name, verdict, reasoning };
    });
    return JSON.stringify({ criteria });
  },
  { asked: 0 },
);

/** A judge model whose answers can never be read. */
export const mumblingJudge: Model = async () => 'I think it went fine.';

export const CRITERIA: readonly string[] = ['polite', 'booked'];

export interface Conversations {
  booked: TrajectoryResult;
  full: TrajectoryResult;
  looping: TrajectoryResult;
  /** The booked run's records, as its sink kept them. */
  bookedRecords: TrajectoryRecord[];
  runs: BatchRun[];
}

/** The batch: a booking that works, one that fails (ended by the judge after turn 1), and a polling loop. */
export async function generate(): Promise<Conversations> {
  const sink = new MemorySink();
  const judge = { model: judgeModel, criteria: CRITERIA, endOnPass: false };
  const { runs } = await runTrajectories([
    { id: 'booked', trajectory: createTrajectory({ ...chain, conversationId: 'booked' }, booking(false)), options: { userModel: user, clock, sink, judge } },
    { id: 'full', trajectory: createTrajectory({ ...chain, conversationId: 'full' }, booking(true)), options: { userModel: user, clock, judge } },
    {
      id: 'looping',
      trajectory: createTrajectory({ goal: 'get a table', persona: { description: 'patient' }, maxTurns: 4, conversationId: 'looping' }, polling),
      options: { userModel: user, clock, observers: { observers: [{ observer: 'stall', trigger: { onEveryCall: true }, options: { repeatThreshold: 2 } }], clock } },
    },
  ]);
  const byId = (id: string): TrajectoryResult => {
    const r = runs.find((run) => run.id === id)?.result;
    if (!r) throw new Error(`no result for ${id}`);
    return r;
  };
  return { booked: byId('booked'), full: byId('full'), looping: byId('looping'), bookedRecords: sink.records(), runs };
}
