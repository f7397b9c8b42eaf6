import { generateText, streamText, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { observeAISdk } from 'agent-trajectories';
const model = new MockLanguageModelV4({});
const tools = { book: tool({ description: 'b', inputSchema: z.object({ city: z.string() }), execute: async () => 'x' }) } satisfies ToolSet;
export const a = () => generateText({ model, prompt: 'x', tools, ...observeAISdk({ stopOn: 'warning' }) });
export const b = () => generateText({ model, prompt: 'x', ...observeAISdk({ stopOn: 'warning' }) });
export const c = () => streamText({ model, prompt: 'x', tools, ...observeAISdk({ onStepFinish: (step) => step.toolResults.length }) });
