// The real clients with their defaults: AI SDK 7's ToolLoopAgent and a
// generateText config, and a Mastra Agent, each over a mock model whose
// tool calls keep failing, run by runTrajectory with observers. Compiled
// by `tsc --strict` (no casts, no `any`) and run by defaults.test.mjs.
import { generateText, jsonSchema, tool, ToolLoopAgent, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Agent } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import {
  createTrajectory,
  fromAISdkModel,
  ObserverPipeline,
  runTrajectory,
  withAISdkAgent,
  withMastraAgent,
  type AgentHandle,
  type ObserverPipelineOptions,
  type TrajectoryResult,
} from 'agent-trajectories';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

/** One doGenerate call as the model saw it: each prompt message's role and text. */
export interface SeenCall {
  messages: { role: string; text: string }[];
}

/** What a run did: its result, every model call, and at which call each agent turn began. */
export interface Observed {
  result: TrajectoryResult;
  calls: SeenCall[];
  turnStarts: number[];
}

export const FAILURES = 3;
export const INSTRUCTIONS = 'You book restaurant tables.';

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } };

/** A prompt of any provider spec version, as far as this test reads it. */
interface PromptMessage { role: string; content: string | ReadonlyArray<{ type: string }> }

function seen(prompt: readonly PromptMessage[]): SeenCall {
  return {
    messages: prompt.map((m) => {
      let text = '';
      if (typeof m.content === 'string') text = m.content;
      else for (const part of m.content) if ('text' in part && typeof part.text === 'string') text += part.text;
      return { role: m.role, text };
    }),
  };
}

/**
 * A model that asks for the `book` tool on its first FAILURES calls (the
 * tool always fails) and answers with text after that; it keeps what
 * every call's prompt held.
 */
