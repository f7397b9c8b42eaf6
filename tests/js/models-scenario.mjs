// The model side of generation, runtime-agnostic (see capture-scenario.mjs):
// record/replay of models and its request keys, fromOpenAIChat, and the AI
// SDK / Mastra adapters' refusals; through the installed tarball in Node
// (ESM, CJS), Chromium and workerd.
import { assert, eq } from './capture-scenario.mjs';
import { scriptedUser, agent, chain, clock, expectRejects, coded, rejects, throws, getterThrows, expectThrow } from './generate-scenario.mjs';

export const checks = {
  async 'replayed model + same clock → byte-identical JSONL; unknown requests fail with a diff'(at) {
    const rank = () => '[{"stepId":"ask","score":0.8}]';
    const rec = at.recordingModel(scriptedUser({ rank }));
    const first = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: rec, clock });
    const recording = JSON.parse(JSON.stringify(rec.recording));
    eq(recording.entries.length, 3, 'three user messages recorded');
    const again = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: at.replayModel(recording), clock });
    eq(at.toJSONL(again).join('\n'), at.toJSONL(first).join('\n'), 'byte-identical');
    const other = chain({ goal: 'book a table for three' });
    const miss = await at.runTrajectory(at.createTrajectory(other, agent()), { userModel: at.replayModel(recording), clock });
    const err = miss.end.error;
    eq(err.code, 'REPLAY_MISS', 'miss code');
    assert(err.message.includes('request.system line') && err.message.includes('three'), err.message);
    eq(at.modelRequestKey({ purpose: 'user-message', messages: [], system: 's' }), at.modelRequestKey({ system: 's', messages: [], purpose: 'user-message' }), 'key ignores key order');
    const keys = Array.from({ length: 300 }, (_, i) => at.modelRequestKey({ purpose: 'user-message', messages: [{ role: 'user', content: `q${i * 7919}` }] }));
    eq(keys.filter((k) => !/^[0-9a-f]{16}$/.test(k)), [], 'every key is 16 hex digits');
    // A cut emoji (half of a UTF-16 pair) in a request or an answer is recorded, and read as U+FFFD, as any value from JS is.
    const cutReq = { purpose: 'user-message', messages: [{ role: 'user', content: `q${'😀'.slice(1)}` }] };
    eq(at.modelRequestKey(cutReq), at.modelRequestKey({ ...cutReq, messages: [{ role: 'user', content: 'q\ufffd' }] }), 'the key of a lone half is its U+FFFD\'s');
    const cutting = at.recordingModel(async () => `cut ${'😀'.slice(0, 1)}`);
    eq(await cutting(cutReq), `cut ${'😀'.slice(0, 1)}`, 'the answer passes through as the model gave it');
    eq(await at.replayModel(JSON.parse(JSON.stringify(cutting.recording)))(cutReq), 'cut \ufffd', 'and replays with U+FFFD');
  },
  async "a definition's own userModel drives a run without options; the options' wins; a bad one is named where it was given"(at) {
    const own = at.createTrajectory(chain({ userModel: scriptedUser() }), agent());
    const run = await at.runTrajectory(own);
    eq(run.end.reason, 'goal-reached', 'ran on the definition\'s model');
    const over = await at.runTrajectory(own, { userModel: scriptedUser({ replies: ['from the options'] }), clock });
    eq(over.steps[0].userMessage.content, 'from the options', "the options' model is used instead");
    const bad = await expectRejects(at.runTrajectory(at.createTrajectory(chain({ userModel: 5 }), agent())), 'INVALID_ARGUMENT', 'bad definition model');
    assert(bad.message.startsWith('trajectory.userModel must be a function'), bad.message);
    const none = await expectRejects(at.runTrajectory(at.createTrajectory(chain(), agent())), 'INVALID_ARGUMENT', 'no model');
    assert(none.message.startsWith('runTrajectory needs opts.userModel or trajectory.userModel: '), none.message);
  },
  async 'fromOpenAIChat maps requests and answers of a chat completions endpoint'(at) {
    const sent = [];
    const answers = [
      { status: 200, body: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'book', arguments: '{"people":2}' } }] } }], usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 16 } } },
      { status: 500, body: { error: { message: 'overloaded' } } },
      { status: 200, body: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'book', arguments: '{people' } }] } }] } },
      { status: 200, body: { nothing: true } },
    ];
    const fetch = async (url, init) => {
      sent.push({ url, init, body: JSON.parse(init.body) });
      const a = answers.shift();
      return { ok: a.status < 300, status: a.status, text: async () => JSON.stringify(a.body) };
    };
    const model = at.fromOpenAIChat({ baseURL: 'http://127.0.0.1:9/v1/', model: 'm', apiKey: 'k', temperature: 0, fetch });
    const history = [
      { role: 'user', content: 'book' },
      { role: 'assistant', content: [{ type: 'text', text: 'on it' }, { type: 'tool-call', toolCallId: 'c0', toolName: 'book', input: { people: 1 } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'book', output: { type: 'json', value: { ok: true } } }] },
    ];
    const tools = [{ name: 'book', description: 'books', inputSchema: { type: 'object' } }];
    const cancel = new AbortController();
    const r = await model({ purpose: 'decide', system: 'be brief', messages: history, tools, responseFormat: 'json' }, { abortSignal: cancel.signal });
    eq(JSON.stringify(r), '{"text":"","toolCalls":[{"toolCallId":"c1","toolName":"book","input":{"people":2}}],"usage":{"inputTokens":11,"outputTokens":3,"totalTokens":16}}', 'answer mapped (OpenAI\'s total too: a reasoning model\'s can hold more than the two)');
    const { url, init, body } = sent[0];
    eq(url, 'http://127.0.0.1:9/v1/chat/completions', 'url');
    eq(init.headers.authorization, 'Bearer k', 'api key');
    assert(init.signal === cancel.signal, 'the call\'s abortSignal reaches fetch');
    eq(body.temperature, 0, 'extra fields pass through');
    eq(JSON.stringify(body.messages), JSON.stringify([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'book' },
      { role: 'assistant', content: 'on it', tool_calls: [{ id: 'c0', type: 'function', function: { name: 'book', arguments: '{"people":1}' } }] },
      { role: 'tool', tool_call_id: 'c0', content: '{"ok":true}' },
    ]), 'messages mapped');
    eq(JSON.stringify(body.tools), '[{"type":"function","function":{"name":"book","description":"books","parameters":{"type":"object"}}}]', 'tools mapped');
    eq(body.response_format.type, 'json_object', 'json format');
    const e500 = await expectRejects(model({ purpose: 'user-message', messages: [] }), 'CALLBACK_FAILED', 'non-2xx');
    assert(e500.message.includes('answered 500') && e500.message.includes('overloaded'), e500.message);
    const bad = await expectRejects(model({ purpose: 'decide', messages: [] }), 'CALLBACK_FAILED', 'bad arguments');
    assert(bad.message.includes('c2') && bad.message.includes('{people'), bad.message);
    await expectRejects(model({ purpose: 'decide', messages: [] }), 'CALLBACK_FAILED', 'no choices');
    expectThrow(() => at.fromOpenAIChat({ model: 'm' }), 'INVALID_ARGUMENT', 'no baseURL');
  },
  async 'replayModel: an answer is replayed as often as it was recorded, then REPLAY_MISS; bad recordings are coded errors'(at) {
    let n = 0;
    const rec = at.recordingModel(async () => `answer ${++n}`);
    const req = { purpose: 'user-message', system: 's', messages: [{ role: 'user', content: 'hi' }] };
    await rec(req);
    await rec(req);
    const replay = at.replayModel(JSON.stringify(rec.recording));
    eq([await replay(req), await replay({ messages: req.messages, system: 's', purpose: 'user-message' })], ['answer 1', 'answer 2'], 'in recorded order, key order aside');
    const extra = await rejects(replay(req), 'REPLAY_MISS', 'a third ask of a request recorded twice');
    assert(extra.message.includes('recorded 2 times') && extra.message.includes('call 3'), extra.message);
    const miss = await rejects(replay({ ...req, system: 'other' }), 'REPLAY_MISS', 'an unrecorded request');
    assert(miss.message.includes('request.system line 1'), miss.message);

    const ok = { format: 'agent-trajectories/model-recording', version: 1 };
    const bad = (recording, what) => throws(() => at.replayModel(recording), 'INVALID_ARGUMENT', what);
    const notJson = bad('{"format": oops', 'a string that is not JSON');
    assert(notJson.message.startsWith('replayModel') && notJson.cause instanceof Error, notJson.message);
    bad(null, 'null');
    bad('null', 'JSON null');
    bad(42, 'a number');
    bad({ ...ok, entries: [5] }, 'an entry that is not an object');
    bad({ ...ok, entries: [null] }, 'a null entry');
    bad({ ...ok, entries: [{ request: req }] }, 'an entry without response');
    const cyclic = { purpose: 'user-message', messages: [] };
    cyclic.messages.push(cyclic);
    const cyc = bad({ ...ok, entries: [{ request: cyclic, response: 'x' }] }, 'a cyclic request');
    assert(cyc.message.includes('entries[0].request.messages[0]'), cyc.message);
    const boom = new Error('getter exploded');
    throws(() => at.replayModel({ ...ok, get entries() { throw boom; } }), 'INVALID_ARGUMENT', 'a throwing getter', boom);
    throws(() => at.replayModel({ ...ok, entries: [{ request: getterThrows('system', boom, { purpose: 'user-message', messages: [] }), response: 'x' }] }), 'INVALID_ARGUMENT', 'a throwing getter inside a request', boom);
    await rejects(at.replayModel({ ...ok, entries: [] })(undefined), 'INVALID_ARGUMENT', 'a replayed model asked nothing');
  },

  'modelRequestKey refuses cycles, BigInts and throwing getters with coded errors naming the place'(at) {
    const cyclic = { purpose: 'user-message', messages: [{ role: 'user', content: 'x' }] };
    cyclic.messages[0].self = cyclic.messages;
    const c = throws(() => at.modelRequestKey(cyclic), 'INVALID_ARGUMENT', 'a cycle');
    assert(c.message.includes('request.messages[0].self'), c.message);
    const b = throws(() => at.modelRequestKey({ purpose: 'user-message', messages: [], n: 10n }), 'INVALID_ARGUMENT', 'a BigInt');
    assert(b.message.includes('request.n') && b.message.includes('BigInt'), b.message);
    const boom = new Error('no reading this');
    const g = throws(() => at.modelRequestKey({ purpose: 'user-message', messages: [getterThrows('content', boom)] }), 'INVALID_ARGUMENT', 'a throwing getter', boom);
    assert(g.message.includes('request.messages[0].content') && g.message.includes('no reading this'), g.message);
    throws(() => at.modelRequestKey(undefined), 'INVALID_ARGUMENT', 'no request');
    throws(() => at.modelRequestKey('text'), 'INVALID_ARGUMENT', 'a string');
    const shared = { role: 'user', content: 'same object twice is not a cycle' };
    eq(typeof at.modelRequestKey({ purpose: 'user-message', messages: [shared, shared] }), 'string', 'a shared (acyclic) object is fine');
  },

  async 'fromOpenAIChat: bad options, a fetch that rejects or answers no Response, and malformed answers are coded errors'(at) {
    throws(() => at.fromOpenAIChat(null), 'INVALID_ARGUMENT', 'null options');
    throws(() => at.fromOpenAIChat(), 'INVALID_ARGUMENT', 'no options');
    throws(() => at.fromOpenAIChat({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', fetch: 'curl' }), 'INVALID_ARGUMENT', 'fetch that is not a function');
    // Other keys are request body fields: a slip of baseURL is named, not sent.
    const slip = throws(() => at.fromOpenAIChat({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }), 'INVALID_ARGUMENT', 'baseUrl for baseURL');
    assert(slip.message.endsWith('it was given "baseUrl": write baseURL'), slip.message);
    const boom = new Error('options getter');
    throws(() => at.fromOpenAIChat(getterThrows('model', boom, { baseURL: 'http://127.0.0.1:9/v1' })), 'INVALID_ARGUMENT', 'a throwing option getter', boom);
    const req = { purpose: 'user-message', messages: [{ role: 'user', content: 'hi' }] };
    const over = (fetch) => at.fromOpenAIChat({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', fetch });
    const refused = new TypeError('fetch failed: connection refused');
    const e1 = await rejects(over(async () => { throw refused; })(req), 'CALLBACK_FAILED', 'a fetch that rejects', refused);
    assert(e1.message.includes('connection refused') && e1.message.includes('/chat/completions'), e1.message);
    await rejects(over(async () => ({}))(req), 'CALLBACK_FAILED', 'a fetch that resolves to a plain object');
    await rejects(over(async () => 'OK')(req), 'CALLBACK_FAILED', 'a fetch that resolves to a string');
    await rejects(over(async () => ({ text: async () => '{}' }))(req), 'CALLBACK_FAILED', 'a Response-like without ok');
    const unreadable = new Error('stream broke');
    await rejects(over(async () => ({ ok: true, status: 200, text: async () => { throw unreadable; } }))(req), 'CALLBACK_FAILED', 'a body that cannot be read', unreadable);
    const answering = (body) => over(async () => ({ ok: true, status: 200, text: async () => JSON.stringify(body) }));
    const m = await rejects(answering({ choices: [{}] })(req), 'CALLBACK_FAILED', 'choices[0].message missing');
    assert(m.message.includes('choices[0].message'), m.message);
    await rejects(answering({ choices: [] })(req), 'CALLBACK_FAILED', 'no choices');
    await rejects(answering({ choices: [{ message: null }] })(req), 'CALLBACK_FAILED', 'a null message');
    const f = await rejects(answering({ choices: [{ message: { content: null, tool_calls: [{ id: 'c1', type: 'function' }] } }] })(req), 'CALLBACK_FAILED', 'a tool call without function');
    assert(f.message.includes('tool_calls[0]'), f.message);
    await rejects(answering({ choices: [{ message: { content: null, tool_calls: [null] } }] })(req), 'CALLBACK_FAILED', 'a null tool call');
    await rejects(answering({ choices: [{ message: { content: null, tool_calls: 'book' } }] })(req), 'CALLBACK_FAILED', 'tool_calls not an array');
    await rejects(answering({ choices: [{ message: { content: 'hi' } }] })({ purpose: 'user-message' }), 'INVALID_ARGUMENT', 'a request without messages');
    eq(await answering({ choices: [{ message: { content: 'hi' } }], usage: { prompt_tokens: 'lots' } })(req), { text: 'hi' }, 'usage that is not a number is left out');
  },

  async 'adapters: bad targets are coded errors, a throwing client is kept as the cause, and usage comes back as numbers'(at) {
    for (const bad of [null, 5, {}, 'agent', { generate: 'x' }]) throws(() => at.withAISdkAgent(bad), 'INVALID_ARGUMENT', `withAISdkAgent(${JSON.stringify(bad)})`);
    for (const bad of [null, 5, {}, { generate: 1 }]) throws(() => at.withMastraAgent(bad), 'INVALID_ARGUMENT', `withMastraAgent(${JSON.stringify(bad)})`);
    for (const bad of [null, 5, {}, 'gpt-4']) throws(() => at.fromAISdkModel(bad), 'INVALID_ARGUMENT', `fromAISdkModel(${JSON.stringify(bad)})`);
    const boom = new Error('getter in the config');
    throws(() => at.withAISdkAgent(getterThrows('model', boom)), 'INVALID_ARGUMENT', 'a config whose getter throws', boom);
    throws(() => at.withMastraAgent(getterThrows('generate', boom)), 'INVALID_ARGUMENT', 'a Mastra agent whose getter throws', boom);

    const down = new Error('provider is down');
    const history = [{ role: 'user', content: 'hi' }];
    const e1 = await rejects(at.withAISdkAgent({ generate: async () => { throw down; } }).respond(history), 'CALLBACK_FAILED', 'agent.generate throws', down);
    assert(e1.message.includes('agent.generate') && e1.message.includes('provider is down'), e1.message);
    await rejects(at.withAISdkAgent({ model: {}, generateText: async () => { throw down; } }).respond(history), 'CALLBACK_FAILED', 'generateText throws', down);
    await rejects(at.withMastraAgent({ generate: () => { throw down; } }).respond(history), 'CALLBACK_FAILED', 'mastra generate throws (synchronously)', down);
    await rejects(at.fromAISdkModel({ doGenerate() {} }, { generateText: async () => { throw down; } })({ purpose: 'user-message', messages: history }), 'CALLBACK_FAILED', 'fromAISdkModel generateText throws', down);
    const run = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 1 }, at.withAISdkAgent({ generate: async () => { throw down; } })), { userModel: scriptedUser(), clock });
    eq([run.end.reason, run.end.error.code, run.end.error.side], ['error', 'CALLBACK_FAILED', 'agent'], 'in a run');
    assert(run.end.error.message.includes('provider is down'), run.end.error.message);

    const answer = { role: 'assistant', content: 'done' };
    const ai = (result) => at.withAISdkAgent({ generate: async () => result }).respond(history);
    eq(await ai({ response: { messages: [answer] }, usage: { inputTokens: 1, outputTokens: 1 }, totalUsage: { inputTokens: 30, outputTokens: 12, totalTokens: 42 } }),
      { messages: [answer], usage: { inputTokens: 30, outputTokens: 12, totalTokens: 42 } }, 'AI SDK: totalUsage (every step), not the last step\'s usage; its total too');
    eq(await ai({ response: { messages: [answer] }, usage: { inputTokens: { total: 7 }, outputTokens: { total: 5 } } }),
      { messages: [answer], usage: { inputTokens: 7, outputTokens: 5 } }, 'token counts as { total } objects');
    eq(await ai({ response: { messages: [answer] } }), { messages: [answer] }, 'no usage reported, none returned');
    eq(await ai({ response: { messages: [answer] }, totalUsage: { inputTokens: undefined, outputTokens: -1 } }), { messages: [answer] }, 'unknown or impossible counts left out');
    eq(await at.withAISdkAgent({ model: {}, generateText: async () => ({ response: { messages: [answer] }, totalUsage: { inputTokens: 4, outputTokens: 2 } }) }).respond(history),
      { messages: [answer], usage: { inputTokens: 4, outputTokens: 2 } }, 'generateText config');
    eq(await at.withMastraAgent({ generate: async () => ({ messages: [answer], usage: { inputTokens: 9, outputTokens: 3 } }) }).respond(history),
      { messages: [answer], usage: { inputTokens: 9, outputTokens: 3 } }, 'Mastra usage');
    eq(await at.fromAISdkModel({ doGenerate() {} }, { generateText: async () => ({ text: 'hi', usage: { inputTokens: 1, outputTokens: 1 }, totalUsage: { inputTokens: 6, outputTokens: 2 } }) })({ purpose: 'user-message', messages: history }),
      { text: 'hi', usage: { inputTokens: 6, outputTokens: 2 } }, 'fromAISdkModel');
  },

};
