// Starts a Worker script in workerd through Miniflare, the way Workers load
// this package: ES modules, and the .wasm as a compiled module (Workers may
// not compile wasm from bytes at run time).
//
// Miniflare follows relative imports but does not resolve npm package names
// (wrangler bundles them). So the modules are listed here: every module
// under tests/ that the Worker can reach, plus the package's dependency
// @cfworker/json-schema where workerd looks for the bare name the package
// imports it by: beside the importing module (its own relative imports
// then resolve beside it too).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const root = fileURLToPath(new URL('../', import.meta.url));

function modulesFor(scriptPath) {
  const dir = dirname(scriptPath);
  const pkg = join(dir, 'node_modules', 'agent-trajectories');
  const cfworker = join(dir, 'node_modules', '@cfworker', 'json-schema', 'dist', 'esm');
  const files = (d, ext) => readdirSync(d).filter((f) => ext.some((e) => f.endsWith(e))).map((f) => join(d, f));
  const type = (f) => (f.endsWith('.wasm') ? 'CompiledWasm' : 'ESModule');
  const own = [scriptPath, ...files(join(root, 'js'), ['.mjs']), ...files(dir, ['.mjs']).filter((f) => f !== scriptPath && !f.endsWith('.test.mjs')), ...files(pkg, ['.js', '.wasm'])];
  const modules = own.map((path) => ({ type: type(path), path, contents: readFileSync(path) }));
  if (existsSync(cfworker)) {
    for (const f of files(cfworker, ['.js'])) {
      const name = f.endsWith('/index.js') ? 'json-schema' : relative(cfworker, f);
      modules.push({ type: 'ESModule', path: join(pkg, '@cfworker', name), contents: readFileSync(f) });
    }
  }
  return modules;
}

export function worker(scriptPath, options = {}) {
  return new Miniflare({
    modules: modulesFor(scriptPath),
    modulesRoot: root,
    compatibilityDate: '2025-01-01',
    ...options,
  });
}
