// Each line below must be a type error. If the public types degraded to
// `any`, these directives would be unused and tsc would fail.
import { TrajectoryRecorder, MemorySink, parseTrajectoryJsonl } from 'agent-trajectories';

const rec = new TrajectoryRecorder(new MemorySink());
// @ts-expect-error unknown payload kind
rec.record({ kind: 'no_such_kind' });
// @ts-expect-error tool_ended needs is_error
rec.record({ kind: 'tool_ended', tool_call_id: 'c', tool_name: 't' });
// @ts-expect-error the policy is 'drop' or 'fail'
new TrajectoryRecorder(new MemorySink(), { onSinkError: 'retry' });
// @ts-expect-error a sink needs record()
new TrajectoryRecorder({ write() {} });
// @ts-expect-error strict parse returns records, not { records, errors }
parseTrajectoryJsonl('').errors;
// @ts-expect-error seq is a number
const s: string = rec.record({ kind: 'turn_started' });
export { s };

import { ObserverPipeline } from 'agent-trajectories';
// @ts-expect-error drift needs options with a scope
new ObserverPipeline({ observers: [{ observer: 'drift', trigger: { everyNCalls: 1 } }] });
// @ts-expect-error unknown built-in observer
new ObserverPipeline({ observers: [{ observer: 'stal', trigger: { everyNCalls: 1 } }] });
const pl = new ObserverPipeline({ observers: [] });
// @ts-expect-error success is required
pl.recordToolCall({ toolName: 'x' });
// @ts-expect-error severity is a fixed set
pl.recordToolCall({ toolName: 'x', success: true })?.assessments[0]?.severity === 'fatal';

// The adapters take an agent, a generateText config or a model, not anything.
import { withAISdkAgent, withMastraAgent, fromAISdkModel, runTrajectory, createTrajectory, type AgentHandle } from 'agent-trajectories';
// @ts-expect-error not an agent or a config
withAISdkAgent(5);
// @ts-expect-error a config needs a model
withAISdkAgent({});
// @ts-expect-error generate must be a method
withAISdkAgent({ generate: 'x' });
// @ts-expect-error a Mastra agent has generate
withMastraAgent({});
// @ts-expect-error a language model has doGenerate and specificationVersion
fromAISdkModel({});
const handle: AgentHandle = { respond: async () => ({ messages: [], usage: { inputTokens: 1, outputTokens: 2 } }) };
// @ts-expect-error usage counts are numbers
const badUsage: AgentHandle = { respond: async () => ({ messages: [], usage: { inputTokens: { total: 1 } } }) };
// @ts-expect-error userModel is a Model function or an AI SDK language model
await runTrajectory(createTrajectory({ goal: 'g', persona: { description: 'd' } }, handle), { userModel: { text: 'hi' } });
// @ts-expect-error unknown option key (the run also refuses it, naming "observers")
await runTrajectory(createTrajectory({ goal: 'g', persona: { description: 'd' } }, handle), { userModel: async () => 'hi', observer: [] });
// The history is read-only, its messages too: an edit in place would stay in what the agent is handed later.
const editing: AgentHandle = {
  async respond(history) {
    const first = history[0];
    // @ts-expect-error a message of the history is read-only
    if (first) first.content = 'rewritten';
    // @ts-expect-error the history array is read-only
    history.push({ role: 'system', content: 'be brief' });
    return [];
  },
};
export { badUsage, editing };
