// The mutation engine: mutated() copies a valid input and changes one or
// two things in it (a field replaced by a hostile value, deleted, misspelt,
// turned into a throwing getter or Proxy, a cycle, a huge array, a numeric
// option set to an edge value), and says what it changed as a reproduction
// and as trigger atoms; valid() and wild() are the unchanged and the fully
// hostile argument.
import { tag, tagged, show, numExpr, IDENT, keyExpr } from './render.mjs';
import { boom, hostile, kindOf } from './hostile.mjs';

const pathExpr = (path) => (path.length ? path.map((k) => (typeof k === 'number' ? `[${k}]` : IDENT.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('') : '(the whole value)');
export const pathPattern = (path) => path.map((k) => (typeof k === 'number' ? '*' : k)).join('.');

function isPlainContainer(v) {
  if (v === null || typeof v !== 'object' || tagged(v)) return false;
  try {
    if (Array.isArray(v)) return true;
    const p = Object.getPrototypeOf(v);
    return p === Object.prototype || p === null;
  } catch { return false; }
}

/** Every node of `root` that a mutation may touch: { path, parent, key, value }. */
function nodes(root, skip) {
  const out = [{ path: [], parent: null, key: null, value: root }];
  const walk = (v, path, depth) => {
    if (!isPlainContainer(v) || depth > 7 || out.length > 600) return;
    const keys = Array.isArray(v) ? Array.from({ length: Math.min(v.length, 50) }, (_, i) => i) : Object.keys(v);
    for (const k of keys) {
      const d = Object.getOwnPropertyDescriptor(v, k);
      if (!d || !('value' in d)) continue;
      const p = [...path, k];
      if (skip && skip(pathPattern(p))) continue;
      out.push({ path: p, parent: v, key: k, value: d.value });
      walk(d.value, p, depth + 1);
    }
  };
  walk(root, [], 0);
  return out;
}

function typo(r, key) {
  const k = String(key);
  const variants = [];
  for (let i = 0; i + 1 < k.length; i++) if (k[i] !== k[i + 1]) variants.push(k.slice(0, i) + k[i + 1] + k[i] + k.slice(i + 2));
  if (k.length > 2) variants.push(k.slice(0, -1), k.slice(1));
  if (k.endsWith('s')) variants.push(k.slice(0, -1)); else variants.push(`${k}s`);
  variants.push(k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), k.toLowerCase(), k[0].toUpperCase() + k.slice(1));
  const ok = variants.filter((v) => v && v !== k);
  return ok.length ? r.pick(ok) : `${k}x`;
}

/**
 * Changes one thing in `root` (in place, or returns a replacement root).
 * `spec`: { closed?: patterns of option objects whose unknown keys must be
 * refused, skip?: (pattern) => boolean }. Returns { root, desc, atom,
 * unknownKey? } where `atom` is a short signature of the change.
 */
export function mutateOnce(r, root, at, spec = {}) {
  const list = nodes(root, spec.skip);
  // Numbers and strings are where limits hide: they are picked more often than their share.
  const nums = list.filter((x) => typeof x.value === 'number');
  const strs = list.filter((x) => typeof x.value === 'string' && x.path.length);
  const bias = r.float();
  const n = bias < 0.3 && nums.length ? r.pick(nums)
    : bias < 0.4 && strs.length ? r.pick(strs)
      : list.length > 1 && r.chance(0.9) ? list[r.int(1, list.length - 1)] : list[0];
  const { path, parent, key, value } = n;
  const where = pathExpr(path);
  const pattern = pathPattern(path);
  const isArr = (v) => { try { return Array.isArray(v); } catch { return false; } };
  const isObj = parent && !isArr(parent);
  const ops = [[50, 'replace'], [8, 'delete'], [6, 'getter-throws'], [2, 'getter-flips'], [6, 'swap'], [2, 'wrap']];
  if (isObj) ops.push([7, 'typo'], [3, 'extra']);
  if (isPlainContainer(value)) ops.push([3, 'proxy'], [2, 'cycle']);
  if (isPlainContainer(value) && isArr(value) && value.length) ops.push([3, 'huge']);
  const op = parent ? r.weighted(ops.map(([w, o]) => [w, o])) : r.weighted([[80, 'replace'], [10, 'proxy'], [10, 'wrap']].filter(([, o]) => o !== 'proxy' || isPlainContainer(value)));
  const set = (v) => { if (parent) parent[key] = v; else root = v; };
  switch (op) {
    case 'replace': {
      const [v, expr] = hostile(r, value, at);
      set(v);
      return { root, desc: `${where} = ${expr}`, atom: `${pattern || '(value)'}=${kindOf(v)}` };
    }
    case 'delete':
      if (isArr(parent)) {
        try { parent.splice(key, 1); } catch { delete parent[key]; } // splice reads the elements after it (a getter may throw)
      } else delete parent[key];
      return { root, desc: `delete ${where}`, atom: `delete ${pattern}` };
    case 'getter-throws': {
      const get = tag(() => { throw boom(`getter ${String(key)}`); }, `get ${keyExpr(String(key))}() { throw new Error("fuzz: getter ${String(key)}") }`);
      Object.defineProperty(parent, key, { get, enumerable: true, configurable: true });
      return { root, desc: `${where}: a getter that throws`, atom: `${pattern}:getter-throws` };
    }
    case 'getter-flips': {
      const [v, expr] = hostile(r, value, at);
      let reads = 0;
      const get = tag(() => (reads++ === 0 ? value : v), `get ${keyExpr(String(key))}() { /* ${show(value, 40)} on the first read, then ${expr} */ }`);
      Object.defineProperty(parent, key, { get, enumerable: true, configurable: true });
      return { root, desc: `${where}: a getter returning the valid value once, then ${expr}`, atom: `${pattern}:getter-flips` };
    }
    case 'swap': {
      const other = r.pick(list);
      const v = other.value;
      set(isPlainContainer(v) ? structuredCloneSafe(v) : v);
      return { root, desc: `${where} = ${other.path.length ? `(the value of ${pathExpr(other.path)})` : '(the whole value)'}`, atom: `${pattern}=${kindOf(v)}` };
    }
    case 'wrap': {
      const arr = r.chance(0.5);
      set(arr ? [value] : { value });
      return { root, desc: `${where} wrapped as ${arr ? '[…]' : '{ value: … }'}`, atom: `${pattern}:wrapped` };
    }
    case 'typo': {
      const nk = typo(r, key);
      const v = parent[key];
      delete parent[key];
      parent[nk] = v;
      const closed = spec.closed && spec.closed.includes(pathPattern(path.slice(0, -1)));
      return { root, desc: `${where} misspelt as ${JSON.stringify(nk)}`, atom: `${pattern}:misspelt`, unknownKey: closed ? { key: nk, in: pathPattern(path.slice(0, -1)), for: String(key) } : undefined };
    }
    case 'extra': {
      const nk = r.pick(['extra', '__proto__', 'constructor', 'observer', 'onSinkErorr', 'timeout', 'maxTurn', 'lenient']);
      // (A key set to undefined reads as absent, as JS options usually do: it is not an unknown key.)
      const [v, expr] = hostile(r, 1, at);
      Object.defineProperty(parent, nk, { value: v, enumerable: true, configurable: true, writable: true });
      const closed = spec.closed && spec.closed.includes(pathPattern(path.slice(0, -1)));
      return { root, desc: `${pathExpr(path.slice(0, -1))}.${nk} = ${expr} added`, atom: `${pathPattern(path.slice(0, -1))}+${nk}`, unknownKey: closed && !(nk in Object.prototype) && v !== undefined ? { key: nk, in: pathPattern(path.slice(0, -1)) } : undefined };
    }
    case 'proxy': {
      const which = r.pick(['get', 'ownKeys', 'getOwnPropertyDescriptor', 'has']);
      const p = tag(new Proxy(value, { [which]() { throw boom(`proxy ${which}`); } }), `new Proxy(${show(value, 80)}, { ${which}() { throw new Error("fuzz: proxy ${which}") } })`);
      set(p);
      return { root, desc: `${where} = a Proxy whose ${which} trap throws`, atom: `${pattern}:proxy-${which}-throws` };
    }
    case 'cycle':
      if (isArr(value)) value.push(root); else value.self = root;
      return { root, desc: `${where}.self = (the whole value): a cycle`, atom: `${pattern}:cycle` };
    case 'huge': {
      const n = r.chance(0.1) ? 50_000 : r.pick([100, 1000]);
      const first = value[0];
      const v = Array.from({ length: n }, () => (isPlainContainer(first) ? structuredCloneSafe(first) : first));
      set(v);
      return { root, desc: `${where} = Array(${n}) of copies of ${where}[0]`, atom: `${pattern}:huge-array` };
    }
    default: throw new Error(`unknown op ${op}`);
  }
}

function structuredCloneSafe(v) {
  try { return structuredClone(v); } catch { return v; }
}

/** Limits hide at these: the edge values a numeric option is set to by `spec.numeric`. */
export const EDGE_NUMBERS = [0, -1, 1, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 53 + 2, 1e300, NaN, 0.5, -0, Infinity, 2 ** 31];

/** Sets the option at `path` ('a.b.0.c', created if missing) to an edge number. */
function edgeOption(r, root, path) {
  const keys = path.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));
  let o = root;
  for (const k of keys.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== 'object') o[k] = {};
    o = o[k];
  }
  const v = r.pick(EDGE_NUMBERS);
  o[keys[keys.length - 1]] = v;
  return { desc: `${pathExpr(keys)} = ${numExpr(v)}`, atom: `${path.replace(/\.\d+\./g, '.*.')}=${numExpr(v)}` };
}

