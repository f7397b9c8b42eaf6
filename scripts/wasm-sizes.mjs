// Where the module's bytes go: code bytes per Rust module path, and the
// biggest functions, of a build that kept its function names:
//   PROFILE=1 PKG_DIR=target/pkg-prof BUDGET_GZIP_BYTES=9000000 scripts/build.sh
//   node scripts/wasm-sizes.mjs target/pkg-prof/agent_trajectories_bg.wasm [rows=40]
// Reads the import, code and name sections of the binary itself.
import { readFileSync } from 'node:fs';

const [file, rows = '40'] = process.argv.slice(2);
const buf = readFileSync(file);
let p = 8; // after the magic number and the version

/** An unsigned LEB128 number at `p`. */
function u32() {
  let r = 0;
  let shift = 0;
  let b;
  do {
    b = buf[p++];
    r |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  return r >>> 0;
}
// (Not `p += u32()`: that adds to p as it was before the length was read.)
const skipName = () => { const length = u32(); p += length; };
const skipLimits = () => { const flags = buf[p++]; u32(); if (flags & 1) u32(); };

let importedFunctions = 0;
const bodies = [];
const names = new Map();
while (p < buf.length) {
  const id = buf[p++];
  const end = u32() + p;
  if (id === 2) { // imports: functions among them take the first indexes
    for (let n = u32(); n > 0; n--) {
      skipName();
      skipName();
      const kind = buf[p++];
      if (kind === 0) { u32(); importedFunctions++; } else if (kind === 1) { p++; skipLimits(); } else if (kind === 2) skipLimits(); else p += 2;
    }
  } else if (id === 10) { // code: one body per defined function
    for (let n = u32(); n > 0; n--) {
      const size = u32();
      bodies.push(size);
      p += size;
    }
  } else if (id === 0) { // custom: the "name" section's function names
    const length = u32();
    const name = buf.subarray(p, p + length).toString();
    p += length;
    while (name === 'name' && p < end) {
      const sub = buf[p++];
      const subEnd = u32() + p;
      if (sub === 1) {
        for (let n = u32(); n > 0; n--) {
          const index = u32();
          const l = u32();
          names.set(index, buf.subarray(p, p + l).toString());
          p += l;
        }
      }
      p = subEnd;
    }
  }
  p = end;
}
if (!names.size) throw new Error('no function names in this module: build it with PROFILE=1');

const byModule = new Map();
const functions = bodies.map((size, i) => {
  const name = names.get(i + importedFunctions) ?? `function ${i}`;
  // The first three path segments: crate::module::submodule.
  const path = name.replace(/^<+/, '').match(/^([a-z_0-9]+)(?:::([a-z_0-9]+))?(?:::([a-z_0-9]+))?/);
  const key = path ? path.slice(1).filter(Boolean).join('::') : name.slice(0, 40);
  byModule.set(key, (byModule.get(key) ?? 0) + size);
  return [name, size];
});
console.log(`code bytes ${bodies.reduce((a, b) => a + b, 0)}, functions ${bodies.length}`);
for (const [key, size] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, Number(rows))) console.log(String(size).padStart(8), key);
console.log('--- biggest functions');
for (const [name, size] of functions.sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(String(size).padStart(8), name.slice(0, 140));
