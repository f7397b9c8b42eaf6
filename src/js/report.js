// agent-trajectories/report: runs judged by the core's checkRun, written as
// JUnit XML, GitHub Actions output, markdown and plain text, for CI. Any
// runtime (no node: import). It reaches checkRun and TrajectoryIndex
// through the package's main entry, by name, so it shares the one loaded
// WebAssembly module with the app instead of bundling a second copy of the
// layer; the reporters themselves only format what judgeRuns decided.

import { checkRun, TrajectoryIndex } from 'agent-trajectories';
import { fail, ours, isObject, isArray, why, shown, checkKeys, guard } from './util.js';
import { nearest, optionAdvice as advice } from './nearest.js';

const OPTIONS = ['source', 'check', 'failOn'];

/** @typedef {import('./report-types').JudgedRun} JudgedRun */
/** @typedef {import('./report-types').RunFailure} RunFailure */
/** @typedef {import('./report-types').ReportJudgement} ReportJudgement */
/** @typedef {import('./report-types').ReportBatchRun} ReportBatchRun */
/** @typedef {{ source: string | null, where: string, check: Record<string, unknown>, severity: string | null, reasons: string[] }} Judging */
/** @typedef {Pick<JudgedRun, 'id' | 'item' | 'repeat' | 'verdict' | 'reason' | 'summary' | 'turns' | 'tokens' | 'ms' | 'startedAt' | 'line' | 'reliability' | 'judgements'>} Facts */

// In order, least severe first: failOn's severities are the core's; the
// lowest one given is the one that fails the most.
/** @type {readonly import('./records').Severity[]} */
const SEVERITIES = ['info', 'caution', 'warning'];

/**
 * @param {unknown} options
 * @returns {Judging}
 */
function judging(options) {
  const fn = 'judgeRuns';
  if (options === undefined) options = {};
  if (!isObject(options) || isArray(options)) throw fail('INVALID_ARGUMENT', `${fn}: options must be an object { source?, check?, failOn? }, got ${why(options)}`);
  const o = /** @type {Record<string, unknown>} */ (options);
  checkKeys(o, OPTIONS, `${fn}: options`, advice(OPTIONS));
  if (o.source !== undefined && (typeof o.source !== 'string' || o.source === '')) throw fail('INVALID_ARGUMENT', `${fn}: options.source must be a non-empty string (a file name), got ${why(o.source)}`);
  const check = o.check ?? {};
  if (!isObject(check) || isArray(check)) throw fail('INVALID_ARGUMENT', `${fn}: options.check must be checkRun's options (an object), got ${why(check)}`);
  if ('runId' in check) throw fail('INVALID_ARGUMENT', `${fn}: options.check.runId: each run is checked by its own id; leave runId out`);
  const words = o.failOn === undefined ? [] : typeof o.failOn === 'string' ? [o.failOn] : o.failOn;
  if (!isArray(words) || words.some((w) => typeof w !== 'string' || w === '')) {
    throw fail('INVALID_ARGUMENT', `${fn}: options.failOn must be a word or a list of words (a stop reason, or a severity: ${SEVERITIES.join(', ')}), got ${why(o.failOn)}`);
  }
  // Any other word is a stop reason (runs of other runtimes have their
  // own), but one a slip away from a severity is a typo, not a reason.
  for (const w of words) {
    const near = SEVERITIES.includes(/** @type {any} */ (w)) ? undefined : nearest(w, [...SEVERITIES]);
    if (near) throw fail('INVALID_ARGUMENT', `${fn}: options.failOn: ${JSON.stringify(w)} is no severity; did you mean ${JSON.stringify(near)}? (a stop reason, or a severity: ${SEVERITIES.join(', ')})`);
  }
  const severities = SEVERITIES.filter((s) => words.includes(s));
  const source = /** @type {string | undefined} */ (o.source) ?? null;
  return { source, where: source ?? fn, check: { ...check }, severity: severities[0] ?? null, reasons: words.filter((w) => !SEVERITIES.includes(/** @type {any} */ (w))) };
}

