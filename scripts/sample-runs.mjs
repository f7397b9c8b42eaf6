// Records scripted sample runs through the built package into <dir>/*.jsonl
// and writes <dir>/index.json for the viewer. Deterministic: a scripted
// clock and scripted agents, so the output is the same on every machine.
import { mkdirSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { TrajectoryRecorder, JsonlSink, ObserverPipeline, createTrajectory, runTrajectory, BackgroundAgentRunner } from '../pkg/node.mjs';

const dir = process.argv[2] ?? 'runs';
mkdirSync(dir, { recursive: true });
const START = Date.UTC(2026, 10, 21, 9, 0, 0);

/** A scripted clock: `advance(ms)` models latency between events. */
function scriptedClock() {
  let now = START;
  return { now: () => now, advance: (ms) => { now += ms; } };
}

/**
 * Plays a scripted agent: each turn has a user message, optional tool calls
 * (each ok or failing) and a final assistant answer.
 */
function playTurns(rec, clock, turns, { model = 'scripted-model', tools = [], observers } = {}) {
  const messages = [];
  let callNo = 0;
  turns.forEach((turn, i) => {
    clock.advance(400);
    rec.record({ kind: 'turn_started', turn_index: i });
    const user = { role: 'user', content: turn.user };
    messages.push(user);
    rec.record({ kind: 'message_appended', message: user });
    rec.record({ kind: 'provider_request_prepared', iteration: i, model_id: model, system_prompt_chars: 1200, message_count: messages.length, tool_count: tools.length, tools });
    const toolResults = [];
    for (const call of turn.calls ?? []) {
      const id = `call-${++callNo}`;
      clock.advance(900);
      const assistantCall = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: call.tool, input: call.args }] };
      messages.push(assistantCall);
      rec.record({ kind: 'message_appended', message: assistantCall });
      rec.record({ kind: 'tool_started', tool_call_id: id, tool_name: call.tool, args: call.args });
      call.during?.(); // a call that runs a child run: its records sit between the call's start and end
      clock.advance(call.ms ?? 250);
      const isError = Boolean(call.error);
      const result = isError ? call.error : call.result;
      rec.record({ kind: 'tool_ended', tool_call_id: id, tool_name: call.tool, result, is_error: isError });
      observers?.recordToolCall({ toolName: call.tool, params: call.args, success: !isError, errorMessage: isError ? result : undefined });
      const toolMsg = { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: call.tool, output: isError ? { type: 'error-text', value: result } : { type: 'json', value: result } }] };
      messages.push(toolMsg);
      toolResults.push(toolMsg);
      rec.record({ kind: 'message_appended', message: toolMsg });
    }
    clock.advance(1100);
    // What the turn cost, as a provider reports it: the viewer's budget chart sums these.
    const inputTokens = 300 + 120 * messages.length;
    const outputTokens = 40 + 15 * (turn.calls?.length ?? 0);
    rec.record({ kind: 'custom', name: 'model_usage', data: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens } });
    const answer = { role: 'assistant', content: turn.answer };
    messages.push(answer);
    rec.record({ kind: 'message_appended', message: answer });
    rec.record({ kind: 'turn_ended', assistant: answer, tool_results: toolResults });
  });
  return messages;
}

/** run_started, then the run's limits as a `budget` record (the viewer draws usage against them). */
function start(rec, identity, budget) {
  rec.record({ kind: 'run_started', identity });
  rec.record({ kind: 'custom', name: 'budget', data: budget });
}

/** A JsonlSink writing <dir>/<name>.jsonl; `close()` resolves once the file is complete. */
function jsonlFile(name) {
  const out = createWriteStream(join(dir, `${name}.jsonl`));
  const sink = new JsonlSink((line) => new Promise((ok, fail) => out.write(line, (e) => (e ? fail(e) : ok()))));
  return { sink, close: () => new Promise((ok) => out.end(ok)) };
}

async function record(name, title, play) {
  const { sink, close } = jsonlFile(name);
  const clock = scriptedClock();
  const rec = new TrajectoryRecorder(sink, { clock: clock.now, onSinkError: 'fail' });
  play(rec, clock);
  await rec.flush();
  await close();
  rec.free();
  return { file: `${name}.jsonl`, title };
}

