// Inputs for records and JSONL: parseTrajectoryJsonl on JSONL text that is
// truncated, garbled, duplicated, dropped or renumbered (strict and lenient
// must agree), serializeTrajectoryJsonl on changed records (the output must
// round-trip), normalizeMessages on changed messages (it must be idempotent).
import { show } from './render.mjs';
import { mutated, peek, valid, wild } from './mutate.mjs';
import { RECORD_KINDS, recordList, jsonlLines, B } from './inputs.mjs';
import { SEP, messageFinding, firstDiff, errShape, readBack, roundTripProblems, isCoded, describe } from './checks.mjs';
import { step, unknownOf, atomsOf } from './harness.mjs';
// (gen.mjs imports this module too; DOCUMENTED_CODES is read only while a case runs.)
import { DOCUMENTED_CODES } from './gen.mjs';

// JSONL text mutations.
function jsonlText(r) {
  const n = r.chance(0.3) ? r.int(1, 3) : RECORD_KINDS.length;
  const child = r.chance(0.15);
  const lines = jsonlLines(n, child);
  return { lines, name: `B.jsonl(${n}${child ? ', true' : ''})` };
}
function mutateJsonl(r, at) {
  const { lines, name } = jsonlText(r);
  const descs = [];
  const atoms = [];
  const times = r.chance(0.8) ? 1 : 2;
  let bom = false;
  let eol = '\n';
  for (let t = 0; t < times; t++) {
    const i = r.int(0, lines.length - 1);
    const op = r.weighted([[35, 'field'], [8, 'number-text'], [6, 'truncate'], [5, 'delete-char'], [5, 'insert-char'], [4, 'dup'], [4, 'drop'], [3, 'swap'], [3, 'blank'], [3, 'join'],
      [4, 'line'], [3, 'seq-gap'], [3, 'schema'], [2, 'bom'], [2, 'crlf'], [2, 'cr'], [1, 'huge']]);
    switch (op) {
      case 'field': {
        let obj;
        try { obj = JSON.parse(lines[i]); } catch { obj = { broken: lines[i] }; }
        const m = mutated(r, at, () => obj, `line ${i + 1}`);
        let s;
        try { s = JSON.stringify(m.v); } catch { s = undefined; }
        if (typeof s !== 'string') { lines[i] = String(lines[i]).slice(0, -1); descs.push(`line ${i + 1} loses its last character`); atoms.push('line truncated'); break; }
        lines[i] = s;
        descs.push(`line ${i + 1}: ${m.descs.join('; ')}`);
        atoms.push(...m.atoms.map((a) => `line.${a}`));
        break;
      }
      case 'number-text': {
        const field = r.pick(['seq', 'schema_version', 'depth', 'recorded_at_unix_ms']);
        const text = r.pick(['18446744073709551615', '9007199254740993', '1e400', '-0', '1.0', '1e2', '-1', '1.5', '0x10', '01', '2147483648', '4294967296', 'NaN', 'Infinity', '"1"', 'null', 'true', '[]', '{}']);
        lines[i] = lines[i].replace(new RegExp(`"${field}":[^,}]*`), `"${field}":${text}`);
        descs.push(`line ${i + 1}: "${field}":${text}`);
        atoms.push(`${field}=${text}`);
        break;
      }
      case 'truncate': { const at2 = r.int(0, lines[i].length - 1); lines[i] = lines[i].slice(0, at2); descs.push(`line ${i + 1} truncated to ${at2} chars`); atoms.push('line truncated'); break; }
      case 'delete-char': { const at2 = r.int(0, lines[i].length - 1); lines[i] = lines[i].slice(0, at2) + lines[i].slice(at2 + 1); descs.push(`line ${i + 1}: character ${at2} deleted`); atoms.push('char deleted'); break; }
      case 'insert-char': { const at2 = r.int(0, lines[i].length); const c = r.pick(['{', '}', '"', ',', '\\', '\u0000', '\ud800', 'x', ' ', '\u2028', '\ufeff']); lines[i] = lines[i].slice(0, at2) + c + lines[i].slice(at2); descs.push(`line ${i + 1}: ${JSON.stringify(c)} inserted at ${at2}`); atoms.push(`char inserted`); break; }
      case 'dup': lines.splice(i, 0, lines[i]); descs.push(`line ${i + 1} duplicated`); atoms.push('line duplicated'); break;
      case 'drop': if (lines.length > 1) { lines.splice(i, 1); descs.push(`line ${i + 1} removed (seq gap)`); atoms.push('line removed'); } break;
      case 'swap': { const j = r.int(0, lines.length - 1); [lines[i], lines[j]] = [lines[j], lines[i]]; descs.push(`lines ${i + 1} and ${j + 1} swapped`); atoms.push('lines swapped'); break; }
      case 'blank': lines.splice(i, 0, r.pick(['', '   ', '\t'])); descs.push(`a blank line before line ${i + 1}`); atoms.push('blank line'); break;
      case 'join': if (i + 1 < lines.length) { lines.splice(i, 2, lines[i] + lines[i + 1]); descs.push(`lines ${i + 1} and ${i + 2} joined`); atoms.push('lines joined'); } break;
      case 'line': { const l = r.pick(['null', '[]', '1', '"x"', '{}', 'true', '{"schema_version":1}', '{"payload":{"kind":"custom","name":"x"}}', '[{}]', '{"schema_version":2,"seq":0,"depth":0,"recorded_at_unix_ms":0,"payload":{"kind":"custom","name":"x"}}']); lines.splice(i, 0, l); descs.push(`line ${i + 1} = ${l}`); atoms.push(`line=${l.slice(0, 20)}`); break; }
      case 'seq-gap': { let obj; try { obj = JSON.parse(lines[i]); } catch { break; } if (obj && typeof obj === 'object') { obj.seq = (obj.seq ?? 0) + r.pick([2, 5, -1, 1000]); lines[i] = JSON.stringify(obj); descs.push(`line ${i + 1}: seq = ${obj.seq}`); atoms.push('seq gap'); } break; }
      case 'schema': { const v = r.pick([0, 2, 99, -1, 1.5, '1', null]); lines[i] = lines[i].replace(/"schema_version":[^,]*/, `"schema_version":${JSON.stringify(v)}`); descs.push(`line ${i + 1}: schema_version ${JSON.stringify(v)}`); atoms.push(`schema_version=${JSON.stringify(v)}`); break; }
      case 'bom': bom = true; descs.push('a byte-order mark first'); atoms.push('BOM'); break;
      case 'crlf': eol = '\r\n'; descs.push('CRLF line ends'); atoms.push('CRLF'); break;
      case 'cr': eol = '\r'; descs.push('CR-only line ends'); atoms.push('CR'); break;
      case 'huge': { let obj; try { obj = JSON.parse(lines[i]); } catch { break; } if (obj && obj.payload) { obj.payload = { kind: 'custom', name: 'big', data: 'x'.repeat(2_000_000) }; lines[i] = JSON.stringify(obj); descs.push(`line ${i + 1}: a 2 MB custom payload`); atoms.push('huge line'); } break; }
      default: break;
    }
  }
  const text = (bom ? '\ufeff' : '') + lines.join(eol) + (r.chance(0.8) ? eol : '');
  const expr = text.length <= 300 ? JSON.stringify(text) : `${name} with ${descs.join('; ') || 'nothing changed'}`;
  return { v: text, expr, atoms, unknownKeys: [] };
}