/**
 * checkRun, its faults said in judgeRuns' words: the options are options.check, the run is named.
 * @param {unknown} run
 * @param {Record<string, unknown>} options
 * @param {Judging} j
 * @param {string} id
 */
function check(run, options, j, id) {
  try {
    return checkRun(/** @type {any} */ (run), options);
  } catch (e) {
    if (!ours(e)) throw e;
    const m = e.message.startsWith('checkRun: options') ? `judgeRuns: options.check${e.message.slice('checkRun: options'.length)}` : `${j.where}: run ${JSON.stringify(id)}: ${e.message.replace(/^checkRun: (run: )?/, '')}`;
    throw Object.assign(fail(e.code, m, e), e.line === undefined ? {} : { line: e.line });
  }
}

/**
 * What checkRun (its judge check included) and failOn say of one run.
 * @param {unknown} run what checkRun reads: a result, or the run's JSONL
 * @param {string | null} runId
 * @param {Facts} facts
 * @param {Judging} j
 * @returns {JudgedRun}
 */
function judged(run, runId, facts, j) {
  const at = runId === null ? {} : { runId };
  /** @type {Record<string, unknown>} */
  const main = { ...j.check, ...at };
  // One call when it can carry the severity too; the core refuses both maxSeverity and failOnSeverity.
  const apart = j.severity !== null && (main.maxSeverity !== undefined || main.failOnSeverity !== undefined);
  if (j.severity !== null && !apart) main.failOnSeverity = j.severity;
  /** @type {RunFailure[]} */
  const failures = check(run, main, j, facts.id).checks.filter((c) => !c.pass).map((c) => ({ check: c.check, message: c.message }));
  if (apart) {
    for (const c of check(run, { verdict: null, judge: false, failOnSeverity: j.severity, ...at }, j, facts.id).checks) if (!c.pass) failures.push({ check: 'failOn', message: c.message });
  }
  // The core's reason check passes when the run ended with one of the words: here that fails it.
  if (j.reasons.length > 0 && check(run, { verdict: null, judge: false, reason: j.reasons, ...at }, j, facts.id).pass) {
    failures.push({ check: 'failOn', message: `run ${JSON.stringify(facts.id)} ended with reason ${facts.reason}, which failOn lists (${j.reasons.join(', ')})` });
  }
  return { ...facts, source: j.source, pass: failures.length === 0, failures, error: null };
}

/**
 * Every top-level run of a record stream (a child run belongs to its parent's call).
 * @param {TrajectoryIndex} index
 * @param {Judging} j
 * @returns {JudgedRun[]}
 */
function judgeIndex(index, j) {
  const bad = index.errors();
  if (bad.length > 0) {
    const e = bad[0];
    const more = bad.length > 1 ? ` (and ${bad.length - 1} more bad line(s))` : '';
    throw Object.assign(fail(e.code, `${j.where}: line ${e.line}: ${e.message}${more}`), { line: e.line });
  }
  const runs = index.runs();
  const ids = new Set(runs.map((r) => r.runId));
  return runs.filter((r) => r.parentRunId === null || !ids.has(r.parentRunId)).map((r, n) => {
    const lines = [];
    /** @type {ReportJudgement[]} */
    const judgements = [];
    for (const i of index.filter({ runId: r.runId })) {
      lines.push(index.text(i));
      if (index.info(i).kind === 'custom') {
        const p = /** @type {any} */ (index.get(i).payload);
        if (p.name === 'judgement' && isObject(p.data)) judgements.push(p.data);
      }
    }
    const id = r.runId ?? `run ${n + 1}`;
    const o = r.outcome;
    /** @type {Facts} */
    const facts = {
      id, item: id, repeat: null, verdict: o?.verdict ?? null, reason: o ? o.reason ?? null : null, summary: o?.message ?? null,
      turns: r.turns, tokens: r.tokens, ms: Math.max(0, r.endedAt - r.startedAt), startedAt: r.startedAt,
      line: index.info(r.last).line, reliability: null, judgements,
    };
    return judged(lines.join('\n'), r.runId, facts, j);
  });
}

