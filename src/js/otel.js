// Records as OpenTelemetry spans, following the GenAI semantic conventions:
// a run is an `invoke_agent` span, a model call (provider_request_prepared
// to its answer, or a generated turn) a `chat` span, a tool call an
// `execute_tool` span; a child run is a child span of the tool call that
// was open when it started (else of its parent run). Observer findings
// and judge verdicts are `gen_ai.evaluation.result` events on the span they
// evaluate (a turn's, else the run's). Times come from the
// records. Spans go through the caller's Tracer, so whatever exporter they
// configured receives them. Only agent-trajectories/otel, which imports
// @opentelemetry/api, loads this module, and it reads records without the
// WebAssembly module (the record names it needs are WELL_KNOWN's).

import { WELL_KNOWN } from './well-known.js';
import { fail, why, shown, isObject, isArray, checkKeys, guard } from './util.js';
import { nearest, optionAdvice } from './nearest.js';

const OPTIONS = ['tracer', 'content'];

/**
 * What this module uses of @opentelemetry/api.
 * @typedef {{ trace: { setSpan(context: unknown, span: Span): unknown }, context: { active(): unknown }, SpanKind: { INTERNAL: number, CLIENT: number }, SpanStatusCode: { ERROR: number } }} OtelApi
 */
/**
 * What this module uses of a span.
 * @typedef {{ end(time?: [number, number]): void, setStatus(status: { code: number, message?: string }): void, setAttribute(key: string, value: unknown): void, setAttributes(attributes: object): void, addEvent(name: string, attributes: object, time: [number, number]): void, updateName(name: string): void }} Span
 */

/**
 * One run's spans and what its records have said so far.
 * @typedef {object} Run
 * @property {Span} span
 * @property {unknown} model
 * @property {Span} [chat]
 * @property {boolean} [turn]
 * @property {boolean} sawTurns
 * @property {number} [answered]
 * @property {Map<string, Span>} tools
 * @property {number} last
 * @property {boolean} ended
 * @property {number} tokens
 * @property {boolean} started the run's records begin with run_started
 * @property {boolean} [prepared]
 * @property {{ input: number, output: number }} [usage]
 * @property {number} [turnTokens]
 * @property {number} [seq]
 * @property {number} [turnIndex] the number of the turn open, or of the one just ended
 * @property {[Span, number]} [held] the span (and end time) of the turn just ended: ended when the next model call or turn starts, or the run ends
 */

/** @type {OtelApi} */
let api;
/**
 * @opentelemetry/api, given by agent-trajectories/otel (the one entry that imports it) before any export is called.
 * @param {OtelApi} otelApi
 */
export function setOtelApi(otelApi) {
  api = otelApi;
}

// As [seconds, nanoseconds]: the SDK reads a plain number smaller than
// its own start as performance.now() time, which would move a stored
// run's spans to today.
/**
 * @param {number} ms
 * @returns {[number, number]}
 */
