// The reporters of agent-trajectories/report: judged runs (what judgeRuns
// decided) written as JUnit XML, GitHub Actions output, markdown and plain
// text. Formatting only: no rule of what passes lives here.

import { fail, isObject, isArray, why, shown, checkKeys, guard, visible, cell } from './util.js';
import { optionAdvice as advice } from './nearest.js';

/** @typedef {import('./report-types').JudgedRun} JudgedRun */

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
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups];
}

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
    // One line per run: a line break in its id or reason is shown, not broken on.
    out.push(`${r.pass ? '✓' : '✗'} ${many && r.source ? `${r.source}: ` : ''}${r.id}${ended ? `  ${ended}` : ''}`.replace(/\r?\n/g, '\\n'));
    for (const line of reasons(r)) out.push(`    ${line.replace(/\n/g, '\n    ')}`);
  }
  const passed = list.filter((r) => r.pass).length;
  out.push(`${passed} of ${count(list.length, 'run')} passed${passed < list.length ? `, ${list.length - passed} failed` : ''}`, '');
  // A run's text can hold a terminal's escape sequences: shown, never sent to the terminal.
  return out.map((l) => l.replace(/[\0-\x08\x0B-\x1F\x7F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('\n');
}