export function failingToolModel(calls: SeenCall[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }): Promise<GenerateResult> => {
      calls.push(seen(prompt));
      if (calls.length <= FAILURES) {
        return {
          content: [{ type: 'tool-call', toolCallId: `call-${calls.length}`, toolName: 'book', input: JSON.stringify({ city: 'Lisbon' }) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: 'Booked a table for two.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}

/**
 * The same model for Mastra. Mastra 1.71 types its models with the provider
 * spec it bundles, which `ai` 7's MockLanguageModelV4 class does not match
 * (a newer finish reason), so it is written as a plain model object of the
 * type Mastra declares. At run time both behave alike.
 */
type MastraV4Model = Extract<MastraModelConfig, { specificationVersion: 'v4'; modelId: string }>;
export function failingToolModelForMastra(calls: SeenCall[]): MastraV4Model {
  return {
    specificationVersion: 'v4',
    provider: 'mock-provider',
    modelId: 'mock-model-id',
    supportedUrls: {},
    doGenerate: async ({ prompt }) => {
      calls.push(seen(prompt));
      if (calls.length <= FAILURES) {
        return {
          content: [{ type: 'tool-call', toolCallId: `call-${calls.length}`, toolName: 'book', input: JSON.stringify({ city: 'Lisbon' }) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: 'Booked a table for two.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
    doStream: async () => {
      throw new Error('this mock only generates');
    },
  };
}

/** A tool that always fails, as a flaky booking service would. */
export const book = tool({
  description: 'Book a table in a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: async ({ city }: { city: string }): Promise<string> => {
    throw new Error(`booking service for ${city} timed out`);
  },
});

/** Tokens each mock model call reports (input + output). */
export const TOKENS_PER_CALL = usage.inputTokens.total + usage.outputTokens.total;
let userCalls = 0;
const userModel = fromAISdkModel(new MockLanguageModelV4({
  doGenerate: async (): Promise<GenerateResult> => {
    userCalls++;
    return { content: [{ type: 'text', text: 'Book me a table in Lisbon.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
  },
}));

export const observers: ObserverPipelineOptions = {
  observers: [{ observer: 'error-cascade', trigger: { onEveryCall: true } }],
};

/** Runs `agent` for `maxTurns` turns with observers, noting where each turn's model calls begin. */
async function run(agent: AgentHandle, calls: SeenCall[], maxTurns: number, pipeline: ObserverPipeline | ObserverPipelineOptions = observers): Promise<Observed> {
  const turnStarts: number[] = [];
  const counted: AgentHandle = {
    respond(history, options) {
      turnStarts.push(calls.length);
      return agent.respond(history, options);
    },
  };
  const trajectory = createTrajectory({ goal: 'book a table', persona: { description: 'terse' }, maxTurns, conversationId: 'defaults' }, counted);
  const result = await runTrajectory(trajectory, { userModel, observers: pipeline, clock: () => 0 });
  return { result, calls, turnStarts };
}

/** AI SDK 7 `ToolLoopAgent` with its default settings (stopWhen: 20 steps). */
export async function toolLoopAgent(): Promise<Observed> {
  const calls: SeenCall[] = [];
  const agent = new ToolLoopAgent({ model: failingToolModel(calls), instructions: INSTRUCTIONS, tools: { book } });
  return run(withAISdkAgent(agent), calls, 2);
}

/** A `generateText` config with the defaults (one step per call). */
export async function generateTextConfig(): Promise<Observed> {
  const calls: SeenCall[] = [];
  return run(withAISdkAgent({ model: failingToolModel(calls), instructions: INSTRUCTIONS, tools: { book } }), calls, FAILURES + 1);
}

/** A Mastra `Agent` with its defaults. */
export async function mastraAgent(): Promise<Observed> {
  const calls: SeenCall[] = [];
  const bookTool = createTool({
    id: 'book',
    description: 'Book a table in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      throw new Error(`booking service for ${city} timed out`);
    },
  });
  const agent = new Agent({ id: 'booker', name: 'booker', instructions: INSTRUCTIONS, model: failingToolModelForMastra(calls), tools: { book: bookTool } });
  return run(withMastraAgent(agent), calls, FAILURES + 1);
}

/**
 * The control: these same agents, called directly with a system message
 * inside `messages`, are refused by the libraries' defaults. It is what an
 * assessment injected as a system message ran into.
 */
export async function systemMessageRefusals(): Promise<string[]> {
  const history: ModelMessage[] = [
    { role: 'system', content: 'An assessment.' },
    { role: 'user', content: 'Book me a table.' },
  ];
  const refusals: string[] = [];
  const refused = async (call: () => PromiseLike<unknown>): Promise<void> => {
    try {
      await call();
      refusals.push('');
    } catch (e) {
      refusals.push(e instanceof Error ? e.message : String(e));
    }
  };
  const agent = new ToolLoopAgent({ model: failingToolModel([]), instructions: INSTRUCTIONS, tools: { book } });
  await refused(() => agent.generate({ messages: history }));
  await refused(() => generateText({ model: failingToolModel([]), instructions: INSTRUCTIONS, tools: { book }, messages: history }));
  return refusals;
}

/**
 * The observers' token budget after a ToolLoopAgent run, and what the
 * models reported: every agent and simulated-user call's tokens count.
 */
export async function tokenBudget(): Promise<{ tokensUsed: number | undefined; reported: number; resources: string }> {
  const calls: SeenCall[] = [];
  const pipeline = new ObserverPipeline({
    observers: [{ observer: 'resources', trigger: { onEveryCall: true } }, ...observers.observers],
    budget: { maxTokens: 10_000 },
  });
  const before = userCalls;
  const agent = new ToolLoopAgent({ model: failingToolModel(calls), instructions: INSTRUCTIONS, tools: { book } });
  await run(withAISdkAgent(agent), calls, 2, pipeline);
  const reported = (calls.length + userCalls - before) * TOKENS_PER_CALL;
  const resources = pipeline.snapshot().current?.assessments.find((a) => a.observerName === 'Resources')?.summary ?? '';
  return { tokensUsed: pipeline.budget.tokensUsed, reported, resources };
}