const runs = [];

runs.push(await record('support-refund', 'Support agent: refund with a gateway retry', (rec, clock) => {
  start(rec, { run_id: 'support-refund', agent: 'support-bot', model_id: 'scripted-model' }, { maxTokens: 6000, maxToolCalls: 8, maxMs: 120_000 });
  const messages = playTurns(rec, clock, [
    { user: 'I was charged twice for order 1042. Can I get a refund?', calls: [
      { tool: 'lookup_order', args: { order_id: 1042 }, result: { status: 'delivered', charges: [59.9, 59.9] } },
      { tool: 'get_refund_policy', args: { category: 'duplicate-charge' }, result: { refundable: true, window_days: 30 } },
    ], answer: 'I can see the duplicate charge of 59.90. I will refund it now.' },
    { user: 'Yes please, go ahead.', calls: [
      { tool: 'issue_refund', args: { order_id: 1042, amount: 59.9 }, error: 'payment gateway timeout after 30s', ms: 30000 },
      { tool: 'issue_refund', args: { order_id: 1042, amount: 59.9 }, result: { refund_id: 'rf_88', status: 'pending' }, ms: 1200 },
    ], answer: 'Done: refund rf_88 of 59.90 is on its way (3-5 business days).' },
  ], { tools: ['lookup_order', 'get_refund_policy', 'issue_refund'] });
  rec.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' }, new_messages: messages.slice(-1) });
}));

runs.push(await record('research-with-subagent', 'Research agent delegating a search to a child run', (rec, clock) => {
  start(rec, { run_id: 'research', agent: 'researcher', model_id: 'scripted-model' }, { maxTokens: 4000, maxToolCalls: 6, maxMs: 60_000 });
  // The parent delegates the search through a tool call; the child run records under it.
  const search = () => {
    const child = rec.child('research/search');
    start(child, { run_id: 'research/search', parent_run_id: 'research', agent: 'searcher' }, { maxTokens: 2000, maxToolCalls: 4 });
    playTurns(child, clock, [{ user: 'Find the official guidance documents.', calls: [
      { tool: 'web_search', args: { q: 'EU AI Act chatbot guidance 2026' }, result: { hits: 3 } },
      { tool: 'fetch_page', args: { url: 'https://example.org/guidance.pdf' }, result: { chars: 48211 } },
    ], answer: 'Found the guidance: transparency duties and labelling.' }]);
    child.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' } });
    child.free();
  };
  playTurns(rec, clock, [{ user: 'Summarise what changed in the 2026 EU AI Act guidance for chatbots.', calls: [
    { tool: 'delegate', args: { agent: 'searcher', task: 'Find the official guidance documents.' }, result: { run_id: 'research/search', status: 'completed' }, during: search },
  ], answer: 'The searcher found the guidance.' }]);
  playTurns(rec, clock, [{ user: 'And the summary?', answer: 'Chatbots must disclose they are AI and label generated content.' }]);
  rec.record({ kind: 'custom', name: 'eval.score', data: { faithfulness: 0.92, relevance: 0.88 } });
  rec.record({ kind: 'run_ended', outcome: { status: 'completed', reason: 'goal-reached' } });
}));