const hr = (ms) => {
  const s = Math.floor(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
};
/**
 * @param {unknown} v
 * @returns {string}
 */
const json = (v) => {
  try {
    return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  } catch {
    return why(v);
  }
};
/**
 * @param {unknown} opts
 * @param {string} where
 * @returns {{ tracer: import('./otel-types').TracerLike, content: boolean, where: string }}
 */
const tracerOptions = (opts, where) => {
  if (!isObject(opts) || isArray(opts)) throw fail('INVALID_ARGUMENT', `${where}: options must be an object ({ tracer })`);
  checkKeys(opts, OPTIONS, where, optionAdvice(OPTIONS));
  if (!isObject(opts.tracer) || typeof opts.tracer.startSpan !== 'function') {
    throw fail('INVALID_ARGUMENT', `${where}: options.tracer must be an OpenTelemetry Tracer (trace.getTracer(name)), got ${why(opts.tracer)}`);
  }
  if (opts.content !== undefined && typeof opts.content !== 'boolean') throw fail('INVALID_ARGUMENT', `${where}: options.content must be a boolean, got ${shown(opts.content)}`);
  return { tracer: /** @type {import('./otel-types').TracerLike} */ (opts.tracer), content: opts.content === true, where };
};

/**
 * One stream of records (any number of runs, interleaved) to spans.
 * @param {{ tracer: import('./otel-types').TracerLike, content: boolean, where: string }} options
 */
function makeState({ tracer, content, where }) {
  const { trace, context, SpanKind, SpanStatusCode } = api;
  /** @type {Map<string, Run>} */
  const runs = new Map(); // run id -> its span, its open chat and tool spans, its last record's time
  /**
   * @param {string} name
   * @param {number} kind
   * @param {Record<string, unknown>} attributes
   * @param {number} time
   * @param {Span} [parent]
   * @returns {Span}
   */
  const start = (name, kind, attributes, time, parent) => {
    const span = tracer.startSpan(name, { kind, attributes, startTime: hr(time) }, /** @type {object} */ (parent ? trace.setSpan(context.active(), parent) : context.active()));
    if (!isObject(span) || typeof (/** @type {any} */ (span)).end !== 'function') throw fail('CALLBACK_FAILED', `${where}: options.tracer.startSpan returned ${why(span)}, not a span`);
    return /** @type {Span} */ (span);
  };
  /**
   * @param {any} r
   * @param {number} time
   * @returns {Run}
   */
  const runOf = (r, time) => {
    const id = typeof r.run_id === 'string' ? r.run_id : '';
    let run = runs.get(id);
    if (run) return run;
    const identity = r.payload.kind === 'run_started' && isObject(r.payload.identity) ? r.payload.identity : {};
    const agent = typeof identity.agent === 'string' ? identity.agent : 'agent';
    /** @type {Record<string, unknown>} */
    const attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, ...(id ? { 'gen_ai.conversation.id': id, 'gen_ai.agent.id': id } : {}) };
    if (typeof identity.model_id === 'string') attributes['gen_ai.request.model'] = identity.model_id;
    const started = r.payload.kind === 'run_started';
    const unnamed = runs.get('');
    // Records a recorder made before it knew the run id (without one) are
    // the run's named next that carries their seq on (the core's seq rule).
    if (id && unnamed && unnamed.seq === r.seq - 1) {
      runs.delete('');
      run = Object.assign(unnamed, { model: identity.model_id, started });
      run.span.updateName(`invoke_agent ${agent}`);
      run.span.setAttributes(attributes);
    } else {
      // A child run (depth > 0) nests in its parent; a fork (depth 0) is a trace of its own.
      const parentRun = r.depth > 0 && typeof r.parent_run_id === 'string' ? runs.get(r.parent_run_id) : undefined;
      // The parent's open tool call started this run, if there is one (the last one open: a Map keeps the order calls began).
      const parent = (parentRun && [...parentRun.tools.values()].at(-1)) ?? parentRun?.span;
      run = { span: start(`invoke_agent ${agent}`, SpanKind.INTERNAL, attributes, time, parent), model: identity.model_id, sawTurns: false, tools: new Map(), last: time, ended: false, tokens: 0, started };
    }
    runs.set(id, run);
    return run;
  };
  /**
   * A model_usage record's counts, under either spelling (the core's WELL_KNOWN keys).
   * @param {Record<string, any>} data
   * @param {string[]} keys
   * @returns {number | undefined}
   */
  const usageCount = (data, keys) => {
    for (const k of keys) if (Number.isSafeInteger(data[k])) return data[k];
    return undefined;
  };
  /**
   * A tool call's span; its arguments only with `content`.
   * @param {Run} run
   * @param {any} p
   * @param {number} time
   */
  const toolSpan = (run, p, time) =>
    start(`execute_tool ${p.tool_name}`, SpanKind.INTERNAL, {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': p.tool_name, 'gen_ai.tool.call.id': p.tool_call_id, 'gen_ai.tool.type': 'function',
      ...(content && p.args !== undefined ? { 'gen_ai.tool.call.arguments': json(p.args) } : {}),
    }, time, run.span);
  /**
   * The run's open model-call span, where the records' order says there is one.
   * @param {Run} run
   */
  const chatOf = (run) => /** @type {Span} */ (run.chat);
  /**
   * @param {Run} run
   * @param {number} time
   * @param {string} [error]
   */
  const endChat = (run, time, error) => {
    if (!run.chat) return;
    if (error) run.chat.setStatus({ code: SpanStatusCode.ERROR, message: error });
    // A model call ends when its answer came, if that was recorded. A
    // turn's span is held open (its end time kept) until the next span
    // starts: the judgement of the turn is written after turn_ended, and
    // its events go on this span.
    const end = run.answered ?? time;
    if (run.turn) {
      release(run);
      run.held = [run.chat, end];
    } else run.chat.end(hr(end));
    run.chat = undefined;
    run.answered = undefined;
  };
  /**
   * Ends the open model call or turn, and starts one.
   * @param {Run} run
   * @param {number} time
   * @param {unknown} [model]
   * @param {boolean} [turn]
   */
  const startChat = (run, time, model, turn) => {
    endChat(run, time);
    release(run);
    run.turn = turn;
    run.turnIndex = undefined;
    run.prepared = false;
    run.usage = undefined;
    run.turnTokens = 0;
    const m = typeof model === 'string' ? model : run.model;
    run.chat = start(m ? `chat ${m}` : 'chat', SpanKind.CLIENT, { 'gen_ai.operation.name': 'chat', ...(m ? { 'gen_ai.request.model': m } : {}) }, time, run.span);
  };
  /** @param {Run} run */
  const release = (run) => {
    run.held?.[0].end(hr(run.held[1]));
    run.held = undefined;
  };
  /**
   * The span of turn `n` (open, or just ended), else of the open turn when `n` is unknown; else the run's.
   * @param {Run} run
   * @param {unknown} n
   */
  const evaluated = (run, n) => (Number.isSafeInteger(n) ? n === run.turnIndex && (run.chat ?? run.held?.[0]) : run.turn && run.chat) || run.span;
  /**
   * A `gen_ai.evaluation.result` event (GenAI semantic conventions) with the
   * record's time; attributes that are undefined are left out.
   * @param {Span} span
   * @param {number} time
   * @param {Record<string, unknown>} attributes
   */
  const evaluation = (span, time, attributes) => span.addEvent('gen_ai.evaluation.result', JSON.parse(JSON.stringify(attributes)), hr(time));
  /**
   * @param {Run} run
   * @param {number} time
   * @param {any} [outcome]
   */
  const endRun = (run, time, outcome) => {
    if (run.ended) return;
    run.ended = true;
    const o = isObject(outcome) ? outcome : {};
    const message = typeof o.message === 'string' ? o.message : undefined;
    // A turn the run ended inside with an error (its agent threw or timed out) failed with it.
    endChat(run, time, o.status === 'error' ? message ?? 'the run ended in error during this call' : undefined);
    release(run);
    if (isObject(outcome) || outcome === undefined) run.span.setAttribute('agent_trajectories.tokens', run.tokens);
    for (const span of run.tools.values()) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the records end before this call did (no tool_ended)' });
      span.end(hr(time));
    }
    run.tools.clear();
    if (o.status === 'error') run.span.setAttribute('error.type', typeof o.error_code === 'string' ? o.error_code : 'error');
    // An error, or ended before its goal (a limit, a guard, the caller's signal): the run did not pass.
    if (o.status === 'error' || o.status === 'stopped' || o.status === 'aborted') {
      run.span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? String(o.reason ?? o.status) });
    } else if (typeof outcome === 'string' && outcome !== 'completed' && outcome !== 'ended') {
      run.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    }
    if (typeof o.reason === 'string') run.span.setAttribute('agent_trajectories.stop_reason', o.reason);
    if (typeof o.verdict === 'string') run.span.setAttribute('agent_trajectories.verdict', o.verdict);
    run.span.end(hr(time));
  };

  /**
   * @param {any} r
   * @param {number} i
   */
  function push(r, i) {
    if (!isObject(r) || !isObject(r.payload) || typeof r.payload.kind !== 'string' || typeof r.recorded_at_unix_ms !== 'number') {
      throw fail('INVALID_RECORD', `record ${i}: not a trajectory record (needs payload.kind and recorded_at_unix_ms), got ${why(r)}`);
    }
    // A seq, when there is one, counts from 0 (a time, from the epoch): anything else is no record's.
    for (const [key, v] of [['seq', r.seq], ['recorded_at_unix_ms', r.recorded_at_unix_ms]]) {
      if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) throw fail('INVALID_RECORD', `record ${i}: ${key} must be a whole number (0 or more), got ${shown(v)}`);
    }
    const p = r.payload;
    // A kind no reader knows is refused, as the parser and the sinks refuse it (in the core's words, src/core/capture/payload.rs).
    if (!WELL_KNOWN.kinds.includes(p.kind)) {
      const near = nearest(p.kind, WELL_KNOWN.kinds);
      throw fail('INVALID_RECORD', `record ${i}: kind ${JSON.stringify(p.kind)} is not a record kind (${near ? `did you mean ${JSON.stringify(near)}?` : `the kinds: ${WELL_KNOWN.kinds.join(', ')}`})`);
    }
    const time = r.recorded_at_unix_ms;
    const known = runs.get(typeof r.run_id === 'string' ? r.run_id : '');
    const before = typeof r.seq === 'number' ? known?.seq : undefined;
    // Spans nest and end by the order records were written: a run's
    // records out of seq order would build a wrong tree, so they are refused.
    if (before !== undefined && r.seq <= before) {
      const who = typeof r.run_id === 'string' ? `run ${JSON.stringify(r.run_id)}` : 'the records without a run_id';
      // In the core's seq check's words (src/core/capture/seq.rs), which this module, read without the WebAssembly module, cannot call.
      throw fail('SEQ_GAP', `record ${i}: ${who} repeats or goes back to seq ${r.seq} after seq ${before}: give the records in the order they were written (sorted by seq within each run)`);
    }
    const run = runOf(r, time);
    // A hole is a lost record: the spans are still built, and the run says what is missing.
    if (before !== undefined && r.seq > before + 1) {
      run.span.addEvent('agent_trajectories.records_missing', { from_seq: before + 1, to_seq: r.seq - 1 }, hr(time));
    }
    if (typeof r.seq === 'number') run.seq = r.seq;
    run.last = time;
    switch (p.kind) {
      case 'provider_request_prepared':
        // Inside a turn, the turn's span is this model call's: it gets the request's details.
        if (!(run.turn && run.chat && !run.prepared)) {
          startChat(run, time, p.model_id);
        } else if (typeof p.model_id === 'string') {
          chatOf(run).updateName(`chat ${p.model_id}`);
          chatOf(run).setAttribute('gen_ai.request.model', p.model_id);
        }
        run.prepared = true;
        chatOf(run).setAttribute('gen_ai.request.message_count', p.message_count);
        break;
      case 'iteration_started':
        // A run without turns (a background run) has a span per iteration, as the index has a turn per iteration.
        if (run.sawTurns) break;
        startChat(run, time, undefined, true);
        if (Number.isSafeInteger(p.iteration)) chatOf(run).setAttribute('agent_trajectories.iteration', p.iteration);
        break;
      case 'iteration_completed':
        if (!run.sawTurns && run.turn) endChat(run, time);
        break;
      case 'turn_started':
        run.sawTurns = true;
        startChat(run, time, undefined, true);
        if (Number.isSafeInteger(p.turn_index)) chatOf(run).setAttribute('agent_trajectories.turn', (run.turnIndex = p.turn_index));
        break;
      case 'message_appended':
        if (!run.chat || p.message?.role !== 'assistant') break;
        if (content) run.chat.setAttribute('gen_ai.output.messages', json([p.message]));
        if (!run.turn) run.answered = time;
        break;
      case 'turn_ended':
        if (run.chat && content) run.chat.setAttribute('gen_ai.output.messages', json([p.assistant]));
        endChat(run, time);
        break;
      case 'custom':
        if (p.name === 'model_usage' && isObject(p.data)) {
          const keys = WELL_KNOWN.usage;
          const source = typeof p.data.source === 'string' ? p.data.source : 'agent';
          // Every model call counts in the run's total, and in its turn's (the index's turn tokens); gen_ai.usage is the agent's call.
          const total = usageCount(p.data, keys.total) ?? (usageCount(p.data, keys.input) ?? 0) + (usageCount(p.data, keys.output) ?? 0);
          run.tokens += total;
          if (!run.chat) break;
          if (run.turn) run.chat.setAttribute('agent_trajectories.turn.tokens', (run.turnTokens = /** @type {number} */ (run.turnTokens) + total));
          // A turn's span is the agent's model call: the simulated user's
          // and the ranker's usage are theirs, and the turn goes on.
          if (run.turn && source !== 'agent') break;
          const input = usageCount(p.data, keys.input);
          const output = usageCount(p.data, keys.output);
          const u = (run.usage ??= { input: 0, output: 0 });
          if (input !== undefined) run.chat.setAttribute('gen_ai.usage.input_tokens', (u.input += input));
          if (output !== undefined) run.chat.setAttribute('gen_ai.usage.output_tokens', (u.output += output));
          const finish = keys.finishReason.map((k) => p.data[k]).find((v) => typeof v === 'string');
          if (finish) run.chat.setAttribute('gen_ai.response.finish_reasons', [finish]);
          if (run.turn) break;
          run.answered = undefined;
          endChat(run, time);
        } else if (p.name === 'judgement' && isObject(p.data) && isArray(p.data.criteria)) {
          // One event per criterion: after turn N on that turn's span; at the end (final), or of a run judged whole, on the run's.
          const j = p.data;
          const span = j.final === true || !Number.isSafeInteger(j.turn) ? run.span : evaluated(run, j.turn);
          for (const c of j.criteria) {
            // pass 1, fail 0; inconclusive has no number (the label says it). An answer the judge could not read is error.type.
            if (isObject(c)) {
              evaluation(span, time, {
                'gen_ai.evaluation.name': c.name,
                'gen_ai.evaluation.score.label': c.verdict,
                'gen_ai.evaluation.score.value': c.verdict === 'pass' ? 1 : c.verdict === 'fail' ? 0 : undefined,
                'gen_ai.evaluation.explanation': c.reasoning,
                'error.type': j.error?.code,
              });
            }
          }
        } else if (p.name === 'model_error' && run.chat) {
          run.chat.setAttribute('error.type', 'model_error');
          endChat(run, time, typeof p.data?.message === 'string' ? p.data.message : 'model call failed');
        }
        break;
      case 'tool_started':
        // A model call's span ends where its tool calls begin; a turn's holds them.
        if (run.chat && !run.turn) endChat(run, time);
        run.tools.set(p.tool_call_id, toolSpan(run, p, time));
        break;
      case 'tool_ended': {
        // Its tool_started was lost: the call still shows, as a failure of the record stream.
        const lost = !run.tools.has(p.tool_call_id);
        const span = run.tools.get(p.tool_call_id) ?? toolSpan(run, p, time);
        if (content && p.result !== undefined) span.setAttribute('gen_ai.tool.call.result', json(p.result));
        if (p.is_error || lost) {
          span.setAttribute('error.type', p.is_error ? 'tool_error' : 'missing_tool_started');
          span.setStatus({ code: SpanStatusCode.ERROR, message: p.is_error ? (typeof p.result === 'string' ? p.result : json(p.result)) : `tool_ended for call ${p.tool_call_id} without its tool_started (a record was lost)` });
        }
        span.end(hr(time));
        run.tools.delete(p.tool_call_id);
        break;
      }
      case 'assessment_produced': {
        const a = isObject(p.assessment) ? p.assessment : {};
        // A severity is a label, not a score: no score.value.
        evaluation(evaluated(run, p.turn_index), time, {
          'gen_ai.evaluation.name': a.observerName,
          'gen_ai.evaluation.score.label': a.severity,
          'gen_ai.evaluation.explanation': a.summary,
          'agent_trajectories.call_index': p.call_index,
        });
        break;
      }
      case 'run_ended':
        endRun(run, time, p.outcome);
        break;
      default:
    }
  }
  // Ends what the records left open at its last record. A run that began
  // (run_started) without run_ended, or a call without tool_ended, stopped
  // short (a crash, a lost record): an error, never a span that looks
  // fine. Records with neither end (a capture-only middleware's) say
  // nothing of how the run went: their span's status is left unset.
  const finish = () => {
    for (const run of runs.values()) {
      if (run.ended) continue;
      if (run.started) run.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the records end without run_ended' });
      endRun(run, run.last);
    }
  };
  return { push, finish };
}

