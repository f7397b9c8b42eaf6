// Misuse against the real clients' types: each line marked as an expected
// error must be a type error (if the adapters' parameter types degraded to
// `any` or `unknown`, tsc would report the directive as unused).
import { ToolLoopAgent, jsonSchema } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Agent } from '@mastra/core/agent';
import { fromAISdkModel, withAISdkAgent, withMastraAgent } from 'agent-trajectories';
import { failingToolModelForMastra } from './scenarios.js';

const model = new MockLanguageModelV4({});
const aiAgent = new ToolLoopAgent({ model });
const mastra = new Agent({ id: 'm', name: 'm', instructions: 'i', model: failingToolModelForMastra([]) });

// The documented uses compile.
export const ok = [withAISdkAgent(aiAgent), withAISdkAgent({ model }), withMastraAgent(mastra), fromAISdkModel(model)];

// @ts-expect-error an AI SDK agent is not a Mastra agent (generate takes { messages }, not messages)
withMastraAgent(aiAgent);
// @ts-expect-error a Mastra agent is not an AI SDK agent
withAISdkAgent(mastra);
// @ts-expect-error the history is passed as messages: a config has no prompt
withAISdkAgent({ model, prompt: 'hi' });
// @ts-expect-error the history is passed as messages: a config has no messages
withAISdkAgent({ model, messages: [] });
// @ts-expect-error a config needs a model
withAISdkAgent({ tools: {} });
// @ts-expect-error an agent whose calls need options (callOptionsSchema) cannot be driven without them
withAISdkAgent(new ToolLoopAgent({ model, callOptionsSchema: jsonSchema<{ userId: string }>({ type: 'object' }) }));
// @ts-expect-error a model, not an agent
fromAISdkModel(aiAgent);
// @ts-expect-error an agent, not a model
withAISdkAgent(model);
