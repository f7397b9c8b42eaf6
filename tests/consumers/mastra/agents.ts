// A Mastra Agent with observeMastra spread into generate / stream, as a
// user writes it: @mastra/core defaults, a scripted model (model.mjs), no
// casts, no `any`.
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { repeatingModel, type Seen } from './model.mjs';
import { z } from 'zod';
import { JsonlSink, ObserverPipeline, TrajectoryRecorder, observeMastra, type StopOnSeverity } from 'agent-trajectories';

export const INSTRUCTIONS = 'You book restaurant tables.';
export type { Seen };

const book = createTool({
  id: 'book',
  description: 'Books a table',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    throw new Error(`no tables in ${city}`);
  },
});

export interface Run {
  calls: Seen[];
  lines: string[];
  steps: number;
  text: string;
  finishReason: string | undefined;
  tripwire: string | undefined;
  /** How often the caller's own processor ran, per step. */
  mine: number;
}

function setUp(calls: Seen[], answerAt: number, stopOn?: StopOnSeverity, failAt = 0) {
  const sink = new JsonlSink();
  const recorder = new TrajectoryRecorder(sink, { runId: 'mastra' });
  const observers = new ObserverPipeline({ observers: [{ observer: 'stall', trigger: { onEveryCall: true } }] });
  const counter = { mine: 0 };
  // The caller's own processor, kept through observeMastra's options.
  const mine = {
    id: 'mine',
    processInputStep: () => {
      counter.mine += 1;
    },
  };
  const agent = new Agent({ id: 'booker', name: 'booker', instructions: INSTRUCTIONS, model: repeatingModel(calls, answerAt, failAt), tools: { book } });
  const settings = observeMastra({ observers, recorder, inputProcessors: [mine], ...(stopOn === undefined ? {} : { stopOn }) });
  return { sink, recorder, agent, settings, counter };
}

/** agent.generate: a tool that always fails, called the same way again and again. */
export async function generateRun(stopOn?: StopOnSeverity, answerAt = 7): Promise<Run> {
  const calls: Seen[] = [];
  const { sink, recorder, agent, settings, counter } = setUp(calls, answerAt, stopOn);
  const r = await agent.generate('Book a table in Lisbon.', { maxSteps: 10, ...settings });
  await recorder.flush();
  return { calls, lines: sink.lines(), steps: r.steps.length, text: r.text, finishReason: r.finishReason, tripwire: r.tripwire?.reason, mine: counter.mine };
}

/** The same through agent.stream. */
export async function streamRun(stopOn?: StopOnSeverity): Promise<Run> {
  const calls: Seen[] = [];
  const { sink, recorder, agent, settings, counter } = setUp(calls, 7, stopOn);
  const out = await agent.stream('Book a table in Lisbon.', { maxSteps: 10, ...settings });
  const text = await out.text;
  const steps = (await out.steps).length;
  const tripwire = await out.tripwire;
  await recorder.flush();
  return { calls, lines: sink.lines(), steps, text, finishReason: await out.finishReason, tripwire: tripwire?.reason, mine: counter.mine };
}

/** The model fails on its second call. */
export async function failingRun(): Promise<{ lines: string[]; error: string }> {
  const calls: Seen[] = [];
  const { sink, recorder, agent, settings } = setUp(calls, 7, undefined, 2);
  let error = '';
  try {
    await agent.generate('Book a table in Lisbon.', { maxSteps: 10, ...settings });
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  await recorder.flush();
  return { lines: sink.lines(), error };
}

/** observeMastra given to the Agent itself, not per call. */
export async function agentLevelRun(): Promise<Run> {
  const calls: Seen[] = [];
  const sink = new JsonlSink();
  const recorder = new TrajectoryRecorder(sink, { runId: 'agent-level' });
  const agent = new Agent({
    id: 'booker',
    name: 'booker',
    instructions: INSTRUCTIONS,
    model: repeatingModel(calls, 3),
    tools: { book },
    ...observeMastra({ observers: [{ observer: 'stall', trigger: { onEveryCall: true } }], recorder }),
  });
  const r = await agent.generate('Book a table in Lisbon.');
  await recorder.flush();
  return { calls, lines: sink.lines(), steps: r.steps.length, text: r.text, finishReason: r.finishReason, tripwire: r.tripwire?.reason, mine: 0 };
}
