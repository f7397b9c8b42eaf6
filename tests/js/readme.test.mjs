// Executes the examples of the README and of every docs/*.md page:
// ```js test=node``` blocks in a Node ESM consumer, test=browser in headless
// Chromium, test=workerd in Miniflare, each against the installed tarball,
// one test per block named by file and line (`docs/capture.md:42`).
// `// responds: X` must appear in a Worker's response body.
//
// `// prints: X` is exact: a group of consecutive `// prints:` lines (at the
// top level of the block, column 0) must equal, whole line for whole line and
// nothing more, what the top-level statement right before the group printed.
// To know which lines that statement printed, the block runs with a marker
// line printed before that statement and one after it (inserted on the same
// source lines, so line numbers in stack traces do not move). Node's stdout
// and the page's console.log messages are both checked this way.
//
// The Node blocks also type-check as a strict TypeScript app's modules
// (`js test=node tsc=no` keeps one out, for a reason its page gives).
//
// Every ```js block must name its runtime (an example that is not run would
// go stale unseen), or be a file a suite runs (```js file=tests/...```: the
// block is that file, its import of the package spelled as an app writes
// it, 'agent-trajectories'). Every relative Markdown link must point to an existing
// file, and its anchor, if any, to a heading of the target page (GitHub's
// slugs).
//
// README_MD=<file> checks and runs one Markdown file only (a page of docs/,
// or another file, to see a wrong expectation fail without touching the
// pages).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { serveStatic } from '../../scripts/serve.mjs';
import { withPage } from './chromium.mjs';
import { worker } from './workerd.mjs';
import { startChatServer } from './chat-server.mjs';

const path = (p) => fileURLToPath(new URL(p, import.meta.url));
const root = path('../../');
const readmeMd = resolve(root, 'README.md');
/** The pages checked: README_MD alone, else the README and every docs/*.md. */
const pagePaths = process.env.README_MD
  ? [resolve(process.env.README_MD)]
  : [readmeMd, ...readdirSync(resolve(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => resolve(root, 'docs', f))];
/** A page's name in test names and messages: its path from the repository root. */
const nameOf = (file) => (relative(root, file).startsWith('..') ? file : relative(root, file));
const pages = pagePaths.map((file) => ({ file, name: nameOf(file), text: readFileSync(file, 'utf8') }));

// Printed around the statement a group describes; never an example's output (they start with a control character).
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
function checkPrints(groups, printed, where = 'line ') {
  const problems = [];
  groups.forEach(({ line, want }, k) => {
    const count = (mark) => printed.filter((l) => l === mark).length;
    const [starts, ends] = [count(START + k), count(END + k)];
    const from = printed.indexOf(START + k);
    const to = printed.indexOf(END + k);
    if (starts !== 1 || ends !== 1 || to < from) {
      problems.push(`${where}${line}: the statement before "// prints: ${want[0]}" ${starts + ends ? `ran ${starts} time(s) (and its comment was passed ${ends} time(s))` : 'was never reached'}`);
      return;
    }
    const got = printed.slice(from + 1, to);
    if (got.length !== want.length || got.some((g, i) => g !== want[i])) {
      const show = (ls) => (ls.length ? ls.map((l) => `  ${JSON.stringify(l)}`).join('\n') : '  (nothing)');
      problems.push(`${where}${line}: expected the statement before it to print exactly\n${show(want)}\nbut it printed\n${show(got)}`);
    }
  });
  return problems;
}

const DONE = '\u001ereadme-block-done';
const withoutMarks = (lines) => lines.filter((l) => !isMark(l)).join('\n');

/** The fenced code blocks of a page, outside of which links and headings are read. */
const FENCE = /^```[^\n]*\n[\s\S]*?^```$/gm;
const lineAt = (text, index) => text.slice(0, index).split('\n').length;

const blocks = pages.flatMap((page) =>
  [...page.text.matchAll(/^```js test=(\w+)( tsc=no)?\n([\s\S]*?)^```$/gm)].map((m) => {
    const code = m[3];
    const typed = !m[2];
    const fence = lineAt(page.text, m.index);
    const line = fence + 1; // the block's first line of code
    const responds = [...code.matchAll(/^\/\/ responds: (.*)$/gm)].map((x) => x[1]);
    const { code: run, groups, misplaced } = instrument(code, line);
    // A file name no other block (of any page, or of another run of this file) uses.
    const tag = `${page.name.replace(/[^A-Za-z0-9]+/g, '-')}-${fence}-${process.pid}`;
    return { page: page.name, where: `${page.name}:${fence}`, runtime: m[1], typed, code, run, line, tag, groups, misplaced, responds };
  }),
);

/** GitHub's anchor of a heading: its text as rendered, lowercased, punctuation other than - and _ dropped, spaces to -. */
function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link: its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, ''); // code and emphasis marks
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, duplicates numbered as GitHub does (x, x-1, x-2). */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const m of text.replace(FENCE, '').matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** The relative links of a page (not in code): [text](target), with their line. */
function links(text) {
  const prose = text.replace(FENCE, (block) => block.replace(/[^\n]/g, ' ')).replace(/(`+)[^`\n][\s\S]*?\1/g, (code) => code.replace(/[^\n]/g, ' '));
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => ({ target: m[1], line: lineAt(prose, m.index) }))
    .filter(({ target }) => !/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(target));
}

