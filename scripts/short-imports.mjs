// wasm-bindgen names each import of the module `__wbg_<what>_<16 hex
// digits>`; the hashes do not compress, and each name is in the module and
// in the glue. Renamed to `_0`, `_1`, ... in both: -2.5 KB gzip, measured.
// The module's exports (`__wbindgen_malloc`, used at every string the glue
// passes; `trajectoryrecorder_record`; closures' `..._invoke__h<16 hex>`)
// are only ever read by the glue, as `wasm.<name>` (the loader hands the
// exports object to no one else), so they too get short names in both:
// -1.3 KB gzip, measured. The module is only re-encoded where its import
// and export sections' names change.

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

/** `bytes` (a module) with the export names `rename(name)` answers for renamed. */
function renameExports(bytes, rename) {
  const parts = [bytes.subarray(0, 8)];
  let i = 8;
  while (i < bytes.length) {
    const id = bytes[i];
    const [size, body] = leb(bytes, i + 1);
    const end = body + size;
    if (id !== 7) {
      parts.push(bytes.subarray(i, end));
      i = end;
      continue;
    }
    let [count, j] = leb(bytes, body);
    const out = [...uleb(count)];
    for (let k = 0; k < count; k++) {
      const [nl, n0] = leb(bytes, j);
      const name = dec.decode(bytes.subarray(n0, n0 + nl));
      j = n0 + nl;
      const desc = j++; // kind, then the index
      [, j] = leb(bytes, j);
      const f = enc.encode(rename(name) ?? name);
      out.push(...uleb(f.length), ...f, ...bytes.subarray(desc, j));
    }
    if (j !== end) throw new Error('short-imports: the export section was misread');
    parts.push(Uint8Array.from([7, ...uleb(out.length), ...out]));
    i = end;
  }
  return concat(parts);
}

/** The export names of a module, in order. */
function exportNames(bytes) {
  let i = 8;
  while (i < bytes.length) {
    const id = bytes[i];
    const [size, body] = leb(bytes, i + 1);
    if (id === 7) {
      let [count, j] = leb(bytes, body);
      const names = [];
      for (let k = 0; k < count; k++) {
        const [nl, n0] = leb(bytes, j);
        names.push(dec.decode(bytes.subarray(n0, n0 + nl)));
        [, j] = leb(bytes, n0 + nl + 1);
      }
      return names;
    }
    i = body + size;
  }
  return [];
}

function concat(parts) {
  const res = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    res.set(p, o);
    o += p.length;
  }
  return res;
}

/** `bytes` (a module) with the import fields `rename(field)` answers for renamed; and the fields renamed. */
function renameImports(bytes, rename) {
  const parts = [bytes.subarray(0, 8)];
  const renamed = [];
  let i = 8;
  while (i < bytes.length) {
    const id = bytes[i];
    const [size, body] = leb(bytes, i + 1);
    const end = body + size;
    if (id !== 2) {
      parts.push(bytes.subarray(i, end));
      i = end;
      continue;
    }
    let [count, j] = leb(bytes, body);
    const out = [...uleb(count)];
    for (let k = 0; k < count; k++) {
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
      out.push(...uleb(ml), ...mod, ...uleb(f.length), ...f, ...bytes.subarray(desc, j));
    }
    if (j !== end) throw new Error('short-imports: the import section was misread');
    parts.push(Uint8Array.from([2, ...uleb(out.length), ...out]));
    i = end;
  }
  return { bytes: concat(parts), renamed };
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
  const exported = exportNames(bytes);
  const short = new Map(exported.map((n, k) => [n, `_${k.toString(36)}`]));
  const read = /\bwasm\.([A-Za-z_$][\w$]*)/g;
  for (const [, n] of glue.matchAll(read)) if (!short.has(n)) throw new Error(`short-imports: the glue reads wasm.${n}, which the module does not export`);
  return {
    glue: glue.replace(hashed, (n) => map.get(n)).replace(read, (_, n) => `wasm.${short.get(n)}`),
    wasm: renameExports(bytes, (n) => short.get(n)),
  };
}
