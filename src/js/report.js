// agent-trajectories/report: runs judged by the core's checkRun, written as
// JUnit XML, GitHub Actions output, markdown and plain text (./reporters.js),
// for CI. Any runtime (no node: import). It reaches checkRun and TrajectoryIndex
// through the package's main entry, by name, so it shares the one loaded
// WebAssembly module with the app instead of bundling a second copy of the
// layer; the reporters themselves only format what judgeRuns decided.

import { checkRun, TrajectoryIndex } from 'agent-trajectories';
import { fail, ours, isObject, isArray, why, checkKeys, guard, utf8 } from './util.js';
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
 * checkRun, its faults said in judgeRuns' words: the options are options.check
 * (or, for failOn's reasons, options.failOn), the run is named.
 * @param {unknown} run
 * @param {Record<string, unknown>} options
 * @param {Judging} j
 * @param {string} id
 * @param {[string, string]} said checkRun's option as said, and as judgeRuns says it
 */
function check(run, options, j, id, [option, as] = ['checkRun: options', 'judgeRuns: options.check']) {
  try {
    return checkRun(/** @type {any} */ (run), options);
  } catch (e) {
    if (!ours(e)) throw e;
    const m = e.message.startsWith(option) ? `${as}${e.message.slice(option.length)}` : `${j.where}: run ${JSON.stringify(id)}: ${e.message.replace(/^checkRun: (run: )?/, '')}`;
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
  // A severity failOn gave is failOn's failure, as its reasons are, whichever call carried it.
  const own = (/** @type {string} */ name) => (name === 'failOnSeverity' && j.check.failOnSeverity === undefined ? 'failOn' : name);
  /** @type {RunFailure[]} */
  const failures = check(run, main, j, facts.id).checks.filter((c) => !c.pass).map((c) => ({ check: own(c.check), message: c.message }));
  if (apart) {
    for (const c of check(run, { verdict: null, judge: false, failOnSeverity: j.severity, ...at }, j, facts.id).checks) if (!c.pass) failures.push({ check: 'failOn', message: c.message });
  }
  // The core's reason check passes when the run ended with one of the words: here that fails it.
  if (j.reasons.length > 0 && check(run, { verdict: null, judge: false, reason: j.reasons, ...at }, j, facts.id, ['checkRun: options.reason', 'judgeRuns: options.failOn']).pass) {
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
    // The index keeps a record of a kind it does not know; judging refuses it, so that is not said.
    const message = e.message.replace(/; the record is kept as it is$/, '');
    throw Object.assign(fail(e.code, `${j.where}: line ${e.line}: ${message}${more}`), { line: e.line });
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
  if (value instanceof TrajectoryIndex) {
    try {
      return judgeIndex(value, j);
    } catch (e) {
      // Said as judgeRuns', not as the index method it called first.
      if (ours(e) && / this index was freed$/.test(e.message)) throw fail(e.code, `${j.where}: the index was freed (by free() or a using block)`, e);
      throw e;
    }
  }
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

export { junitReport, markdownReport, githubReport, textReport } from './reporters.js';
