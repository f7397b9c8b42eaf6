// Executes the README's examples: ```js test=node``` blocks in a Node ESM
// consumer, test=browser in headless Chromium, test=workerd in Miniflare,
// each against the installed tarball. `// responds: X` must appear in a
// Worker's response body.
//
// `// prints: X` is exact: a group of consecutive `// prints:` lines (at the
// top level of the block, column 0) must equal, whole line for whole line and
// nothing more, what the top-level statement right before the group printed.
// To know which lines that statement printed, the block runs with a marker
// line printed before that statement and one after it (inserted on the same
// source lines, so line numbers in stack traces do not move). Node's stdout
// and the page's console.log messages are both checked this way.
//
// README_MD=<file> runs the examples of another Markdown file (to see a wrong
// expectation fail without touching README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { worker } from './workerd.mjs';
import { startChatServer } from './chat-server.mjs';

const path = (p) => fileURLToPath(new URL(p, import.meta.url));
const readmePath = process.env.README_MD ?? path('../../README.md');
const readme = readFileSync(readmePath, 'utf8');

// Printed around the statement a group describes; never README output (they start with a control character).
const START = '\u001eprints-start ';
const END = '\u001eprints-end ';
const isMark = (l) => l.startsWith('\u001e');

/**
 * Finds a block's `// prints:` groups (consecutive comment lines) and the
 * top-level statement each one follows; returns the code with the markers
 * in place, the groups, and the comments that are not where they can be
 * checked (indented, inside a statement, or with nothing before them).
 */
function instrument(code, firstLine = 1) {
  const source = ts.createSourceFile('block.mjs', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const lines = code.split('\n');
  const offsets = [];
  lines.reduce((at, l) => (offsets.push(at), at + l.length + 1), 0);
  const groups = [];
  const misplaced = [];
  const inserts = []; // [offset, text]
  lines.forEach((text, i) => {
    const m = /^\/\/ prints: (.*)$/.exec(text);
    if (!m) {
      if (/\/\/\s*prints\s*:/.test(text)) misplaced.push(`line ${firstLine + i}: ${text.trim()} (not at column 0 or not "// prints: ")`);
      return;
    }
    if (i > 0 && /^\/\/ prints: /.test(lines[i - 1])) return void groups.at(-1).want.push(m[1]);
    const pos = offsets[i];
    if (source.statements.some((st) => st.getStart() < pos && pos < st.end)) {
      misplaced.push(`line ${firstLine + i}: ${text} (inside a statement)`);
      return;
    }
    const before = source.statements.filter((st) => st.end <= pos).at(-1);
    if (!before) {
      misplaced.push(`line ${firstLine + i}: ${text} (no statement before it)`);
      return;
    }
    const k = groups.length;
    groups.push({ line: firstLine + i, want: [m[1]] });
    inserts.push([before.getStart(), `;console.log(${JSON.stringify(START + k)});`], [pos, `;console.log(${JSON.stringify(END + k)});`]);
  });
  let out = code;
  for (const [at, text] of inserts.sort((a, b) => b[0] - a[0])) out = out.slice(0, at) + text + out.slice(at);
  return { code: out, groups, misplaced };
}

/**
 * Checks printed lines (markers included) against the groups; returns one
 * message per group that does not match exactly, none when all do.
 */
function checkPrints(groups, printed) {
  const problems = [];
  groups.forEach(({ line, want }, k) => {
    const count = (mark) => printed.filter((l) => l === mark).length;
    const [starts, ends] = [count(START + k), count(END + k)];
    const from = printed.indexOf(START + k);
    const to = printed.indexOf(END + k);
    if (starts !== 1 || ends !== 1 || to < from) {
      problems.push(`README line ${line}: the statement before "// prints: ${want[0]}" ${starts + ends ? `ran ${starts} time(s) (and its comment was passed ${ends} time(s))` : 'was never reached'}`);
      return;
    }
    const got = printed.slice(from + 1, to);
    if (got.length !== want.length || got.some((g, i) => g !== want[i])) {
      const show = (ls) => (ls.length ? ls.map((l) => `  ${JSON.stringify(l)}`).join('\n') : '  (nothing)');
      problems.push(`README line ${line}: expected the statement before it to print exactly\n${show(want)}\nbut it printed\n${show(got)}`);
    }
  });
  return problems;
}

const DONE = '\u001ereadme-block-done';
const withoutMarks = (lines) => lines.filter((l) => !isMark(l)).join('\n');

const blocks = [...readme.matchAll(/^```js test=(\w+)\n([\s\S]*?)^```$/gm)].map((m, i) => {
  const code = m[2];
  const line = readme.slice(0, m.index).split('\n').length + 1;
  const responds = [...code.matchAll(/^\/\/ responds: (.*)$/gm)].map((x) => x[1]);
  const { code: run, groups, misplaced } = instrument(code, line);
  return { runtime: m[1], code, run, line, index: i, groups, misplaced, responds };
});

test('the // prints: checker matches whole lines of the statement each comment follows', () => {
  const run = ({ code }) => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\n').slice(0, -1);
  };
  const problems = (code) => {
    const block = instrument(code);
    assert.deepEqual(block.misplaced, []);
    return checkPrints(block.groups, run(block));
  };
  const right = instrument("console.log(5, true);\n// prints: 5 true\nconsole.log('x');\nconsole.log(\n  'y\\nz',\n);\n// prints: y\n// prints: z\n");
  assert.deepEqual(right.groups.map((g) => g.want), [['5 true'], ['y', 'z']]);
  assert.equal(right.code.split('\n').length, 9, 'the markers add no lines');
  assert.deepEqual(checkPrints(right.groups, run(right)), []);
  // A substring of a line is not the line ("true" is inside "5 true").
  assert.equal(problems("console.log(5, true);\n// prints: true\n").length, 1);
  // Extra text around the expected line fails too.
  assert.equal(problems("console.log('ok ');\n// prints: ok\n").length, 1);
  // A line printed by a later statement does not satisfy an earlier comment.
  assert.equal(problems('console.log(1);\n// prints: 2\nconsole.log(2);\n// prints: 2\n').length, 1);
  // Nor a line printed by an earlier statement, when the one the comment follows printed nothing.
  assert.equal(problems('console.log(1);\nconst x = 1;\n// prints: 1\n').length, 1);
  // Two comments after one statement are its lines in order, all of them.
  assert.equal(problems("console.log('a\\nb');\n// prints: b\n// prints: a\n").length, 1);
  assert.equal(problems("console.log('a\\nb');\n// prints: a\n").length, 1);
  // A comment never reached (the block returned or threw before it) fails.
  assert.equal(checkPrints([{ line: 1, want: ['x'] }], ['x']).length, 1);
  // A comment inside a loop, a function or an expression is reported, not skipped.
  assert.equal(instrument('for (;;) {\n  // prints: x\n}\n', 10).misplaced.length, 1);
  assert.equal(instrument('for (;;) {\n// prints: x\n}\n', 10).misplaced.length, 1);
  assert.equal(instrument('// prints: x\n').misplaced.length, 1);
});