/**
 * A mutated copy of a valid input: `make()` builds a fresh valid value;
 * 1–2 changes are applied. Returns an argument descriptor
 * { v, expr, atoms, unknownKeys }.
 */
export function mutated(r, at, make, baseName, spec = {}) {
  let root = make();
  // Without a name, the valid input is written out in full (before it is changed).
  const named = Boolean(baseName);
  if (!baseName) baseName = show(root, 600);
  const descs = [];
  const atoms = [];
  const unknownKeys = [];
  // Numeric options named in spec.numeric get an edge value a third of the time (the limits live there).
  if (spec.numeric && spec.numeric.length && root && typeof root === 'object' && r.chance(0.35)) {
    const m = edgeOption(r, root, r.pick(spec.numeric));
    return { v: root, expr: mutatedExpr(root, baseName, named, [m.desc]), atoms: [m.atom], unknownKeys, base: baseName, descs: [m.desc] };
  }
  const count = r.chance(0.8) ? 1 : 2;
  for (let i = 0; i < count; i++) {
    // A second change could remove the misspelt key the first one added.
    if (unknownKeys.length) break;
    let m;
    try {
      m = mutateOnce(r, root, at, spec);
    } catch {
      // A second change can trip over the first (a getter or Proxy it put there): then the input keeps one change.
      if (i > 0) break;
      throw new Error('fuzz harness: the first change of a valid input failed');
    }
    root = m.root;
    descs.push(m.desc);
    atoms.push(m.atom);
    if (m.unknownKey) unknownKeys.push(m.unknownKey);
  }
  return { v: root, expr: mutatedExpr(root, baseName, named, descs), atoms, unknownKeys, base: baseName, descs };
}

/** An own data property of a plain object, without running getters or proxy traps (undefined otherwise). */
export function peek(o, k) {
  if (o === null || typeof o !== 'object' || tagged(o)) return undefined;
  try { const d = Object.getOwnPropertyDescriptor(o, k); return d && 'value' in d ? d.value : undefined; } catch { return undefined; }
}

/**
 * How a changed input is written: in full when short; else the change first,
 * then the valid input it was made from ("[.a.b = 1] in { … }"), or
 * "B.x() with .a.b = 1" for a named valid input.
 */
function mutatedExpr(root, baseName, named, descs) {
  const full = show(root, 400);
  if (full.length <= 200 && !full.includes('<cycle>')) return full;
  return named ? `${baseName} with ${descs.join('; ')}` : `[${descs.join('; ')}] in ${baseName}`;
}

/** A valid argument (no change). */
export const valid = (v, expr) => ({ v, expr: expr ?? show(v), atoms: [], unknownKeys: [] });
/** A fully hostile argument. */
export function wild(r, at, like, name = 'arg') {
  const [v, expr] = hostile(r, like, at);
  return { v, expr, atoms: [`${name}=${kindOf(v)}`], unknownKeys: [] };
}
