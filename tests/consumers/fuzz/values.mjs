// Building blocks of the fuzz generator: a seeded PRNG, a renderer that
// writes any generated value back as a short JS expression (for the
// reproductions), the table of hostile values, and the mutation engine that
// changes one field of a valid input. No dependencies.

/** mulberry32: a small, fast, seeded 32-bit PRNG. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of input `i` of a run seeded `seed` (splitmix-style mixing). */
export function caseSeed(seed, i) {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export class Rng {
  constructor(seed) { this.next = mulberry32(seed); }
  float() { return this.next(); }
  /** An integer in [lo, hi]. */
  int(lo, hi) { return lo + Math.floor(this.next() * (hi - lo + 1)); }
  chance(p) { return this.next() < p; }
  pick(list) { return list[Math.floor(this.next() * list.length)]; }
  /** `list` of [weight, value]; returns a value. */
  weighted(list) {
    let total = 0;
    for (const [w] of list) total += w;
    let x = this.next() * total;
    for (const [w, v] of list) {
      if ((x -= w) < 0) return v;
    }
    return list[list.length - 1][1];
  }
}

// ---- rendering values as JS expressions -------------------------------

const EXPR = new WeakMap();
/** Registers how an object or function is written in a reproduction. */
export function tag(v, expr) {
  if ((typeof v === 'object' && v !== null) || typeof v === 'function') EXPR.set(v, expr);
  return v;
}
export const tagged = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function' ? EXPR.has(v) : false;

const NAMED_NUMBERS = new Map([
  [2 ** 31 - 1, '2**31-1'], [2 ** 31, '2**31'], [2 ** 32 - 1, '2**32-1'], [2 ** 32, '2**32'],
  [2 ** 53 - 1, '2**53-1'], [2 ** 53 + 2, '2**53+2'], [2 ** 64, '2**64'],
  [-(2 ** 31) - 1, '-(2**31)-1'], [-(2 ** 53) - 2, '-(2**53)-2'],
]);
export function numExpr(v) {
  if (Object.is(v, -0)) return '-0';
  return NAMED_NUMBERS.get(v) ?? String(v);
}

export function strExpr(s, max = 60) {
  if (s.length <= max) return JSON.stringify(s);
  for (let u = 1; u <= 8; u++) {
    if (s.length % u) continue;
    const unit = s.slice(0, u);
    if (unit.repeat(s.length / u) === s) return `${JSON.stringify(unit)}.repeat(${s.length / u})`;
  }
  return `${JSON.stringify(s.slice(0, Math.min(40, max)))}+…(${s.length} chars)`;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
const keyExpr = (k) => (typeof k === 'symbol' ? `[${show(k)}]` : IDENT.test(k) ? k : JSON.stringify(k));

/** A value as a short JS expression; never runs getters, traps or toString. */
export function show(v, max = 240) {
  const s = render(v, new Set(), 0, max);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function render(v, seen, depth, max) {
  switch (typeof v) {
    case 'undefined': return 'undefined';
    case 'boolean': return String(v);
    case 'number': return numExpr(v);
    case 'bigint': return v === 2n ** 64n - 1n ? '2n**64n-1n' : `${v}n`;
    case 'symbol': {
      const d = v.description;
      if (d && d.startsWith('Symbol.')) return d;
      return d === undefined ? 'Symbol()' : `Symbol(${JSON.stringify(d)})`;
    }
    case 'string': return strExpr(v, depth === 0 ? Math.max(60, max) : 60);
    case 'function': return EXPR.get(v) ?? (v.name ? `function ${v.name}` : '() => {…}');
    default: break;
  }
  if (v === null) return 'null';
  if (EXPR.has(v)) return EXPR.get(v);
  if (seen.has(v)) return '<cycle>';
  if (depth > 7) return Array.isArray(v) ? '[…]' : '{…}';
  seen.add(v);
  try {
    if (Array.isArray(v)) {
      const n = v.length;
      const plainAt = (i) => { const d = Object.getOwnPropertyDescriptor(v, i); return d && 'value' in d ? d : null; };
      if (n > 8) {
        const first = plainAt(0)?.value;
        let same = !!plainAt(0);
        for (let i = 1; i < n && same; i++) { const d = plainAt(i); same = !!d && d.value === first; }
        if (!(0 in v) && Object.keys(v).length === 0) return `new Array(${n})`;
        if (same) return `Array(${n}).fill(${render(first, seen, depth + 1, max)})`;
      }
      const items = [];
      for (let i = 0; i < Math.min(n, 6); i++) {
        const d = Object.getOwnPropertyDescriptor(v, i);
        items.push(!d ? '' : 'value' in d ? render(d.value, seen, depth + 1, max) : `<getter>`);
      }
      if (n > 6) items.push(`…+${n - 6} more`);
      return `[${items.join(', ')}]`;
    }
    const proto = Object.getPrototypeOf(v);
    let prefix = '';
    if (proto === null) prefix = 'Object.create(null) ';
    else if (proto !== Object.prototype) prefix = `${proto.constructor?.name ?? 'object'} `;
    const descs = Object.getOwnPropertyDescriptors(v);
    const keys = Reflect.ownKeys(descs);
    const parts = [];
    for (const k of keys.slice(0, 12)) {
      const d = descs[k];
      if ('value' in d) parts.push(`${keyExpr(k)}: ${render(d.value, seen, depth + 1, max)}`);
      else parts.push(d.get && EXPR.has(d.get) ? EXPR.get(d.get) : `get ${keyExpr(k)}() {…}`);
    }
    if (keys.length > 12) parts.push(`…+${keys.length - 12} keys`);
    return `${prefix}{${parts.length ? ` ${parts.join(', ')} ` : ''}}`;
  } finally {
    seen.delete(v);
  }
}

// ---- hostile values ----------------------------------------------------

const boom = (what) => new Error(`fuzz: ${what}`);

export const NUMBERS = [0, -0, 1, -1, 0.5, 1.5, -7.25, NaN, Infinity, -Infinity, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32,
  2 ** 53 - 1, 2 ** 53 + 2, 2 ** 64, 1e300, -1e300, 5e-324, 1e21, -(2 ** 31) - 1, -(2 ** 53) - 2];

// No string here may contain the Rust debug forms the classifier looks for.
export const STRINGS = ['', ' ', 'x', '0', '-1', '1e300', 'true', 'null', 'undefined', 'é😀ﬀ\u0301', '\ud800', '\udc00x', 'a\u0000b',
  'line\nbreak', 'cr\r\nlf', '"quoted"', '{"kind":"custom"}', '[1,2]', '__proto__', 'constructor', 'toString', '\u202eevil',
  '../../etc/passwd', ' '.repeat(300), '\ud800'.repeat(100)];
// Big values cost time in every call they reach: drawn rarely (BIG_SHARE).
const BIG_STRINGS = ['x'.repeat(100_000), '😀'.repeat(20_000), ' '.repeat(5_000), '\ud800'.repeat(1000), 'x'.repeat(1_000_000)];
const BIG_SHARE = 0.03;

/** Makers of hostile non-primitive values: [label, () => value]. Each call builds a fresh one. */
const OBJECTS = [
  ['[]', () => []],
  ['[null]', () => [null]],
  ['[1,"a",{}]', () => [1, 'a', {}]],
  ['{}', () => ({})],
  ['{a:1}', () => ({ a: 1 })],
  ['Object.create(null)', () => tag(Object.create(null), 'Object.create(null)')],
  ['new Date(0)', () => tag(new Date(0), 'new Date(0)')],
  ['new Date(NaN)', () => tag(new Date(NaN), 'new Date(NaN)')],
  ['/x/g', () => tag(/x/g, '/x/g')],
  ['new Map', () => tag(new Map([['a', 1]]), 'new Map([["a", 1]])')],
  ['new Set', () => tag(new Set([1]), 'new Set([1])')],
  ['new Uint8Array(3)', () => tag(new Uint8Array(3), 'new Uint8Array(3)')],
  ['new ArrayBuffer(8)', () => tag(new ArrayBuffer(8), 'new ArrayBuffer(8)')],
  ['new String', () => tag(new String('x'), 'new String("x")')],
  ['new Number', () => tag(new Number(1), 'new Number(1)')],
  ['Promise.resolve', () => tag(Promise.resolve(1), 'Promise.resolve(1)')],
  ['Promise.reject', () => { const p = Promise.reject(boom('rejected')); p.catch(() => {}); return tag(p, 'Promise.reject(new Error("fuzz: rejected"))'); }],
  ['new Error', () => tag(new Error('fuzz: an error as a value'), 'new Error("fuzz: an error as a value")')],
  ['function', () => tag(() => 1, '() => 1')],
  ['throwing function', () => tag(() => { throw boom('function'); }, '() => { throw new Error("fuzz: function") }')],
  // Its rejection is handled: where a value is expected, the point is the wrong type, not an unhandled rejection.
  ['function returning a rejected Promise', () => tag(() => { const p = Promise.reject(boom('async')); p.catch(() => {}); return p; }, 'async () => { throw new Error("fuzz: async") }')],
  ['getter throws', () => tag(Object.defineProperty({}, 'x', { get() { throw boom('getter'); }, enumerable: true }), '{ get x() { throw new Error("fuzz: getter") } }')],
  ['proxy get throws', () => tag(new Proxy({}, { get() { throw boom('proxy get'); } }), 'new Proxy({}, { get() { throw new Error("fuzz: proxy get") } })')],
  ['proxy ownKeys throws', () => tag(new Proxy({ a: 1 }, { ownKeys() { throw boom('proxy ownKeys'); } }), 'new Proxy({ a: 1 }, { ownKeys() { throw new Error("fuzz: proxy ownKeys") } })')],
  ['proxy all traps throw', () => tag(new Proxy({}, Object.fromEntries(['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf'].map((t) => [t, () => { throw boom(`proxy ${t}`); }]))), 'new Proxy({}, { get/has/ownKeys/getOwnPropertyDescriptor/getPrototypeOf() { throw new Error("fuzz: proxy …") } })')],
  ['revoked proxy', () => { const p = Proxy.revocable({}, {}); p.revoke(); return tag(p.proxy, '(() => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy })()'); }],
  ['valueOf/toString throw', () => tag({ valueOf() { throw boom('valueOf'); }, toString() { throw boom('toString'); } }, '{ valueOf() { throw new Error("fuzz: valueOf") }, toString() { throw new Error("fuzz: toString") } }')],
  ['toJSON throws', () => tag({ toJSON() { throw boom('toJSON'); } }, '{ toJSON() { throw new Error("fuzz: toJSON") } }')],
  ['toPrimitive throws', () => tag({ [Symbol.toPrimitive]() { throw boom('toPrimitive'); } }, '{ [Symbol.toPrimitive]() { throw new Error("fuzz: toPrimitive") } }')],
  ['moderately deep object', () => { let o = { k: 1 }; for (let i = 0; i < 300; i++) o = { a: o }; return tag(o, 'Array.from({ length: 300 }).reduce((o) => ({ a: o }), { k: 1 })'); }],
  ['cyclic object', () => { const o = { a: 1 }; o.self = o; return tag(o, '(() => { const o = { a: 1 }; o.self = o; return o })()'); }],
  ['cyclic array', () => { const a = [1]; a.push(a); return tag(a, '(() => { const a = [1]; a.push(a); return a })()'); }],
  ['frozen', () => tag(Object.freeze({ a: [1] }), 'Object.freeze({ a: [1] })')],
  ['array with a throwing element getter', () => tag(Object.defineProperty([1, 2], 1, { get() { throw boom('element getter'); }, enumerable: true }), 'Object.defineProperty([1, 2], 1, { get() { throw new Error("fuzz: element getter") } })')],
  ['array subclass with throwing iterator', () => { const a = [1, 2]; a[Symbol.iterator] = () => { throw boom('iterator'); }; return tag(a, 'Object.assign([1, 2], { [Symbol.iterator]() { throw new Error("fuzz: iterator") } })'); }],
  ['object with throwing length', () => tag(Object.defineProperty({}, 'length', { get() { throw boom('length'); }, enumerable: true }), '{ get length() { throw new Error("fuzz: length") } }')],
  ['thenable that throws', () => tag({ then() { throw boom('then'); } }, '{ then() { throw new Error("fuzz: then") } }')],
];

const BIG_OBJECTS = [
  ['deep object', () => { let o = {}; for (let i = 0; i < 20_000; i++) o = { a: o }; return tag(o, 'Array.from({ length: 20000 }).reduce((o) => ({ a: o }), {})'); }],
  ['deep array', () => { let o = []; for (let i = 0; i < 20_000; i++) o = [o]; return tag(o, 'Array.from({ length: 20000 }).reduce((o) => [o], [])'); }],
  ['huge array', () => tag(Array(100_000).fill(0), 'Array(100000).fill(0)')],
  ['sparse array', () => tag(new Array(100_000), 'new Array(100000)')],
  ['10k keys', () => tag(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])), 'Object.fromEntries(Array.from({ length: 10000 }, (_, i) => ["k" + i, i]))')],
];

