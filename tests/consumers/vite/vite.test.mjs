// Vite consumer: a Vite app with no configuration at all (no optimizeDeps,
// externals or plugins) imports the installed tarball by its bare name, in a
// folder where `ai` is not installed. Built with `vite build` and served by
// the Vite dev server, each loaded in headless Chromium. Vite 8 (current)
// and Vite 6.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../../scripts/serve.mjs';
import { isolatedApp, appSource, run, tools, importTool, filesUnder, filesWithAi, sizeReport, appResult, checkAppResult } from '../../js/bundlers.mjs';

const app = isolatedApp(fileURLToPath(new URL('.', import.meta.url)), { 'src/main.js': appSource });
after(() => app.cleanup());

const versions = [
  { name: 'Vite 8', bin: tools.vite, pkg: 'vite', devDefaultInit: true },
  // Vite 6's dev pre-bundling breaks `new URL(x, import.meta.url)` in any
  // dependency (vitejs/vite#8427); its dev server is tested the README's way.
  { name: 'Vite 6', bin: tools.vite6, pkg: 'vite6', devDefaultInit: false },
];

for (const v of versions) {
  test(`${v.name}: vite build, then the built app in Chromium`, async (t) => {
    const outDir = join(app.dir, 'dist');
    rmSync(outDir, { recursive: true, force: true });
    const log = run(app.dir, v.bin, ['build']);
    assert.match(log, /built in/);
    const files = filesUnder(outDir);
    assert.ok(files.some((f) => f.endsWith('.wasm')), 'the .wasm is emitted as an asset');
    assert.deepEqual(filesWithAi(files), [], 'nothing from `ai` in the bundle');
    // (Once a glob over the package's folder copied all of it: README-<hash>.md, cli-<hash>.mjs, index.d-<hash>.cts.)
    assert.deepEqual(files.filter((f) => /\.(md|mjs|c?ts|html)$/.test(f) && !f.endsWith('index.html')), [], 'none of the package\'s other files');
    t.diagnostic(`report: ${sizeReport(`${v.name} build (dist/)`, files)}`);
    const server = await serveStatic(outDir);
    try {
      checkAppResult(assert, await appResult(server.url));
    } finally {
      await server.close();
    }
  });

  test(`${v.name}: the Vite dev server, in Chromium`, async () => {
    rmSync(join(app.dir, 'node_modules', '.vite'), { recursive: true, force: true });
    const { createServer } = await importTool(v.pkg, 'dist/node/index.js');
    // Only where to listen: the app itself has no Vite configuration.
    const server = await createServer({ root: app.dir, logLevel: 'error', clearScreen: false, server: { host: '127.0.0.1', port: 0 } });
    await server.listen();
    try {
      const base = server.resolvedUrls.local[0];
      if (v.devDefaultInit) checkAppResult(assert, await appResult(base));
      checkAppResult(assert, await appResult(`${base}wasm-url.html`));
      const deps = join(app.dir, 'node_modules', '.vite');
      if (existsSync(deps)) assert.deepEqual(filesWithAi(filesUnder(deps)), [], 'nothing from `ai` pre-bundled');
    } finally {
      await server.close();
    }
  });
}
