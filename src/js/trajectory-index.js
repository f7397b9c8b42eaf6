// TrajectoryIndex: the wasm core scans the stream, keeps its bytes plus a
// row of columns per record, and decides its runs and turns
// (src/core/index); this layer answers the queries from them, materialising
// only the records an answer needs.

import { wasm } from './binding.js';
import { fail, shown as show } from './util.js';

/** @typedef {import('./trajectory-index-types').TrajectoryIndex} DeclaredIndex */
/** @typedef {import('./binding-types').TrajectoryIndexCore} TrajectoryIndexCore */
/**
 * A turn as the queries use it (from the core's groups()).
 * @typedef {{ number: number, records: Float64Array | Uint32Array, step: number, toolCalls: number, errors: number, tokens: number, startedAt: number, endedAt: number }} Turn
 */
/**
 * A run as the queries use it (from the core's groups()): record indices, counts, and its turns.
 * @typedef {object} Run
 * @property {number} key
 * @property {string | null} runId
 * @property {string | null} parentRunId
 * @property {number} depth
 * @property {number} first
 * @property {number} last
 * @property {number} records
 * @property {number} toolCalls
 * @property {number} failedCalls
 * @property {number} tokens
 * @property {number | null} ended
 * @property {number | null} budget
 * @property {number | null} graph
 * @property {number | null} states
 * @property {number | null} parentCall
 * @property {number | null} parentRecord
 * @property {number[]} calls
 * @property {number[]} steps
 * @property {number[]} findings
 * @property {number[]} outside
 * @property {Turn[]} turns
 * @property {Map<number, Turn>} byNumber
 */
/** A run id argument: a run's id, null for the records without one, undefined for the first run (or all). @typedef {string | null | undefined} RunId */

/**
 * "The first run" of an index with none (an empty file): a run with
 * nothing in it (what #one's callers read of one), so a query of it
 * answers empty, not an error.
 */
const NO_RUN = /** @type {Run} */ (/** @type {unknown} */ ({ first: 0, budget: null, graph: null, states: null, steps: [], outside: [], turns: [], byNumber: new Map() }));

// Column order of the core's rows (crate::core::index::COLUMNS / NUMBERS).
const [, , LINE, RUN, , KIND, TOOL, , , , , , DEPTH, FLAGS] = Array.from({ length: 14 }, (_, i) => i);
const W = 14;
const [SEQ, AT] = [0, 1];
const N = 3;
const NONE = 0xffffffff;
// Fields per run and per turn of the core's groups() tables (src/wasm/index.rs).
const RUN_FIELDS = 24;
const TURN_FIELDS = 9;
/** Severities of assessments, lowest first, as the core's rows encode them (src/core/index). */
const SEVERITIES = /** @type {const} */ (['info', 'caution', 'warning']);
const PRIVATE = Symbol('TrajectoryIndex');
const bad = (/** @type {string} */ message) => fail('INVALID_ARGUMENT', message);

/** @implements {DeclaredIndex} */
export class TrajectoryIndex {
  /** @type {TrajectoryIndexCore | undefined} */
  #core;
  /** @type {Uint32Array} */
  #cols;
  /** @type {Float64Array} */
  #nums;
  /** @type {string[]} */
  #strings;
  /** @type {Run[]} */
  #runs = [];
  /** Runs by their id (null: the records without one), for the queries that name a run. @type {Map<string | null, Run>} */
  #byRunId = new Map();
  /** @type {{ line: number, message: string, code: any }[]} */
  #problems;
  /** @type {Uint32Array} */
  #turnOf = new Uint32Array(0);

  /**
   * Indexes record JSONL text or UTF-8 bytes; a bad line is kept in `errors()`, never thrown.
   * @param {string | Uint8Array} input
   */
  static fromJsonl(input) {
    return indexOf(new wasm.TrajectoryIndexCore(input));
  }

  /**
   * @param {symbol} token
   * @param {TrajectoryIndexCore} core
   */
  constructor(token, core) {
    if (token !== PRIVATE) throw bad('new TrajectoryIndex(): use TrajectoryIndex.fromJsonl(input)');
    this.#core = core;
    this.#cols = core.columns();
    this.#nums = core.numbers();
    this.#strings = core.strings();
    const flat = core.problems();
    this.#problems = [];
    for (let k = 0; k < flat.length; k += 3) this.#problems.push({ line: /** @type {number} */ (flat[k]), message: /** @type {string} */ (flat[k + 1]), code: flat[k + 2] });
    this.#group();
  }