/** Package-object hostile values (need the module). */
export function packageObjects(at) {
  return [
    ['new MemorySink()', () => tag(new at.MemorySink(), 'new MemorySink()')],
    ['new JsonlSink()', () => tag(new at.JsonlSink(), 'new JsonlSink()')],
    ['freed MemorySink', () => { const s = new at.MemorySink(); s.free(); return tag(s, '(() => { const s = new MemorySink(); s.free(); return s })()'); }],
    ['freed JsonlSink', () => { const s = new at.JsonlSink(); s.free(); return tag(s, '(() => { const s = new JsonlSink(); s.free(); return s })()'); }],
    ['a recorder', () => tag(new at.TrajectoryRecorder(new at.MemorySink(), { clock: () => 0 }), 'new TrajectoryRecorder(new MemorySink(), { clock: () => 0 })')],
    ['a pipeline', () => tag(new at.ObserverPipeline({ observers: [] }), 'new ObserverPipeline({ observers: [] })')],
    ['freed pipeline', () => { const p = new at.ObserverPipeline({ observers: [] }); p.free(); return tag(p, '(() => { const p = new ObserverPipeline({ observers: [] }); p.free(); return p })()'); }],
  ];
}

const PRIMS = [
  [undefined, 'undefined'], [null, 'null'], [true, 'true'], [false, 'false'],
  [1n, '1n'], [-1n, '-1n'], [2n ** 64n - 1n, '2n**64n-1n'],
];
const SYMBOLS = [() => Symbol('s'), () => Symbol.iterator, () => Symbol()];

