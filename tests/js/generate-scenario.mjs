// The generate contract, runtime-agnostic (see capture-scenario.mjs): the
// same checks run through the installed tarball in Node (ESM, CJS),
// Chromium and workerd.
import { assert, eq } from './capture-scenario.mjs';

import { scriptedUser, agent, chain, clock, expectRejects, coded, rejects, throws, expectThrow } from './generate-fixtures.mjs';

export * from './generate-fixtures.mjs';

export const checks = {
  async 'a step chain runs start → preconditions-ordered → goal-reached, with records and exports'(at) {
    const sink = new at.MemorySink();
    const live = [];
    const a = agent();
    const t = at.createTrajectory(chain(), a);
    const r = await at.runTrajectory(t, { userModel: scriptedUser(), clock, sink, onRecord: (rec) => live.push(rec.payload.kind) });
    eq(r.steps.map((s) => [s.stepId, s.selection.method]), [['greet', 'start'], ['ask', 'preconditions-ordered'], ['confirm', 'preconditions-ordered']], 'path');
    eq(r.steps[2].end, { isFinal: true, reason: 'goal-reached', completed: true, verdict: 'pass', summary: 'terminal step "confirm" satisfied' }, 'end');
    assert(r.steps.slice(0, 2).every((s) => s.end === undefined), 'end only on the last trace');
    eq(r.steps[0].timestamp, '2023-11-14T22:13:20.000Z', 'timestamp from the injected clock');
    eq(a.seen, [['user'], ['user', 'assistant', 'user'], ['user', 'assistant', 'user', 'assistant', 'user']], 'the agent sees the whole history');
    const kinds = sink.records().map((x) => x.payload.kind);
    eq(kinds.slice(0, 7), ['run_started', 'custom', 'turn_started', 'step_selected', 'message_appended', 'message_appended', 'turn_ended'], 'record order');
    const graph = sink.records()[1].payload;
    eq([graph.name, graph.data.steps.map((s) => [s.id, s.requires]), graph.data.start, graph.data.terminals],
      ['step_graph', [['greet', []], ['ask', ['greet']], ['confirm', ['ask']]], 'greet', ['confirm']], 'the step graph, recorded after run_started');
    eq(kinds.at(-1), 'run_ended', 'last record');
    eq(live, kinds, 'onRecord streams the same records');
    eq(sink.records().map((x) => x.seq), kinds.map((_, i) => i), 'monotonic seq');
    const lines = at.toJSONL(r);
    eq(lines.length, 3, 'one JSONL line per turn');
    const first = JSON.parse(lines[0]);
    eq([first.conversationId, first.stepIndex, first.input, first.output, first.metadata.stepId],
      ['conv-1', 0, { role: 'user', content: 'user message 1' }, [{ role: 'assistant', content: 'reply 1' }], 'greet'], 'JSONL line');
    const conv = at.toConversation(r);
    eq([conv.id, conv.steps.length, conv.steps[1].stepIndex], ['conv-1', 3, 1], 'Conversation');
    const summary = at.summarize(r);
    assert(summary.includes('3 turns') && summary.includes('goal-reached') && summary.includes('Steps satisfied: 3/3'), summary);
    const files = at.toArtifacts(r, t);
    eq(Object.keys(files), ['conversation.jsonl', 'stepTraces.json', 'trajectory.meta.json'], 'artifacts');
    eq(files['conversation.jsonl'], `${lines.join('\n')}\n`, 'conversation.jsonl');
    eq(JSON.parse(files['stepTraces.json']).length, 3, 'stepTraces.json');
    eq(JSON.parse(files['trajectory.meta.json']).definition.goal, 'book a table for two', 'meta');
  },

  'definition errors are coded and name the culprit'(at) {
    const a = agent();
    const bad = (patch) => expectThrow(() => at.createTrajectory(patch(chain()), a), 'INVALID_TRAJECTORY', 'definition');
    let e = bad((d) => { d.steps.steps[1].id = 'greet'; return d; });
    assert(e.message.includes('duplicate step id "greet"') && e.stepId === 'greet', e.message);
    e = bad((d) => { d.steps.start = 'nope'; return d; });
    assert(e.message.includes('"nope"'), e.message);
    e = bad((d) => { d.steps.terminals = ['zz']; return d; });
    assert(e.message.includes('"zz"'), e.message);
    e = bad((d) => { d.steps.steps[2].preconditions = [{ type: 'stepSatisfied', stepId: 'ghost' }]; return d; });
    assert(e.message.includes('"ghost"') && e.stepId === 'confirm', e.message);
    e = bad((d) => { d.steps.steps[0].preconditions = [{ type: 'stepSatisfied', stepId: 'confirm' }]; return d; });
    assert(e.message.includes('precondition cycle'), e.message);
    e = bad((d) => { d.steps.terminals = ['ask', 'confirm']; return d; });
    assert(e.message.includes('terminal "confirm" is unreachable'), e.message);
    e = bad((d) => ({ ...d, maxTurns: 0 }));
    assert(e.message.includes('maxTurns'), e.message);
    // A misspelt key is refused even when its value is undefined (which JSON would leave out).
    e = bad((d) => ({ ...d, maTxurns: undefined }));
    assert(e.message.startsWith('trajectory: unknown option "maTxurns"; did you mean "maxTurns"?'), e.message);
    // An own `__proto__` key (JSON.parse makes one) is a key like any other, not the copy's prototype.
    e = bad((d) => ({ ...JSON.parse('{"__proto__": {"maxTurns": 2}}'), ...d }));
    assert(e.message.startsWith('trajectory: unknown option "__proto__"'), e.message);
    e = bad((d) => { d.steps.steps[1].preconditions = [{ type: 'custom', name: 'x' }]; return d; });
    assert(e.message.includes('evaluate'), e.message);
    expectThrow(() => at.createTrajectory(chain(), {}), 'INVALID_ARGUMENT', 'an agent without respond');
  },

  async 'faults end the run with error and keep everything before'(at) {
    const sink = new at.MemorySink();
    const a = agent((n) => { if (n === 2) throw new Error('agent exploded'); return [{ role: 'assistant', content: 'ok' }]; });
    const r = await at.runTrajectory(at.createTrajectory(chain(), a), { userModel: scriptedUser(), clock, sink });
    eq(r.steps.length, 2, 'the failing turn leaves a trace');
    const end = r.steps[1].end;
    eq([end.reason, end.completed, end.error.side, end.error.code], ['error', false, 'agent', 'CALLBACK_FAILED'], 'end');
    assert(end.error.message.includes('agent exploded'), end.error.message);
    eq(r.steps[1].userMessage.content, 'user message 2', 'its user message is kept');
    const last = sink.records().at(-1).payload;
    eq([last.kind, last.outcome.status, last.outcome.error_code], ['run_ended', 'error', 'CALLBACK_FAILED'], 'run_ended');

    // A rejecting precondition names its step; garbage from isSatisfied is an error too.
    const d = chain();
    d.steps.steps[2].preconditions.push({ type: 'custom', name: 'db', evaluate: async () => { throw new Error('db down'); } });
    let res = await at.runTrajectory(at.createTrajectory(d, agent()), { userModel: scriptedUser(), clock });
    let err = res.steps.at(-1).end.error;
    eq([err.side, err.stepId], ['precondition', 'confirm'], 'precondition fault');
    const g = chain();
    g.steps.steps[0].isSatisfied = () => 'yes';
    res = await at.runTrajectory(at.createTrajectory(g, agent()), { userModel: scriptedUser(), clock });
    err = res.steps.at(-1).end.error;
    eq(err.side, 'satisfaction', 'garbage satisfaction');
    // A model that rejects: the user simulator's side.
    res = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: async () => { throw new Error('rate limited'); }, clock });
    eq([res.steps.length, res.steps[0].end.error.side], [1, 'user-simulator'], 'model fault');
    // An empty user message is retried once with a reminder, then the run fails.
    const user = scriptedUser({ empty: 2 });
    res = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: user, clock });
    eq([res.steps[0].end.error.code, res.steps[0].end.error.side], ['EMPTY_USER_MESSAGE', 'user-simulator'], 'empty twice');
    assert(user.requests[1].messages[0].content.includes('previous answer was empty'), 'reminder');
    // An answer with `messages` misspelt says which key it is near.
    res = await at.runTrajectory(at.createTrajectory(chain(), { respond: async () => ({ mesages: [] }) }), { userModel: scriptedUser(), clock });
    err = res.steps[0].end.error;
    eq([err.code, err.side], ['CALLBACK_FAILED', 'agent'], 'a misspelt answer is the agent\'s fault');
    assert(err.message.endsWith('its key "mesages": did you mean "messages"?'), err.message);
    // A slip inside the answer would lose what it holds (a count, a call's input, a failure): refused, naming it.
    const answering = (answer) => at.runTrajectory(at.createTrajectory(chain(), { respond: async () => answer }), { userModel: scriptedUser(), clock });
    res = await answering({ messages: [{ role: 'assistant', content: 'ok' }], useage: { inputTokens: 50 } });
    eq(res.end.error.message, 'agent.respond\'s answer { messages, usage? }: unknown field "useage"; did you mean "usage"?', 'an answer\'s slip');
    res = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: async () => ({ text: 'hi', usag: { inputTokens: 3 } }), clock });
    eq([res.end.error.side, res.end.error.message.endsWith('model answer: unknown field "usag"; did you mean "usage"?')], ['user-simulator', true], res.end.error.message);
    res = await answering({ messages: [{ role: 'assistant', content: 'ok' }], usage: { inputTokens: 50, outputTokns: 5 } });
    eq([res.end.error.code, res.end.error.side], ['CALLBACK_FAILED', 'agent'], 'a usage slip');
    assert(res.end.error.message.endsWith('agent.respond.usage: unknown field "outputTokns"; did you mean "outputTokens"?'), res.end.error.message);
    // An answer JSON cannot hold is the agent's fault too, said on one line (V8 says where a cycle closes on lines of their own).
    const cyclic = { role: 'assistant', content: 'ok' };
    cyclic.self = cyclic;
    res = await answering([cyclic]);
    eq([res.end.error.code, res.end.error.side], ['CALLBACK_FAILED', 'agent'], 'a cyclic answer');
    assert(/^agent\.respond messages is not JSON data: [^\n]*circular[^\n]*$/.test(res.end.error.message), res.end.error.message);
    const failed = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', result: 'no', isEror: true }] };
    res = await answering({ messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: {} }] }, failed] });
    eq(res.end.error.side, 'agent', 'a part slip');
    assert(res.end.error.message.includes('a tool-result part: unknown field "isEror"; did you mean "isError"?'), res.end.error.message);
    // Bad options are thrown, not recorded.
    await expectRejects(at.runTrajectory(at.createTrajectory(chain(), agent()), {}), 'INVALID_ARGUMENT', 'no userModel');
    const sinkPolicy = await expectRejects(at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, onSinkError: null }), 'INVALID_ARGUMENT', 'onSinkError null');
    eq(sinkPolicy.message, "onSinkError must be 'drop' or 'fail', got null", 'as the recorder says it (null is no word)');
    // A definition not bound to its agent says how to bind it.
    const unbound = await at.runTrajectory(chain(), { userModel: scriptedUser(), clock }).then(() => null, (e) => e);
    eq(unbound?.code, 'INVALID_ARGUMENT', 'a bare definition');
    assert(unbound.message.includes('has no agent; bind a definition to its agent with createTrajectory(definition, agent)'), unbound.message);
    const none = await expectRejects(at.runTrajectory(null, { userModel: scriptedUser(), clock }), 'INVALID_ARGUMENT', 'no trajectory');
    eq(none.message, 'runTrajectory(trajectory): got null for the trajectory; bind a definition to its agent with createTrajectory(definition, agent)', 'said as the trajectory, not the agent');
  },

  async 'ranking, loops, policies'(at) {
    const free = { goal: 'g', persona: { description: 'd' }, steps: { steps: [{ id: 's', instruction: 'x' }, { id: 'a', instruction: 'y' }, { id: 'b', instruction: 'z' }], start: 's' } };
    let turn = 0;
    const rank = () => (++turn === 1 ? 'not json at all' : '{"candidates":[{"stepId":"a","score":0.9,"reasons":["fits"]},{"stepId":"b","score":0.2}]}');
    const silent = agent((n) => [{ role: 'assistant', content: n === 1 ? 'hi' : '' }]);
    const r = await at.runTrajectory(at.createTrajectory(free, silent), { userModel: scriptedUser({ rank }), clock });
    eq([r.steps[1].selection.method, r.steps[1].stepId], ['none', null], 'garbage ranking → no step');
    assert(r.steps[1].selection.rankerError.includes('not JSON'), 'recorded, not thrown');
    eq(r.steps[2].selection, { method: 'llm-ranked', candidates: [{ stepId: 'a', score: 0.9, reasons: ['fits'] }] }, 'ranked above threshold');
    eq(r.end.reason, 'agent-loop', 'a selected four times in a row');

    const stop = { evaluate: (ctx) => (ctx.turnIndex === 1 ? { stop: true, reason: 'policy-violation', summary: 'leak' } : new at.DefaultPolicy().evaluate(ctx)) };
    const p = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, policy: stop });
    eq([p.steps.length, p.steps[0].end.reason, p.steps[0].end.summary], [1, 'policy-violation', 'leak'], 'JS policy');
    const m = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 3 }, agent()), { userModel: scriptedUser(), clock });
    eq([m.steps.length, m.end.reason], [3, 'max-turns'], 'maxTurns');
  },

  async 'abort and timeouts, and the abandoned call is told through its abortSignal'(at) {
    // The agent never answers, but watches the signal it is handed.
    const slowAgent = () => {
      const a = {
        signals: [],
        respond(history, { abortSignal }) {
          a.signals.push(abortSignal);
          return new Promise(() => {});
        },
      };
      return a;
    };
    const controller = new AbortController();
    const slow = slowAgent();
    const pending = at.runTrajectory(at.createTrajectory(chain(), slow), { userModel: scriptedUser(), clock, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const r = await pending;
    eq([r.steps.length, r.end.reason], [1, 'aborted'], 'aborted mid-turn');
    eq(slow.signals.length, 1, 'one agent call');
    eq(slow.signals[0].aborted, true, 'the agent call is aborted with the run');
    eq(slow.signals[0].reason.name, 'AbortError', 'abort reason');
    eq(r.end.summary, 'aborted by the signal', 'no reason given, none said');
    // A reason given to abort() is said in the end and in run_ended.
    const why = new AbortController();
    const sink = new at.MemorySink();
    const told = at.runTrajectory(at.createTrajectory(chain(), slowAgent()), { userModel: scriptedUser(), clock, signal: why.signal, sink });
    setTimeout(() => why.abort(new Error('the user closed the tab')), 20);
    const closed = await told;
    eq([closed.end.reason, closed.end.summary], ['aborted', 'aborted by the signal: the user closed the tab'], 'the reason is kept');
    eq(sink.records().at(-1).payload.outcome.message, 'aborted by the signal: the user closed the tab', 'and recorded');

    const d = chain();
    d.steps.steps[0].timeoutMs = 15;
    const timed = slowAgent();
    const t = await at.runTrajectory(at.createTrajectory(d, timed), { userModel: scriptedUser(), clock });
    eq([t.end.reason, t.end.error.code, t.end.error.side], ['error', 'TIMEOUT', 'agent'], 'timeoutMs');
    eq(timed.signals[0].aborted, true, 'the timed-out agent call is aborted');

    // The user model is handed a signal too; one that answered is never aborted.
    const seen = [];
    const userModel = async (req, { abortSignal }) => { seen.push(abortSignal); return 'hello'; };
    const answering = slowAgent();
    answering.respond = async (h, { abortSignal }) => { answering.signals.push(abortSignal); return [{ role: 'assistant', content: 'hi' }]; };
    await at.runTrajectory(at.createTrajectory(chain(), answering), { userModel, clock });
    assert(seen.length >= 3 && answering.signals.length === 3, `signals handed to every call (${seen.length}, ${answering.signals.length})`);
    eq([...seen, ...answering.signals].filter((x) => x.aborted).length, 0, 'answered calls are not aborted');
  },

  async 'an agent that adds to or takes from the history it is handed is handed the run\'s own history next turn'(at) {
    const seen = [];
    const shown = [];
    const pushing = {
      async respond(history) {
        seen.push(history.map((m) => m.role).join(','));
        shown.push(Array.isArray(history.at(-1).content));
        const id = `t${seen.length}`;
        const answer = [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'search', input: { q: 'x' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'search', output: { type: 'error-text', value: 'timeout' } }] },
          { role: 'assistant', content: 'trying again' },
        ];
        // A system prompt put first and the answer pushed, as an agent's own loop might; once, all taken out.
        history.unshift({ role: 'system', content: 'be brief' });
        history.push(...answer);
        if (seen.length === 4) history.length = 0;
        return answer;
      },
    };
    const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 6 }, pushing), {
      userModel: scriptedUser(), clock,
      observers: { observers: [{ observer: 'error-cascade', trigger: { onEveryCall: true } }] },
    });
    eq(seen, [0, 1, 2, 3, 4, 5].map((k) => [...Array(k).fill('user,assistant,tool,assistant'), 'user'].join(',')), 'each turn sees the run\'s history, not the agent\'s changes');
    eq(shown, [false, false, false, true, true, true], 'with the assessment shown last from the fourth turn, the array changed or not');
    eq(r.steps.map((s) => s.agentMessages.length), [3, 3, 3, 3, 3, 3], 'the run keeps what the agent returned, once');
    eq(at.toJSONL(r).filter((l) => l.includes('"role":"system"')).length, 0, 'and none of what it did to the array');
  },

  async 'observers see the agent tool calls and their assessment reaches the agent'(at) {
    const contexts = [];
    const systems = [];
    const plainEarlier = [];
    const toolAgent = {
      async respond(history) {
        // The assessment rides in the last user message as an extra text part; no system message (ai 7 refuses those).
        const last = history.at(-1);
        contexts.push(Array.isArray(last.content) ? last.content.slice(1).map((p) => p.text).join('') : '');
        systems.push(history.filter((m) => m.role === 'system').length);
        plainEarlier.push(history.filter((m) => m.role === 'user').slice(0, -1).every((m) => typeof m.content === 'string'));
        const id = `t${contexts.length}`;
        return [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'search', input: { q: 'x' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'search', output: { type: 'error-text', value: 'timeout after 30s' } }] },
          { role: 'assistant', content: 'trying again' },
        ];
      },
    };
    const sink = new at.MemorySink();
    const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 4 }, toolAgent), {
      userModel: scriptedUser(), clock, sink,
      observers: { observers: [{ observer: 'error-cascade', trigger: { onEveryCall: true } }] },
    });
    eq(r.steps.length, 4, 'turns');
    eq(contexts[0], '', 'nothing injected before the first call');
    assert(contexts[3].includes('Trajectory Assessment'), `assessment injected: ${contexts[3]}`);
    eq(systems, [0, 0, 0, 0], 'never as a system message');
    eq(plainEarlier, [true, true, true, true], 'earlier user messages are shown as they were');
    eq(r.steps[3].agentMessages.filter((m) => m.role === 'system').length, 0, 'not part of the trace');
    eq(typeof r.steps[3].userMessage.content, 'string', 'the trace keeps the plain user message');
    assert(r.steps[3].assessment.startsWith('## Trajectory Assessment'), 'the trace says what the agent was shown');
    const shown = sink.records().filter((x) => x.payload.kind === 'assessment_produced').map((x) => [x.payload.turn_index, x.payload.call_index]);
    eq(shown, [[3, 3], [undefined, 4]], 'what the agent saw is recorded with its turn and call (the cascade of three failures, shown in turn 3); the last turn\'s, shown to no call, at the end in no turn');
    assert(r.end.assessment?.includes('Error Cascade') && r.steps[3].end.assessment === r.end.assessment, `the end marker keeps it: ${r.end.assessment}`);
    for (const run of [sink.records(), r]) eq(at.checkRun(run, { verdict: null, failOnSeverity: 'info' }).pass, false, 'so a finding of the last turn fails failOnSeverity, from the records and the result alike');
    const stamped = sink.records().filter((x) => x.payload.kind === 'assessment_produced').map((x) => x.payload.assessment.timestamp);
    eq(stamped, [clock(), clock()], 'observers given as options take the run clock: a replay writes the same bytes');
    assert(at.toJSONL(r)[3].includes('"assessment":"## Trajectory Assessment'), 'and exported');
    const kinds = sink.records().map((x) => x.payload.kind);
    eq(kinds.filter((k) => k === 'tool_started').length, 4, 'tool_started per call');
    eq(kinds.filter((k) => k === 'tool_ended').length, 4, 'tool_ended per result');
    const ended = sink.records().find((x) => x.payload.kind === 'tool_ended').payload;
    eq([ended.result, ended.is_error], ['timeout after 30s', true], 'tool_ended holds the tool\'s own result, as the AI SDK capture records it, not the output\'s { type, value }');
  },

  async 'a run given an ObserverPipeline records what it records given any object with its methods'(at) {
    // The package's own pipeline is called from Rust directly; any other
    // object through its JS methods. Both must give the same run.
    const options = () => ({ clock, observers: [{ observer: 'error-cascade', trigger: { onEveryCall: true } }, { observer: 'stall', trigger: { everyNCalls: 2 } }], budget: { maxTokens: 10_000 } });
    const failing = {
      async respond(history) {
        const id = `t${history.length}`;
        return {
          messages: [
            { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'search', input: { q: 'x' } }] },
            { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'search', output: { type: 'error-text', value: 'timeout after 30s' } }] },
            { role: 'assistant', content: 'trying again' },
          ],
          usage: { inputTokens: 10, outputTokens: 5 },
        };
      },
    };
    const run = async (observers) => {
      const sink = new at.MemorySink();
      const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 5 }, failing), { userModel: scriptedUser(), clock, sink, observers });
      return { r, jsonl: sink.toJsonl() };
    };
    const own = new at.ObserverPipeline(options());
    const inner = new at.ObserverPipeline(options());
    const wrapped = {
      recordToolCall: (call) => inner.recordToolCall(call),
      context: () => inner.context(),
      current: () => inner.current(),
      recordTokens: (n) => inner.recordTokens(n),
    };
    const a = await run(own);
    const b = await run(wrapped);
    assert(a.jsonl.includes('"assessment_produced"'), 'assessments were shown to the agent');
    eq(a.jsonl, b.jsonl, 'the same records, byte for byte');
    eq(a.r.steps.map((s) => s.assessment ?? null), b.r.steps.map((s) => s.assessment ?? null), 'the same assessments shown');
    eq([own.callCount, own.budget.tokensUsed], [inner.callCount, inner.budget.tokensUsed], 'the same calls and tokens counted');
    eq(own.callCount, 5, 'every call reached the pipeline');
    // A subclass is called through its methods: the same run, and its overrides are heard.
    const Sub = class extends at.ObserverPipeline {};
    eq((await run(new Sub(options()))).jsonl, a.jsonl, 'a subclass records the same');
    const boom = new Error('observer bug');
    const Failing = class extends at.ObserverPipeline { recordToolCall() { throw boom; } };
    const f = (await run(new Failing(options()))).r;
    eq([f.end.reason, f.end.verdict, f.end.error?.side, f.end.error?.cause === boom], ['error', 'harness', 'observer', true], 'an override that throws ends the run');
  },

  async 'a usage\'s reported totalTokens is the call\'s count: its record, the budget and the step alike'(at) {
    const answering = (usage) => ({ async respond() { return { messages: [{ role: 'assistant', content: 'ok' }], usage }; } });
    const cases = [[{ totalTokens: 10 }, 10], [{ inputTokens: 3, outputTokens: 2, totalTokens: 10 }, 10], [{ inputTokens: 3, outputTokens: 2 }, 5]];
    for (const [usage, n] of cases) {
      const sink = new at.MemorySink();
      const observers = new at.ObserverPipeline({ clock, observers: [], budget: { maxTokens: 1000 } });
      const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 1 }, answering(usage)), { userModel: scriptedUser(), clock, sink, observers });
      const used = sink.records().filter((x) => x.payload.kind === 'custom' && x.payload.name === 'model_usage').map((x) => x.payload.data.totalTokens);
      eq([r.steps[0].tokens, observers.budget.tokensUsed, used], [n, n, [n]], `the agent's ${JSON.stringify(usage)}`);
      observers.free();
    }
    // A user model's { text, usage } alike.
    const sink = new at.MemorySink();
    const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 1 }, answering(undefined)), { userModel: async () => ({ text: 'hi', usage: { totalTokens: 7 } }), clock, sink });
    eq([r.steps[0].tokens, sink.records().filter((x) => x.payload.name === 'model_usage').map((x) => [x.payload.data.source, x.payload.data.totalTokens])], [7, [['user-simulator', 7]]], 'the user model\'s total');
  },

  async 'custom preconditions and isSatisfied see the traces and a current snapshot, and run in parallel'(at) {
    const seen = [];
    let running = 0, overlap = 0;
    const gate = (name, open) => ({
      type: 'custom', name,
      async evaluate(ctx) {
        running++;
        await new Promise((r) => setTimeout(r, 5));
        overlap = Math.max(overlap, running);
        running--;
        seen.push({ name, turn: ctx.stepTraces.length, satisfied: [...ctx.snapshot.satisfied].join(','), greetAttempts: ctx.snapshot.attemptsByStep.get('greet'), step: ctx.step.id, status: ctx.state.status });
        return open(ctx);
      },
    });
    const d = chain();
    d.steps.steps[1].preconditions.push(gate('after greet', (ctx) => ctx.stepTraces.length >= 1), gate('always', () => true));
    d.steps.steps[2].preconditions.push(gate('after ask', (ctx) => ctx.snapshot.satisfied.has('ask')));
    const judged = [];
    d.steps.steps[2].isSatisfied = (ctx) => {
      judged.push(`${ctx.step.id}:${ctx.state.status}:${ctx.stepTraces.length}`);
      return ctx.stepTraces.at(-1).agentMessages.length > 0;
    };
    const r = await at.runTrajectory(at.createTrajectory(d, agent()), { userModel: scriptedUser(), clock });
    eq(r.steps.map((s) => s.stepId).join(' '), 'greet ask confirm', 'path');
    eq(r.end.reason, 'goal-reached', 'reason');
    assert(overlap >= 2, `custom preconditions of one turn run in parallel (max ${overlap} at once)`);
    // Evaluated only for open steps whose stepSatisfied preconditions hold.
    eq(seen.map((x) => `${x.turn}:${x.step}:${x.satisfied}`).sort().join(' '), '1:ask:greet 1:ask:greet 2:confirm:greet,ask', 'who was asked, seeing what');
    eq(seen[0].greetAttempts, 1, 'attemptsByStep');
    eq(seen.find((x) => x.step === 'confirm').status, 'blocked', 'state of the step asked about (blocked until its preconditions hold)');
    eq(judged.join(' '), 'confirm:in_progress:3', 'isSatisfied sees its own turn');
  },

  async 'a policy decides before any model call of the turn; maxTurns always caps; stops invent no trace'(at) {
    // After the goal: no ranking call. With maxTurns: the ranker is never asked for a turn past the cap.
    const free = { goal: 'g', persona: { description: 'd' }, steps: { steps: [{ id: 's', instruction: 'x' }, { id: 'a', instruction: 'y' }], start: 's', terminals: ['s'] } };
    const user = scriptedUser({ rank: () => { throw new Error('no ranking after the goal'); } });
    const g = await at.runTrajectory(at.createTrajectory(free, agent()), { userModel: user, clock });
    eq([g.steps.length, g.end.reason, user.requests.map((r) => r.purpose)], [1, 'goal-reached', ['user-message']], 'one user message, no ranking');
    const capped = { ...free, maxTurns: 1, steps: { ...free.steps, terminals: ['a'] } };
    const down = scriptedUser({ rank: () => { throw new Error('ranker down'); } });
    const c = await at.runTrajectory(at.createTrajectory(capped, agent()), { userModel: down, clock });
    eq([c.steps.length, c.end.reason, down.requests.filter((r) => r.purpose === 'rank-steps').length], [1, 'max-turns', 0], 'the cap, not a ranker error');
    // A policy that never stops is still capped; it sees the previous turn's step.
    const seen = [];
    const forever = (ctx) => { seen.push(ctx.lastStepId); return { stop: false }; };
    const f = await at.runTrajectory(at.createTrajectory({ ...chain(), maxTurns: 2 }, agent(() => [{ role: 'assistant', content: '' }])), { userModel: scriptedUser(), clock, policy: forever });
    // Asked before each turn and once more at the cap (a goal reached on the last turn is still its call).
    eq([f.steps.length, f.end.reason, seen], [2, 'max-turns', [null, 'greet', null]], 'maxTurns caps a custom policy');
    for (const reason of ['policy-violation', 'no-step-match']) {
      const stop = (ctx) => (ctx.turnIndex === 1 ? { stop: true, reason } : { stop: false });
      const r = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, policy: stop });
      eq([r.steps.length, at.toJSONL(r).length, r.end.reason], [1, 1, reason], `a ${reason} stop adds no trace`);
    }
    const bad = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, policy: () => ({ stop: true, reason: 'done' }) });
    eq([bad.end.reason, bad.end.error.code, bad.end.error.side], ['error', 'CALLBACK_FAILED', 'policy'], 'a garbage policy answer is a policy failure');
    // The run's own ends are not a policy's to give: an error without its error, an abort without a signal.
    for (const reason of ['error', 'aborted', 'judge-failed']) {
      const own = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, policy: () => ({ stop: true, reason }) });
      eq([own.end.reason, own.end.error?.side], ['error', 'policy'], `a policy's ${reason} is refused`);
      assert(own.end.error.message.includes("(the run's own end; a policy that fails throws)"), own.end.error.message);
    }
  },

  async 'a run whose callbacks answer at once still yields, so an abort timer fires'(at) {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const sync = { respond: () => ({ messages: [{ role: 'assistant', content: '' }] }) };
    const r = await at.runTrajectory(at.createTrajectory({ goal: 'g', persona: { description: 'd' }, maxTurns: 1_000_000 }, sync), {
      userModel: () => 'hi', clock, signal: controller.signal, policy: () => ({ stop: false }),
    });
    eq(r.end.reason, 'aborted', 'the timer fired');
  },

  async 'a sink failing on run_ended or the final flush ends the run in error'(at) {
    const onEnd = { record(r) { if (r.payload.kind === 'run_ended') throw new Error('disk full'); } };
    const a = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, sink: onEnd, onSinkError: 'fail' });
    eq([a.end.reason, a.end.error.code, a.end.error.side, a.steps.length], ['error', 'SINK_FAILED', 'recorder', 3], 'run_ended refused');
    eq(a.steps[2].end.reason, 'error', 'the last trace says so too');
    const late = { record: (r) => (r.payload.kind === 'run_ended' ? Promise.reject(new Error('network gone')) : undefined) };
    const b = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, sink: late, onSinkError: 'fail' });
    eq([b.end.reason, b.end.error.code], ['error', 'SINK_FAILED'], 'the final flush rejected');
    assert(b.end.error.message.includes('network gone'), b.end.error.message);
  },

  async "under onSinkError 'drop', the records a sink refused are said and counted on the result"(at) {
    const clean = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, sink: new at.MemorySink() });
    eq(clean.droppedRecords, 0, 'none dropped');
    const picky = { record(r) { if (r.payload.kind === 'message_appended') throw new Error('too long'); } };
    const warn = console.warn;
    const said = [];
    console.warn = (...a) => said.push(a.join(' '));
    let r;
    try {
      r = await at.runTrajectory(at.createTrajectory(chain(), agent()), { userModel: scriptedUser(), clock, sink: picky });
    } finally {
      console.warn = warn;
    }
    eq(r.end.reason, 'goal-reached', 'the run itself goes on');
    assert(r.droppedRecords > 0 && r.droppedRecords === said.length, `${r.droppedRecords} dropped, ${said.length} said`);
    assert(said.every((s) => s.includes('record dropped (SINK_FAILED)') && s.includes('too long')), said.join('\n'));
  },
};