  /** The core's runs and turns (src/core/index/group.rs decides them), as the queries use them. */
  #group() {
    const [turnOf, runs, runTokens, turns, turnRecords, lists] = /** @type {TrajectoryIndexCore} */ (this.#core).groups();
    this.#turnOf = turnOf;
    const str = this.#strings;
    const idx = (/** @type {number} */ v) => (v === NONE ? null : v);
    for (let k = 0, n = 0; k < runs.length; k += RUN_FIELDS, n++) {
      const f = runs.subarray(k, k + RUN_FIELDS);
      const [key, parent, depth, first, last, records, toolCalls, failedCalls, ended, budget, graph, states, parentCall, parentRecord,
        turnAt, turnCount, callsAt, callsLen, stepsAt, stepsLen, findingsAt, findingsLen, outsideAt, outsideLen] = f;
      const range = (/** @type {number} */ at, /** @type {number} */ len) => Array.from(lists.subarray(at, at + len));
      /** @type {Run} */
      const run = {
        key, runId: key === NONE ? null : str[key], parentRunId: parent === NONE ? null : str[parent], depth, first, last, records,
        toolCalls, failedCalls, tokens: runTokens[n], ended: idx(ended), budget: idx(budget), graph: idx(graph), states: idx(states),
        parentCall: idx(parentCall), parentRecord: idx(parentRecord), calls: range(callsAt, callsLen), steps: range(stepsAt, stepsLen),
        findings: range(findingsAt, findingsLen), outside: range(outsideAt, outsideLen), turns: [], byNumber: new Map(),
      };
      for (let t = turnAt * TURN_FIELDS; t < (turnAt + turnCount) * TURN_FIELDS; t += TURN_FIELDS) {
        const [number, step, tcalls, errors, tokens, startedAt, endedAt, recAt, recLen] = turns.subarray(t, t + TURN_FIELDS);
        const turn = { number, records: turnRecords.subarray(recAt, recAt + recLen), step, toolCalls: tcalls, errors, tokens, startedAt, endedAt };
        run.turns.push(turn);
        run.byNumber.set(number, turn);
      }
      this.#byRunId.set(run.runId, run);
      this.#runs.push(run);
    }
  }