/** What a generated hostile value is, for trigger signatures. */
export function kindOf(v) {
  if (v === null) return 'null';
  if ((typeof v === 'object' || typeof v === 'function') && EXPR.has(v)) return labelOf(EXPR.get(v));
  try { Array.isArray(v); } catch { return 'revoked proxy'; }
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  if (t === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    if (Object.is(v, -0)) return '-0';
    if (!Number.isInteger(v)) return 'fraction';
    if (Math.abs(v) > 2 ** 53) return 'int>2^53';
    if (Math.abs(v) > 2 ** 32) return 'int>2^32';
    if (Math.abs(v) >= 2 ** 31 - 1) return 'int≈2^31';
    return v < 0 ? 'negative int' : 'small int';
  }
  if (t === 'string') {
    if (v === '') return 'empty string';
    if (v.length > 1000) return 'huge string';
    if (/[\ud800-\udfff]/.test(v) && !/[\ud800-\udbff][\udc00-\udfff]/.test(v)) return 'lone surrogate';
    return 'string';
  }
  if (t === 'object' || t === 'function') return EXPR.has(v) ? labelOf(EXPR.get(v)) : t;
  return t;
}
const labelOf = (expr) => (expr.length <= 40 ? expr : `${expr.slice(0, 37)}…`);

