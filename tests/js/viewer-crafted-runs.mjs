// The user-reported defects of the run viewer, each on a run written here
// for it: a run that did not reach its goal, a step in progress, the budget
// chart's axes and words, search marks as text, and loops' tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { site, occurrences, ready } from './viewer-site.mjs';

/** Record JSONL of one run: the payloads in order, 100 ms apart. */
const jsonl = (runId, payloads) => `${payloads.map((payload, seq) => JSON.stringify({ schema_version: 1, seq, run_id: runId, depth: 0, recorded_at_unix_ms: 1_767_000_000_000 + seq * 100, payload })).join('\n')}\n`;
/** A turn: its tool calls ([name, result, failed]), then `extra` records. */
const turnOf = (n, calls, extra = []) => [{ kind: 'turn_started', turn_index: n }, { kind: 'message_appended', message: { role: 'user', content: `go on (${n})` } },
  ...calls.flatMap(([name, result, failed], k) => [{ kind: 'tool_started', tool_call_id: `c${n}.${k}`, tool_name: name, args: { n } }, { kind: 'tool_ended', tool_call_id: `c${n}.${k}`, tool_name: name, result, is_error: failed }]),
  ...extra, { kind: 'turn_ended', assistant: { role: 'assistant', content: `turn ${n} done` }, tool_results: [], turn_index: n }];
const ended = (outcome) => ({ kind: 'run_ended', outcome });
const usage = (data) => ({ kind: 'custom', name: 'model_usage', data });
const HTMLISH = 'if (a < b && c) { return "<i>x</i>"; }';
const crafted = {
  // 5 of 6 calls failed, then the turn limit; an old file says "completed".
  'capped.jsonl': [{ kind: 'run_started', identity: { run_id: 'capped' } }, ...turnOf(0, [['read', 'ok', false], ['test', 'boom', true]]),
    ...turnOf(1, [['test', 'boom', true], ['test', 'boom', true]]), ...turnOf(2, [['test', 'boom', true], ['test', 'boom', true]]), ended({ status: 'completed', reason: 'max-turns' })],
  'stopped.jsonl': [...turnOf(0, []), ended({ status: 'stopped', reason: 'max-turns', message: 'maxTurns 1 reached', verdict: 'agent' })],
  'on-warning.jsonl': [...turnOf(0, []), ended({ status: 'completed', reason: 'stopped-on-warning', message: 'Stall: the same call 4 times' })],
  'errored.jsonl': [...turnOf(0, []), ended({ status: 'error', reason: 'error', message: 'the model call failed: 503', verdict: 'harness' })],
  'goal-not-pass.jsonl': [...turnOf(0, []), ended({ status: 'completed', reason: 'goal-reached', verdict: 'simulator' })],
  'finished.jsonl': [...turnOf(0, []), ended({ status: 'completed', reason: 'stop' })],
  'goal.jsonl': [{ kind: 'custom', name: 'budget', data: { maxToolCalls: 4 } }, ...turnOf(0, [['run', HTMLISH, false]]), ...turnOf(1, [['run', 'fine', false]]),
    ended({ status: 'completed', reason: 'goal-reached', verdict: 'pass' })],
  // A step still in progress when the run stopped.
  'open-step.jsonl': [{ kind: 'custom', name: 'step_graph', data: { steps: [{ id: 'ask', requires: [], preconditions: [] }, { id: 'book', requires: ['ask'], preconditions: ['stepSatisfied(ask)'] }], start: 'ask', terminals: ['book'] } },
    ...turnOf(0, [], [{ kind: 'step_selected', turn_index: 0, step_id: 'ask', method: 'start', candidates: [] }]),
    ...turnOf(1, [], [{ kind: 'step_selected', turn_index: 1, step_id: 'book', method: 'preconditions-ordered', candidates: [] }]),
    { kind: 'custom', name: 'step_states', data: { states: [{ stepId: 'ask', status: 'satisfied', attempts: 1 }, { stepId: 'book', status: 'in_progress', attempts: 1 }] } },
    ended({ status: 'stopped', reason: 'max-turns', verdict: 'agent' })],
  // A loop as the integrations record it now (turns, camelCase usage), and as they did (no turns, snake_case usage).
  'loop-turns.jsonl': [...turnOf(0, [['book', 'no tables', true]], [usage({ inputTokens: 10, outputTokens: 4, totalTokens: 14 })]),
    ...turnOf(1, [], [usage({ inputTokens: 20, outputTokens: 5, totalTokens: 25 })]), ended({ status: 'completed', reason: 'stop', verdict: 'pass' })],
  'loop-old.jsonl': [{ kind: 'run_started', identity: { run_id: 'loop-old' } }, usage({ input_tokens: 10, output_tokens: 4, finish_reason: 'tool-calls' }),
    { kind: 'tool_started', tool_call_id: 'c1', tool_name: 'book', args: {} }, { kind: 'tool_ended', tool_call_id: 'c1', tool_name: 'book', result: 'no tables', is_error: true },
    usage({ input_tokens: 7, output_tokens: 3, finish_reason: 'stop' }), ended({ status: 'completed', reason: 'stop' })],
};

