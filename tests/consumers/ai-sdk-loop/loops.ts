// AI SDK 7 tool loops (generateText, streamText, ToolLoopAgent) with
// observeAISdk spread into their settings and trajectoryMiddleware around
// the model, as a user writes them: library defaults, no casts, no `any`.
import { generateText, streamText, stepCountIs, tool, wrapLanguageModel, ToolLoopAgent, type StepResult, type ToolSet } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { z } from 'zod';
import { JsonlSink, ObserverPipeline, TrajectoryRecorder, observeAISdk, trajectoryMiddleware, type Severity } from 'agent-trajectories';

export const INSTRUCTIONS = 'You book restaurant tables.';
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } };
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type StreamPart = Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type PromptMessage = { role: string; content: string | ReadonlyArray<{ type: string }> };

/** Each model call as the model saw it: its prompt messages' roles and texts. */
export type Seen = { role: string; text: string }[];
const seen = (prompt: readonly PromptMessage[]): Seen =>
  prompt.map((m) => {
    let text = '';
    if (typeof m.content === 'string') text = m.content;
    else for (const part of m.content) if ('text' in part && typeof part.text === 'string') text += part.text;
    return { role: m.role, text };
  });

/** A model that calls `book` with the same arguments on every step, until `answerAt` calls (then it answers); call `failAt` throws. */
function repeatingModel(calls: Seen[], answerAt: number, failAt = 0): MockLanguageModelV4 {
  const answer = (n: number): GenerateResult => {
    if (n === failAt) throw new Error('the provider is down');
    return n < answerAt
      ? { content: [{ type: 'tool-call', toolCallId: `call-${n}`, toolName: 'book', input: JSON.stringify({ city: 'Lisbon' }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
      : { content: [{ type: 'text', text: 'Could not book.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
  };
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      calls.push(seen(prompt));
      return answer(calls.length);
    },
    doStream: async ({ prompt }) => {
      calls.push(seen(prompt));
      const r = answer(calls.length);
      const parts: StreamPart[] = [];
      for (const p of r.content) {
        if (p.type === 'text') parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: p.text }, { type: 'text-end', id: 't' });
        else if (p.type === 'tool-call') parts.push(p);
      }
      parts.push({ type: 'finish', finishReason: r.finishReason, usage });
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

const tools = {
  book: tool({
    description: 'Books a table',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }: { city: string }): Promise<string> => {
      throw new Error(`no tables in ${city}`);
    },
  }),
} satisfies ToolSet;

export interface Loop {
  calls: Seen[];
  lines: string[];
  steps: number;
  userSteps: number;
  userPrepares: number;
  text: string;
}

function setUp(stopOn?: Severity | { severity: Severity; times: number }) {
  const sink = new JsonlSink();
  const recorder = new TrajectoryRecorder(sink, { runId: 'loop' });
  const observers = new ObserverPipeline({ observers: [{ observer: 'stall', trigger: { onEveryCall: true } }] });
  const counts = { userSteps: 0, userPrepares: 0 };
  const settings = observeAISdk({
    observers,
    recorder,
    tools,
    ...(stopOn === undefined ? {} : { stopOn }),
    stopWhen: stepCountIs(8),
    prepareStep: ({ stepNumber }) => {
      counts.userPrepares += 1;
      return stepNumber === 0 ? { toolChoice: 'auto' as const } : undefined;
    },
    onStepEnd: (step: StepResult<typeof tools>) => {
      counts.userSteps += step.toolCalls.length >= 0 ? 1 : 0;
    },
  });
  return { sink, recorder, settings, counts };
}

/** generateText: a tool that always fails, called the same way again and again. */
export async function generateLoop(stopOn?: Severity | { severity: Severity; times: number }): Promise<Loop> {
  const calls: Seen[] = [];
  const { sink, recorder, settings, counts } = setUp(stopOn);
  const r = await generateText({ model: repeatingModel(calls, 7), instructions: INSTRUCTIONS, prompt: 'Book a table in Lisbon.', tools, ...settings });
  await recorder.flush();
  return { calls, lines: sink.lines(), steps: r.steps.length, text: r.text, ...counts };
}

/** The same loop through streamText. */
export async function streamLoop(): Promise<Loop> {
  const calls: Seen[] = [];
  const { sink, recorder, settings, counts } = setUp('warning');
  const r = streamText({ model: repeatingModel(calls, 7), instructions: INSTRUCTIONS, prompt: 'Book a table in Lisbon.', tools, ...settings });
  const text = await r.text;
  const steps = (await r.steps).length;
  await recorder.flush();
  return { calls, lines: sink.lines(), steps, text, ...counts };
}

/** A ToolLoopAgent with the settings spread into its constructor. */
export async function agentLoop(): Promise<Loop> {
  const calls: Seen[] = [];
  const { sink, recorder, settings, counts } = setUp();
  const agent = new ToolLoopAgent({ model: repeatingModel(calls, 5), instructions: INSTRUCTIONS, tools, ...settings });
  const r = await agent.generate({ prompt: 'Book a table in Lisbon.' });
  await recorder.flush();
  return { calls, lines: sink.lines(), steps: r.steps.length, text: r.text, ...counts };
}

/** Capture only: the middleware around the model, for generateText and streamText. */
export async function middlewareCalls(): Promise<{ generate: string[]; stream: string[] }> {
  const out = { generate: [] as string[], stream: [] as string[] };
  for (const mode of ['generate', 'stream'] as const) {
    const sink = new JsonlSink();
    const recorder = new TrajectoryRecorder(sink, { runId: `mw-${mode}` });
    const model = wrapLanguageModel({ model: repeatingModel([], 2), middleware: trajectoryMiddleware({ recorder }) });
    const opts = { model, instructions: INSTRUCTIONS, prompt: 'Book a table in Lisbon.', tools, stopWhen: stepCountIs(4) };
    if (mode === 'generate') await generateText(opts);
    else await streamText(opts).text;
    await recorder.flush();
    out[mode] = sink.lines();
  }
  return out;
}

/** The README's inline spreads type-check as written (no variable, no annotations), and run. */
export async function inlineSpreads(): Promise<{ generated: number; streamed: number; toolCalls: number }> {
  let toolCalls = 0;
  const generated = await generateText({ model: repeatingModel([], 3), prompt: 'Book Lisbon.', tools, ...observeAISdk({ stopOn: 'warning', tools }) });
  const streamed = streamText({
    model: repeatingModel([], 3),
    prompt: 'Book Lisbon.',
    tools,
    stopWhen: stepCountIs(5),
    ...observeAISdk({
      onStepEnd: (step) => {
        toolCalls += step.toolCalls.length;
      },
    }),
  });
  await streamed.text;
  return { generated: generated.steps.length, streamed: (await streamed.steps).length, toolCalls };
}

/** A loop where your onStepEnd throws at the second step, or the model fails at its second call. */
export async function failingLoop(what: 'callback' | 'model'): Promise<{ error: unknown; lines: string[]; calls: number }> {
  const calls: Seen[] = [];
  const sink = new JsonlSink();
  const recorder = new TrajectoryRecorder(sink, { runId: `failing-${what}` });
  let error: unknown;
  try {
    await generateText({
      model: repeatingModel(calls, 7, what === 'model' ? 2 : 0),
      prompt: 'Book Lisbon.',
      tools,
      stopWhen: stepCountIs(6),
      ...observeAISdk({
        recorder,
        agent: 'booker',
        onStepEnd: ({ stepNumber }) => {
          if (what === 'callback' && stepNumber === 1) throw new RangeError('my bug');
        },
      }),
    });
  } catch (e) {
    error = e;
  }
  await recorder.flush();
  return { error, lines: sink.lines(), calls: calls.length };
}
