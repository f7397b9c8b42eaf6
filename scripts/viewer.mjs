// The viewer page as one template (pkg/viewer.html): www/ bundled by esbuild
// into a single module script, its stylesheet inlined. The package's
// `agent-trajectories/viewer` entry fills it with the package's own modules,
// its WebAssembly and the runs (src/js/viewer.js). Called by assemble.mjs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

/** The specifier the page's modules import the package by; the entry links it. */
export const PACKAGE_SPECIFIER = './pkg/web.js';
/** Where the entry puts the runs and the module (`<script id="at-runs">`, `id="at-wasm"`). */
export const DATA_MARK = '<!--at-data-->';

export async function buildViewerTemplate(root, pkg) {
  const esbuild = createRequire(join(root, 'tools', 'package.json'))('esbuild');
  const bundle = await esbuild.build({
    entryPoints: [join(root, 'www', 'app.js')],
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    external: [PACKAGE_SPECIFIER],
    target: 'es2022',
    logLevel: 'silent',
  });
  const app = bundle.outputFiles[0].text;
  if (!app.includes(`"${PACKAGE_SPECIFIER}"`)) throw new Error(`viewer: the page bundle no longer imports ${PACKAGE_SPECIFIER}`);
  // esbuild escapes "</script" in its output; checked, since the bundle goes inside a <script>.
  if (/<\/script/i.test(app)) throw new Error('viewer: the page bundle contains "</script"');
  const css = (await esbuild.transform(readFileSync(join(root, 'www', 'style.css'), 'utf8'), { loader: 'css', minify: true })).code;

  const page = readFileSync(join(root, 'www', 'index.html'), 'utf8');
  const style = '<link rel="stylesheet" href="style.css">';
  const script = '<script type="module" src="app.js"></script>';
  if (!page.includes(style) || !page.includes(script)) throw new Error('viewer: www/index.html no longer links style.css and app.js as expected');
  const html = page
    .replace(style, () => `<style>${css.trim()}</style>`)
    .replace(script, () => `${DATA_MARK}\n  <script type="module">${app.trim()}</script>`);
  writeFileSync(join(pkg, 'viewer.html'), html);
}
