// wasm-bindgen names each import of the module `__wbg_<what>_<16 hex
// digits>`; the hashes do not compress, and each name is in the module and
// in the glue. Renamed to `_0`, `_1`, ... in both: -2.5 KB gzip, measured.
// The module's exports (`__wbindgen_malloc`, used at every string the glue
// passes; `trajectoryrecorder_record`; closures' `..._invoke__h<16 hex>`)
// are only ever read by the glue, as `wasm.<name>` (the loader hands the
// exports object to no one else), so they too get short names in both:
// -1.3 KB gzip, measured.

const enc = new TextEncoder();
const dec = new TextDecoder();

function leb(b, i) {
  let r = 0;
  let s = 0;
  let x;
  do {
    x = b[i++];
    r += (x & 0x7f) * 2 ** s;
    s += 7;
  } while (x & 0x80);
  return [r, i];
}

function uleb(n) {
  const out = [];
  do {
    let x = n % 128;
    n = Math.floor(n / 128);
    if (n) x |= 0x80;
    out.push(x);
  } while (n);
  return out;
}

/**
 * `bytes` (a module) with section `id`'s entries rewritten: `entry(j)`
 * reads the entry at offset `j` and answers its new bytes and the offset
 * after it. The module is re-encoded only where that section changes.
 * @param {Uint8Array} bytes
 * @param {number} id
 * @param {string} what the section's name, for the misread error
 * @param {(j: number) => [number[], number]} entry
 */
function rewriteSection(bytes, id, what, entry) {
  const parts = [bytes.subarray(0, 8)];
  let i = 8;
  while (i < bytes.length) {
    const [size, body] = leb(bytes, i + 1);
    const end = body + size;
    if (bytes[i] !== id) {
      parts.push(bytes.subarray(i, end));
      i = end;
      continue;
    }
    let [count, j] = leb(bytes, body);
    const out = [...uleb(count)];
    for (let k = 0; k < count; k++) {
      const [written, next] = entry(j);
      out.push(...written);
      j = next;
    }
    if (j !== end) throw new Error(`short-imports: the ${what} section was misread`);
    parts.push(Uint8Array.from([id, ...uleb(out.length), ...out]));
    i = end;
  }
  const res = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    res.set(p, o);
    o += p.length;
  }
  return res;
}

/** `bytes` (a module) with the export names `rename(name)` answers for renamed (every name is asked, in order). */
function renameExports(bytes, rename) {
  return rewriteSection(bytes, 7, 'export', (j) => {
    const [nl, n0] = leb(bytes, j);
    const name = dec.decode(bytes.subarray(n0, n0 + nl));
    const desc = n0 + nl; // kind, then the index
    const [, next] = leb(bytes, desc + 1);
    const f = enc.encode(rename(name) ?? name);
    return [[...uleb(f.length), ...f, ...bytes.subarray(desc, next)], next];
  });
}

/** `bytes` (a module) with the import fields `rename(field)` answers for renamed; and the fields renamed. */
function renameImports(bytes, rename) {
  /** @type {string[]} */
  const renamed = [];
  const out = rewriteSection(bytes, 2, 'import', (j) => {
    const [ml, m0] = leb(bytes, j);
    const mod = bytes.subarray(m0, m0 + ml);
    const [fl, f0] = leb(bytes, m0 + ml);
    const field = dec.decode(bytes.subarray(f0, f0 + fl));
    j = f0 + fl;
    const desc = j;
    const kind = bytes[j++];
    if (kind === 0) [, j] = leb(bytes, j); // function: type index
    else if (kind === 1 || kind === 2) { // table (reftype, limits) or memory (limits)
      if (kind === 1) j++;
      const flags = bytes[j++];
      [, j] = leb(bytes, j);
      if (flags & 1) [, j] = leb(bytes, j);
    } else if (kind === 3) j += 2; // global: value type, mutability
    else throw new Error(`short-imports: import kind ${kind} is not read here`);
    const to = rename(field);
    if (to !== undefined) renamed.push(field);
    const f = enc.encode(to ?? field);
    return [[...uleb(ml), ...mod, ...uleb(f.length), ...f, ...bytes.subarray(desc, j)], j];
  });
  return { bytes: out, renamed };
}

/** The glue and the module with short import names; throws unless every hashed name of the glue is an import, renamed once. */
export function shortImports(glue, wasm) {
  const hashed = /\b__wb\w+?_[0-9a-f]{16}\b/g;
  const names = [...new Set(glue.match(hashed))];
  const map = new Map(names.map((n, k) => [n, `_${k.toString(36)}`]));
  const { bytes, renamed } = renameImports(wasm, (field) => map.get(field));
  if (renamed.length !== names.length || new Set(renamed).size !== names.length) {
    throw new Error(`short-imports: ${names.length} hashed names in the glue, ${renamed.length} imports renamed`);
  }
  // Exports: every `wasm.<name>` of the glue must name one.
  /** @type {string[]} */
  const exported = [];
  renameExports(bytes, (n) => void exported.push(n));
  const short = new Map(exported.map((n, k) => [n, `_${k.toString(36)}`]));
  const read = /\bwasm\.([A-Za-z_$][\w$]*)/g;
  for (const [, n] of glue.matchAll(read)) if (!short.has(n)) throw new Error(`short-imports: the glue reads wasm.${n}, which the module does not export`);
  return {
    glue: glue.replace(hashed, (n) => map.get(n)).replace(read, (_, n) => `wasm.${short.get(n)}`),
    wasm: renameExports(bytes, (n) => short.get(n)),
  };
}
