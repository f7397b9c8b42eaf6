// CommonJS TypeScript consumer: tsc (module node16) over index.d.cts, then run the output with require().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const out = fileURLToPath(new URL('../../.work/typescript-cjs-out/main.js', import.meta.url));

test('a CommonJS TypeScript project compiles against the require types and runs', () => {
  const built = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
  assert.equal(built.status, 0, `tsc failed:\n${built.stdout}${built.stderr}`);
  // The output sits outside the consumer folder; run it from there so require() finds the package.
  const run = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(out)})`], { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_PATH: `${dir}node_modules` } });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { seq: 0, run: 'cjs', observed: 1, version: 1 });
});