  /** Records indexed (bad lines not counted). */
  get length() { return this.#core ? this.#cols.length / W : 0; }
  /** Bytes of the stream the index keeps. */
  get byteLength() { return this.#core?.byteLength ?? 0; }

  /** Lines that are not records, and holes in a run's seq, by 1-based line. */
  errors() {
    this.#alive('errors()');
    return this.#problems.map((p) => ({ ...p }));
  }

  runs() {
    this.#alive('runs()');
    return this.#runs.map((run) => ({
      runId: run.runId, parentRunId: run.parentRunId, depth: run.depth, first: run.first, last: run.last, records: run.records,
      startedAt: this.#nums[run.first * N + AT], endedAt: this.#nums[run.last * N + AT], turns: run.turns.length,
      // A call a run ended without finishing failed with it.
      toolCalls: run.toolCalls, failedCalls: run.failedCalls, assessments: run.findings.length, tokens: run.tokens,
      outcome: run.ended === null ? null : this.#outcome(run.ended), parentCall: run.parentCall, parentRecord: run.parentRecord,
    }));
  }

  /**
   * The run_ended outcome as the core reads it (status, verdict, passed), old or new.
   * @param {number} i
   */
  #outcome(i) {
    const o = this.get(i).payload?.outcome;
    return typeof o === 'string' || (o && typeof o === 'object') ? wasm.readOutcome(o) : null;
  }

  /**
   * Records per kind, of one run or (no argument) of all.
   * @param {RunId} [runId]
   */
  counts(runId) {
    this.#alive('counts(runId)');
    const run = runId === undefined ? undefined : this.#run(runId, 'counts(runId)');
    const only = run?.key;
    /** @type {Record<string, number>} */
    const out = {};
    // A run's records lie between its first and its last (others' may be among them).
    for (let r = (run?.first ?? 0) * W, end = run ? (run.last + 1) * W : this.#cols.length; r < end; r += W) {
      if (only !== undefined && this.#cols[r + RUN] !== only) continue;
      const kind = this.#strings[this.#cols[r + KIND]];
      out[kind] = (out[kind] ?? 0) + 1;
    }
    return out;
  }

  /**
   * The turns of a run (default: the first run).
   * @param {RunId} [runId]
   */
  turns(runId) {
    this.#alive('turns(runId)');
    return this.#one(runId, 'turns(runId)').turns.map((t) => ({
      turn: t.number, first: t.records[0], last: t.records[t.records.length - 1], records: t.records.length,
      step: t.step === NONE ? null : this.#strings[t.step], toolCalls: t.toolCalls, errors: t.errors, tokens: t.tokens,
      startedAt: t.startedAt, endedAt: t.endedAt,
    }));
  }

  /**
   * Record indices of a turn (`turn` null: the run's records outside every turn).
   * @param {RunId} runId
   * @param {number | null} turn
   */
  turnRecords(runId, turn) {
    this.#alive('turnRecords(runId, turn)');
    const run = this.#one(runId, 'turnRecords(runId, turn)');
    if (turn === null) return Uint32Array.from(run.outside);
    if (!Number.isSafeInteger(turn) || turn < 0) throw bad(`turnRecords(runId, turn): turn must be a turn number or null, got ${show(turn)}`);
    return Uint32Array.from(run.byNumber.get(turn)?.records ?? []);
  }

  /**
   * What the index keeps of record `i`, without parsing it.
   * @param {number} i
   */
  info(i) {
    const r = this.#index(i, 'info(i)') * W;
    const s = (/** @type {number} */ c) => (this.#cols[r + c] === NONE ? null : this.#strings[this.#cols[r + c]]);
    const turn = this.#turnOf[i] === NONE ? null : this.#turnOf[i];
    return {
      seq: this.#nums[i * N + SEQ], runId: s(RUN), depth: this.#cols[r + DEPTH], kind: /** @type {string} */ (s(KIND)), turn,
      toolName: s(TOOL), isError: (this.#cols[r + FLAGS] & 1) === 1, severity: SEVERITIES[(this.#cols[r + FLAGS] >> 1) - 1] ?? null,
      at: this.#nums[i * N + AT], line: this.#cols[r + LINE],
    };
  }

  /**
   * Record `i`, parsed as written.
   * @param {number} i
   */
  get(i) { return JSON.parse(this.#line(i, 'get(i)')); }
  /**
   * The line of record `i`, as written.
   * @param {number} i
   */
  text(i) { return this.#line(i, 'text(i)'); }

  /**
   * @param {number} i
   * @param {string} place
   */
  #line(i, place) {
    const k = this.#index(i, place);
    return /** @type {TrajectoryIndexCore} */ (this.#core).text(k);
  }

  /**
   * Record indices passing every part of `q`, ascending.
   * @param {import('./trajectory-index-types').IndexFilter} q
   */
  filter(q) {
    this.#alive('filter(q)');
    const place = 'filter(q)';
    if (q === null || typeof q !== 'object' || Array.isArray(q)) throw bad(`${place}: q must be an object, got ${show(q)}`);
    wasm.checkOptions(q, ['kind', 'runId', 'errorsOnly', 'minSeverity', 'turn'], place);
    const { kind, runId, errorsOnly = false, minSeverity, turn } = q;
    let kinds;
    if (kind !== undefined) {
      const list = Array.isArray(kind) ? kind : [kind];
      kinds = new Set(list.map((k) => {
        if (typeof k !== 'string') throw bad(`${place}: kind must be a record kind or an array of them, got ${show(k)}`);
        // A kind this build does not know is refused, naming the nearest one.
        if (!this.#strings.includes(k)) wasm.checkRecordKind(k, place);
        return this.#strings.indexOf(k);
      }));
    }
    // Records without a run id, where every record has one: none (not an unknown run).
    const none = runId === null && !this.#byRunId.has(null);
    const run = runId === undefined || none ? undefined : this.#run(runId, place);
    if (typeof errorsOnly !== 'boolean') throw bad(`${place}: errorsOnly must be a boolean, got ${show(errorsOnly)}`);
    const min = minSeverity === undefined ? 0 : SEVERITIES.indexOf(minSeverity) + 1;
    if (min === 0 && minSeverity !== undefined) throw bad(`${place}: minSeverity must be "info", "caution" or "warning", got ${show(minSeverity)}`);
    if (turn !== undefined && turn !== null && !(Number.isSafeInteger(turn) && turn >= 0)) throw bad(`${place}: turn must be a turn number or null, got ${show(turn)}`);
    if (none) return new Uint32Array(0);
    const inTurn = turn === undefined ? undefined : new Set(turn === null ? this.#outsideAll(run) : this.#turnAll(run, turn));
    const out = [];
    for (let i = 0, r = 0; r < this.#cols.length; i++, r += W) {
      const flags = this.#cols[r + FLAGS];
      if ((run === undefined || this.#cols[r + RUN] === run.key) && (!kinds || kinds.has(this.#cols[r + KIND]))
        && (!errorsOnly || flags & 1) && flags >> 1 >= min && (!inTurn || inTurn.has(i))) out.push(i);
    }
    return Uint32Array.from(out);
  }

  /** @param {Run | undefined} run */
  #outsideAll(run) { return (run ? [run] : this.#runs).flatMap((r) => r.outside); }
  /**
   * @param {Run | undefined} run
   * @param {number} n
   */
  #turnAll(run, n) { return (run ? [run] : this.#runs).flatMap((r) => [...(r.byNumber.get(n)?.records ?? [])]); }

  /**
   * Matches of `q`: a string, ignoring ASCII case, in every string value
   * (keys excluded); a RegExp over each record's JSON line.
   */
  /**
   * @param {string | RegExp} q
   * @param {{ runId?: string | null }} [opts]
   */
  search(q, opts) {
    const place = 'search(q, opts)';
    if (!this.#core) throw bad(`${place}: this index was freed`);
    wasm.checkOptions(opts, ['runId'], place);
    const run = opts?.runId === undefined ? undefined : this.#run(opts.runId, place);
    if (typeof q === 'string') {
      const [count, records, counts] = this.#core.search(q, run?.key);
      return { count, records, counts };
    }
    if (!(q instanceof RegExp)) throw bad(`${place}: q must be a string or a RegExp, got ${show(q)}`);
    // Every match counts, wherever it is: `y` would count only matches at the start.
    const re = new RegExp(q.source, `${q.flags.replace(/[gy]/g, '')}g`);
    const records = [];
    const counts = [];
    let count = 0;
    for (let i = 0, r = 0; r < this.#cols.length; i++, r += W) {
      if (run !== undefined && this.#cols[r + RUN] !== run.key) continue;
      re.lastIndex = 0;
      const n = this.#core.text(i).match(re)?.length ?? 0;
      if (n) { records.push(i); counts.push(n); count += n; }
    }
    return { count, records: Uint32Array.from(records), counts: Uint32Array.from(counts) };
  }

  /**
   * Tokens, tool calls and time per turn, against the limits of a custom `budget` record.
   * @param {RunId} [runId]
   */
  budget(runId) {
    this.#alive('budget(runId)');
    const run = this.#one(runId, 'budget(runId)');
    const start = this.#nums[run.first * N + AT];
    const data = run.budget === null ? {} : this.get(run.budget).payload?.data ?? {};
    const num = (/** @type {string} */ k) => (typeof data[k] === 'number' ? data[k] : null);
    const deadline = num('deadline');
    return {
      turns: run.turns.map((t) => ({ turn: t.number, first: t.records[0], tokens: t.tokens, toolCalls: t.toolCalls, ms: t.endedAt - t.startedAt, elapsedMs: t.endedAt - start })),
      limits: { tokens: num('maxTokens'), toolCalls: num('maxToolCalls'), ms: num('maxMs') ?? (deadline === null ? null : deadline - start) },
    };
  }

  /**
   * The steps a generated run took, in order, with how each was chosen.
   * @param {RunId} [runId]
   */
  stepPath(runId) {
    this.#alive('stepPath(runId)');
    return this.#one(runId, 'stepPath(runId)').steps.map((i) => {
      const p = this.get(i).payload ?? {};
      return { turn: p.turn_index ?? null, record: i, stepId: p.step_id ?? null, method: p.method ?? null,
        candidates: Array.isArray(p.candidates) ? p.candidates : [], rankerError: p.ranker_error ?? null };
    });
  }

  /**
   * The data of the run's custom `step_graph` record, or null; each step
   * with its final `status` and `attempts` when the run recorded them (a
   * custom `step_states` record, as runTrajectory writes at its end).
   */
  /** @param {RunId} [runId] */
  stepGraph(runId) {
    this.#alive('stepGraph(runId)');
    const run = this.#one(runId, 'stepGraph(runId)');
    const graph = run.graph === null ? null : this.get(run.graph).payload?.data ?? null;
    const states = run.states === null ? null : this.get(run.states).payload?.data?.states;
    if (!graph || !Array.isArray(graph.steps) || !Array.isArray(states)) return graph;
    const byId = new Map(states.filter((/** @type {any} */ s) => s && typeof s === 'object').map((/** @type {any} */ s) => [s.stepId, s]));
    return { ...graph, steps: graph.steps.map((/** @type {any} */ s) => (byId.has(s?.id) ? { ...s, status: byId.get(s.id).status, attempts: byId.get(s.id).attempts } : s)) };
  }

  /**
   * Assessments (of one run, or all) with the tool call each fired after.
   * @param {RunId} [runId]
   */
  assessments(runId) {
    this.#alive('assessments(runId)');
    const runs = runId === undefined ? this.#runs : [this.#run(runId, 'assessments(runId)')];
    const out = [];
    for (const run of runs) {
      for (const i of run.findings) {
        const p = this.get(i).payload ?? {};
        const call = Number.isInteger(p.call_index) ? p.call_index : null;
        const sev = (this.#cols[i * W + FLAGS] >> 1) - 1;
        out.push({ record: i, runId: run.runId, callIndex: call, callRecord: call === null ? null : run.calls[call - 1] ?? null,
          turn: this.#turnOf[i] === NONE ? null : this.#turnOf[i], severity: SEVERITIES[sev] ?? null, assessment: p.assessment ?? null });
      }
    }
    return out.sort((a, b) => a.record - b.record);
  }

  /** Frees the index's memory in the WebAssembly module. */
  free() {
    this.#core?.free();
    this.#core = undefined;
  }

  [Symbol.dispose]() { this.free(); }

  // Every query refuses a freed index rather than answer from what is left.
  /** @param {string} place */
  #alive(place) {
    if (!this.#core) throw bad(`${place}: this index was freed`);
  }

  /**
   * @param {unknown} i
   * @param {string} place
   * @returns {number}
   */
  #index(i, place) {
    this.#alive(place);
    if (Number.isInteger(i) && /** @type {number} */ (i) >= 0 && /** @type {number} */ (i) < this.length) return /** @type {number} */ (i);
    throw bad(`${place}: i must be ${this.length ? `a record index from 0 to ${this.length - 1}` : 'a record index, and this index has no records'}, got ${show(i)}`);
  }

  /**
   * @param {unknown} runId
   * @param {string} place
   * @returns {Run}
   */
  #run(runId, place) {
    if (runId !== null && typeof runId !== 'string') throw bad(`${place}: runId must be a run id (a string) or null, got ${show(runId)}`);
    const run = this.#byRunId.get(runId);
    if (!run) {
      const names = this.#runs.slice(0, 10).map((r) => JSON.stringify(r.runId)).join(', ');
      const more = this.#runs.length > 10 ? ` and ${this.#runs.length - 10} more` : '';
      throw bad(`${place}: no run ${runId === null ? 'without a run_id' : show(runId)} in this index (runs: ${names || 'none'}${more})`);
    }
    return run;
  }

  /**
   * @param {unknown} runId
   * @param {string} place
   * @returns {Run}
   */
  #one(runId, place) {
    if (runId !== undefined) return this.#run(runId, place);
    return this.#runs[0] ?? NO_RUN;
  }
}

/**
 * An index over `core` (outside the class body, so that the bundle's class
 * keeps its one name: a reference from inside would name it twice).
 * @param {import('./binding-types').TrajectoryIndexCore} core
 */
const indexOf = (core) => new TrajectoryIndex(PRIVATE, core);
