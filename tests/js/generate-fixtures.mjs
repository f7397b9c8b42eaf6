// Fixtures and assertion helpers of the generate scenarios, shared by the
// other scenario files: a scripted simulated user and agent, a step chain,
// a fixed clock, and checks of coded errors.
import { assert, eq } from './capture-scenario.mjs';

/** The fixed clock's time (ms since the epoch). */
export const T0 = 1_700_000_000_000;

/** A scripted simulated user: `replies` first, then numbered messages; ranker answers from `rank`. */
export function scriptedUser({ rank = () => '{"candidates":[]}', empty = 0, replies = [] } = {}) {
  let n = 0;
  const model = async (req) => {
    model.requests.push(req);
    if (req.purpose === 'rank-steps') return rank(req);
    if (empty > 0) { empty--; return { text: '  ' }; }
    if (replies.length) return replies.shift();
    n++;
    return `user message ${n}`;
  };
  model.requests = [];
  return model;
}

/** An agent answering with `reply(turn, history)`; it keeps the histories it saw. */
export function agent(reply = (n) => [{ role: 'assistant', content: `reply ${n}` }]) {
  let n = 0;
  const a = {
    seen: [],
    async respond(history) {
      n++;
      a.seen.push(history.map((m) => m.role));
      return { messages: reply(n, history) };
    },
  };
  return a;
}

export const chain = (extra = {}) => ({
  goal: 'book a table for two',
  persona: { name: 'Ana', description: 'a terse diner', guardrails: ['no small talk'] },
  conversationId: 'conv-1',
  steps: {
    steps: [
      { id: 'greet', instruction: 'say hello' },
      { id: 'ask', instruction: 'ask for a table', preconditions: [{ type: 'stepSatisfied', stepId: 'greet' }] },
      { id: 'confirm', instruction: 'confirm the booking', preconditions: [{ type: 'stepSatisfied', stepId: 'ask' }] },
    ],
    start: 'greet',
    terminals: ['confirm'],
  },
  ...extra,
});

export const clock = () => T0;

export async function expectRejects(promise, code, what) {
  try {
    await promise;
  } catch (err) {
    assert(err instanceof Error, `${what}: an Error`);
    eq(err.code, code, `${what}: code`);
    return err;
  }
  throw new Error(`${what}: expected a ${code} error`);
}

/** A coded error of this package: name, code, and (when given) the cause kept. */
export function coded(err, code, what, cause) {
  assert(err instanceof Error, `${what}: an Error, got ${err}`);
  eq([err.name, err.code], ['AgentTrajectoriesError', code], `${what}: name and code (${err.message})`);
  if (cause !== undefined) assert(err.cause === cause, `${what}: the original error is its cause`);
  return err;
}
export async function rejects(promise, code, what, cause) {
  try {
    await promise;
  } catch (err) {
    return coded(err, code, what, cause);
  }
  throw new Error(`${what}: expected a ${code} error`);
}
export function throws(fn, code, what, cause) {
  try {
    fn();
  } catch (err) {
    return coded(err, code, what, cause);
  }
  throw new Error(`${what}: expected a ${code} error`);
}
/** `base` plus an enumerable `key` whose getter throws `error`. */
export const getterThrows = (key, error, base = {}) => Object.defineProperty({ ...base }, key, { enumerable: true, get() { throw error; } });

export function expectThrow(fn, code, what) {
  try {
    fn();
  } catch (err) {
    assert(err instanceof Error, `${what}: an Error`);
    eq(err.code, code, `${what}: code`);
    return err;
  }
  throw new Error(`${what}: expected a ${code} error`);
}