export function genParse(r, at, V, env) {
  const text = r.weighted([[80, () => mutateJsonl(r, at)], [8, () => { const t = jsonlText(r); return valid(`${t.lines.join('\n')}\n`, t.name); }], [12, () => wild(r, at, '', 'text')]])();
  const optsKind = r.weighted([[40, 'none'], [35, 'lenient'], [10, 'strict'], [15, 'mutated']]);
  const opts = optsKind === 'none' ? null : optsKind === 'lenient' ? valid({ lenient: true }) : optsKind === 'strict' ? valid({ lenient: false }) : r.chance(0.6) ? mutated(r, at, () => ({ lenient: true }), '{ lenient: true }', { closed: [''] }) : wild(r, at, {}, 'opts');
  const lv = opts ? peek(opts.v, 'lenient') : undefined;
  const lenient = lv === true;
  // Only a boolean or absent `lenient` says which shape must come back.
  const shapeKnown = !(opts && opts.atoms.some((a) => /getter|proxy|\(value\)/.test(a))) && (lv === undefined || typeof lv === 'boolean') && !(opts && opts.v !== null && typeof opts.v !== 'object' && opts.v !== undefined);
  const isText = typeof text.v === 'string';
  const expr = `parseTrajectoryJsonl(${text.expr}${opts ? `, ${opts.expr}` : ''})`;
  const after = (res) => {
    const out = [];
    if (!Array.isArray(res) && res && typeof res === 'object' && 'errors' in res) {
      if (!lenient && shapeKnown) return [`{ lenient: true } was not asked for (${opts ? opts.expr : 'no opts'}), yet the lenient shape came back`];
      if (!res || !Array.isArray(res.records) || !Array.isArray(res.errors)) return ['lenient parse did not return { records, errors }'];
      let last = 0;
      for (const e of res.errors) {
        if (!Number.isInteger(e.line) || e.line <= last) { out.push(`lenient errors: line ${show(e.line)} out of order or not a line number`); break; }
        last = e.line;
        if (typeof e.code !== 'string') out.push(`lenient error without code: ${show(e)}`);
        else if (!DOCUMENTED_CODES.has(e.code)) out.push(`lenient error code ${JSON.stringify(e.code)} is not a documented ErrorCode`);
        const p = messageFinding('a lenient bad-line message', e.message);
        if (p) out.push(p);
      }
      out.push(...roundTripProblems(at, res.records, 'the records lenient parse kept').filter((p) => !p.includes('seq')));
      // Strict must agree: same records when there are no errors, else the first bad line.
      if (isText) {
        try {
          const strict = at.parseTrajectoryJsonl(text.v);
          if (res.errors.length) out.push(`strict parse accepts what lenient parse reports bad${SEP}line ${res.errors[0].line}: ${res.errors[0].message}`);
          else { const d = firstDiff(strict, res.records); if (d) out.push(`strict and lenient parse return different records${SEP}${d}`); }
        } catch (e) {
          if (isCoded(e) && res.errors.length && e.line !== res.errors[0].line) out.push(`strict parse fails at another line than lenient parse reports first${SEP}strict: line ${e.line}, lenient: line ${res.errors[0].line}`);
          if (isCoded(e) && !res.errors.length) out.push(`strict parse refuses what lenient parse accepts: ${errShape(e)}${SEP}${describe(e)}`);
        }
      }
      return out;
    }
    if (!Array.isArray(res)) return [`parse returned ${show(res, 60)}`];
    if (lenient && shapeKnown) out.push('{ lenient: true } was asked for, yet an array came back');
    out.push(...roundTripProblems(at, res, 'the parsed records').filter((p) => !p.includes('seq')));
    return out;
  };
  const onCoded = (e) => (isText && ['JSONL_PARSE', 'INVALID_RECORD', 'UNSUPPORTED_SCHEMA_VERSION'].includes(e.code) && !(Number.isInteger(e.line) && e.line >= 1) ? [`${e.code} error without err.line`] : []);
  return { exp: 'parseTrajectoryJsonl', steps: [step('parseTrajectoryJsonl', expr, () => (opts ? at.parseTrajectoryJsonl(text.v, opts.v) : at.parseTrajectoryJsonl(text.v)), { after, onCoded, unknown: unknownOf(opts) })], env, atoms: atomsOf(text, opts) };
}