/**
 * The runs of a batch result: each judged by its result; one that never ran fails as an error.
 * @param {readonly unknown[]} runs
 * @param {unknown} summary
 * @param {Judging} j
 * @returns {JudgedRun[]}
 */
function judgeBatch(runs, summary, j) {
  const rel = isObject(summary) && isObject(summary.reliability) ? summary.reliability : null;
  /** @type {Map<string, { k: number, passAtK: number | null, passHatK: number | null }>} */
  const items = new Map();
  if (rel && typeof rel.k === 'number' && rel.k > 1 && isArray(rel.items)) {
    for (const it of rel.items) if (isObject(it)) items.set(String(it.id), { k: rel.k, passAtK: it.passAtK ?? null, passHatK: it.passHatK ?? null });
  }
  return runs.map((value, i) => {
    if (!isObject(value) || isArray(value) || typeof value.id !== 'string') throw fail('INVALID_ARGUMENT', `${j.where}: runs[${i}] must be a batch run { id, result, verdict, ... }, got ${why(value)}`);
    const r = /** @type {ReportBatchRun} */ (value);
    const end = isObject(r.result) && isObject(/** @type {any} */ (r.result).end) ? /** @type {any} */ (r.result).end : null;
    const item = typeof r.item === 'string' ? r.item : r.id;
    const num = (/** @type {unknown} */ v) => (typeof v === 'number' ? v : null);
    /** @type {Facts} */
    const facts = {
      id: r.id, item, repeat: num(r.repeat), verdict: r.verdict ?? end?.verdict ?? null, reason: r.reason ?? end?.reason ?? null,
      summary: typeof end?.summary === 'string' ? end.summary : null, turns: num(r.turns), tokens: num(r.tokens), ms: null, startedAt: null, line: null,
      reliability: items.get(item) ?? null, judgements: isArray(r.judgements) ? [...r.judgements] : [],
    };
    if (!isObject(r.result)) {
      const e = isObject(r.error) ? r.error : null;
      const said = typeof e?.message === 'string' && e.message ? e.message : typeof e?.code === 'string' ? `error code ${e.code}` : null;
      // A run kept without its result ({ id, verdict, turns, tokens }, as a queue's consumer may store it) ran; there is just nothing here to judge.
      const error = said !== null ? `run ${JSON.stringify(r.id)} never ran: ${said}`
        : r.verdict != null ? `run ${JSON.stringify(r.id)} has no result to judge (it was kept without it: keep each run's result, or total such runs with summarizeBatch)`
          : `run ${JSON.stringify(r.id)} never ran: it has no result`;
      return { ...facts, source: j.source, pass: false, failures: [{ check: 'error', message: error }], error };
    }
    return judged(r.result, null, facts, j);
  });
}

/**
 * @param {Uint8Array} bytes
 * @param {string} where
 */
function utf8(bytes, where) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    throw fail('INVALID_ARGUMENT', `${where}: not UTF-8 text`, e);
  }
}

/** @param {unknown} v */
const isRecord = (v) => isObject(v) && !isArray(v) && 'payload' in v && 'seq' in v;
/** @param {unknown} v @returns {v is { runs: unknown[], summary?: unknown }} */
const isBatch = (v) => isObject(v) && !isArray(v) && isArray(v.runs);
/** A batch by its `runs` key, whatever that holds (a record has a `payload`): read as one, or refused as not a list. @param {unknown} v */
const isBatchLike = (v) => isObject(v) && !isArray(v) && 'runs' in v && !('payload' in v);

/** @type {typeof import('./report-types').judgeRuns} */
export function judgeRuns(input, options) {
  // A getter or Proxy of the caller's that throws is named, never escapes uncoded.
  const where = 'judgeRuns: reading its input threw';
  const j = guard(where, () => judging(options));
  const runs = guard(where, () => judge(input, j));
  // Nothing to judge is not a pass: an empty or truncated results file must not get through a gate.
  if (runs.length === 0) throw fail('INVALID_ARGUMENT', `${j.source ?? 'judgeRuns: the input'} holds no runs (no records, or a batch without runs)`);
  return runs;
}

