// The agent's side of record/replay. An agent call is kept as a model
// request `{ purpose: 'agent', messages }` (the conversation so far) with
// its answer, in the format of recordingModel: so, with the user model
// recorded too, a run re-runs with no model at all. Inlined into generate.js
// (scripts/assemble.mjs) as `makeAgentReplay(lib)`.
function makeAgentReplay({ fail, why, ours, isObject, recordingModel, replayModel }) {
  /** An AgentHandle that answers through `agent` and keeps every call (`.recording`). */
  function recordingAgent(agent) {
    if (!isObject(agent) || typeof agent.respond !== 'function') {
      throw fail('INVALID_ARGUMENT', `recordingAgent(agent): agent must be an AgentHandle ({ respond(history) }: withAISdkAgent and withMastraAgent make one), got ${why(agent)}`);
    }
    const model = recordingModel((req, options) => agent.respond(req.messages, options));
    return {
      respond: (history, options) => model({ purpose: 'agent', messages: history }, options),
      get recording() { return model.recording; },
    };
  }

  /**
   * An AgentHandle that answers from a recording: each conversation so far
   * matched whole, each recorded answer once and in order. A conversation it
   * does not hold rejects with REPLAY_MISS naming the turn and what differed.
   */
  function replayAgent(recording) {
    let model;
    try {
      model = replayModel(recording);
    } catch (e) {
      throw ours(e) ? Object.assign(e, { message: e.message.replace(/^replayModel(\(recording\))?/, 'replayAgent(recording)') }) : e;
    }
    return {
      async respond(history) {
        try {
          return await model({ purpose: 'agent', messages: history });
        } catch (e) {
          if (!ours(e) || e.code !== 'REPLAY_MISS') throw e;
          const turn = history.filter((m) => m?.role === 'user').length - 1;
          throw fail('REPLAY_MISS', `replayAgent: turn ${turn}: ${e.message.replace(/^replayModel: /, '').replace('agent request', 'agent call')}`);
        }
      },
    };
  }

  return { recordingAgent, replayAgent };
}