export function genSerialize(r, at, V, env) {
  const n = r.chance(0.3) ? r.int(1, 3) : RECORD_KINDS.length;
  const a = r.weighted([[75, () => mutated(r, at, () => recordList(n), `B.records(${n})`)], [10, () => valid(recordList(), 'B.records()')], [15, () => wild(r, at, [], 'records')]])();
  const after = (text) => {
    if (typeof text !== 'string') return [`returned ${show(text, 60)}`];
    try {
      const back = readBack(at, text);
      if (at.serializeTrajectoryJsonl(back) !== text) return ['serialize → parse → serialize is not byte-identical'];
    } catch (e) { return [`parseTrajectoryJsonl refuses serializeTrajectoryJsonl's output: ${errShape(e)}${SEP}${describe(e)}`]; }
    return [];
  };
  return { exp: 'serializeTrajectoryJsonl', steps: [step('serializeTrajectoryJsonl', `serializeTrajectoryJsonl(${a.expr})`, () => at.serializeTrajectoryJsonl(a.v), { after })], env, atoms: a.atoms };
}

export function genNormalize(r, at, V, env) {
  const a = r.weighted([[80, () => mutated(r, at, B['B.messages()'], 'B.messages()')], [5, () => valid(B['B.messages()'](), 'B.messages()')], [15, () => wild(r, at, [], 'messages')]])();
  const after = (out) => {
    if (!Array.isArray(out)) return [`returned ${show(out, 60)}`];
    try {
      const again = at.normalizeMessages(out);
      const d = firstDiff(again, out);
      return d ? [`not idempotent: normalizeMessages(normalizeMessages(x)) differs from normalizeMessages(x)${SEP}${d}`] : [];
    } catch (e) { return [`normalizeMessages refuses its own output: ${errShape(e)}${SEP}${describe(e)}`]; }
  };
  return { exp: 'normalizeMessages', steps: [step('normalizeMessages', `normalizeMessages(${a.expr})`, () => at.normalizeMessages(a.v), { after })], env, atoms: a.atoms };
}
