// The scripted model of the Mastra runs: ai 7's MockLanguageModelV4, which
// @mastra/core runs as it is. Plain JS because its types (newer provider
// types, with an `interrupted` finish reason) do not match those
// @mastra/core 1.71 bundles; model.d.mts types it as Mastra takes it.

import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } };

/** Each prompt message's role and text. */
const seen = (prompt) =>
  prompt.map((m) => ({
    role: m.role,
    text: typeof m.content === 'string' ? m.content : m.content.map((p) => (typeof p.text === 'string' ? p.text : '')).join(''),
  }));

export function repeatingModel(calls, answerAt, failAt = 0) {
  const answer = (n) => {
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
      const parts = [];
      for (const p of r.content) {
        if (p.type === 'text') parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: p.text }, { type: 'text-end', id: 't' });
        else parts.push(p);
      }
      parts.push({ type: 'finish', finishReason: r.finishReason, usage });
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}