test('every // prints: and // responds: comment of the README is where it can be checked', () => {
  assert.deepEqual(blocks.flatMap((b) => b.misplaced), []);
  assert.deepEqual(blocks.flatMap((b) => [...b.code.matchAll(/^.+\/\/\s*responds\s*:.*$/gm)].map((m) => m[0])), []);
  // A Worker prints nothing the test reads, a script responds to nothing: such a comment would go unchecked.
  assert.deepEqual(blocks.filter((b) => b.runtime === 'workerd' && b.groups.length).map((b) => b.line), []);
  assert.deepEqual(blocks.filter((b) => b.runtime !== 'workerd' && b.responds.length).map((b) => b.line), []);
  assert.ok(blocks.reduce((n, b) => n + b.groups.length, 0) > 0, 'the README has // prints: comments');
});

test('the README has a runnable quickstart for every runtime', () => {
  assert.deepEqual([...new Set(blocks.map((b) => b.runtime))].sort(), ['browser', 'node', 'workerd']);
});

for (const b of blocks.filter((b) => b.runtime === 'node')) {
  test(`README example at line ${b.line} runs in Node`, () => {
    const file = path(`../consumers/node-esm/.readme-${b.index}.mjs`);
    writeFileSync(file, b.run); // with the markers of instrument()
    try {
      const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      const printed = r.stdout.split('\n');
      assert.deepEqual(checkPrints(b.groups, printed), [], `output:\n${withoutMarks(printed)}`);
    } finally {
      rmSync(file, { force: true });
    }
  });
}

for (const b of blocks.filter((b) => b.runtime === 'browser')) {
  test(`README example at line ${b.line} runs in Chromium`, async () => {
    const page = path(`../consumers/browser/.readme-${b.index}.html`);
    writeFileSync(page, `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": { "agent-trajectories": "./node_modules/agent-trajectories/web.js" } }</script>
<script type="module">${b.run}\nconsole.log(${JSON.stringify(DONE)});</script>`);
    const server = await serveStatic(path('..'));
    try {
      const { logs, errors } = await withPage(`${server.url}consumers/browser/.readme-${b.index}.html`, async (p, seen) => {
        // The block's last console message: every message before it has arrived.
        const deadline = Date.now() + 30_000;
        while (!seen.logs.includes(`log: ${DONE}`) && !seen.errors.length && Date.now() < deadline) await p.waitForTimeout(50);
        return seen;
      });
      assert.deepEqual(errors, []);
      assert.ok(logs.includes(`log: ${DONE}`), `the block never finished; console:\n${logs.join('\n')}`);
      // console.log messages, a line each (a message with newlines is several lines, as on a terminal).
      const printed = logs.filter((l) => l.startsWith('log: ')).flatMap((l) => l.slice('log: '.length).split('\n'));
      assert.deepEqual(checkPrints(b.groups, printed), [], `console:\n${withoutMarks(printed)}`);
    } finally {
      await server.close();
      rmSync(page, { force: true });
    }
  });
}

for (const b of blocks.filter((b) => b.runtime === 'workerd')) {
  test(`README example at line ${b.line} runs in workerd`, async () => {
    const file = path(`../consumers/workerd/.readme-${b.index}.mjs`);
    // Miniflare resolves no bare names; wrangler would pick this file by the "workerd" condition.
    writeFileSync(file, b.code.replaceAll("from 'agent-trajectories'", "from './node_modules/agent-trajectories/workerd.js'"));
    // A scripted OpenAI-compatible endpoint for the examples that generate.
    const llm = await startChatServer();
    const mf = worker(file, { bindings: { LLM_URL: llm.url, LLM_KEY: 'readme-key' } });
    try {
      const res = await mf.dispatchFetch('http://localhost/some/path');
      const body = await res.text();
      assert.equal(res.status, 200, body);
      for (const r of b.responds) assert.ok(body.includes(r), `expected response to include ${r}, got:\n${body}`);
    } finally {
      await mf.dispose();
      await llm.close();
      rmSync(file, { force: true });
    }
  });
}
