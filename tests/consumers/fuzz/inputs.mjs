// The valid inputs the fuzz changes: B, README-shaped payloads of every
// kind, records and JSONL, tool calls, budgets, observer pipeline options,
// trajectory definitions, model requests, a simulated user and OpenAI
// answers, by the names the reproductions use; and V, made by the package
// itself once per process (prepare): run results, a model recording, a
// pipeline snapshot. Also the fuzz's clock origin T0 and its own errors.
import { tag } from './render.mjs';

export const T0 = 1767225600000; // 2026-01-01T00:00:00Z
export const fnx = (expr, f) => tag(f, expr);
export const err = (m) => new Error(`fuzz: ${m}`);

export const msg = {
  system: () => ({ role: 'system', content: 'You are a support bot.' }),
  user: () => ({ role: 'user', content: 'Where is my order?' }),
  assistantParts: () => ({ role: 'assistant', content: [{ type: 'reasoning', text: 'look it up' }, { type: 'text', text: 'Checking.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_order', input: { id: 42 } }] }),
  toolResult: () => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup_order', output: { type: 'json', value: { status: 'shipped' } } }] }),
  sdk4Call: () => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'refund', args: { amount: 5 } }] }),
  sdk4Result: () => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'refund', result: 'ok', isError: false }] }),
  shorthand: () => ({ role: 'assistant', content: [{ type: 'tool-call', id: 'c3', name: 'search', args: { q: 'x' } }] }),
  errorText: () => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'search', output: { type: 'error-text', value: 'not found' } }] }),
  image: () => ({ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', image: 'data:image/png;base64,AAAA', mediaType: 'image/png' }], providerOptions: { openai: { detail: 'low' } } }),
  assistant: () => ({ role: 'assistant', content: 'Your order has shipped.' }),
};

const assessment = () => ({ observerName: 'stall', summary: 'the same call failed 3 times', observations: [{ category: 'repeat', description: 'run_tests failed 3 times', evidence: 'calls #1, #2, #3' }], suggestions: ['read the error'], severity: 'caution', timestamp: T0 });

export const PAYLOADS = {
  run_started: () => ({ kind: 'run_started', identity: { run_id: 'run-1', agent: 'support-bot', model_id: 'model-a' } }),
  run_ended: () => ({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached', message: 'done' }, new_messages: [msg.assistant()] }),
  turn_started: () => ({ kind: 'turn_started', turn_index: 0 }),
  turn_ended: () => ({ kind: 'turn_ended', assistant: msg.assistantParts(), tool_results: [msg.toolResult()], turn_index: 0, step_id: 'greet' }),
  step_selected: () => ({ kind: 'step_selected', turn_index: 0, step_id: 'greet', method: 'start', candidates: [{ stepId: 'greet', score: 1, reasons: ['start step'] }] }),
  message_appended: () => ({ kind: 'message_appended', message: msg.user() }),
  message_appended_sdk4: () => ({ kind: 'message_appended', message: msg.sdk4Call() }),
  tool_started: () => ({ kind: 'tool_started', tool_call_id: 'c1', tool_name: 'lookup_order', args: { id: 42 } }),
  tool_ended: () => ({ kind: 'tool_ended', tool_call_id: 'c1', tool_name: 'lookup_order', result: { status: 'shipped' }, is_error: false }),
  provider_request_prepared: () => ({ kind: 'provider_request_prepared', iteration: 0, model_id: 'model-a', system_prompt_chars: 120, message_count: 3, tool_count: 2, tools: ['lookup_order', 'refund'] }),
  context_transform_applied: () => ({ kind: 'context_transform_applied', iteration: 1, plugin: 'trim', before_count: 10, after_count: 5 }),
  tool_gate_applied: () => ({ kind: 'tool_gate_applied', iteration: 1, plugin: 'gate', allow: true }),
  tool_gate_conflict_resolved: () => ({ kind: 'tool_gate_conflict_resolved', iteration: 1, plugins: ['a', 'b'], chosen_plugin: 'a', allow: false, reason: 'first wins' }),
  output_tokens_escalation: () => ({ kind: 'output_tokens_escalation', attempt: 1, prev_cap: 1024, new_cap: 2048 }),
  assessment_produced: () => ({ kind: 'assessment_produced', call_index: 3, assessment: assessment() }),
  custom: () => ({ kind: 'custom', name: 'request', data: { url: 'https://example.test/a', n: [1, 2.5, null, true] } }),
};
export const PAYLOAD_KINDS = Object.keys(PAYLOADS);

export const stamp = (payload, seq, extra = {}) => ({ schema_version: 1, seq, run_id: 'run-1', depth: 0, recorded_at_unix_ms: T0 + seq, ...extra, payload });
export const RECORD_KINDS = ['run_started', 'turn_started', 'step_selected', 'message_appended', 'tool_started', 'tool_ended', 'turn_ended', 'assessment_produced', 'custom', 'provider_request_prepared', 'run_ended'];
/** A valid run's records, seq 0..n-1. */
export const recordList = (n = RECORD_KINDS.length) => RECORD_KINDS.slice(0, n - 1).concat('run_ended').map((k, i) => stamp(PAYLOADS[k](), i));
export const childRecord = () => stamp(PAYLOADS.custom(), 0, { run_id: 'child-1', parent_run_id: 'run-1', depth: 1 });
/** `n` records of a run (and a child run's record) as JSONL lines. */
export const jsonlLines = (n, child = false) => [...recordList(n), ...(child ? [childRecord()] : [])].map((x) => JSON.stringify(x));

export const toolCalls = {
  failing: (i = 0) => ({ toolName: 'run_tests', params: { path: 'tests/test_parser.py' }, success: false, errorMessage: `AssertionError at tests/test_parser.py:${41 + i}` }),
  read: () => ({ toolName: 'read_file', params: { path: 'src/parser/lexer.rs' }, success: true }),
  write: () => ({ toolName: 'write_file', params: { path: 'src/other/x.rs', content: 'fn main() {}' }, success: true }),
  summarised: () => ({ toolName: 'check_job', params: { id: 7 }, paramsSummary: 'job 7', success: true }),
};
export const budget = () => ({ deadline: T0 + 30 * 60_000, elapsedSeconds: 10, maxTokens: 50_000, tokensUsed: 100, maxToolCalls: 100 });

export function steppingClock(step = 1000) {
  let t = T0;
  return fnx(`(() => { let t = ${T0}; return () => (t += ${step}) })()`, () => (t += step));
}

export function customObserver() {
  return {
    name: 'mine',
    shouldRun: fnx('(ctx) => ctx.callIndex % 2 === 1', (ctx) => ctx.callIndex % 2 === 1),
    observe: fnx('(ctx) => ({ summary: `error rate ${ctx.errorRate(5)}`, severity: "caution", observations: [{ category: "c", description: "d", evidence: "e" }], suggestions: ["retry"] })',
      (ctx) => ({ summary: `error rate ${ctx.errorRate(5)}`, severity: 'caution', observations: [{ category: 'c', description: 'd', evidence: 'e' }], suggestions: ['retry'] })),
  };
}
export const pipelineOpts = (custom = true) => ({
  clock: steppingClock(2000),
  budget: budget(),
  maxAgeCalls: 20,
  observers: [
    { observer: 'resources', trigger: { everyNCalls: 10 }, options: { cautionThreshold: 0.3, warningThreshold: 0.1 } },
    { observer: 'stall', trigger: { everyNCalls: 5, afterConsecutiveErrors: 3 }, options: { pollingTools: ['check_job'], window: 20 } },
    { observer: 'error-cascade', trigger: { afterConsecutiveErrors: 3 }, options: { threshold: 3 } },
    { observer: 'drift', trigger: { everyNCalls: 10, everyNSeconds: 60 }, options: { scope: ['src/parser/', 'tests/'] } },
    ...(custom ? [{ observer: customObserver(), trigger: { onEveryCall: true } }] : []),
  ],
});
export const PIPELINE_CLOSED = ['', 'budget', 'observers.*', 'observers.*.trigger', 'observers.*.options'];

export const chainDef = () => ({
  goal: 'book a table for two',
  persona: { name: 'Ana', description: 'a terse diner', guardrails: ['no small talk'] },
  conversationId: 'conv-1',
  maxTurns: 6,
  steps: {
    steps: [
      { id: 'greet', instruction: 'say hello', hints: ['be brief'] },
      { id: 'ask', instruction: 'ask for a table', preconditions: [{ type: 'stepSatisfied', stepId: 'greet' }], maxAttempts: 3 },
      { id: 'confirm', instruction: 'confirm the booking', preconditions: [{ type: 'stepSatisfied', stepId: 'ask' }] },
    ],
    start: 'greet',
    terminals: ['confirm'],
  },
});
export const freeDef = () => ({
  goal: 'explore the menu',
  persona: { description: 'a curious visitor' },
  maxTurns: 5,
  steps: { steps: [{ id: 's', instruction: 'open' }, { id: 'a', instruction: 'ask about prices' }, { id: 'b', instruction: 'ask about hours' }], start: 's' },
  ranker: { threshold: 0.5, contextSteps: 2, topK: 2 },
  loopDetection: { maxConsecutiveSameStep: 3, maxCycleLength: 4, maxCycleRepetitions: 2 },
  userContextSteps: 2,
  metadata: { suite: 'fuzz' },
});
export const bareDef = () => ({ goal: 'say hi', persona: { description: 'a visitor' }, maxTurns: 3 });
export const DEF_CLOSED = ['', 'persona', 'steps', 'steps.steps.*', 'steps.steps.*.preconditions.*', 'loopDetection', 'ranker'];
export const DEF_NUMERIC = ['maxTurns', 'loopDetection.maxConsecutiveSameStep', 'loopDetection.maxCycleLength', 'loopDetection.maxCycleRepetitions', 'loopDetection.maxCycleRepetitions',
  'ranker.threshold', 'ranker.contextSteps', 'ranker.topK', 'userContextSteps', 'steps.steps.0.maxAttempts', 'steps.steps.1.maxAttempts', 'steps.steps.0.timeoutMs'];
export const PIPELINE_NUMERIC = ['maxAgeCalls', 'budget.deadline', 'budget.elapsedSeconds', 'budget.maxTokens', 'budget.tokensUsed', 'budget.maxToolCalls',
  'observers.0.trigger.everyNCalls', 'observers.1.trigger.afterConsecutiveErrors', 'observers.3.trigger.everyNSeconds',
  'observers.0.options.cautionThreshold', 'observers.0.options.warningThreshold', 'observers.1.options.window', 'observers.1.options.repeatThreshold',
  'observers.1.options.failingRepeatThreshold', 'observers.1.options.sameTargetThreshold', 'observers.1.options.targetWindow', 'observers.2.options.threshold',
  'observers.3.options.window', 'observers.3.options.threshold'];
export const BUDGET_NUMERIC = ['deadline', 'elapsedSeconds', 'maxTokens', 'tokensUsed', 'maxToolCalls'];
export const RUN_CLOSED = [''];

export const request = () => ({
  purpose: 'user-message',
  system: 'You are role-playing the USER.\nPersona: Ana. a terse diner',
  messages: [msg.user(), msg.assistantParts(), msg.toolResult()],
  tools: [{ name: 'lookup_order', description: 'find an order', inputSchema: { type: 'object', properties: { id: { type: 'number' } } } }],
  responseFormat: 'text',
});
export const policyCtx = () => ({
  turnIndex: 1, maxTurns: 6, stepTraces: [], selectedStepId: 'ask', terminals: ['confirm'], exhausted: false,
  snapshot: { satisfied: new Set(['greet']), attemptsByStep: new Map([['greet', 1]]), states: [] },
  defaultDecision: { stop: false },
});
export const chatBody = () => ({
  choices: [{ message: { content: 'hello', tool_calls: [{ id: 't1', type: 'function', function: { name: 'lookup_order', arguments: '{"id":42}' } }] } }],
  usage: { prompt_tokens: 12, completion_tokens: 3 },
});

/**
 * The simulated user of the runs: `B.user(rank, reply, ids)`. `rank` is how
 * it answers the ranker ('none', 'all', 'not json', 'ghost', 'huge scores',
 * 'alternate': one step after the other, for cycles); `reply` the shape of
 * its messages ('string', '{text}', '{text,usage}').
 */
export function user(rank = 'none', reply = 'string', ids = []) {
  let n = 0;
  let turn = 0;
  const ranked = () => {
    switch (rank) {
      case 'all': return JSON.stringify({ candidates: ids.map((id, i) => ({ stepId: id, score: 1 - i / 10, reasons: ['fits'] })) });
      case 'not json': return 'not json at all';
      case 'ghost': return JSON.stringify({ candidates: [{ stepId: 'ghost', score: 2 }, { stepId: ids[0], score: 'high' }] });
      case 'huge scores': return JSON.stringify({ candidates: ids.map((id) => ({ stepId: id, score: 1e300 })) });
      case 'alternate': return JSON.stringify({ candidates: [{ stepId: ids[1 + (turn++ % Math.max(1, ids.length - 1))], score: 0.9 }] });
      default: return '{"candidates":[]}';
    }
  };
  const message = (k) => (reply === 'string' ? `user message ${k}` : reply === '{text}' ? { text: `user message ${k}` } : { text: `hi ${k}`, usage: { inputTokens: 10, outputTokens: 3 } });
  return (req) => (req && req.purpose === 'rank-steps' ? ranked() : message(++n));
}

/** The valid inputs, by the names the reproductions use. */
export const B = {
  'B.payload(kind)': PAYLOADS,
  'B.records(n)': recordList,
  'B.record(kind, seq)': (kind, seq) => stamp(PAYLOADS[kind](), seq),
  'B.jsonl(n, withChild)': (n = RECORD_KINDS.length, withChild = false) => `${jsonlLines(n, withChild).join('\n')}\n`,
  'B.bareDef()': bareDef,
  'B.user(rank, reply, ids)': user,
  'B.messages()': () => Object.values(msg).map((f) => f()),
  'B.toolCall': toolCalls,
  'B.budget()': budget,
  'B.pipelineOpts()': pipelineOpts,
  'B.chainDef()': chainDef,
  'B.freeDef()': freeDef,
  'B.request()': request,
  'B.policyCtx()': policyCtx,
  'B.chatBody()': chatBody,
};

// ---- live valid artifacts (made once per process, deterministic) --------

/** Valid run results, a model recording, a pipeline snapshot: made by the package itself. */
export async function prepare(at) {
  const agent = { respond: async (h) => ({ messages: [msg.assistantParts(), msg.toolResult(), { role: 'assistant', content: `noted (${h.length})` }] }) };
  let n = 0;
  const user = at.recordingModel(async (req) => (req.purpose === 'user-message' ? `message ${++n}` : '{"candidates":[]}'));
  const good = await at.runTrajectory(at.createTrajectory(chainDef(), agent), { userModel: user, clock: () => T0 });
  const failed = await at.runTrajectory(at.createTrajectory(chainDef(), { respond: async () => { throw err('agent exploded'); } }), { userModel: async () => 'hi', clock: () => T0 });
  const p = new at.ObserverPipeline(pipelineOpts(false));
  for (let i = 0; i < 6; i++) p.recordToolCall(i % 2 ? toolCalls.read() : toolCalls.failing(i));
  p.recordTokens(1200);
  const snapshot = p.snapshot();
  p.free();
  return { result: good, failed, recording: user.recording, snapshot, def: chainDef() };
}
export const clone = (v) => structuredClone(v);
