// The hostile values an input is made of: edge numbers, odd and huge
// strings, BigInts, Symbols, and objects that fight back (throwing getters,
// Proxies whose traps throw, cycles, deep nesting, package objects already
// freed); hostile() draws one, kindOf() names what was drawn for the
// findings' trigger signatures.
import { tag, tagged, exprOf, show, numExpr, strExpr } from './render.mjs';

export const boom = (what) => new Error(`fuzz: ${what}`);

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
  // Its only key the cycle: a walk that follows it takes no other step first.
  ['object that is only its cycle', () => { const o = {}; o.self = o; return tag(o, '(() => { const o = {}; o.self = o; return o })()'); }],
  ['cycle through a child', () => { const o = {}; o.child = { parent: o }; return tag(o, '(() => { const o = {}; o.child = { parent: o }; return o })()'); }],
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
  if ((typeof v === 'object' || typeof v === 'function') && tagged(v)) return labelOf(exprOf(v));
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
  if (t === 'object' || t === 'function') return tagged(v) ? labelOf(exprOf(v)) : t;
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
