// Values written back as short JS expressions, for the reproductions: tag()
// records how a generated object or function is written, show() writes any
// value (never running its getters, traps or toString), numExpr and strExpr
// write numbers and strings compactly. No dependencies.

const EXPR = new WeakMap();
/** Registers how an object or function is written in a reproduction. */
export function tag(v, expr) {
  if ((typeof v === 'object' && v !== null) || typeof v === 'function') EXPR.set(v, expr);
  return v;
}
/** How a tagged object or function is written (undefined when it is not tagged). */
export const exprOf = (v) => EXPR.get(v);
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

export const IDENT = /^[A-Za-z_$][\w$]*$/;
export const keyExpr = (k) => (typeof k === 'symbol' ? `[${show(k)}]` : IDENT.test(k) ? k : JSON.stringify(k));

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
