// A harness author's typed code under the strictest common settings
// (exactOptionalPropertyTypes, noUncheckedIndexedAccess): the signal and
// the usage of an AI SDK call passed on as they are, options that may be
// undefined, a readonly observer list, a fork from the fields the docs
// name, and coded errors read from results. Compiled with the other files
// here; defaults.test.mjs runs it.
import { generateText } from 'ai';
import { checkRun, createTrajectory, runTrajectory, runTrajectories, type AgentHandle, type ObserverConfig, type Sink } from 'agent-trajectories';
import { textModel } from './records.js';

const model = textModel('Booked.', 3, 2);

const agent: AgentHandle = {
  async respond(history, options) {
    // The AI SDK's own AbortSignal type; under exactOptionalPropertyTypes it takes no undefined.
    const r = await generateText({ model, prompt: `turn ${history.length}`, ...(options?.abortSignal && { abortSignal: options.abortSignal }) });
    return { messages: [{ role: 'assistant', content: r.text }], usage: r.usage };
  },
};

const observers: readonly ObserverConfig[] = [{ observer: 'stall', trigger: { onEveryCall: true } }];

export async function harness(sink: Sink | undefined, maxTurns?: number): Promise<{ tokens: number | undefined; forkId: string | undefined; code: string | undefined; pass: boolean }> {
  const trajectory = createTrajectory({ goal: 'book a table', persona: { description: 'a diner' }, maxTurns }, agent);
  const result = await runTrajectory(trajectory, { userModel: async () => 'A table, please.', sink, observers: { observers } });
  const fork = await runTrajectory(trajectory, {
    userModel: async () => 'For four.',
    resumeFrom: { result: { conversationId: result.conversationId, steps: result.steps }, atTurn: 1 },
  });
  const broken = createTrajectory({ goal: 'g', persona: { description: 'p' }, maxTurns: 1 }, { respond: async () => { throw new Error('upstream 503'); } });
  const { runs } = await runTrajectories([{ id: 'broken', trajectory: broken, options: { userModel: async () => 'hi' } }], { concurrency: maxTurns });
  const end = runs[0]?.result?.end;
  const { pass } = checkRun(result, { verdict: null, maxTurns, runId: result.conversationId });
  return { tokens: result.steps[0]?.tokens, forkId: fork.conversationId, code: end?.error?.code, pass };
}