runs.push(await record('stuck-on-tests', 'Coding agent repeating a failing test run', (rec, clock) => {
  start(rec, { run_id: 'stuck-on-tests', agent: 'coder', model_id: 'scripted-model' }, { maxTokens: 8000, maxToolCalls: 8, maxMs: 300_000 });
  const failing = { tool: 'run_tests', args: { path: 'tests/test_parser.py' }, error: "AssertionError: expected 'a,b' got 'a b' (tests/test_parser.py:41)" };
  // Observers watch the run; their assessments join the same record stream.
  const observers = new ObserverPipeline({
    clock: clock.now,
    recorder: rec,
    budget: { maxToolCalls: 8, deadline: START + 5 * 60_000 },
    observers: [
      { observer: 'resources', trigger: { everyNCalls: 3 } },
      { observer: 'stall', trigger: { afterConsecutiveErrors: 2 } },
      { observer: 'error-cascade', trigger: { afterConsecutiveErrors: 3 } },
      { observer: 'drift', trigger: { everyNCalls: 5 }, options: { scope: ['src/', 'tests/'] } },
    ],
  });
  playTurns(rec, clock, [
    { user: 'Fix the CSV parser so the tests pass.', calls: [
      { tool: 'read_file', args: { path: 'src/parser.py' }, result: { lines: 120 } },
      failing,
    ], answer: 'The separator handling is wrong; retrying.' },
    { user: 'Keep going.', calls: [failing, failing], answer: 'Still failing; trying again.' },
    { user: 'Keep going.', calls: [failing], answer: 'The same assertion fails.' },
    { user: 'Keep going.', calls: [failing], answer: 'It fails the same way again.' },
  ], { tools: ['read_file', 'write_file', 'run_tests'], observers });
  observers.free();
  rec.record({ kind: 'output_tokens_escalation', attempt: 1, prev_cap: 4096, new_cap: 8192 });
  // The loop stops itself once the Stall observer escalates to a warning.
  rec.record({ kind: 'run_ended', outcome: { status: 'stopped', reason: 'agent-loop', message: 'stopped on a Stall warning: the same failing test, 5 times', verdict: 'agent' } });
}));

// Generated runs: a scripted simulated user walks a step graph against a
// scripted booking agent; the ranker picks among the free steps,
// preconditions order the rest. Variant B is the same scenario where the
// diner asks for the menu first and the first booking attempt fails (then
// succeeds at 20:30): the pair to compare.
async function generatedBooking(name, variant) {
  let now = START;
  const clock = () => (now += 350);
  const prefer = variant === 'b' ? ['menu', 'hours'] : ['hours', 'menu'];
  const userModel = async (req) => {
    if (req.purpose === 'rank-steps') {
      const ids = [...req.messages[0].content.matchAll(/^- ([\w-]+): /gm)].map((m) => m[1]);
      const best = prefer.find((id) => ids.includes(id)) ?? ids[0];
      return JSON.stringify({ candidates: ids.map((stepId) => ({ stepId, score: stepId === best ? 0.85 : 0.6, reasons: [stepId === best ? 'the diner needs this first' : 'can wait'] })) });
    }
    const step = /What to do in this message: (.*)/.exec(req.system)?.[1] ?? 'wrap up';
    // Scripted token counts, so the budget chart has a token series (recorded as model_usage).
    const text = { 'say hello and say you want dinner tonight': 'Hi! I would like to have dinner at your place tonight.',
      'ask whether they are open tonight': 'Are you open tonight, and until when?',
      'ask what is on the menu tonight': 'What is on the menu tonight?',
      'book a table for two at 8pm': 'Great, please book a table for two at 8pm.',
      'confirm and ask for the booking reference': 'Perfect. What is my booking reference?' }[step] ?? step;
    return { text, usage: { inputTokens: 220 + Math.round(req.messages[0].content.length / 4), outputTokens: 14 } };
  };
  let calls = 0;
  const ref = variant === 'b' ? 'BK-2042' : 'BK-2041';
  const booking = (input, output) => {
    const id = `call-${++calls}`;
    return [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'create_booking', input }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'create_booking', output }] },
    ];
  };
  const usage = (history) => ({ inputTokens: 400 + 60 * history.length, outputTokens: 45 });
  const agent = {
    async respond(history) {
      const said = history.at(-1).content;
      if (/book a table/.test(said)) {
        if (variant !== 'b') {
          const input = { people: 2, time: '20:00' };
          return { messages: [...booking(input, { type: 'json', value: { ref, ...input } }), { role: 'assistant', content: 'Booked: a table for two at 20:00.' }], usage: usage(history) };
        }
        const later = { people: 2, time: '20:30' };
        return { messages: [
          ...booking({ people: 2, time: '20:00' }, { type: 'error-text', value: 'no table for two free at 20:00' }),
          ...booking(later, { type: 'json', value: { ref, ...later } }),
          { role: 'assistant', content: '20:00 is full, so I booked a table for two at 20:30.' },
        ], usage: usage(history) };
      }
      const reply = /reference/.test(said) ? `Your reference is ${ref}.` : /menu/.test(said) ? 'Tonight: grilled fish, mushroom risotto and a vegan curry.'
        : /open/.test(said) ? 'We are open until 23:00 tonight.' : 'Welcome! How can I help?';
      return { messages: [{ role: 'assistant', content: reply }], usage: usage(history) };
    },
  };
  const trajectory = createTrajectory({
    goal: 'book a table for two tonight and get the booking reference',
    persona: { name: 'Ana', description: 'a terse diner in a hurry' },
    conversationId: name,
    steps: {
      steps: [
        { id: 'greet', instruction: 'say hello and say you want dinner tonight' },
        { id: 'hours', instruction: 'ask whether they are open tonight' },
        { id: 'menu', instruction: 'ask what is on the menu tonight' },
        { id: 'book', instruction: 'book a table for two at 8pm', preconditions: [{ type: 'stepSatisfied', stepId: 'hours' }] },
        { id: 'confirm', instruction: 'confirm and ask for the booking reference', preconditions: [{ type: 'stepSatisfied', stepId: 'book' }] },
      ],
      start: 'greet',
      terminals: ['confirm'],
    },
  }, agent);
  const { sink, close } = jsonlFile(name);
  const result = await runTrajectory(trajectory, { userModel, clock, sink, onSinkError: 'fail' });
  if (result.end.reason !== 'goal-reached') throw new Error(`the sample ${name} ended ${result.end.reason}`);
  await close();
  sink.free();
}