/**
 * @param {unknown} input
 * @param {Judging} j
 * @returns {JudgedRun[]}
 */
function judge(input, j) {
  /** @type {unknown} */
  let value = input instanceof Uint8Array ? utf8(input, j.where) : input;
  if (typeof value === 'string') {
    // A batch saved as JSON is one value; JSONL is a value per line (a lone record is JSONL too).
    if (/^\uFEFF?\s*[[{]/.test(value)) {
      try {
        const parsed = JSON.parse(value.replace(/^\uFEFF/, ''));
        if (isBatch(parsed) || isBatchLike(parsed) || (isArray(parsed) && !parsed.every(isRecord))) value = parsed;
      } catch {
        // Not one JSON value: read as JSONL, which names the bad line.
      }
    }
  }
  if (typeof value === 'string') {
    const index = TrajectoryIndex.fromJsonl(value);
    try {
      return judgeIndex(index, j);
    } finally {
      index.free();
    }
  }
  if (value instanceof TrajectoryIndex) return judgeIndex(value, j);
  if (isArray(value)) {
    if (value.length > 0 && value.every(isRecord)) return judge(value.map((r) => JSON.stringify(r)).join('\n'), j);
    return judgeBatch(value, null, j);
  }
  if (isBatch(value)) return judgeBatch(value.runs, value.summary, j);
  if (isBatchLike(value)) {
    throw fail('INVALID_ARGUMENT', `${j.where}: a batch result's runs must be a list of runs, got ${why(/** @type {{ runs: unknown }} */ (value).runs)}`);
  }
  if (isObject(value) && typeof value.conversationId === 'string' && isArray(value.steps)) {
    const steps = value.steps;
    return judgeBatch([{ id: value.conversationId, result: value, turns: steps.length }], null, j);
  }
  throw fail('INVALID_ARGUMENT', `${j.where}: expected record JSONL (text or bytes), records, a batch result { runs, summary }, a run's result or a TrajectoryIndex, got ${why(value)}`);
}

// ---- Reporters: formatting only ------------------------------------------

/**
 * @param {unknown} runs
 * @param {string} fn
 * @returns {JudgedRun[]}
 */
function judgedList(runs, fn) {
  return guard(`${fn}: reading its runs threw`, () => listOf(runs, fn));
}

/**
 * @param {unknown} runs
 * @param {string} fn
 * @returns {JudgedRun[]}
 */
function listOf(runs, fn) {
  if (!isArray(runs)) throw fail('INVALID_ARGUMENT', `${fn}: runs must be an array of judged runs (judgeRuns gives them), got ${why(runs)}`);
  runs.forEach((r, i) => {
    if (!isObject(r) || typeof r.id !== 'string' || typeof r.pass !== 'boolean' || !isArray(r.failures)) {
      throw fail('INVALID_ARGUMENT', `${fn}: runs[${i}] must be a judged run { id, pass, failures, ... } (judgeRuns gives them), got ${why(r)}`);
    }
  });
  // A plain copy, read once: the reporters then format values that cannot throw.
  return JSON.parse(JSON.stringify(runs));
}

/**
 * @param {unknown} options
 * @param {string} fn
 * @param {readonly string[]} keys
 * @returns {Record<string, any>}
 */
function reporterOptions(options, fn, keys) {
  return guard(`${fn}: reading its options threw`, () => optionsOf(options, fn, keys));
}

/**
 * @param {unknown} options
 * @param {string} fn
 * @param {readonly string[]} keys
 * @returns {Record<string, any>}
 */
function optionsOf(options, fn, keys) {
  if (options === undefined) return {};
  if (!isObject(options) || isArray(options)) throw fail('INVALID_ARGUMENT', `${fn}: options must be an object, got ${why(options)}`);
  checkKeys(options, keys, `${fn}: options`, advice(keys));
  for (const k of keys.filter((k) => k !== 'timestamp')) {
    const v = /** @type {Record<string, unknown>} */ (options)[k];
    if (v !== undefined && (typeof v !== 'string' || v === '')) throw fail('INVALID_ARGUMENT', `${fn}: options.${k} must be a non-empty string, got ${why(v)}`);
  }
  const t = /** @type {Record<string, unknown>} */ (options).timestamp;
  const ms = t instanceof Date ? t.getTime() : t;
  if (ms !== undefined && (typeof ms !== 'number' || !Number.isFinite(ms))) {
    throw fail('INVALID_ARGUMENT', `${fn}: options.timestamp must be a Date or Unix milliseconds, got ${t instanceof Date ? 'an invalid Date' : shown(t)}`);
  }
  // A report's timestamp is written as a year from 1 to 9999 (ISO 8601,
  // what the JUnit schemas read): a time outside them is refused, not
  // replaced.
  const year = ms === undefined ? 2000 : new Date(ms).getUTCFullYear();
  if (!(year >= 1 && year <= 9999)) {
    throw fail('INVALID_ARGUMENT', `${fn}: options.timestamp must be a time in the years 1 to 9999, got ${shown(ms)}${t instanceof Date ? ' (a Date)' : ''}`);
  }
  return { ...options, timestamp: ms };
}

/** @param {number} n @param {string} one */
const count = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * How a run ended, in one line: `verdict agent, reason max-turns, 3 turns, 120 tokens`.
 * @param {JudgedRun} r
 */
function facts(r) {
  const parts = [];
  if (r.verdict != null) parts.push(`verdict ${r.verdict}`);
  if (r.reason != null) parts.push(`reason ${r.reason}`);
  if (r.turns != null) parts.push(count(r.turns, 'turn'));
  if (r.tokens != null) parts.push(count(r.tokens, 'token'));
  return parts.join(', ');
}

/**
 * Why a run failed, a line each: how it ended in words (when its end is what failed), then each failure.
 * @param {JudgedRun} r
 * @returns {string[]}
 */
function reasons(r) {
  if (r.pass) return [];
  const said = r.failures.map((f) => `${f.check}: ${f.message}`);
  return r.summary && r.failures.some((f) => f.check === 'verdict') ? [r.summary, ...said] : said;
}

/**
 * Runs grouped by source, in the order each first appears.
 * @param {JudgedRun[]} runs
 * @param {string} unnamed
 * @returns {[string, JudgedRun[]][]}
 */
function bySource(runs, unnamed) {
  /** @type {Map<string, JudgedRun[]>} */
  const groups = new Map();
  for (const r of runs) {
    const key = r.source ?? unnamed;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups];
}

// XML 1.0 cannot carry these at all, not even as character references.
const NOT_XML = /[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** @param {string} s */
const visible = (s) => s.replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** @type {Record<string, string>} */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\n': '&#10;', '\r': '&#13;', '\t': '&#9;' };
/** Text content (`>` too, so `]]>` cannot appear). @param {string} s */
const xmlText = (s) => visible(s).replace(/[&<>\r]/g, (c) => ENTITIES[c]);
/** An attribute value, quoted; line breaks and tabs kept as references (a parser would fold them to spaces). @param {string} s */
const xmlAttr = (s) => `"${visible(s).replace(/[&<>"\n\r\t]/g, (c) => ENTITIES[c])}"`;
/** @param {number | null} ms */
const seconds = (ms) => (ms === null || !(ms > 0) ? '0' : (ms / 1000).toFixed(3));

/**
 * A time as the Ant schema wants it: ISO 8601 to the second, no zone (UTC).
 * @param {number} ms
 */
function isoSeconds(ms) {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  return (Number.isNaN(d.getTime()) || y < 1 || y > 9999 ? new Date() : d).toISOString().slice(0, 19);
}

/** @type {typeof import('./report-types').junitReport} */
export function junitReport(runs, options) {
  const list = judgedList(runs, 'junitReport');
  const o = reporterOptions(options, 'junitReport', ['hostname', 'timestamp', 'name']);
  /** @type {number | null} */
  const at = o.timestamp ?? null;
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites>'];
  bySource(list, o.name ?? 'agent-trajectories').forEach(([name, rs], id) => {
    const errors = rs.filter((r) => !r.pass && r.error != null).length;
    const failures = rs.filter((r) => !r.pass && r.error == null).length;
    const starts = rs.map((r) => r.startedAt).filter((t) => typeof t === 'number');
    const when = at ?? (starts.length ? Math.min(...starts) : Date.now());
    const time = seconds(rs.reduce((a, r) => a + (r.ms ?? 0), 0));
    // The Ant schema wants every attribute here, `package` and `id` inside <testsuites>, and <properties> (the Jenkins one: with a property).
    out.push(`  <testsuite name=${xmlAttr(name)} package=${xmlAttr(name)} id="${id}" tests="${rs.length}" failures="${failures}" errors="${errors}" time="${time}" timestamp="${isoSeconds(when)}" hostname=${xmlAttr(o.hostname ?? 'localhost')}>`);
    out.push('    <properties>');
    /** @param {string} k @param {unknown} v */
    const prop = (k, v) => v != null && out.push(`      <property name=${xmlAttr(k)} value=${xmlAttr(String(v))}/>`);
    prop('runs', rs.length);
    prop('passed', rs.filter((r) => r.pass).length);
    // Neither schema lets a <testcase> hold properties: a run's are its suite's, named by its id.
    for (const r of rs) for (const k of /** @type {const} */ (['verdict', 'reason', 'turns', 'tokens'])) prop(`${r.id}.${k}`, r[k]);
    const items = new Set();
    for (const r of rs) {
      if (!r.reliability || items.has(r.item)) continue;
      items.add(r.item);
      prop(`${r.item}.k`, r.reliability.k);
      prop(`${r.item}.passAtK`, r.reliability.passAtK);
      prop(`${r.item}.passHatK`, r.reliability.passHatK);
    }
    out.push('    </properties>');
    for (const r of rs) {
      const head = `    <testcase name=${xmlAttr(r.id)} classname=${xmlAttr(r.item ?? r.id)} time="${seconds(r.ms)}"`;
      if (r.pass) {
        out.push(`${head}/>`);
        continue;
      }
      const tag = r.error != null ? 'error' : 'failure';
      const type = [...new Set(r.failures.map((f) => f.check))].join(',') || 'fail';
      const first = r.error ?? r.failures[0]?.message ?? 'failed';
      const body = [`run ${JSON.stringify(r.id)}: ${facts(r) || 'no end recorded'}`, ...reasons(r)].join('\n');
      out.push(`${head}>`, `      <${tag} type=${xmlAttr(type)} message=${xmlAttr(first)}>${xmlText(body)}</${tag}>`, '    </testcase>');
    }
    out.push(`    <system-out>${xmlText(textReport(rs))}</system-out>`, '    <system-err></system-err>', '  </testsuite>');
  });
  out.push('</testsuites>', '');
  return out.join('\n');
}

/**
 * A table cell: markdown's and HTML's punctuation escaped, lines joined by <br>.
 * @param {unknown} v
 */
const cell = (v) => (v == null ? '–' : visible(String(v)).replace(/[\\`*_{}[\]<>|#~&!]/g, '\\$&').replace(/\r?\n|\r/g, '<br>'));
/** @param {number | null} x */
const ratio = (x) => (x === null ? null : String(Math.round(x * 1000) / 1000));

/** @type {typeof import('./report-types').markdownReport} */
export function markdownReport(runs, options) {
  const list = judgedList(runs, 'markdownReport');
  const o = reporterOptions(options, 'markdownReport', ['title']);
  const passed = list.filter((r) => r.pass).length;
  const many = new Set(list.map((r) => r.source)).size > 1;
  const out = [`## ${passed === list.length ? '✅' : '❌'} ${cell(o.title ?? 'agent-trajectories')}: ${passed} of ${count(list.length, 'run')} passed`, ''];
  if (list.length > 0) {
    out.push(`| | ${many ? 'file | ' : ''}run | verdict | reason | turns | tokens | why it failed |`, `|:-:|${many ? '---|' : ''}---|---|---|--:|--:|---|`);
    for (const r of [...list.filter((r) => !r.pass), ...list.filter((r) => r.pass)]) {
      out.push(`| ${r.pass ? '✅' : '❌'} | ${many ? `${cell(r.source)} | ` : ''}${cell(r.id)} | ${cell(r.verdict)} | ${cell(r.reason)} | ${cell(r.turns)} | ${cell(r.tokens)} | ${r.pass ? '' : cell(reasons(r).join('\n'))} |`);
    }
  }
  const rel = list.filter((r) => r.reliability);
  if (rel.length > 0) {
    const ks = new Set(rel.map((r) => r.reliability?.k));
    const k = ks.size === 1 ? String([...ks][0]) : 'k';
    out.push('', `| ${many ? 'file | ' : ''}item | runs | passed | pass@${k} | pass^${k} |`, `|${many ? '---|' : ''}---|--:|--:|--:|--:|`);
    const seen = new Set();
    for (const r of rel) {
      const key = `${r.source}\u0000${r.item}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const mine = list.filter((x) => x.source === r.source && x.item === r.item);
      const rr = /** @type {NonNullable<JudgedRun['reliability']>} */ (r.reliability);
      const at = ks.size === 1 ? '' : ` (k=${rr.k})`;
      out.push(`| ${many ? `${cell(r.source)} | ` : ''}${cell(r.item)} | ${mine.length} | ${mine.filter((x) => x.pass).length} | ${cell(ratio(rr.passAtK))}${at} | ${cell(ratio(rr.passHatK))}${at} |`);
    }
  }
  out.push('');
  return out.join('\n');
}

// GitHub's workflow commands: a message escapes %, CR and LF; a property, `:` and `,` too.
// Other control characters (a terminal's escapes in a run's text) are shown, not sent.
/** @param {string} s */
const ghData = (s) => visible(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** @param {string} s */
const ghProp = (s) => ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** @type {typeof import('./report-types').githubReport} */
export function githubReport(runs, options) {
  const list = judgedList(runs, 'githubReport');
  reporterOptions(options, 'githubReport', ['title']);
  const lines = list.filter((r) => !r.pass).map((r) => {
    const props = [];
    if (r.source) props.push(`file=${ghProp(r.source)}`);
    if (r.source && r.line != null) props.push(`line=${r.line}`);
    const ended = facts(r);
    props.push(`title=${ghProp(`run ${r.id} failed${ended ? ` (${ended})` : ''}`)}`);
    return `::error ${props.join(',')}::${ghData(reasons(r).join('\n'))}`;
  });
  return { annotations: lines.map((l) => `${l}\n`).join(''), summary: markdownReport(list, options) };
}

/** @type {typeof import('./report-types').textReport} */
export function textReport(runs) {
  const list = judgedList(runs, 'textReport');
  const many = new Set(list.map((r) => r.source)).size > 1;
  const out = [];
  for (const r of list) {
    const ended = facts(r);
    out.push(`${r.pass ? '✓' : '✗'} ${many && r.source ? `${r.source}: ` : ''}${r.id}${ended ? `  ${ended}` : ''}`);
    for (const line of reasons(r)) out.push(`    ${line.replace(/\n/g, '\n    ')}`);
  }
  const passed = list.filter((r) => r.pass).length;
  out.push(`${passed} of ${count(list.length, 'run')} passed${passed < list.length ? `, ${list.length - passed} failed` : ''}`, '');
  // A run's text can hold a terminal's escape sequences: shown, never sent to the terminal.
  return out.map((l) => l.replace(/[\0-\x08\x0B-\x1F\x7F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('\n');
}
