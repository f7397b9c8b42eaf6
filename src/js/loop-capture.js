// What observeAISdk and observeMastra share: reading their common options
// (observers, recorder, stopOn) and turning one agent loop's steps into
// records, observer calls and a stop decision. Each adapter only translates
// its framework's hooks into these calls.

import { wasm, asOption } from './binding.js';
import { fail, why, shown, guard, isObject, isArray } from './util.js';

/** @typedef {import('./binding-types').TrajectoryRecorder} TrajectoryRecorder */
/** @typedef {import('./binding-types').StopOn} StopOn */
/** @typedef {import('./records').Assessment} Assessment */
/** @typedef {import('./records').ModelMessage} ModelMessage */

/**
 * A value as record JSON: what JSON cannot carry becomes its text.
 * @param {unknown} v
 * @returns {any}
 */
export const asJson = (v) => {
  if (v === undefined) return undefined;
  try {
    const text = JSON.stringify(v);
    return text === undefined ? String(v) : JSON.parse(text);
  } catch {
    return why(v);
  }
};
/**
 * A model call's usage as the core writes it (`custom` model_usage), or undefined when it reported no count.
 * @param {unknown} usage
 * @param {unknown} finishReason
 */
export const usageRecord = (usage, finishReason) => {
  const reason = isObject(finishReason) ? finishReason.unified : finishReason;
  return isObject(usage) ? wasm.modelUsage(usage, typeof reason === 'string' ? reason : undefined) : undefined;
};
/**
 * An assistant step as message parts: its text, then its tool calls (`input` reads a call's input).
 * @param {string} text
 * @param {readonly any[]} calls
 * @param {(input: unknown) => unknown} input
 */
export const assistantParts = (text, calls, input) => [
  ...(text ? [{ type: 'text', text }] : []),
  ...calls.map((c) => ({ type: 'tool-call', toolCallId: String(c.toolCallId), toolName: String(c.toolName), input: input(c.input) })),
];
/**
 * A callback option: a function or undefined.
 * @param {unknown} v
 * @param {string} where
 * @returns {((...args: any[]) => any) | undefined}
 */
export const callable = (v, where) => {
  if (v !== undefined && typeof v !== 'function') throw fail('INVALID_ARGUMENT', `${where} must be a function, got ${v === null ? 'null' : typeof v}`);
  return /** @type {((...args: any[]) => any) | undefined} */ (v);
};

/**
 * A TrajectoryRecorder (by its shape: a sink has `record` but no `nextSeq`).
 * @param {unknown} v
 * @returns {v is TrajectoryRecorder}
 */
export const isRecorder = (v) => isObject(v) && typeof v.record === 'function' && typeof v.nextSeq === 'number';
/**
 * The error for a `recorder` option that is not a TrajectoryRecorder; a sink is told how to wrap it.
 * @param {unknown} v
 * @param {string} place
 */
export const notRecorder = (v, place) => {
  const sink = isObject(v) && typeof v.record === 'function';
  return fail('INVALID_ARGUMENT', `${place}.recorder must be a TrajectoryRecorder, got ${sink ? 'a sink (wrap it: new TrajectoryRecorder(sink))' : shown(v)}`);
};

/**
 * One loop's capture, from the adapter's `observers`, `recorder` and
 * `stopOn` options (`name`, the adapter's, says where in errors).
 * @param {Record<string, any>} o
 * @param {string} name
 */
