// Real AI SDK 7 and Mastra clients with their default settings, with
// observers: scenarios.ts is compiled by `tsc --strict` with the settings
// `tsc --init` writes (no casts, no `any`), then its runs are checked here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const built = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });

test('scenarios.ts, misuse.ts, records.ts, harness.ts and observe.ts compile under tsc --strict (tsc --init settings) against the real ai and @mastra/core types: real clients fit, misuse is refused', () => {
  assert.equal(built.status, 0, `tsc failed:\n${built.stdout}${built.stderr}`);
});

const s = built.status === 0 ? await import(pathToFileURL(`${dir}.out/scenarios.js`).href) : null;
const ASSESSMENT = 'Trajectory Assessment';

/**
 * The run must not end in `error`; the model call that opens the turn after
 * the one where the tool failed for the FAILURES-th time must have the
 * assessment in its prompt, outside any system message (the libraries'
 * defaults refuse system messages in `messages`).
 */
function checkRun({ result, calls, turnStarts }, what) {
  assert.notEqual(result.end.reason, 'error', `${what}: the run ended in error: ${JSON.stringify(result.end.error)}`);
  assert.equal(result.end.reason, 'max-turns', what);
  const failedTurn = turnStarts.findLastIndex((start) => start < s.FAILURES);
  const next = turnStarts[failedTurn + 1];
  assert.ok(next !== undefined && calls[next], `${what}: a turn follows the failures (turns start at calls ${turnStarts})`);
  const prompt = calls[next].messages;
  assert.ok(prompt.some((m) => m.text.includes(ASSESSMENT)), `${what}: the model got the assessment on its next call:\n${JSON.stringify(prompt, null, 1)}`);
  const systems = prompt.filter((m) => m.role === 'system');
  assert.deepEqual(systems.map((m) => m.text), [s.INSTRUCTIONS], `${what}: the only system message is the agent's own instructions`);
  for (const c of calls.slice(0, turnStarts[1] ?? calls.length)) {
    assert.ok(!c.messages.some((m) => m.text.includes(ASSESSMENT)), `${what}: nothing injected before there was an assessment`);
  }
  // Each turn's own messages are in the trace; the assessment is not.
  for (const step of result.steps) {
    assert.ok(!JSON.stringify(step.agentMessages).includes(ASSESSMENT), `${what}: assessment kept out of the agent's messages`);
  }
  const last = result.steps.at(-1).agentMessages.filter((m) => m.role === 'assistant').at(-1);
  const text = typeof last.content === 'string' ? last.content : last.content.map((p) => p.text ?? '').join('');
  assert.match(text, /Booked a table/, `${what}: the agent answered with text in the end`);
}

test('the libraries\' defaults refuse a system message inside messages (what these runs must avoid)', { skip: !s }, async () => {
  const refusals = await s.systemMessageRefusals();
  assert.equal(refusals.length, 2);
  for (const r of refusals) assert.match(r, /System messages are not allowed/, 'ToolLoopAgent and generateText with defaults');
});

test('AI SDK 7 ToolLoopAgent (defaults) with observers: the assessment reaches the model and the run does not fail', { skip: !s }, async () => {
  checkRun(await s.toolLoopAgent(), 'ToolLoopAgent');
});

test('AI SDK 7 generateText config (defaults) with observers: the assessment reaches the model and the run does not fail', { skip: !s }, async () => {
  checkRun(await s.generateTextConfig(), 'generateText config');
});

test('Mastra Agent (defaults) with observers: the assessment reaches the model and the run does not fail', { skip: !s }, async () => {
  checkRun(await s.mastraAgent(), 'Mastra Agent');
});

test('token usage of the agent (AI SDK totalUsage) and of the simulated user reaches the observers\' budget', { skip: !s }, async () => {
  const { tokensUsed, reported, resources } = await s.tokenBudget();
  assert.ok(reported > 0);
  assert.equal(tokensUsed, reported, `the budget counts what the models reported (resources said: ${resources})`);
  assert.doesNotMatch(resources, /\b0 of 10,?000 tokens/, 'the resources observer sees the tokens');
});

test('record() takes what users have (records.ts): the AI SDK\'s own messages, your interfaces, fields that may be undefined; read back, a record is recorded again as it is', { skip: !s }, async () => {
  const { recordWhatUsersHave } = await import(pathToFileURL(`${dir}.out/records.js`).href);
  const records = await recordWhatUsersHave();
  assert.deepEqual(records.map((r) => r.payload.kind), ['message_appended', 'message_appended', 'tool_started', 'tool_ended', 'custom', 'message_appended']);
  assert.deepEqual(records[0].payload.message, { role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
  assert.deepEqual(records[1].payload.message, { role: 'user', content: [{ type: 'text', text: 'Hello.' }] });
  assert.deepEqual(records[2].payload.args, { query: 'opening hours' });
  assert.deepEqual(records[3].payload.result, {}, 'a field that is undefined is left out, as JSON.stringify leaves it');
  assert.deepEqual(records[4].payload.data, { inputTokens: 5, outputTokens: 1, totalTokens: 6 });
  assert.deepEqual(records[5].payload, records[0].payload);
});

test('a harness under exactOptionalPropertyTypes (harness.ts): an AI SDK call\'s signal and usage passed on, options that may be undefined, a fork from { conversationId, steps }', { skip: !s }, async () => {
  const { harness } = await import(pathToFileURL(`${dir}.out/harness.js`).href);
  for (const maxTurns of [undefined, 2]) {
    const { tokens, forkId, code, pass } = await harness(undefined, maxTurns);
    assert.equal(tokens, 5, 'the AI SDK usage counts');
    assert.match(forkId, /-fork-1$/);
    assert.equal(code, 'CALLBACK_FAILED');
    assert.equal(pass, true, `maxTurns ${maxTurns}: an option given as undefined is not given`);
  }
});

test('the observe side and the index under exactOptionalPropertyTypes (observe.ts): undefined values left out, readonly lists taken', { skip: !s }, async () => {
  const { observeAndIndex } = await import(pathToFileURL(`${dir}.out/observe.js`).href);
  const { context, ended, injected, jsonl } = observeAndIndex(['boom', 'boom', 'boom']);
  assert.match(context, /repeated_failure/, 'three same failing calls are a stall');
  assert.equal(injected, 2, 'the assessment is injected beside the user message');
  assert.equal(ended, 1);
  assert.doesNotMatch(jsonl, /"agent"|"turn_index"|"reason"/, 'a field given as undefined is left out');
});
