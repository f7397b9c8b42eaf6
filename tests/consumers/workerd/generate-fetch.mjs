// Runs inside workerd: a trajectory whose simulated user and agent both
// call an OpenAI-compatible endpoint with fetch (env.LLM_URL, served by the
// test on 127.0.0.1). The agent books through a tool, executed here.
import { createTrajectory, runTrajectory, fromOpenAIChat, toJSONL, summarize, MemorySink } from './node_modules/agent-trajectories/workerd.js';

const tools = [{
  name: 'book_table',
  description: 'Books a table',
  inputSchema: { type: 'object', properties: { people: { type: 'number' } }, required: ['people'] },
}];
const bookTable = ({ people }) => ({ booked: true, people, table: 7 });

// A tool-using agent: ask the model, run the tools it calls, ask again,
// until it answers in text. Returns the turn's messages in AI SDK shape.
function fetchAgent(chat) {
  return {
    async respond(history) {
      const out = [];
      for (let round = 0; round < 4; round++) {
        const r = await chat({ purpose: 'decide', messages: [...history, ...out], tools });
        if (!r.toolCalls) {
          out.push({ role: 'assistant', content: r.text });
          return { messages: out };
        }
        out.push({ role: 'assistant', content: r.toolCalls.map((c) => ({ type: 'tool-call', ...c })) });
        out.push({
          role: 'tool',
          content: r.toolCalls.map((c) => ({ type: 'tool-result', toolCallId: c.toolCallId, toolName: c.toolName, output: { type: 'json', value: bookTable(c.input) } })),
        });
      }
      throw new Error('the agent kept calling tools');
    },
  };
}

export default {
  async fetch(request, env) {
    const agentModel = new URL(request.url).searchParams.get('agentModel') ?? 'agent';
    const agent = fetchAgent(fromOpenAIChat({ baseURL: env.LLM_URL, model: agentModel, apiKey: 'test-key' }));
    const trajectory = createTrajectory({
      goal: 'book a table for two',
      persona: { name: 'Ana', description: 'a terse diner' },
      conversationId: 'workerd-fetch',
      steps: {
        steps: [
          { id: 'greet', instruction: 'say hello' },
          { id: 'hours', instruction: 'ask about opening hours' },
          { id: 'book', instruction: 'book a table for two', preconditions: [{ type: 'stepSatisfied', stepId: 'hours' }] },
        ],
        start: 'greet',
        terminals: ['book'],
      },
    }, agent);
    const sink = new MemorySink();
    const result = await runTrajectory(trajectory, {
      userModel: fromOpenAIChat({ baseURL: env.LLM_URL, model: 'user', apiKey: 'test-key' }),
      clock: () => 1_700_000_000_000,
      sink,
    });
    return Response.json({
      result,
      jsonl: toJSONL(result),
      summary: summarize(result),
      kinds: sink.records().map((r) => r.payload.kind),
      tools: sink.records().filter((r) => r.payload.kind.startsWith('tool_')).map((r) => r.payload),
    });
  },
};
