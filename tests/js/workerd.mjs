// Starts a Worker script in workerd through Miniflare, the way Workers load
// this package: ES modules, and the .wasm as a compiled module (Workers may
// not compile wasm from bytes at run time).
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

export function worker(scriptPath, options = {}) {
  return new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: fileURLToPath(new URL('../', import.meta.url)),
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js', '**/*.mjs'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
    ],
    compatibilityDate: '2025-01-01',
    ...options,
  });
}