/** What is wrong with a page's relative links: a missing file, or an anchor no heading of the target has. */
function brokenLinks(file, text, read = (f) => readFileSync(f, 'utf8'), exists = existsSync) {
  const problems = [];
  for (const { target, line } of links(text)) {
    const hash = target.indexOf('#');
    const [pathPart, anchor] = hash < 0 ? [target, null] : [target.slice(0, hash), decodeURIComponent(target.slice(hash + 1))];
    const to = pathPart ? resolve(dirname(file), decodeURIComponent(pathPart)) : file;
    if (!exists(to)) {
      problems.push(`${nameOf(file)}:${line}: ${target}: no such file (${nameOf(to)})`);
      continue;
    }
    if (anchor === null) continue;
    if (!to.endsWith('.md')) {
      problems.push(`${nameOf(file)}:${line}: ${target}: an anchor into a file that is not Markdown`);
      continue;
    }
    const known = anchors(to === file ? text : read(to));
    if (!known.has(anchor)) problems.push(`${nameOf(file)}:${line}: ${target}: no heading "#${anchor}" in ${nameOf(to)} (it has ${[...known].map((a) => `#${a}`).join(', ')})`);
  }
  return problems;
}

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

test('every // prints: and // responds: comment is where it can be checked', () => {
  assert.deepEqual(blocks.flatMap((b) => b.misplaced.map((m) => `${b.page} ${m}`)), []);
  assert.deepEqual(blocks.flatMap((b) => [...b.code.matchAll(/^.+\/\/\s*responds\s*:.*$/gm)].map((m) => `${b.where}: ${m[0]}`)), []);
  // A Worker prints nothing the test reads, a script responds to nothing: such a comment would go unchecked.
  assert.deepEqual(blocks.filter((b) => b.runtime === 'workerd' && b.groups.length).map((b) => b.where), []);
  assert.deepEqual(blocks.filter((b) => b.runtime !== 'workerd' && b.responds.length).map((b) => b.where), []);
  if (!process.env.README_MD) assert.ok(blocks.reduce((n, b) => n + b.groups.length, 0) > 0, 'the pages have // prints: comments');
});

test('every JavaScript block names a runtime it runs in, or the tested file it is', () => {
  const RUNTIMES = ['node', 'browser', 'workerd'];
  const unrun = pages.flatMap((page) =>
    [...page.text.matchAll(/^```(js|javascript|mjs|jsx)\b(.*)$/gm)]
      .filter((m) => !new RegExp(`^ (test=(${RUNTIMES.join('|')})( tsc=no)?|file=tests/\\S+)$`).test(m[2]))
      .map((m) => `${page.name}:${lineAt(page.text, m.index)}: ${m[0]}`),
  );
  assert.deepEqual(unrun, [], `runtimes: ${RUNTIMES.map((r) => `test=${r}`).join(', ')}, or file=tests/...`);
});

test('a block that is a tested file is that file, word for word', () => {
  const files = pages.flatMap((page) => [...page.text.matchAll(/^```js file=(\S+)\n([\s\S]*?)^```$/gm)].map((m) => ({ where: `${page.name}:${lineAt(page.text, m.index)}`, file: m[1], code: m[2] })));
  for (const { where, file, code } of files) {
    assert.ok(existsSync(resolve(root, file)), `${where}: ${file} does not exist`);
    // The suite imports the installed package by path; an app by its name.
    const tested = readFileSync(resolve(root, file), 'utf8').replace(/'\.\/node_modules\/agent-trajectories\/[\w.]+'/g, "'agent-trajectories'");
    assert.equal(code, tested, `${where}: the block is not ${file} (copy the file into the block)`);
  }
});

test('the README has a runnable quickstart for every runtime', { skip: !pagePaths.includes(readmeMd) && 'README.md is not among the pages checked' }, () => {
  assert.deepEqual([...new Set(blocks.filter((b) => b.page === 'README.md').map((b) => b.runtime))].sort(), ['browser', 'node', 'workerd']);
});

test('the link checker follows GitHub\'s anchors and refuses what does not exist', () => {
  assert.equal(slug('Objective loop: BackgroundAgentRunner'), 'objective-loop-backgroundagentrunner');
  assert.equal(slug("The package's own `custom` records"), 'the-packages-own-custom-records');
  assert.equal(slug('One file, to share'), 'one-file-to-share');
  assert.equal(slug('snake_case and -dashes- (kept)'), 'snake_case-and--dashes--kept');
  assert.equal(slug('[Linked](x.md) heading'), 'linked-heading');
  assert.deepEqual([...anchors('# A\n## A\n```sh\n# not a heading\n```\n### b c ##\n')], ['a', 'a-1', 'b-c']);
  const files = { '/d/README.md': '# Top\n## Install\n', '/d/docs/x.md': '# X\n## Sinks\n' };
  // The page checked is its own text with the links under test added.
  const check = (file, text) => brokenLinks(file, `${files[file]}${text}\n`, (f) => files[f], (f) => f in files);
  const page = '/d/docs/x.md';
  assert.deepEqual(check(page, '[a](../README.md#install) [b](#sinks) [c](x.md) [d](https://example.com/#nope) `[e](nope.md)`'), []);
  assert.equal(check(page, '```md\n[e](nope.md)\n```\n').length, 0, 'links in code blocks are not links');
  assert.equal(check(page, '[a](nope.md)').length, 1);
  assert.equal(check(page, '[a](../README.md#installing)').length, 1);
  assert.equal(check(page, '[a](#sink)').length, 1);
  assert.equal(check(page, '[a](README.md)').length, 1, 'resolved from the page, not the root');
});

test('every relative link points to an existing file, and every anchor to a heading', () => {
  assert.deepEqual(pages.flatMap((p) => brokenLinks(p.file, p.text)), []);
});

test('every docs page links back to the README', { skip: !!process.env.README_MD && 'one file checked (README_MD)' }, () => {
  const docs = pages.filter((p) => p.name.startsWith('docs/'));
  assert.ok(docs.length > 0, 'no docs/*.md pages');
  assert.deepEqual(docs.filter((p) => !links(p.text).some(({ target }) => resolve(dirname(p.file), target.split('#')[0]) === readmeMd)).map((p) => p.name), []);
});

// What a TypeScript user copies: every Node example type-checks as an ES
// module of a strict project (the README's settings; `tsc=no` marks the
// one a third-party type mismatch keeps out, said beside it).
test('the Node examples type-check under tsc --strict', () => {
  const typed = blocks.filter((b) => b.runtime === 'node' && b.typed);
  const files = typed.map((b) => {
    const file = path(`../consumers/node-esm/.readme-types-${b.tag}.mts`);
    writeFileSync(file, `${b.code}\nexport {};\n`);
    return file;
  });
  try {
    const options = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.esnext.disposable.d.ts', 'lib.dom.d.ts'], types: ['node'], typeRoots: [path('../node_modules/@types')], module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true };
    const program = ts.createProgram(files, options);
    const said = ts.getPreEmitDiagnostics(program).filter((d) => files.includes(d.file?.fileName ?? '')).map((d) => {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
      const b = typed[files.indexOf(d.file.fileName)];
      return `${b.page}:${b.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    assert.deepEqual(said, []);
    assert.ok(typed.length > 0 || process.env.README_MD, 'no Node example was type-checked');
  } finally {
    for (const f of files) rmSync(f, { force: true });
  }
});

for (const b of blocks.filter((b) => b.runtime === 'node')) {
  test(`${b.where} runs in Node`, () => {
    const file = path(`../consumers/node-esm/.readme-${b.tag}.mjs`);
    writeFileSync(file, b.run); // with the markers of instrument()
    try {
      const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      const printed = r.stdout.split('\n');
      assert.deepEqual(checkPrints(b.groups, printed, `${b.page}:`), [], `output:\n${withoutMarks(printed)}`);
    } finally {
      rmSync(file, { force: true });
    }
  });
}

for (const b of blocks.filter((b) => b.runtime === 'browser')) {
  test(`${b.where} runs in Chromium`, async () => {
    const page = path(`../consumers/browser/.readme-${b.tag}.html`);
    writeFileSync(page, `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": { "agent-trajectories": "./node_modules/agent-trajectories/web.js" } }</script>
<script type="module">${b.run}\nconsole.log(${JSON.stringify(DONE)});</script>`);
    const server = await serveStatic(path('..'));
    try {
      const { logs, errors } = await withPage(`${server.url}consumers/browser/.readme-${b.tag}.html`, async (p, seen) => {
        // The block's last console message: every message before it has arrived.
        const deadline = Date.now() + 30_000;
        while (!seen.logs.includes(`log: ${DONE}`) && !seen.errors.length && Date.now() < deadline) await p.waitForTimeout(50);
        return seen;
      });
      assert.deepEqual(errors, []);
      assert.ok(logs.includes(`log: ${DONE}`), `the block never finished; console:\n${logs.join('\n')}`);
      // console.log messages, a line each (a message with newlines is several lines, as on a terminal).
      const printed = logs.filter((l) => l.startsWith('log: ')).flatMap((l) => l.slice('log: '.length).split('\n'));
      assert.deepEqual(checkPrints(b.groups, printed, `${b.page}:`), [], `console:\n${withoutMarks(printed)}`);
    } finally {
      await server.close();
      rmSync(page, { force: true });
    }
  });
}

for (const b of blocks.filter((b) => b.runtime === 'workerd')) {
  test(`${b.where} runs in workerd`, async () => {
    const file = path(`../consumers/workerd/.readme-${b.tag}.mjs`);
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
