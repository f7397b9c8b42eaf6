// What observeAISdk and observeMastra share: reading their common options
// (observers, recorder, stopOn) and turning one agent loop's steps into
// records, observer calls and a stop decision. Each adapter only translates
// its framework's hooks into these calls. Inlined into generate.js.
function makeLoopCapture(wasm, lib) {
  const { fail, why, shown, guard, isObject, isArray } = lib;
  const SEVERITIES = ['info', 'caution', 'warning'];

  // A value as record JSON: what JSON cannot carry becomes its text.
  const asJson = (v) => {
    if (v === undefined) return undefined;
    try {
      const text = JSON.stringify(v);
      return text === undefined ? String(v) : JSON.parse(text);
    } catch {
      return why(v);
    }
  };
  // A token count as the AI SDK gives it (a number) or as its providers do ({ total }).
  const count = (x) => (typeof x === 'number' ? x : isObject(x) && typeof x.total === 'number' ? x.total : undefined);
  const totalTokens = (u) => {
    if (!isObject(u)) return 0;
    const total = typeof u.totalTokens === 'number' ? u.totalTokens : (count(u.inputTokens) ?? 0) + (count(u.outputTokens) ?? 0);
    return Number.isSafeInteger(total) && total > 0 ? total : 0;
  };
  // An assistant step as message parts: its text, then its tool calls (`input` reads a call's input).
  const assistantParts = (text, calls, input) => [
    ...(text ? [{ type: 'text', text }] : []),
    ...calls.map((c) => ({ type: 'tool-call', toolCallId: String(c.toolCallId), toolName: String(c.toolName), input: input(c.input) })),
  ];
  // A model call's usage as the `custom` model_usage record's data.
  const usageData = (usage, finishReason) => {
    const reason = isObject(finishReason) ? finishReason.unified : finishReason;
    return asJson({ input_tokens: count(usage?.inputTokens), output_tokens: count(usage?.outputTokens), finish_reason: typeof reason === 'string' ? reason : undefined });
  };
  const callable = (v, where) => {
    if (v !== undefined && typeof v !== 'function') throw fail('INVALID_ARGUMENT', `${where} must be a function, got ${v === null ? 'null' : typeof v}`);
    return v;
  };

  // 'warning' or { severity: 'warning', times: 2 } ("nudge once, stop if it repeats").
  const readStopOn = (v, place) => {
    if (v === undefined) return undefined;
    const s = isObject(v) && !isArray(v) ? v : { severity: v };
    if (isObject(v)) wasm.checkOptions(v, ['severity', 'times'], `${place}.stopOn`);
    if (!SEVERITIES.includes(s.severity)) {
      throw fail('INVALID_ARGUMENT', `${place}.stopOn${isObject(v) ? '.severity' : ''} must be 'info', 'caution' or 'warning', got ${shown(s.severity)}`);
    }
    const times = s.times ?? 1;
    if (!Number.isSafeInteger(times) || times < 1) throw fail('INVALID_ARGUMENT', `${place}.stopOn.times must be a whole number from 1, got ${shown(times)}`);
    return { rank: SEVERITIES.indexOf(s.severity), severity: s.severity, times };
  };

  /**
   * One loop's capture, from the adapter's `observers`, `recorder` and
   * `stopOn` options (`name`, the adapter's, says where in errors).
   */
  function loopCapture(o, name) {
    const place = `${name} options`;
    let observers = o.observers;
    if (observers != null && typeof observers.recordToolCall !== 'function') {
      observers = new wasm.ObserverPipeline(isArray(observers) ? { observers } : observers);
    }
    const recorder = o.recorder ?? undefined;
    if (recorder !== undefined && (!isObject(recorder) || typeof recorder.record !== 'function' || typeof recorder.nextSeq !== 'number')) {
      const sink = isObject(recorder) && typeof recorder.record === 'function';
      throw fail('INVALID_ARGUMENT', `${place}.recorder must be a TrajectoryRecorder, got ${sink ? 'a sink (wrap it: new TrajectoryRecorder(sink))' : shown(recorder)}`);
    }
    if (o.agent !== undefined && (typeof o.agent !== 'string' || !o.agent)) throw fail('INVALID_ARGUMENT', `${place}.agent must be the agent's name (a non-empty string), got ${shown(o.agent)}`);
    const stopOn = readStopOn(o.stopOn, place);
    let fresh = false; // this capture began the run, so it also ends it
    let begun = false;
    let started = false;
    let ended = false;
    let hits = 0; // assessments at or above stopOn's severity
    let stoppedBy;
    const record = (payload) => recorder?.record(payload);

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
      /** run_started, once, and only into a fresh recorder (else the caller began the run). */
      start(agent, modelId) {
        if (started || !recorder) return;
        started = true;
        if (recorder.nextSeq !== 0) return;
        fresh = true;
        const identity = { run_id: recorder.runId ?? `${agent}-${Date.now()}`, agent, ...(typeof modelId === 'string' ? { model_id: modelId } : {}) };
        record({ kind: 'run_started', identity });
      },
      /** The observers' current assessment as prompt text, or ''. */
      context: () => (observers ? guard(`${name}: observers.context()`, () => observers.context()) ?? '' : ''),
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
      /** The assistant's step: its text and tool calls ({ toolCallId, toolName, input }). */
      assistant(text, calls) {
        const parts = assistantParts(text, calls, (input) => asJson(input) ?? {});
        if (parts.length) record({ kind: 'message_appended', message: { role: 'assistant', content: parts } });
      },
      /** A model call's usage: a `custom` model_usage record (as trajectoryMiddleware writes it), and its tokens to the observers' budget. */
      usage(usage, finishReason) {
        if (isObject(usage)) record({ kind: 'custom', name: 'model_usage', data: usageData(usage, finishReason) });
        const n = totalTokens(usage);
        if (n && observers) observers.recordTokens(n);
      },
      toolStarted(id, name, input) {
        const args = asJson(input);
        record({ kind: 'tool_started', tool_call_id: String(id), tool_name: String(name), ...(args === undefined ? {} : { args }) });
      },
      /** A call's end: recorded, fed to the observers, their assessments recorded and counted against stopOn. */
      toolEnded(id, name, input, { output, error, failed }) {
        const result = failed ? why(error) : asJson(output);
        record({ kind: 'tool_ended', tool_call_id: String(id), tool_name: String(name), ...(result === undefined ? {} : { result }), is_error: failed });
        if (!observers) return;
        const shown = observers.recordToolCall({ toolName: String(name), params: asJson(input), success: !failed, ...(failed ? { errorMessage: result } : {}) });
        for (const assessment of shown?.assessments ?? []) {
          record({ kind: 'assessment_produced', call_index: shown.callIndex, assessment });
          if (stopOn && SEVERITIES.indexOf(assessment.severity) >= stopOn.rank && ++hits >= stopOn.times) stoppedBy ??= assessment;
        }
      },
      /** The outcome of a loop stopped on `stoppedBy`. */
      stoppedOutcome: () => ({ status: 'completed', reason: `stopped-on-${stopOn.severity}`, message: `${stoppedBy.observerName}: ${stoppedBy.summary}` }),
      /** run_ended, once, for a run this capture began. */
      end(outcome) {
        if (ended || !fresh) return;
        ended = true;
        record({ kind: 'run_ended', outcome });
      },
    };
  }

  return { loopCapture, asJson, callable, shown, assistantParts, usageData };
}