export function loopCapture(o, name) {
  const place = `${name} options`;
  let observers = o.observers;
  if (observers != null && typeof observers.recordToolCall !== 'function') {
    const list = isArray(observers);
    observers = asOption(`${place}.observers`, list, () => new wasm.ObserverPipeline(list ? { observers } : observers));
  }
  const recorder = o.recorder ?? undefined;
  if (recorder !== undefined && !isRecorder(recorder)) throw notRecorder(recorder, place);
  if (o.agent !== undefined && (typeof o.agent !== 'string' || !o.agent)) throw fail('INVALID_ARGUMENT', `${place}.agent must be the agent's name (a non-empty string), got ${shown(o.agent)}`);
  // 'warning' or { severity: 'warning', times: 2 } ("nudge once, stop if it repeats"): read and counted by the core.
  const stopOn = wasm.StopOn.read(o.stopOn, place);
  if (o.budget !== undefined && !recorder) throw fail('INVALID_ARGUMENT', `${place}.budget is written as a record: give a recorder too`);
  const budget = o.budget === undefined ? undefined : wasm.budgetRecord(o.budget, `${place}.budget`);
  let fresh = false; // this capture began the run, so it also ends it
  let begun = false;
  let started = false;
  let ended = false;
  /** @type {Assessment | undefined} */
  let stoppedBy;
  /** @type {{ index: number, assistant: ModelMessage | undefined, results: ModelMessage[] } | undefined} */
  let turn; // the open turn's number and its assistant message and tool results
  const record = (/** @type {any} */ payload) => recorder?.record(payload);

  return {
    observers,
    stopOn,
    record,
    /** The assessment that met `stopOn`, once one has. */
    get stoppedBy() {
      return stoppedBy;
    },
    /**
     * At a run's first step. The observers and the recorder are one run's,
     * so a second run through the same settings is refused rather than
     * mixed into the first one's records and findings.
     */
    begin() {
      if (begun) throw fail('INVALID_ARGUMENT', `${name}: these settings already observed a run; call ${name}() once per run (its observers and recorder belong to that run)`);
      begun = true;
    },
    /**
     * run_started, once, unless the caller recorded it (then the run is
     * theirs to end). Records the caller made first (a note, a budget)
     * stay before it; the budget option's record follows it.
     */
    /**
     * @param {string} agent
     * @param {unknown} modelId
     */
    start(agent, modelId) {
      if (started || !recorder) return;
      started = true;
      if (recorder.started || recorder.ended) return;
      fresh = true;
      const identity = { run_id: recorder.__runIdOr(agent), agent, ...(typeof modelId === 'string' ? { model_id: modelId } : {}) };
      record({ kind: 'run_started', identity });
      if (budget) record(budget);
    },
    /**
     * A model step begins: turn_started (a step is a turn, as in a generated run).
     * @param {number} index
     */
    turnStarted(index) {
      if (turn || !recorder) return;
      turn = { index, assistant: undefined, results: [] };
      record({ kind: 'turn_started', turn_index: index });
    },
    /** The open turn's end: turn_ended with its assistant message and tool results. */
    turnEnded() {
      if (!turn) return;
      const { index, assistant, results } = turn;
      turn = undefined;
      record({ kind: 'turn_ended', turn_index: index, assistant: assistant ?? { role: 'assistant', content: '' }, tool_results: results });
    },
    /** The observers' current assessment as prompt text, or ''. */
    context: () => (observers ? guard(`${name}: observers.context()`, () => observers.context()) ?? '' : ''),
    /** @param {{ iteration: any, modelId: unknown, systemChars: number, messageCount: number, tools: readonly string[] | undefined }} step */
    prepared({ iteration, modelId, systemChars, messageCount, tools }) {
      record({
        kind: 'provider_request_prepared',
        iteration: Number.isSafeInteger(iteration) && iteration >= 0 ? iteration : 0,
        ...(typeof modelId === 'string' ? { model_id: modelId } : {}),
        system_prompt_chars: systemChars,
        message_count: messageCount,
        tool_count: tools?.length ?? 0,
        ...(tools ? { tools } : {}),
      });
    },
    /**
     * The assistant's step: its text and tool calls ({ toolCallId, toolName, input }).
     * @param {string} text
     * @param {readonly any[]} calls
     */
    assistant(text, calls) {
      const parts = assistantParts(text, calls, (input) => asJson(input) ?? {});
      if (!parts.length) return;
      const message = /** @type {ModelMessage} */ ({ role: 'assistant', content: parts });
      if (turn) turn.assistant = message;
      record({ kind: 'message_appended', message });
    },
    /**
     * A model call's usage: a `custom` model_usage record (as trajectoryMiddleware writes it), and its tokens to the observers' budget.
     * @param {unknown} usage
     * @param {unknown} finishReason
     */
    usage(usage, finishReason) {
      const payload = usageRecord(usage, finishReason);
      if (!payload) return;
      record(payload);
      if (payload.data.totalTokens && observers) observers.recordTokens(payload.data.totalTokens);
    },
    /** A failed model call: a `custom` model_error record. */
    modelError: (/** @type {string} */ message) => record(wasm.modelError(message)),
    /**
     * @param {unknown} id
     * @param {unknown} name
     * @param {unknown} input
     */
    toolStarted(id, name, input) {
      const args = asJson(input);
      record({ kind: 'tool_started', tool_call_id: String(id), tool_name: String(name), ...(args === undefined ? {} : { args }) });
    },
    /**
     * A call's end: recorded, fed to the observers, their assessments recorded and counted against stopOn.
     * @param {unknown} id
     * @param {unknown} name
     * @param {unknown} input
     * @param {{ output?: unknown, error?: unknown, failed: boolean }} end
     */
    toolEnded(id, name, input, { output, error, failed }) {
      const result = failed ? why(error) : asJson(output);
      record({ kind: 'tool_ended', tool_call_id: String(id), tool_name: String(name), ...(result === undefined ? {} : { result }), is_error: failed });
      const answer = failed ? { type: 'error-text', value: String(result) } : { type: 'json', value: result ?? null };
      turn?.results.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: String(id), toolName: String(name), output: answer }] });
      if (!observers) return;
      const shown = observers.recordToolCall({ toolName: String(name), params: asJson(input), success: !failed, ...(failed ? { errorMessage: result } : {}) });
      for (const assessment of shown?.assessments ?? []) {
        record({ kind: 'assessment_produced', call_index: shown.callIndex, assessment });
        if (stopOn?.hit(String(assessment.severity))) stoppedBy ??= assessment;
      }
    },
    /**
     * run_ended, once, for a run this capture began, with the outcome the
     * core gives: `{ finished: reason }`, `{ failed: { message, code?,
     * harness } }`, or, once stopOn was met, the stop on that finding.
     */
    /** @param {any} how */
    end(how) {
      if (ended || !fresh) return;
      ended = true;
      const stop = stoppedBy && !how.failed
        ? { stoppedOn: { threshold: /** @type {StopOn} */ (stopOn).severity, times: /** @type {StopOn} */ (stopOn).times, observer: String(stoppedBy.observerName), severity: String(stoppedBy.severity), summary: String(stoppedBy.summary) } }
        : how;
      record({ kind: 'run_ended', outcome: wasm.loopOutcome(stop) });
    },
    /**
     * run_ended for `e`, a failure of the caller's code or of the recording (verdict harness).
     * @param {any} e
     */
    endFailed(e) {
      this.end({ failed: { message: why(e), ...(typeof e?.code === 'string' ? { code: e.code } : {}), harness: true } });
    },
  };
}

