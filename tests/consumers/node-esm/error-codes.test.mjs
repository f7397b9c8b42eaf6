// Every error code string, pinned through the installed tarball: each code
// of src/core/error.rs (`ErrorCode::as_str`) is produced by a real call of
// the public API and compared exactly. And the code list exists once: every
// copy (the docs' table and the TypeScript `ErrorCode` type, both generated from the core, the
// codes the JS layer throws by name) must hold exactly the Rust set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as at from 'agent-trajectories';

const repo = (p) => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
const installed = fileURLToPath(new URL('./node_modules/agent-trajectories/', import.meta.url));
const read = (file) => readFileSync(file, 'utf8');
const sorted = (xs) => [...xs].sort();

// ---- the list, from the Rust core -------------------------------------------------

const errorRs = read(repo('src/core/error.rs'));
/** `ErrorCode::X => "CODE"` arms of `as_str`, as [variant, code]. */
const asStr = (() => {
  const body = errorRs.match(/pub const fn as_str\(self\) -> &'static str \{\s*match self \{([\s\S]*?)\n\s*\}\n\s*\}/);
  assert.ok(body, 'src/core/error.rs: ErrorCode::as_str and its match were not found');
  return [...body[1].matchAll(/ErrorCode::(\w+)\s*=>\s*"([^"]*)"/g)].map((m) => [m[1], m[2]]);
})();
const CODES = asStr.map(([, code]) => code);

test('src/core/error.rs: as_str names every ErrorCode variant once, ALL lists each once', () => {
  assert.ok(CODES.length >= 18, `only ${CODES.length} codes parsed from as_str`);
  const variants = [...errorRs.match(/pub enum ErrorCode \{([\s\S]*?)\n\}/)[1].matchAll(/^\s*(\w+),$/gm)].map((m) => m[1]);
  const all = [...errorRs.match(/pub const ALL: \[ErrorCode; (\d+)\] = \[([\s\S]*?)\];/)[2].matchAll(/ErrorCode::(\w+)/g)].map((m) => m[1]);
  assert.deepEqual(sorted(asStr.map(([v]) => v)), sorted(variants), 'as_str arms = enum variants');
  assert.deepEqual(sorted(all), sorted(variants), 'ErrorCode::ALL = enum variants');
  assert.equal(new Set(CODES).size, CODES.length, 'no code string twice');
  for (const code of CODES) assert.match(code, /^[A-Z][A-Z_]*[A-Z]$/, 'codes are SCREAMING_SNAKE_CASE');
});

// ---- each code from a real call ---------------------------------------------------

/** What `fn` threw or rejected with (it must do one of them). */
async function caught(fn) {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  assert.fail('expected an error, none was thrown');
}

/**
 * A copy of the installed package beside it in node_modules (so its
 * dependencies resolve as they do for the original): its modules load fresh
 * (not initialised), and a file can go missing.
 */
async function withPackageCopy(fn) {
  const dir = mkdtempSync(join(installed, '..', '.at-error-codes-'));
  try {
    cpSync(installed, dir, { recursive: true });
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const T0 = 1_700_000_000_000;
const line = (seq) => JSON.stringify({ seq, run_id: 'r', recorded_at_unix_ms: T0 + seq, payload: { kind: 'turn_started', turn_index: seq } });
const oneStep = (step = {}, top = {}) => ({
  goal: 'book a table',
  persona: { description: 'a diner' },
  steps: { steps: [{ id: 'ask', instruction: 'ask for a table', ...step }], start: 'ask', terminals: ['ask'] },
  ...top,
});
const answers = { respond: async () => [{ role: 'assistant', content: 'Booked.' }] };

/** Calls that throw or reject with an Error carrying the code. */
const thrown = {
  INVALID_ARGUMENT: () => new at.TrajectoryRecorder(new at.MemorySink(), { onSinkError: 'sometimes' }),
  INVALID_MESSAGE: () => at.normalizeMessages([{ role: 'user', content: 7 }]),
  INVALID_RECORD: () => new at.TrajectoryRecorder(new at.MemorySink()).record({ kind: 'no_such_kind' }),
  UNSUPPORTED_SCHEMA_VERSION: () => at.parseTrajectoryJsonl(JSON.stringify({ ...JSON.parse(line(0)), schema_version: 99 })),
  JSONL_PARSE: () => at.parseTrajectoryJsonl(`${line(0)}\nnot json`),
  SINK_FAILED: () => new at.TrajectoryRecorder({ record() { throw new Error('disk full'); } }, { onSinkError: 'fail' }).record({ kind: 'turn_started' }),
  CALLBACK_FAILED: () => new at.TrajectoryRecorder(new at.MemorySink(), { clock: () => { throw new Error('no clock'); } }).record({ kind: 'turn_started' }),
  // The browser entry (web.js of a fresh copy: the Node entry shares and
  // initialises the glue) before init(), then an init() that cannot load.
  NOT_INITIALIZED: () => withPackageCopy(async (dir) => {
    const web = await import(pathToFileURL(join(dir, 'web.js')).href);
    const before = await caught(() => new web.MemorySink());
    assert.ok(before instanceof Error && before.code === 'NOT_INITIALIZED', `before init(): ${before?.code} ${before?.message}`);
    // The viewer without the package's files beside it (a bundle that left them behind).
    rmSync(join(dir, 'viewer.html'));
    const viewer = await import(pathToFileURL(join(dir, 'viewer.js')).href);
    const missing = await caught(() => viewer.viewerHtml([]));
    assert.ok(missing instanceof Error && missing.code === 'NOT_INITIALIZED' && /leave agent-trajectories out of the bundle/.test(missing.message), `viewer.html missing: ${missing?.code} ${missing?.message}`);
    await web.init(new Response(new Uint8Array([0, 1, 2, 3]), { headers: { 'content-type': 'application/wasm' } }));
  }),
  BUSY: async () => {
    const runner = new at.BackgroundAgentRunner({ model: () => new Promise((done) => setTimeout(() => done('status: completed'), 20)) });
    const first = runner.run('first');
    try {
      await runner.run('second');
    } finally {
      await first;
    }
  },
  // No public call reaches INTERNAL in a sound install (it means a bug of the
  // package): a copy of the package whose viewer.html lost the place for the
  // data does. (One with viewer.html missing is a bundle that left the
  // package's files behind: NOT_INITIALIZED, with what to do.)
  INTERNAL: () => withPackageCopy(async (dir) => {
    const page = join(dir, 'viewer.html');
    writeFileSync(page, readFileSync(page, 'utf8').replace('<!--at-data-->', ''));
    const viewer = await import(pathToFileURL(join(dir, 'viewer.js')).href);
    await viewer.viewerHtml([]);
  }),
  INVALID_TRAJECTORY: () => at.createTrajectory({ ...oneStep(), steps: { steps: [{ id: 'ask', instruction: 'a' }, { id: 'ask', instruction: 'b' }], start: 'ask', terminals: ['ask'] } }, answers),
  REPLAY_MISS: async () => {
    const rec = at.recordingModel(async () => 'hello');
    await rec({ purpose: 'user-message', messages: [{ role: 'user', content: 'hi' }] });
    await at.replayModel(rec.recording)({ purpose: 'user-message', messages: [{ role: 'user', content: 'something else' }] });
  },
  SEQ_GAP: () => at.parseTrajectoryJsonl([line(0), line(2)].join('\n')),
  VFS_PATH: () => new at.BackgroundAgentRunner({ model: async () => 'x' }).run({ objective: 'x', hostMounts: [{ path: '../up', files: { a: 'b' } }] }),
  VFS_LIMIT: () => new at.BackgroundAgentRunner({ model: async () => 'x', config: { maxFileBytes: 4 } }).run({ objective: 'x', hostMounts: [{ path: 'd', files: { a: 'too long' } }] }),
};

/**
 * Codes no public call throws: a run reports them as data, in its end's
 * `error` ({ code, message, side }, a plain object, not an Error).
 */
const reported = {
  TIMEOUT: async () => (await at.runTrajectory(at.createTrajectory(oneStep({ timeoutMs: 10 }), { respond: () => new Promise(() => {}) }), { userModel: async () => 'A table, please.', clock: () => T0 })).end.error,
  EMPTY_USER_MESSAGE: async () => (await at.runTrajectory(at.createTrajectory(oneStep(), answers), { userModel: async () => '  ', clock: () => T0 })).end.error,
  SIMULATOR_ISSUE: async () => (await at.runTrajectory(at.createTrajectory(oneStep({}, { simulator: { retries: 1 } }), answers), { userModel: async () => 'Assistant: how can I help?', clock: () => T0 })).end.error,
};

test('every code of as_str has a call here that produces it, and nothing else does', () => {
  assert.deepEqual(sorted([...Object.keys(thrown), ...Object.keys(reported)]), sorted(CODES));
});

for (const code of CODES) {
  if (thrown[code]) {
    test(`${code}: thrown as an Error with err.code === '${code}'`, async () => {
      const err = await caught(thrown[code]);
      assert.ok(err instanceof Error, `not an Error: ${err}`);
      assert.equal(err.name, 'AgentTrajectoriesError', err.message);
      assert.equal(err.code, code, err.message);
      assert.ok(err.message.length > 0);
    });
  } else if (reported[code]) {
    test(`${code}: reported in a run's end.error with code === '${code}' (no public call throws it)`, async () => {
      const error = await reported[code]();
      assert.ok(error && typeof error === 'object', `no end.error: ${JSON.stringify(error)}`);
      assert.equal(error.code, code, error.message);
      assert.equal(typeof error.message, 'string');
      assert.equal(error.side, code === 'TIMEOUT' ? 'agent' : 'user-simulator');
    });
  }
}

// ---- the hand-kept copies of the list ---------------------------------------------

/** The codes of the generated error table of docs/errors.md. */
function docsTable(text, where) {
  const section = text.match(/<!-- error-codes:start -->\n([\s\S]*?)<!-- error-codes:end -->/);
  assert.ok(section, `${where}: no error-codes markers`);
  const rows = [...section[1].matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
  assert.ok(rows.length > 0, `${where}: the error-codes section has no code table`);
  return rows;
}

/** The string literals of `type ErrorCode = 'A' | 'B' ...;` in a TypeScript text. */
function tsType(text, where) {
  const m = text.match(/export type ErrorCode\s*=([^;]*);/);
  assert.ok(m, `${where}: no export type ErrorCode`);
  return [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1]);
}

test("docs/errors.md's error table lists exactly the codes of as_str, each once", () => {
  const rows = docsTable(read(repo('docs/errors.md')), 'docs/errors.md');
  assert.equal(new Set(rows).size, rows.length, 'a code listed twice');
  assert.deepEqual(sorted(rows), sorted(CODES));
});

test("the generated ErrorCode type (src/js/vocabulary.d.ts) and the tarball's index.d.cts (which index.d.ts re-exports) list exactly the codes of as_str", () => {
  assert.deepEqual(sorted(tsType(read(repo('src/js/vocabulary.d.ts')), 'src/js/vocabulary.d.ts')), sorted(CODES));
  const declared = readdirSync(installed).filter((f) => /\.d\.[cm]?ts$/.test(f) && /export type ErrorCode\s*=/.test(read(join(installed, f))));
  assert.ok(declared.includes('index.d.cts'), `ErrorCode declared in ${declared}`);
  for (const f of declared) assert.deepEqual(sorted(tsType(read(join(installed, f)), f)), sorted(CODES), f);
});

test('every code a declaration types by name (`code: \'A\' | \'B\'`, src/js/*.d.ts and the tarball\'s) is one of as_str', () => {
  const named = [];
  const scan = (file, text) => {
    for (const m of text.matchAll(/\bcode\??:\s*([^;}\n]+)/g)) for (const q of m[1].matchAll(/'([A-Z][A-Z_]+)'/g)) named.push([file, q[1]]);
  };
  for (const f of readdirSync(repo('src/js')).filter((f) => f.endsWith('.d.ts'))) scan(`src/js/${f}`, read(repo(`src/js/${f}`)));
  for (const f of readdirSync(installed).filter((f) => /\.d\.[cm]?ts$/.test(f))) scan(`tarball ${f}`, read(join(installed, f)));
  assert.ok(named.length > 0, 'no typed codes found: the scan lost its pattern');
  assert.deepEqual(named.filter(([, code]) => !CODES.includes(code)), []);
});

test("the tarball's docs/errors.md has the same table", () => {
  assert.deepEqual(sorted(docsTable(read(join(installed, 'docs', 'errors.md')), 'the packed docs/errors.md')), sorted(CODES));
});

test('every code the JS layer throws by name (src/js, the assembled glue, the shipped .js) is one of as_str', () => {
  const named = [];
  const scan = (file, text) => {
    for (const m of text.matchAll(/\bfail\(\s*['"]([A-Z_]+)['"]/g)) named.push([file, m[1]]);
    // `code: 'X'`, `err.code = 'X'`, `err.code = a ? 'X' : 'Y'`: every capitalised string of the value.
    for (const m of text.matchAll(/\bcode\s*(?:=(?!=)|:)\s*([^,;\n}]+)/g)) {
      for (const q of m[1].matchAll(/['"]([A-Z][A-Z_]+)['"]/g)) named.push([file, q[1]]);
    }
  };
  for (const f of readdirSync(repo('src/js')).filter((f) => f.endsWith('.js'))) scan(`src/js/${f}`, read(repo(`src/js/${f}`)));
  scan('scripts/assemble.mjs', read(repo('scripts/assemble.mjs')));
  for (const f of readdirSync(installed).filter((f) => /\.(c|m)?js$/.test(f))) scan(`tarball ${f}`, read(join(installed, f)));
  assert.ok(named.length > 20, `only ${named.length} coded throws found: the scan lost its pattern`);
  assert.deepEqual(named.filter(([, code]) => !CODES.includes(code)), []);
});

// A fallback copy in the fuzz suite: it is used only when the installed
// index.d.cts cannot be parsed, and must still be the core's list.
test('tests/consumers/fuzz/gen.mjs: its fallback list of documented codes', () => {
  const m = read(repo('tests/consumers/fuzz/gen.mjs')).match(/const fallback = \[([^\]]*)\]/);
  assert.ok(m, 'no fallback list found');
  assert.deepEqual(sorted([...m[1].matchAll(/'([A-Z_]+)'/g)].map((x) => x[1])), sorted(CODES));
});
