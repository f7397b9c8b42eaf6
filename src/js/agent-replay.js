// The agent's side of record/replay. An agent call is kept as a model
// request `{ purpose: 'agent', messages }` (the conversation so far) with
// its answer, in the format of recordingModel: so, with the user model
// recorded too, a run re-runs with no model at all.

import { recordingModel, replayModel } from './model-replay.js';
import { fail, why, ours, isObject } from './util.js';

/**
 * An AgentHandle that answers through `agent` and keeps every call (`.recording`).
 * @type {typeof import('./generate-types').recordingAgent}
 */
export function recordingAgent(agent) {
  if (!isObject(agent) || typeof agent.respond !== 'function') {
    throw fail('INVALID_ARGUMENT', `recordingAgent(agent): agent must be an AgentHandle ({ respond(history) }: withAISdkAgent and withMastraAgent make one), got ${why(agent)}`);
  }
  // Requests and answers are the agent's, not a model's: typed loosely here.
  /** @type {any} */
  const model = recordingModel(/** @type {any} */ ((/** @type {any} */ req, /** @type {any} */ options) => agent.respond(req.messages, options)));
  return {
    respond: (history, options) => model({ purpose: 'agent', messages: history }, options),
    get recording() { return model.recording; },
  };
}

/**
 * An AgentHandle that answers from a recording: each conversation so far
 * matched whole, each recorded answer once and in order. A conversation it
 * does not hold rejects with REPLAY_MISS naming the turn and what differed.
 * @type {typeof import('./generate-types').replayAgent}
 */
export function replayAgent(recording) {
  /** @type {any} */
  let model;
  try {
    model = replayModel(/** @type {any} */ (recording));
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
