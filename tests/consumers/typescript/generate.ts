// The generate surface as documented, compiled strictly; each line marked
// as an expected error at the end must be a type error.
import {
  createTrajectory,
  runTrajectory,
  toJSONL,
  toConversation,
  summarize,
  toArtifacts,
  runTrajectories,
  trajectoryMatrix,
  recordingAgent,
  replayAgent,
  summarizeBatch,
  fromOpenAIChat,
  recordingModel,
  replayModel,
  DefaultPolicy,
  MemorySink,
  type AgentHandle,
  type Model,
  type Policy,
  type StepTrace,
  type Trajectory,
  type TrajectoryResult,
} from 'agent-trajectories';

declare const console: { log(...values: unknown[]): void };

const agent: AgentHandle = {
  async respond(history) {
    return { messages: [{ role: 'assistant', content: `seen ${history.length}` }] };
  },
};
const def: Trajectory = {
  goal: 'book a table',
  persona: { name: 'Ana', description: 'terse', guardrails: ['no small talk'] },
  steps: {
    steps: [
      { id: 'greet', instruction: 'say hello', hints: ['be brief'] },
      {
        id: 'book',
        instruction: 'ask for a table',
        preconditions: [
          { type: 'stepSatisfied', stepId: 'greet' },
          { type: 'custom', name: 'has greeting', evaluate: (ctx) => ctx.stepTraces.length > 0 },
        ],
        maxAttempts: 2,
        timeoutMs: 5_000,
        isSatisfied: async (ctx) => ctx.snapshot.satisfied.has('greet'),
      },
    ],
    start: 'greet',
    terminals: ['book'],
  },
  maxTurns: 6,
  loopDetection: { maxConsecutiveSameStep: 2 },
  ranker: { threshold: 0.4, topK: 2 },
};
const userModel: Model = async (req) => (req.purpose === 'rank-steps' ? '{"candidates":[]}' : { text: 'hi' });
const recorded = recordingModel(userModel);
const policy: Policy = { evaluate: (ctx) => (ctx.turnIndex > 4 ? { stop: true, reason: 'policy-violation' } : ctx.defaultDecision) };

const result: TrajectoryResult = await runTrajectory(createTrajectory(def, agent), {
  userModel: recorded,
  clock: () => 0,
  sink: new MemorySink(),
  policy,
  onRecord: (r) => console.log(r.seq, r.payload.kind),
});
const last: StepTrace | undefined = result.steps.at(-1);
console.log(last?.selection.method, result.end?.reason, result.end?.error?.side);
const lines: string[] = toJSONL(result);
console.log(lines.length, toConversation(result, 'c1').steps[0]?.stepIndex, summarize(result));
console.log(toArtifacts(result, def)['conversation.jsonl'], recorded.recording.entries.length);
const replayed: Model = replayModel(recorded.recording);
const overHttp: Model = fromOpenAIChat({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', apiKey: 'k', temperature: 0 });
console.log(replayed, overHttp, new DefaultPolicy());

// Batches: items from a matrix, a summary with verdicts.
const items = trajectoryMatrix({
  scenarios: { book: { goal: 'book a table', minTurns: 1, simulator: { retries: 2, checks: { repeat: true } } } },
  personas: { terse: { description: 'terse' } },
  agents: { v1: agent },
  options: (cell) => ({ userModel: async () => `hi from ${cell.persona}`, clock: () => 0 }),
});
const batch = await runTrajectories(items, { concurrency: 2, onProgress: (p) => { if (p.type === 'end') console.log(p.run.verdict); } });
const agentRate: number | null = batch.summary.agentPassRate;
const fromQueue = summarizeBatch([{ reason: 'goal-reached', verdict: 'pass', turns: 2 }, { reason: 'error', verdict: 'simulator' }]);
console.log(fromQueue.byVerdict.simulator);
const verdict: 'pass' | 'agent' | 'simulator' | 'harness' | 'aborted' | null = batch.runs[0].verdict;
const endVerdict: string = result.end!.verdict;
const conversationVerdict: 'pass' | 'agent' | 'simulator' | 'harness' | 'aborted' | undefined = toConversation(result).metadata.verdict;
console.log(conversationVerdict);
console.log(agentRate, verdict, endVerdict, batch.runs[0].artifacts()?.['conversation.jsonl']);
const taped = recordingAgent(agent);
await runTrajectory(createTrajectory(def, taped), { userModel: async () => 'hi', clock: () => 0 });
const again: AgentHandle = replayAgent(JSON.stringify(taped.recording));
console.log(taped.recording.entries[0]?.request.messages.length, again);
// @ts-expect-error concurrency is a number
await runTrajectories(items, { concurrency: '2' });
// @ts-expect-error verdicts are a fixed set
const wrongVerdict: 'fail' = batch.runs[0].verdict!;
export { wrongVerdict };

// @ts-expect-error persona is required
createTrajectory({ goal: 'g' }, agent);
// @ts-expect-error a precondition type is 'stepSatisfied' or 'custom'
createTrajectory({ goal: 'g', persona: { description: 'd' }, steps: { steps: [{ id: 'a', instruction: 'i', preconditions: [{ type: 'after', stepId: 'b' }] }], start: 'a' } }, agent);
// @ts-expect-error userModel is required
await runTrajectory(createTrajectory(def, agent), { clock: () => 0 });
// @ts-expect-error options are required when the trajectory has no userModel
await runTrajectory(createTrajectory(def, agent));
// A trajectory with its own user model runs without options; options may still override it.
const selfDriven = createTrajectory({ ...def, maxTurns: 1, userModel: async () => 'hi' }, agent);
const own: TrajectoryResult = await runTrajectory(selfDriven);
await runTrajectory(selfDriven, { clock: () => 0 });
await runTrajectories([{ trajectory: selfDriven, options: {} }]);
// @ts-expect-error a batch item without a user model of its own needs one in its options
await runTrajectories([{ trajectory: createTrajectory(def, agent), options: {} }]);
// @ts-expect-error a definition's userModel is a Model function or an AI SDK language model
createTrajectory({ ...def, userModel: 'hi' }, agent);
// @ts-expect-error unknown definition keys are still refused
createTrajectory({ ...def, userModel: async () => 'hi', usermodel: 1 }, agent);
export { own };
// @ts-expect-error stop reasons are a fixed set
const reason: 'done' = result.end!.reason;
// @ts-expect-error fromOpenAIChat needs a baseURL
fromOpenAIChat({ model: 'm' });
export { reason };
