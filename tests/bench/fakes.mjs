// Instant fakes the generation benchmarks share: a user model and an agent
// that makes one tool call per turn (call, result, answer), so every turn
// also makes tool records and feeds the observers.
export const userModel = async () => 'Could you look that up for me, please?';

/** The tool-calling agent; `extra` is added to each answer (say, `usage`). */
export function toolAgent(extra = {}) {
  let callId = 0;
  return {
    async respond() {
      const id = `call-${callId++}`;
      return {
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'search', input: { q: 'opening hours' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'search', output: { type: 'json', value: { hits: 3 } } }] },
          { role: 'assistant', content: 'Sure, here is what I found.' },
        ],
        ...extra,
      };
    },
  };
}
