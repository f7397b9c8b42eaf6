// Types per runtime: tsc --strict over the installed tarball under each
// resolution mode, ESM and CommonJS. Bundler resolution (Vite, wrangler
// templates) must not see Node's writeArtifacts; node16/nodenext must.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

for (const mode of ['bundler', 'preserve', 'workerd', 'node16', 'nodenext']) {
  test(`tsc --strict -p tsconfig.${mode}.json`, () => {
    const r = spawnSync(process.execPath, [tsc, '-p', `${dir}tsconfig.${mode}.json`], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
  });
}
