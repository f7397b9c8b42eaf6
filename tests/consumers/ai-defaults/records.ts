// What record() takes, against the real AI SDK types: its own messages
// as they come (ResponseMessage, with reasoning, tool-call and tool-result
// parts), your own interfaces and fields that may be undefined as
// free-form data; and what it still refuses. Compiled by tsc --strict
// with the other files here, and run by defaults.test.mjs.
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { MemorySink, TrajectoryRecorder, matchTrajectory, type TrajectoryRecord } from 'agent-trajectories';

interface SearchArgs {
  query: string;
  limit?: number;
}

/** A mock model that answers `text`, reporting the tokens given. */
export function textModel(text: string, input: number, output: number): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: output, text: output, reasoning: 0 } },
      warnings: [],
    }),
  });
}

export async function recordWhatUsersHave(): Promise<TrajectoryRecord[]> {
  const model = textModel('ok', 5, 1);
  const result = await generateText({ model, prompt: 'x' });
  const sink = new MemorySink();
  const rec = new TrajectoryRecorder(sink, { runId: 'typed' });
  for (const message of result.response.messages) rec.record({ kind: 'message_appended', message });
  const greeting = { role: 'user', content: [{ type: 'text', text: 'Hello.' }] } as const;
  rec.record({ kind: 'message_appended', message: greeting });
  const args: SearchArgs = { query: 'opening hours' };
  rec.record({ kind: 'tool_started', tool_call_id: 'c1', tool_name: 'search', args });
  const path: string | undefined = args.limit === undefined ? undefined : 'src';
  rec.record({ kind: 'tool_ended', tool_call_id: 'c1', tool_name: 'search', result: { path }, is_error: false });
  rec.record({ kind: 'custom', name: 'model_usage', data: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens, totalTokens: result.usage.totalTokens ?? 0 } });
  // A record read back is recorded again as it is.
  const first = sink.records()[0];
  if (first) rec.record(first.payload);
  matchTrajectory(sink.records(), [{ toolName: 'search', input: args }]);
  return sink.records();
}

export function refused(rec: TrajectoryRecorder): void {
  // @ts-expect-error a tool call's id is a string
  rec.record({ kind: 'tool_started', tool_call_id: 1, tool_name: 't' });
  // @ts-expect-error a message is a message, not its text
  rec.record({ kind: 'message_appended', message: 'hi' });
  // @ts-expect-error JSON holds no BigInt
  rec.record({ kind: 'custom', name: 'x', data: 10n });
  // @ts-expect-error a turn's index is a number
  rec.record({ kind: 'turn_started', turn_index: 'one' });
  // @ts-expect-error no such role
  rec.record({ kind: 'message_appended', message: { role: 'bot', content: 'x' } });
  // @ts-expect-error no such kind
  rec.record({ kind: 'tool_start', tool_call_id: 'c', tool_name: 't' });
}
