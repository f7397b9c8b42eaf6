// TypeScript consumer: `tsc --strict --noEmit` over the installed tarball's types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

test('tsc --strict accepts documented use and rejects misuse (no any on the surface)', () => {
  const r = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});
