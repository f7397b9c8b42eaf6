// The shipped glue and JS layer minified by terser, for scripts/assemble.mjs:
// class names kept, and the names of the public functions; inner helpers
// are mangled.
// Lines are broken: Node prints the source line of an uncaught error's throw
// site, and one 24 KB line would bury the message. Statements end at line
// ends instead of semicolons where they can: breaks at statement ends keep
// gzip's repeats whole (measured: -0.4 KB gzip against breaks mid-statement
// every 160 characters).
// No comment heads a file: one line saying it is generated cost about 30 B
// gzip in each of the 15 files an app may load (475 B, measured), and the
// package's README says what the files are.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const MAX_LINE = 300;

// esbuild lists a bundle's exports, and a chunk's imports, in one statement
// each, which terser writes on one line: long ones become several statements.
const splitLists = (code) => code.split('\n').map((l) => {
  const m = l.length > MAX_LINE && l.match(/^(import|export)\{([^{}]*)\}(from"[^"]+")?$/);
  if (!m) return l;
  const lines = [];
  let specs = [];
  for (const spec of m[2].split(',')) {
    if (specs.length && `${m[1]}{${[...specs, spec].join(',')}}${m[3] ?? ''}`.length > MAX_LINE) {
      lines.push(`${m[1]}{${specs.join(',')}}${m[3] ?? ''}`);
      specs = [];
    }
    specs.push(spec);
  }
  lines.push(`${m[1]}{${specs.join(',')}}${m[3] ?? ''}`);
  return lines.join('\n');
}).join('\n');

// unsafe_methods: `{ m: function () {} }` written `{ m() {} }` (53 B gzip
// smaller, mostly the glue's imports object); such a method cannot be
// called with `new`, and none is: the glue's imports are called by the
// module, and the JS layer writes its methods that way already.
// The main entries are not compressed: it would fold node.mjs's run-time
// import('ai') specifier into a literal that bundlers then resolve, and the
// entries' own exports into re-exports (assemble.mjs's localExports).
const compressed = (file) => !['node.mjs', 'web.js', 'workerd.js', 'ai.js'].includes(file);

/**
 * Minifies each of `files` in `pkg` in place. The comments of the entries
 * document assemble.mjs, and the .d.ts files document the package (-0.9 KB
 * gzip): only bundler annotations are kept.
 * @param {string} root the repository (terser comes from its tools/)
 * @param {string} pkg the package directory
 * @param {string[]} files the shipped .js / .cjs / .mjs files
 * @param {string[]} publicNames what the entries export: it keeps its name
 *   (function names by keep_fnames, and the bundle's `var X = class {...}`
 *   by leaving X itself unmangled)
 */
export async function minifyShipped(root, pkg, files, publicNames) {
  const { minify } = createRequire(join(root, 'tools', 'package.json'))('terser');
  const publicFns = new RegExp(`^(${publicNames.join('|')})$`);
  for (const file of files) {
    const isGlue = file === 'agent_trajectories.js';
    const out = await minify(readFileSync(join(pkg, file), 'utf8'), {
      module: !file.endsWith('.cjs'), ecma: 2020, keep_classnames: true,
      keep_fnames: isGlue ? false : publicFns, // the glue's exports are top-level: kept by name
      mangle: { toplevel: !isGlue, reserved: isGlue ? [] : publicNames },
      compress: compressed(file) && { toplevel: !isGlue, passes: 2, unsafe_methods: true },
      format: { comments: /webpackIgnore|@vite-ignore/, semicolons: false, max_line_len: MAX_LINE },
    });
    out.code = splitLists(out.code);
    const long = out.code.split('\n').find((l) => l.length > 2 * MAX_LINE);
    if (long) throw new Error(`assemble: ${file} has a ${long.length}-character line after minification: ${long.slice(0, 200)}`);
    // The bin's `#!` line first, as Node and npm's bin shims want it.
    writeFileSync(join(pkg, file), file === 'cli.mjs' ? `#!/usr/bin/env node\n${out.code}` : out.code);
  }
}