/**
 * Exports a record stream (one run or many) as spans through `tracer`.
 * @type {typeof import('./otel-types').exportSpans}
 */
export function exportSpans(records, options) {
  const where = 'exportSpans(records, options)';
  if (!isArray(records)) throw fail('INVALID_ARGUMENT', `${where}: records must be an array of trajectory records (parseTrajectoryJsonl(text) reads JSONL), got ${why(records)}`);
  const state = makeState(tracerOptions(options, where));
  traced(where, () => {
    records.forEach((r, i) => state.push(r, i));
    state.finish();
  });
}

/**
 * Runs `f`, which calls the caller's tracer and spans: what they throw
 * becomes CALLBACK_FAILED saying `where`, their error its cause.
 * @param {string} where
 * @param {() => void} f
 */
const traced = (where, f) => guard(`${where}: the tracer threw`, f, 'CALLBACK_FAILED');

/**
 * Spans for a live run: pass `onRecord` to a run (or `sink` as a recorder's sink); `end()` closes what is still open.
 * @type {typeof import('./otel-types').spanSink}
 */
export function spanSink(options) {
  const state = makeState(tracerOptions(options, 'spanSink(options)'));
  let n = 0;
  let ended = false;
  const onRecord = (/** @type {any} */ r) => {
    if (ended) throw fail('INVALID_ARGUMENT', `spanSink: a record after end() (record ${n}, ${isObject(r?.payload) ? r.payload.kind : why(r)}): its spans are closed; make a new spanSink for another run`);
    traced('spanSink', () => state.push(r, n++));
  };
  const end = () => {
    if (ended) return;
    ended = true;
    traced('spanSink.end()', () => state.finish());
  };
  return { onRecord, record: onRecord, end };
}