/** Serves the crafted runs as samples; `fn(page, open)` where open(file) shows one. */
async function withCrafted(fn) {
  const dir = site('at-viewer-crafted-');
  try {
    mkdirSync(join(dir, 'runs'));
    for (const [f, payloads] of Object.entries(crafted)) writeFileSync(join(dir, 'runs', f), jsonl(f.replace('.jsonl', ''), payloads));
    writeFileSync(join(dir, 'runs/index.json'), JSON.stringify({ runs: Object.keys(crafted).map((f) => ({ file: f, title: f })) }));
    const server = await serveStatic(dir);
    try {
      await withPage(server.url, async (page, { errors }) => {
        await page.setViewportSize({ width: 1400, height: 800 });
        await ready(page);
        await fn(page, async (f) => {
          await page.locator('.sample', { hasText: f }).click();
          await page.waitForSelector(`#summary:has-text("${f}")`);
        });
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const cls = (loc) => loc.getAttribute('class');

/** Registers the tests of the crafted runs, in order. */
export function testCraftedRuns() {
  test('a run that did not reach its goal is red, its stop said in words, with its verdict', () => withCrafted(async (page, open) => {
    const expect = {
      // An old stream: "completed" for a max-turns end, no verdict; the core reads it as stopped, the agent's.
      'capped.jsonl': [false, "stopped: reached the turn limit (max-turns) · verdict: agent (the agent's failure)"],
      'stopped.jsonl': [false, "stopped: reached the turn limit (max-turns) · verdict: agent (the agent's failure)", 'maxTurns 1 reached'],
      'on-warning.jsonl': [false, "stopped on a warning · verdict: agent (the agent's failure)", 'Stall: the same call 4 times'],
      'errored.jsonl': [false, 'error: the model call failed: 503 · verdict: harness (a harness callback failed, not the agent)'],
      // Contradictory (completed, yet a simulator verdict): the verdict decides, as the core reads it.
      'goal-not-pass.jsonl': [false, "stopped: goal-reached · verdict: simulator (the simulated user's fault, not the agent's)"],
      'finished.jsonl': [true, 'completed · stop'],
      'goal.jsonl': [true, 'completed · goal-reached'],
    };
    for (const [f, [ok, text, title]] of Object.entries(expect)) {
      await open(f);
      for (const id of ['#outcome', '#stop-reason']) {
        assert.equal(await page.locator(id).textContent(), text, `${f} ${id}`);
        assert.match(await cls(page.locator(id)), ok ? /\bok\b/ : /\bbad\b/, `${f} ${id}`);
        assert.equal(await page.locator(id).getAttribute('title'), title ?? null, `${f} ${id}: the message on hover`);
      }
      // The run's own record and its button in the file list agree.
      assert.equal(await page.locator('#turns .ev', { hasText: 'run_ended' }).evaluate((e) => e.classList.contains('error')), !ok, f);
      assert.match(await cls(page.locator('.run-btn[aria-current="true"] small span')), ok ? /\bok\b/ : /\bbad\b/, f);
    }
    await open('capped.jsonl');
    const payloads = crafted['capped.jsonl'];
    const failed = payloads.filter((p) => p.kind === 'tool_ended' && p.is_error).length;
    assert.deepEqual([failed, payloads.filter((p) => p.kind === 'tool_ended').length], [5, 6]);
    assert.match(await page.locator('#summary .stats').textContent(), new RegExp(`${failed} failed`));
    await open('stopped.jsonl');
    assert.match(await page.locator('#summary .stats').textContent(), /^\d+ records(1 turn)0 calls/, 'one turn, in the singular');
  }));

  test('a step in progress is drawn dashed, and the legend names it (as every state drawn)', () => withCrafted(async (page, open) => {
    await open('open-step.jsonl');
    assert.match(await cls(page.locator('#graph .node[data-step="book"]')), /\bst-open\b/);
    assert.equal(await page.locator('#graph .legend .st-open').textContent(), 'in progress');
    const drawn = await page.locator('#graph .node').evaluateAll((ns) => ns.map((n) => [...n.classList].find((c) => c.startsWith('st-'))));
    for (const st of new Set(drawn)) assert.equal(await page.locator(`#graph .legend .${st}`).count(), 1, `a legend entry for ${st}`);
  }));

  test('the budget chart has labelled axes, and says in words what its lines are', () => withCrafted(async (page, open) => {
    await open('capped.jsonl'); // no budget record
    const labels = await page.locator('#budget svg .y-axis text').allTextContents();
    assert.ok(labels.includes('0%') && labels.includes('100%'), labels.join());
    assert.equal(await page.locator('#budget svg .y-axis .title').textContent(), "% of run's total");
    assert.equal(await page.locator('#budget svg .x-axis .title').textContent(), 'turn');
    assert.deepEqual((await page.locator('#budget svg .x-axis text:not(.title)').allTextContents()).map(Number), [0, 2], 'the first and last turn');
    const legend = await page.locator('#budget .budget-legend').textContent();
    assert.match(legend, /No budget limits were recorded for this run, so each line shows its share of the run's total/);
    assert.doesNotMatch(legend, /no limits recorded/);
    await open('goal.jsonl'); // a limit on tool calls only
    assert.equal(await page.locator('#budget svg .y-axis .title').textContent(), '% of limit or total');
    assert.match(await page.locator('#budget .budget-legend').textContent(), /No limit was recorded for tokens and time, so those lines show their share of the run's total/);
    assert.equal(await page.locator('#budget .limit').count(), 1);
  }));

  test('search marks the matching text inside its card, as text (not markup), and keeps the card marked', () => withCrafted(async (page, open) => {
    await open('goal.jsonl');
    const needle = '"<i>x';
    await page.fill('#q', needle);
    await page.waitForSelector('#match-count:has-text("matches")');
    const count = Number(/^(\d+) matches/.exec(await page.locator('#match-count').textContent())[1]);
    assert.equal(count, occurrences(HTMLISH, needle));
    assert.deepEqual(await page.locator('#turns mark').allTextContents(), [needle]);
    assert.equal(await page.locator('#turns .call.hit mark').count(), 1, 'the mark is in the card, which stays marked');
    assert.equal(await page.locator('#turns .call i').count(), 0, 'no <i> element made from the run\'s text');
    assert.equal(await page.locator('#turns .call.hit pre').last().textContent(), HTMLISH, 'the text reads as before');
    await page.check('#regex');
    await page.fill('#q', 'a < b &+');
    await page.waitForFunction(() => document.querySelector('#turns mark')?.textContent === 'a < b &&');
    await page.fill('#q', '');
    await page.waitForFunction(() => !document.querySelector('#turns mark'));
  }));

  test('loops: tokens come from the index, old snake_case usage still reads, and an empty chart says why', () => withCrafted(async (page, open) => {
    await open('loop-turns.jsonl');
    const camel = crafted['loop-turns.jsonl'].filter((p) => p.name === 'model_usage').map((p) => p.data.totalTokens);
    assert.match(await page.locator('#budget li.s-tokens').textContent(), new RegExp(`tokens ${camel[0]}$`));
    await page.locator('#outline a', { hasText: 'turn 1' }).click();
    assert.match(await page.locator('#budget li.s-tokens').textContent(), new RegExp(`tokens ${camel[0] + camel[1]}$`));
    await open('loop-old.jsonl');
    assert.match(await page.locator('#summary .stats').textContent(), /(^|\D)0 turns/);
    assert.match(await page.locator('#budget-empty').textContent(), /^Nothing to chart: this run recorded no turns \(no turn_started or iteration records\)/);
    const cards = await page.locator('#turns .ev', { hasText: / tokens/ }).allTextContents();
    const old = crafted['loop-old.jsonl'].filter((p) => p.name === 'model_usage').map((p) => p.data);
    assert.deepEqual(cards.map((c) => c.replace(/\s+/g, ' ').trim()),
      old.map((d) => `custom ${d.input_tokens + d.output_tokens} tokens: ${d.input_tokens} in, ${d.output_tokens} out · finish ${d.finish_reason}`));
  }));
}
