// The checks the cases share: what is wrong with a message meant for people
// (empty, a Rust debug form, "1 calls", [object Object]), where two values
// first differ, whether records the package produced are well numbered and
// stamped and survive serialize → parse → serialize; and how a thrown value
// is told apart and described (coded, the input's own exception).
import { show } from './render.mjs';

const RUST_FORMS = /\bSome\(|\bJsValue\(|\bNone\b|\bOk\(|\bErr\(/;
const ONE_PLURAL = /(?<![\d.])1 (calls|turns|records|lines|steps|errors|items|times|attempts|messages|entries|observers|tokens|seconds|candidates|failures)\b/;
/** Text after SEP in a finding is detail: it is shown, but findings are deduplicated on the text before it. */
export const SEP = ' \u2016 ';
// Where in a message a problem sits: the words before it, with quoted text and numbers abstracted.
const site = (m, at) => m.slice(Math.max(0, at - 40), at).replace(/"(?:[^"\\]|\\.)*"?/g, '"…"').replace(/\d+/g, 'N').replace(/^\S*\s/, '…');
/** What is wrong with a message meant for people (with where it sits), or null. */
export function messageProblem(m) {
  if (typeof m !== 'string') return `is not a string (${typeof m})`;
  if (m.trim() === '') return 'is empty';
  const rust = RUST_FORMS.exec(m);
  if (rust) return `contains the Rust debug form ${JSON.stringify(rust[0])} (after "${site(m, rust.index)}")`;
  const one = ONE_PLURAL.exec(m);
  if (one) return `says ${JSON.stringify(one[0])} (after "${site(m, one.index)}")`;
  // (Inside quotes it is the caller's own text, quoted back.)
  const obj = m.search(/(?<!")\[object Object\]/);
  if (obj >= 0) return `contains "[object Object]" (after "${site(m, obj)}")`;
  return null;
}
/** `label` + the message's problem + the message as detail, or null. */
export const messageFinding = (label, m) => { const p = messageProblem(m); return p ? `${label} ${p}${SEP}${show(m, 300)}` : null; };

/** The first path where two JSON-like values differ, or null. */
export function firstDiff(a, b, path = '') {
  if (Object.is(a, b)) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && a === b ? null : `${path || '(root)'}: ${show(a, 60)} vs ${show(b, 60)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path || '(root)'}: array vs object`;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  if (ka.length !== kb.length) return `${path || '(root)'}: keys [${ka.join(',')}] vs [${kb.join(',')}]`;
  for (const k of ka) {
    const d = firstDiff(a[k], b[k], `${path}${Array.isArray(a) ? `[${k}]` : `.${k}`}`);
    if (d) return d;
  }
  return null;
}

/** Problems of records the package itself produced (seq, timestamps). */
export function recordProblems(records, what, { suffix = false } = {}) {
  const out = [];
  if (!Array.isArray(records)) return [`records the package produced are not an array${SEP}${what}`];
  const next = new Map();
  for (const rec of records) {
    if (!rec || typeof rec !== 'object') { out.push(`records the package produced hold a non-object${SEP}${what}`); break; }
    const run = `${rec.run_id ?? ''}|${rec.parent_run_id ?? ''}|${rec.depth}`;
    const want = next.get(run) ?? (suffix ? rec.seq : 0); // undelivered() starts wherever delivery stopped
    if (rec.seq !== want) { out.push(`records the package produced: seq not 0..n-1 per run${SEP}${what}: seq ${show(rec.seq, 30)} where ${want} was due`); break; }
    next.set(run, want + 1);
    if (!Number.isSafeInteger(rec.recorded_at_unix_ms) || rec.recorded_at_unix_ms < 0) { out.push(`records the package produced: recorded_at_unix_ms is not a whole number of milliseconds in 0..2^53${SEP}${what}: recorded_at_unix_ms ${show(rec.recorded_at_unix_ms, 30)}`); break; }
  }
  return out;
}

/** An error's code and the first words of its message, for the part of a finding that is deduplicated on. */
export const errShape = (e) => { try { return `${e.code ?? e.name} ${String(e.message).split(/[:;]/)[0].slice(0, 60)}`; } catch { return '?'; } };

/** Records: round trip through serialize and parse (strict); problems as strings. */
// A stream written from records the caller handed in (or one a failing sink
// lost records from) may skip seqs: reporting that is SEQ_GAP's job, not a
// broken invariant. Any other problem reading it back is one.
export function readBack(at, text) {
  const { records, errors } = at.parseTrajectoryJsonl(text, { lenient: true });
  const other = errors.find((e) => e.code !== 'SEQ_GAP');
  if (other) {
    const err = new Error(other.message);
    err.name = 'AgentTrajectoriesError';
    err.code = other.code;
    throw err;
  }
  return records;
}

export function roundTripProblems(at, records, what) {
  const out = recordProblems(records, what);
  let text;
  try { text = at.serializeTrajectoryJsonl(records); } catch (e) { return [...out, `serializeTrajectoryJsonl refuses records the package produced: ${errShape(e)}${SEP}${what}: ${describe(e)}`]; }
  let back;
  try { back = readBack(at, text); } catch (e) { return [...out, `parseTrajectoryJsonl refuses serializeTrajectoryJsonl(records the package produced): ${errShape(e)}${SEP}${what}: ${describe(e)}`]; }
  const again = at.serializeTrajectoryJsonl(back);
  if (again !== text) out.push(`serialize → parse → serialize of records the package produced is not byte-identical${SEP}${what}`);
  return out;
}

/** Whether a thrown value is the fuzz input's own exception (a callback's or a getter's), escaping unwrapped. */
export function isOwnException(e) {
  try {
    if (e instanceof Error) return String(e.message).startsWith('fuzz:');
    return true; // the package never throws non-Errors on its own; these come from the inputs
  } catch { return true; }
}

export function isCoded(e) {
  try {
    return e instanceof Error && e.name === 'AgentTrajectoriesError' && typeof e.code === 'string';
  } catch { return false; }
}
/** A thrown value as text, without running its getters twice or trusting it. */
export function describe(e) {
  try {
    if (e instanceof Error) {
      const name = (() => { try { return e.constructor?.name ?? e.name; } catch { return 'Error'; } })();
      const code = (() => { try { return e.code; } catch { return undefined; } })();
      const m = (() => { try { return String(e.message); } catch { return '<message getter throws>'; } })();
      return `${name}${code !== undefined ? ` [code ${show(code, 30)}]` : ''}${(() => { try { return e.name && e.name !== name ? ` (name ${e.name})` : ''; } catch { return ''; } })()}: ${m}`;
    }
    return `a non-Error: ${show(e, 80)}`;
  } catch { return 'a thrown value that cannot be described'; }
}