await generatedBooking('generated-booking', 'a');
runs.push({ file: 'generated-booking.jsonl', title: 'Generated: a simulated diner walks a step graph to a booking' });
await generatedBooking('generated-booking-b', 'b');
runs.push({ file: 'generated-booking-b.jsonl', title: 'Generated, variant B: the menu first, a failed booking retried' });

// A background objective: a scripted reviewer plans, reads a patch through
// the virtual filesystem (a wrong path first, which reflection retries),
// notes its findings on the plan and finishes with a deliverable.
runs.push(await (async () => {
  const name = 'background-review';
  const answers = [
    { toolCalls: [{ toolName: 'plan_create', input: { steps: ['Map the changes', 'Confirm tests'] } }] },
    { toolCalls: [{ toolName: 'read_file', input: { path: 'diff/changes.patch' } }] },
    '{"action": "retry", "input": {"path": "diff/change.patch"}, "reason": "the file is change.patch"}',
    { toolCalls: [{ toolName: 'plan_update_step', input: { step: 1, status: 'done', note: 'add() gained a parameter b' } }, { toolName: 'grep', input: { text: 'add(', path: 'diff/tests' } }] },
    { toolCalls: [
      { toolName: 'plan_update_step', input: { step: 2, status: 'done', note: 'tests call add(1, 2)' } },
      { toolName: 'finish', input: { status: 'completed', summary: 'one API change', deliverable: { verdict: 'approve', findings: ['add() gained b'], nextSteps: [] } } },
    ] },
    'Approve: add() gained a parameter and the tests call it.',
  ];
  const clock = scriptedClock();
  const { sink, close } = jsonlFile(name);
  const runner = new BackgroundAgentRunner({ model: async () => answers.shift(), clock: clock.now, sink, onSinkError: 'fail' });
  const diff = { path: 'diff', files: { 'change.patch': '-fn add(a: i32)\n+fn add(a: i32, b: i32)\n', 'tests/add.rs': 'add(1, 2);\n' } };
  const result = await runner.run({ objective: 'Review the patch in diff/ for regressions', hostMounts: [diff] });
  if (result.status !== 'completed') throw new Error(`the sample review ended ${result.status}: ${result.reason}`);
  await close();
  sink.free();
  return { file: `${name}.jsonl`, title: 'Background objective: a code review with a retried read' };
})());

writeFileSync(join(dir, 'index.json'), JSON.stringify({ runs }, null, 2) + '\n');
console.log(`recorded ${runs.length} runs into ${dir}/`);