/**
 * A hostile value, as [value, expr]. `like` biases it: half the time the
 * value has the same type as `like` (edge numbers for numbers, odd strings
 * for strings), else anything.
 */
export function hostile(r, like, at) {
  const t = typeof like;
  if (r.chance(t === 'number' ? 0.7 : 0.5)) {
    if (t === 'number') { const n = r.pick(NUMBERS); return [n, numExpr(n)]; }
    if (t === 'string') { const s = r.chance(BIG_SHARE) ? r.pick(BIG_STRINGS) : r.pick(STRINGS); return [s, strExpr(s)]; }
    if (t === 'boolean') return r.pick([[0, '0'], [1, '1'], ['true', '"true"'], [null, 'null'], [!like, String(!like)]]);
  }
  if (r.chance(BIG_SHARE)) {
    if (r.chance(0.4)) { const s = r.pick(BIG_STRINGS); return [s, strExpr(s)]; }
    const [, make] = r.pick(BIG_OBJECTS);
    const v = make();
    return [v, show(v)];
  }
  const which = r.int(0, 99);
  if (which < 22) { const n = r.pick(NUMBERS); return [n, numExpr(n)]; }
  if (which < 42) { const s = r.pick(STRINGS); return [s, strExpr(s)]; }
  if (which < 58) return r.pick(PRIMS);
  if (which < 62) { const s = r.pick(SYMBOLS)(); return [s, show(s)]; }
  if (which < 70 && at) { const [, make] = r.pick(packageObjects(at)); const v = make(); return [v, show(v)]; }
  const [, make] = r.pick(OBJECTS);
  const v = make();
  return [v, show(v)];
}

// ---- the mutation engine ------------------------------------------------

const pathExpr = (path) => (path.length ? path.map((k) => (typeof k === 'number' ? `[${k}]` : IDENT.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('') : '(the whole value)');
export const pathPattern = (path) => path.map((k) => (typeof k === 'number' ? '*' : k)).join('.');

function isPlainContainer(v) {
  if (v === null || typeof v !== 'object' || EXPR.has(v)) return false;
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

/**
 * A mutated copy of a valid input: `make()` builds a fresh valid value;
 * 1–2 changes are applied. Returns an argument descriptor
 * { v, expr, atoms, unknownKeys }.
 */
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
  if (o === null || typeof o !== 'object' || EXPR.has(o)) return undefined;
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
