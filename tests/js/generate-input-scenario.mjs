// The generate contract's bad input and failing callbacks, runtime-agnostic
// (see capture-scenario.mjs): what a run, its options and its exports say
// of input they cannot use, and whose fault a failure is. Split from
// generate-scenario.mjs, which holds the contract's working runs.
import { assert, eq } from './capture-scenario.mjs';

import { T0, scriptedUser, agent, chain, clock, expectRejects, coded, rejects, throws, getterThrows, expectThrow } from './generate-fixtures.mjs';

export const inputChecks = {
  async 'toArtifacts and DefaultPolicy.evaluate turn garbage into coded errors'(at) {
    const t = at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 1 }, agent());
    const r = await at.runTrajectory(t, { userModel: scriptedUser(), clock });
    eq(Object.keys(at.toArtifacts(r, t)).length, 3, 'a real result');
    for (const [result, def, what] of [[null, t, 'null result'], [5, t, 'a number result'], [r, null, 'null def'], [r, 5, 'a number def'], [r, 'def', 'a string def']]) {
      throws(() => at.toArtifacts(result, def), 'INVALID_ARGUMENT', what);
    }
    const boom = new Error('getter in the definition');
    const e = throws(() => at.toArtifacts(r, getterThrows('persona', boom, { goal: 'g' })), 'INVALID_ARGUMENT', 'a throwing getter in def', boom);
    assert(e.message.startsWith('toArtifacts'), e.message);
    throws(() => at.toArtifacts(r, { goal: 'g', persona: { description: 'd' }, metadata: { n: 1n } }), 'INVALID_ARGUMENT', 'a BigInt in def');
    // A definition is read by the core's rules, as createTrajectory reads it.
    const bad = throws(() => at.toArtifacts(r, { ...t, goal: 5 }), 'INVALID_ARGUMENT', 'a goal that is no string');
    eq(bad.message, 'toArtifacts(result, def): def is not a trajectory definition: trajectory.goal must be a string, got a number', 'named as the core names it');
    eq(Object.keys(at.toArtifacts(r, { goal: 'g', persona: { description: 'd' }, maxTurns: 1 })).length, 3, 'the definition itself, unbound');
    // The steps are read once: a getter that answers differently later cannot make the files disagree.
    let reads = 0;
    const shifty = { ...r, get steps() { reads++; return reads === 1 ? r.steps : () => 1; } };
    const files = at.toArtifacts(shifty, t);
    eq(JSON.parse(files['stepTraces.json']).length, r.steps.length, 'stepTraces.json holds the steps read first');
    eq(files['conversation.jsonl'].trim().split('\n').length, r.steps.length, 'and conversation.jsonl the same steps');
    throws(() => at.toArtifacts({ ...r, steps: 'none' }, t), 'INVALID_ARGUMENT', 'steps that are no array');

    const policy = new at.DefaultPolicy();
    const stop = new Error('ctx getter');
    throws(() => policy.evaluate(getterThrows('defaultDecision', stop)), 'INVALID_ARGUMENT', 'a ctx whose getter throws', stop);
    throws(() => policy.evaluate({ defaultDecision: null }), 'INVALID_ARGUMENT', 'a null defaultDecision');
    throws(() => policy.evaluate(7), 'INVALID_ARGUMENT', 'a number');
    eq(policy.evaluate({ defaultDecision: { stop: false } }), { stop: false }, 'a real context');
  },

  async 'runTrajectory refuses unknown option keys naming the nearest one, and throwing option getters'(at) {
    const t = at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 1 }, agent());
    const userModel = scriptedUser();
    // One of the package's own objects where a definition or text goes is named so, never by its binding's fields.
    const sink = new at.MemorySink();
    eq(expectThrow(() => at.createTrajectory(sink, agent()), 'INVALID_TRAJECTORY', 'a sink as the definition').message,
      "a trajectory definition must be an object, got one of this package's objects (a recorder, a sink or a pipeline)", 'a sink as the definition');
    eq(expectThrow(() => at.parseTrajectoryJsonl(sink), 'INVALID_ARGUMENT', 'a sink as the text').message,
      "parseTrajectoryJsonl(text): text must be JSONL text or a Uint8Array of it, got one of this package's objects (a recorder, a sink or a pipeline)", 'a sink as the text');
    sink.free();
    eq(expectThrow(() => at.createTrajectory({ goal: 'g', persona: { description: 'd' }, metadata: { rows: [{ id: 5n }] } }, agent()), 'INVALID_TRAJECTORY', 'a BigInt').message,
      'trajectory is not JSON data: Do not know how to serialize a BigInt', 'a BigInt, as JSON.stringify says it');
    // A cycle, or nesting past any stack, is a coded error too, and the module goes on working.
    const deep = {};
    let at_ = deep;
    for (let i = 0; i < 50_000; i++) at_ = at_.c = {};
    for (const [data, what] of [[(() => { const o = {}; o.self = o; return o; })(), 'a cycle'], [deep, '50,000 levels']]) {
      const held = new at.MemorySink();
      const e = expectThrow(() => new at.TrajectoryRecorder(held).record({ kind: 'custom', name: 'x', data }), 'INVALID_RECORD', what);
      // JSON.stringify refuses a cycle; 50,000 levels it refuses where its stack is short (Node), else the reader does.
      assert(/^payload(: recursion limit exceeded| is not JSON data: )/.test(e.message), e.message);
      eq(new at.TrajectoryRecorder(held).record({ kind: 'custom', name: 'x', data: 1 }), 0, `recording after ${what}`);
      held.free();
    }
    for (const [opts, near] of [
      [{ userModel, observer: [] }, 'observers'],
      [{ userModel, onSinkErorr: 'fail' }, 'onSinkError'],
      [{ usermodel: userModel }, 'userModel'],
      [{ userModel, Clock: clock }, 'clock'],
    ]) {
      const key = Object.keys(opts).find((k) => k !== 'userModel');
      const e = await rejects(at.runTrajectory(t, opts), 'INVALID_ARGUMENT', `option ${key}`);
      assert(e.message.includes(`unknown option "${key}"`) && e.message.includes(`did you mean "${near}"?`), e.message);
    }
    // Observer options are named as the run's option, not as the pipeline's constructor.
    const pipe = await rejects(at.runTrajectory(t, { userModel, observers: { observer: [] } }), 'INVALID_ARGUMENT', 'observers: a slip');
    assert(pipe.message.startsWith('runTrajectory options.observers: unknown option "observer"; did you mean "observers"?'), pipe.message);
    const listed = await rejects(at.runTrajectory(t, { userModel, observers: [{ observer: 'stal' }] }), 'INVALID_ARGUMENT', 'observers: a list with a slip');
    assert(listed.message.startsWith('runTrajectory options.observers[0]'), listed.message);
    const named = await rejects(at.runTrajectory(t, { userModel, observers: 'stall' }), 'INVALID_ARGUMENT', 'observers: a name');
    eq(named.message, 'runTrajectory options.observers must be an object { observers: [...] }, got "stall"', 'said as the run\'s option');
    // An own key named __proto__ (JSON.parse makes one) is a key, refused as unknown; its value's getters never run.
    const odd = JSON.parse('{"__proto__": {}}');
    Object.defineProperty(odd, '__proto__', { value: new Proxy({}, { get() { throw new Error('read'); } }), enumerable: true });
    const proto = await rejects(at.runTrajectory(t, Object.assign(odd, { userModel })), 'INVALID_ARGUMENT', 'an own __proto__ key');
    assert(proto.message.startsWith('runTrajectory options: unknown option "__proto__"'), proto.message);
    const notModel = await rejects(at.runTrajectory(t, { userModel: 'gpt-5' }), 'INVALID_ARGUMENT', 'a userModel that is a name');
    assert(notModel.message.startsWith('runTrajectory options.userModel'), notModel.message);
    // A trajectory's own option, given to the run: said where it goes.
    const own = await rejects(at.runTrajectory(t, { userModel, minTurns: 5 }), 'INVALID_ARGUMENT', 'minTurns given to the run');
    eq(own.message, 'runTrajectory options: "minTurns" is not an option of runTrajectory but of the trajectory: give it in createTrajectory\'s definition', 'minTurns: where it goes');
    // A run id by the recorder's rule: a non-empty string.
    const empty = await rejects(at.runTrajectory(t, { userModel, runId: '' }), 'INVALID_ARGUMENT', 'an empty runId');
    eq(empty.message, 'runTrajectory options.runId must not be empty', 'runId: message');
    const z = await rejects(at.runTrajectory(t, { userModel, zzzzzz: 1 }), 'INVALID_ARGUMENT', 'a key like none');
    assert(!z.message.includes('did you mean') && z.message.includes('valid: '), z.message);
    const boom = new Error('options getter');
    await rejects(at.runTrajectory(t, getterThrows('userModel', boom)), 'INVALID_ARGUMENT', 'a throwing userModel getter', boom);
    await rejects(at.runTrajectory(t, getterThrows('clock', boom, { userModel })), 'INVALID_ARGUMENT', 'a throwing clock getter', boom);
    await rejects(at.runTrajectory(t, []), 'INVALID_ARGUMENT', 'an array of options');
    await rejects(at.runTrajectory(t, 'fast'), 'INVALID_ARGUMENT', 'a string of options');
  },

  async 'token usage reaches the budget; unknown options are refused'(at) {
    const pipeline = new at.ObserverPipeline({ observers: [], budget: { maxTokens: 10_000 } });
    const paying = { respond: async () => ({ messages: [{ role: 'assistant', content: 'ok' }], usage: { inputTokens: 100, outputTokens: 20 } }) };
    const userModel = async () => ({ text: 'hi', usage: { inputTokens: 5, outputTokens: 2 } });
    await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 3 }, paying), { userModel, clock, observers: pipeline });
    eq(pipeline.budget.tokensUsed, 3 * (120 + 7), 'agent and user-model usage counted');
    await expectRejects(at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, onSinkErorr: 'fail' }), 'INVALID_ARGUMENT', 'onSinkErorr');
    expectThrow(() => at.createTrajectory({ ...chain(), maxturns: 3 }, agent()), 'INVALID_TRAJECTORY', 'maxturns');
    const late = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, onRecord: async () => { throw new Error('onRecord down'); } });
    eq([late.end.reason, late.end.error.side, late.end.error.code], ['error', 'recorder', 'CALLBACK_FAILED'], 'an onRecord that rejects ends the run, not an unhandled rejection');
    assert(late.end.error.message.includes('onRecord down'), late.end.error.message);
    const misspelt = chain();
    misspelt.steps.steps[1].isSatisfide = () => true;
    const m = expectThrow(() => at.createTrajectory(misspelt, agent()), 'INVALID_TRAJECTORY', 'a misspelt callback key');
    assert(m.message.includes('did you mean "isSatisfied"?') && m.stepId === 'ask', m.message);
    const def = chain();
    Object.defineProperty(def, 'goal', { enumerable: true, get() { throw new TypeError('goal unavailable'); } });
    const got = expectThrow(() => at.createTrajectory(def, agent()), 'INVALID_TRAJECTORY', 'a getter that throws');
    eq([got.cause instanceof TypeError, got.message.includes('trajectory.goal')], [true, true], 'named, with its cause');
    const wrong = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: async () => ({ txt: 'hi' }), clock });
    eq([wrong.end.error.code, wrong.end.error.side], ['CALLBACK_FAILED', 'user-simulator'], '{ txt } is not an empty message');
  },

  async 'a goal reached on the last allowed turn is goal-reached; a throwing clock is named; onSinkError is checked without a sink'(at) {
    const one = { goal: 'g', persona: { description: 'd' }, maxTurns: 1, steps: { steps: [{ id: 's', instruction: 'x' }], start: 's', terminals: ['s'] } };
    const r = await at.runTrajectory(at.createTrajectory(one, agent()), { userModel: scriptedUser(), clock });
    eq([r.end.reason, r.end.completed], ['goal-reached', true], 'goal on the last turn');
    const c = await at.runTrajectory(at.createTrajectory(one, agent()), { userModel: scriptedUser(), clock: () => { throw new Error('clock down'); } });
    assert(c.end.error.message.includes('clock down'), c.end.error.message);
    eq([c.end.reason, c.end.error.side], ['error', 'clock'], 'a clock failing from the start is the clock\'s fault');
    // A clock that fails mid-run: the run's end is still recorded, at the last time it gave.
    let reads = 0;
    const sink = new at.MemorySink();
    const late = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), sink, clock: () => { if (++reads > 5) throw new Error('clock gone'); return T0 + reads; } });
    eq([late.end.reason, late.end.error.side], ['error', 'clock'], late.end.error.message);
    // Whichever read fails, the runner's or the one a record is stamped with, it is the clock's fault.
    for (const n of [1, 2, 3, 4, 7, 8]) {
      let at_ = 0;
      const r = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), sink: new at.MemorySink(), clock: () => { if (++at_ > n) throw new Error('clock gone'); return T0 + at_; } });
      eq([r.end.reason, r.end.error?.side, r.end.error?.message.includes('clock gone')], ['error', 'clock', true], `a clock failing after ${n} reads`);
    }
    const records = sink.records();
    const last = records.at(-1);
    eq([last?.payload.kind, last?.payload.outcome?.status], ['run_ended', 'error'], 'the stream ends');
    eq(last?.recorded_at_unix_ms, records.at(-2)?.recorded_at_unix_ms, 'stamped at the last time the clock gave');
    const thrown = new TypeError('agent down');
    const failing = { respond: () => { throw thrown; } };
    const f = await at.runTrajectory(at.createTrajectory(one, failing), { userModel: scriptedUser(), clock });
    eq([f.end.error.cause === thrown, f.steps[0].end.error.cause === thrown], [true, true], "the agent's own error is end.error.cause");
    eq(JSON.stringify(f.end).includes('cause'), false, 'not written out with the data');
    await expectRejects(at.runTrajectory(at.createTrajectory(one, agent()), { userModel: scriptedUser(), clock, onSinkError: 'fial' }), 'INVALID_ARGUMENT', 'onSinkError: fial');
    const nan = expectThrow(() => at.createTrajectory({ ...one, maxTurns: NaN }, agent()), 'INVALID_TRAJECTORY', 'maxTurns: NaN is not "absent"');
    assert(/maxTurns must be a positive integer \(at most 4294967295\), got NaN$/.test(nan.message), nan.message);
  },
};
