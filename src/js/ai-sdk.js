// Observers and capture where AI SDK agents already run. observeAISdk()
// returns the loop settings to spread into generateText / streamText /
// new ToolLoopAgent(...): prepareStep shows the observers' assessment to
// the next model call, onStepFinish feeds each tool call to the observers
// and writes the step to a recorder, stopWhen stops on a severity.
// trajectoryMiddleware() records every model call for wrapLanguageModel.
// Neither imports `ai`: both are plain objects of functions the AI SDK
// calls, so no bundle carries `ai` through them. Inlined into generate.js.
function makeAISdk(wasm, lib) {
  const { fail, why, guard, guarded, isObject, isArray } = lib;
  const SEVERITIES = ['info', 'caution', 'warning'];
  const OPTIONS = ['observers', 'recorder', 'stopOn', 'maxSteps', 'tools', 'prepareStep', 'onStepFinish', 'stopWhen', 'onFinish'];

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
  const textOf = (instructions) => {
    if (typeof instructions === 'string') return instructions;
    if (isArray(instructions)) return instructions.map(textOf).join('\n');
    return isObject(instructions) && typeof instructions.content === 'string' ? instructions.content : '';
  };
  const callable = (v, where) => {
    if (v !== undefined && typeof v !== 'function') throw fail('INVALID_ARGUMENT', `${where} must be a function, got ${v === null ? 'null' : typeof v}`);
    return v;
  };

  // 'warning' or { severity: 'warning', times: 2 } ("nudge once, stop if it repeats").
  const readStopOn = (v) => {
    if (v === undefined) return undefined;
    const s = isObject(v) && !isArray(v) ? v : { severity: v };
    if (isObject(v)) wasm.checkOptions(v, ['severity', 'times'], 'observeAISdk options.stopOn');
    if (!SEVERITIES.includes(s.severity)) {
      throw fail('INVALID_ARGUMENT', `observeAISdk options.stopOn${isObject(v) ? '.severity' : ''} must be 'info', 'caution' or 'warning', got ${why(s.severity)}`);
    }
    const times = s.times ?? 1;
    if (!Number.isSafeInteger(times) || times < 1) throw fail('INVALID_ARGUMENT', `observeAISdk options.stopOn.times must be a whole number from 1, got ${why(times)}`);
    return { rank: SEVERITIES.indexOf(s.severity), severity: s.severity, times };
  };

  function observeAISdk(options = {}) {
    const place = 'observeAISdk options';
    wasm.checkOptions(options, OPTIONS, place);
    const o = options ?? {};
    let observers = o.observers;
    if (observers != null && typeof observers.recordToolCall !== 'function') {
      observers = new wasm.ObserverPipeline(isArray(observers) ? { observers } : observers);
    }
    const recorder = o.recorder ?? undefined;
    if (recorder !== undefined && (!isObject(recorder) || typeof recorder.record !== 'function')) {
      throw fail('INVALID_ARGUMENT', `${place}.recorder must be a TrajectoryRecorder, got ${why(recorder)}`);
    }
    const stopOn = readStopOn(o.stopOn);
    const maxSteps = o.maxSteps ?? 20;
    if (!Number.isSafeInteger(maxSteps) || maxSteps < 1) throw fail('INVALID_ARGUMENT', `${place}.maxSteps must be a whole number from 1, got ${why(maxSteps)}`);
    const userPrepare = callable(o.prepareStep, `${place}.prepareStep`);
    const userStepFinish = callable(o.onStepFinish, `${place}.onStepFinish`);
    const userFinish = callable(o.onFinish, `${place}.onFinish`);
    const userStops = o.stopWhen === undefined ? [] : isArray(o.stopWhen) ? [...o.stopWhen] : [o.stopWhen];
    userStops.forEach((s, i) => callable(s, `${place}.stopWhen${isArray(o.stopWhen) ? `[${i}]` : ''}`));
    const toolNames = isObject(o.tools) ? Object.keys(o.tools) : isArray(o.tools) ? o.tools.map(String) : undefined;

    let started = false;
    let hits = 0; // assessments at or above stopOn's severity
    let stoppedBy;
    // What the last injection replaced: the AI SDK carries an instructions
    // override forward, so the next step would otherwise stack assessments.
    let injected;
    let base;

    const record = (payload) => recorder?.record(payload);
    const start = (modelId) => {
      if (started || !recorder) return;
      started = true;
      if (recorder.nextSeq !== 0) return; // the caller began the run
      record({ kind: 'run_started', identity: { run_id: recorder.runId ?? `ai-sdk-${Date.now()}`, agent: 'ai-sdk', ...(typeof modelId === 'string' ? { model_id: modelId } : {}) } });
    };
    const withContext = (instructions, context) => {
      if (instructions === undefined || instructions === null || instructions === '') return context;
      if (typeof instructions === 'string') return `${instructions}\n\n${context}`;
      return [...(isArray(instructions) ? instructions : [instructions]), { role: 'system', content: context }];
    };

    async function prepareStep(step) {
      const mine = userPrepare ? await guarded('observeAISdk: your prepareStep', () => userPrepare(step)) : undefined;
      start(step?.model?.modelId);
      const result = isObject(mine) ? { ...mine } : {};
      if (observers) {
        const context = guard('observeAISdk: observers.context()', () => observers.context());
        const current = step?.instructions ?? step?.system;
        const own = result.instructions ?? result.system;
        const from = own !== undefined ? own : injected !== undefined && current === injected ? base : current;
        delete result.system;
        if (context) {
          base = from;
          injected = withContext(from, context);
          result.instructions = injected;
        } else if (from !== current || own !== undefined) {
          injected = undefined;
          result.instructions = from;
        }
      }
      const messages = isArray(result.messages) ? result.messages : isArray(step?.messages) ? step.messages : [];
      record({
        kind: 'provider_request_prepared',
        iteration: Number.isSafeInteger(step?.stepNumber) ? step.stepNumber : 0,
        ...(typeof step?.model?.modelId === 'string' ? { model_id: step.model.modelId } : {}),
        system_prompt_chars: textOf(result.instructions ?? step?.instructions ?? step?.system).length,
        message_count: messages.length,
        tool_count: toolNames?.length ?? 0,
        ...(toolNames ? { tools: toolNames } : {}),
      });
      return mine === undefined && !('instructions' in result) ? undefined : result;
    }

    async function onStepFinish(step) {
      start(step?.model?.modelId);
      const content = isArray(step?.content) ? step.content : [];
      const parts = [];
      for (const p of content) {
        if (p?.type === 'text' && p.text) parts.push({ type: 'text', text: p.text });
        else if (p?.type === 'tool-call') parts.push({ type: 'tool-call', toolCallId: String(p.toolCallId), toolName: String(p.toolName), input: asJson(p.input) ?? {} });
      }
      if (parts.length) record({ kind: 'message_appended', message: { role: 'assistant', content: parts } });
      const tokens = totalTokens(step?.usage);
      if (tokens && observers) observers.recordTokens(tokens);
      for (const call of content.filter((p) => p?.type === 'tool-call')) {
        const id = String(call.toolCallId);
        const name = String(call.toolName);
        const args = asJson(call.input);
        record({ kind: 'tool_started', tool_call_id: id, tool_name: name, ...(args === undefined ? {} : { args }) });
        const end = content.find((p) => (p?.type === 'tool-result' || p?.type === 'tool-error') && p.toolCallId === call.toolCallId);
        if (!end) continue; // a tool without execute: the caller answers it
        const failed = end.type === 'tool-error';
        const result = failed ? why(end.error) : asJson(end.output);
        record({ kind: 'tool_ended', tool_call_id: id, tool_name: name, ...(result === undefined ? {} : { result }), is_error: failed });
        if (!observers) continue;
        const shown = observers.recordToolCall({ toolName: name, params: args, success: !failed, ...(failed ? { errorMessage: result } : {}) });
        for (const assessment of shown?.assessments ?? []) {
          record({ kind: 'assessment_produced', call_index: shown.callIndex, assessment });
          if (stopOn && SEVERITIES.indexOf(assessment.severity) >= stopOn.rank && ++hits >= stopOn.times) stoppedBy ??= assessment;
        }
      }
      if (userStepFinish) await guarded('observeAISdk: your onStepFinish', () => userStepFinish(step));
    }

    async function onFinish(event) {
      const outcome = stoppedBy
        ? { status: 'completed', reason: `stopped-on-${stopOn.severity}`, message: `${stoppedBy.observerName}: ${stoppedBy.summary}` }
        : { status: 'completed', reason: typeof event?.finishReason === 'string' ? event.finishReason : 'finished' };
      if (recorder && started) record({ kind: 'run_ended', outcome });
      if (userFinish) await guarded('observeAISdk: your onFinish', () => userFinish(event));
    }

    const settings = { prepareStep, onStepFinish, onFinish };
    if (stopOn || userStops.length) {
      const ours = () => stoppedBy !== undefined;
      // Our condition replaces the AI SDK's default one, so the step cap
      // the caller did not set comes back as maxSteps.
      const cap = ({ steps }) => (isArray(steps) ? steps.length : 0) >= maxSteps;
      settings.stopWhen = [...(userStops.length ? userStops : [cap]), ...(stopOn ? [ours] : [])];
    }
    return settings;
  }

  // Records every model call of a wrapped model: the request's shape, the
  // answer as an assistant message, and its usage (streaming included).
  function trajectoryMiddleware(options) {
    const place = 'trajectoryMiddleware options';
    if (!isObject(options)) throw fail('INVALID_ARGUMENT', `trajectoryMiddleware(options): options must be an object ({ recorder })`);
    wasm.checkOptions(options, ['recorder'], place);
    const { recorder } = options;
    if (!isObject(recorder) || typeof recorder.record !== 'function') throw fail('INVALID_ARGUMENT', `${place}.recorder must be a TrajectoryRecorder, got ${why(recorder)}`);
    let calls = 0;
    const prepared = (params, model) => {
      const prompt = isArray(params?.prompt) ? params.prompt : [];
      const system = prompt.filter((m) => m?.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      const tools = isArray(params?.tools) ? params.tools.map((t) => String(t?.name)) : [];
      recorder.record({
        kind: 'provider_request_prepared',
        iteration: calls++,
        ...(typeof model?.modelId === 'string' ? { model_id: model.modelId } : {}),
        system_prompt_chars: system.length,
        message_count: prompt.length - prompt.filter((m) => m?.role === 'system').length,
        tool_count: tools.length,
        ...(tools.length ? { tools } : {}),
      });
    };
    const parseInput = (input) => {
      if (typeof input !== 'string') return asJson(input) ?? {};
      try {
        return JSON.parse(input);
      } catch {
        return input;
      }
    };
    const answered = (text, calls, usage, finishReason) => {
      const parts = [...(text ? [{ type: 'text', text }] : []), ...calls.map((c) => ({ type: 'tool-call', toolCallId: String(c.toolCallId), toolName: String(c.toolName), input: parseInput(c.input) }))];
      recorder.record({ kind: 'message_appended', message: { role: 'assistant', content: parts.length ? parts : '' } });
      const data = { input_tokens: count(usage?.inputTokens), output_tokens: count(usage?.outputTokens), finish_reason: isObject(finishReason) ? finishReason.unified : finishReason };
      recorder.record({ kind: 'custom', name: 'model_usage', data: asJson(data) });
    };
    const failed = (e) => {
      recorder.record({ kind: 'custom', name: 'model_error', data: { message: why(e) } });
      return e;
    };
    // The request recorded, then the call; a call that throws is recorded and rethrown.
    const call = async (params, model, f) => {
      prepared(params, model);
      try {
        return await f();
      } catch (e) {
        throw failed(e);
      }
    };
    return {
      async wrapGenerate({ doGenerate, params, model }) {
        const r = await call(params, model, doGenerate);
        const content = isArray(r?.content) ? r.content : [];
        answered(content.filter((p) => p?.type === 'text').map((p) => p.text).join(''), content.filter((p) => p?.type === 'tool-call'), r?.usage, r?.finishReason);
        return r;
      },
      async wrapStream({ doStream, params, model }) {
        const r = await call(params, model, doStream);
        let text = '';
        const toolCalls = [];
        let usage;
        let finishReason;
        let done = false;
        const end = () => {
          if (done) return;
          done = true;
          answered(text, toolCalls, usage, finishReason);
        };
        const stream = r.stream.pipeThrough(new TransformStream({
          transform(part, controller) {
            if (part?.type === 'text-delta') text += part.delta ?? part.textDelta ?? '';
            else if (part?.type === 'tool-call') toolCalls.push(part);
            else if (part?.type === 'finish') ({ usage, finishReason } = part);
            else if (part?.type === 'error') failed(part.error);
            controller.enqueue(part);
          },
          flush: end,
        }));
        return { ...r, stream };
      },
    };
  }

  return { observeAISdk, trajectoryMiddleware };
}
