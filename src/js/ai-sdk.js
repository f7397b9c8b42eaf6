// Observers and capture where AI SDK agents already run. observeAISdk()
// returns the loop settings to spread into generateText / streamText /
// new ToolLoopAgent(...): prepareStep shows the observers' assessment to
// the next model call, onStepEnd feeds each tool call to the observers and
// writes the step to a recorder, onStepError and onEnd end the run,
// stopWhen stops on a severity. trajectoryMiddleware() records every model
// call for wrapLanguageModel. Neither imports `ai`: both are plain objects
// of functions the AI SDK calls, so no bundle carries `ai` through them.

import { wasm } from './binding.js';
import { loopCapture, asJson, callable, assistantParts, usageRecord, isRecorder, notRecorder } from './loop-capture.js';
import { fail, why, shown, guarded, isObject, isArray } from './util.js';

/**
 * Instructions (a string, a system message or a list of them) as text.
 * @param {unknown} instructions
 * @returns {string}
 */
function textOf(instructions) {
  if (typeof instructions === 'string') return instructions;
  if (isArray(instructions)) return instructions.map(textOf).join('\n');
  return isObject(instructions) && typeof instructions.content === 'string' ? instructions.content : '';
}

/**
 * @param {any} [options]
 * @returns {import('./ai-sdk-types').AISdkLoopSettings<any, any, any, any, any, any>}
 */
export function observeAISdk(options = {}) {
  const place = 'observeAISdk options';
  const known = 'observers recorder stopOn budget agent maxSteps tools prepareStep onStepEnd onStepFinish onStepError stopWhen onEnd onFinish onAbort';
  wasm.checkOptions(options, known.split(' '), place);
  const o = options ?? {};
  const cap = loopCapture(o, 'observeAISdk');
  const maxSteps = o.maxSteps ?? 20;
  if (!Number.isSafeInteger(maxSteps) || maxSteps < 1) throw fail('INVALID_ARGUMENT', `${place}.maxSteps must be a whole number from 1, got ${shown(maxSteps)}`);
  const userPrepare = callable(o.prepareStep, `${place}.prepareStep`);
  // AI SDK 7 names them onStepEnd / onEnd (onStepFinish / onFinish are its
  // deprecated aliases); either name is yours, and both are called.
  const userStepEnds = /** @type {((step: unknown) => unknown)[]} */ (['onStepEnd', 'onStepFinish'].map((k) => callable(o[k], `${place}.${k}`)).filter(Boolean));
  const userEnds = /** @type {((event: unknown) => unknown)[]} */ (['onEnd', 'onFinish'].map((k) => callable(o[k], `${place}.${k}`)).filter(Boolean));
  const userStepError = callable(o.onStepError, `${place}.onStepError`);
  const userAbort = callable(o.onAbort, `${place}.onAbort`);
  const userStops = o.stopWhen === undefined ? [] : isArray(o.stopWhen) ? [...o.stopWhen] : [o.stopWhen];
  userStops.forEach((s, i) => callable(s, `${place}.stopWhen${isArray(o.stopWhen) ? `[${i}]` : ''}`));
  if (o.tools !== undefined && !isObject(o.tools)) throw fail('INVALID_ARGUMENT', `${place}.tools must be your tool set (or an array of tool names), got ${shown(o.tools)}`);
  const toolNames = isArray(o.tools) ? o.tools.map(String) : isObject(o.tools) ? Object.keys(o.tools) : undefined;
  // AI SDK 7 ignores what its step and end callbacks throw. A failure in
  // ours or yours is kept here, written as run_ended, and thrown from the
  // next step's prepareStep, so the loop fails with it instead.
  /** @type {unknown} */
  let failure;
  /**
   * @param {string} where
   * @param {() => unknown} f
   */
  const keep = async (where, f) => {
    try {
      await guarded(where, f);
    } catch (e) {
      failure ??= e;
      cap.endFailed(e);
    }
  };

  // What the last injection replaced: the AI SDK carries an instructions
  // override forward, so the next step would otherwise stack assessments.
  /** @type {unknown} */
  let injected;
  /** @type {unknown} */
  let base;
  /**
   * @param {unknown} instructions
   * @param {string} context
   */
  const withContext = (instructions, context) => {
    if (instructions === undefined || instructions === null || instructions === '') return context;
    if (typeof instructions === 'string') return `${instructions}\n\n${context}`;
    return [...(isArray(instructions) ? instructions : [instructions]), { role: 'system', content: context }];
  };

  /** @param {any} step */
  async function prepareStep(step) {
    if (failure) throw failure;
    if (step?.stepNumber === 0) cap.begin();
    cap.start(o.agent ?? 'ai-sdk', step?.model?.modelId);
    let mine;
    try {
      mine = userPrepare ? await guarded('observeAISdk: your prepareStep', () => userPrepare(step)) : undefined;
    } catch (e) {
      // The loop rejects with it; the run's records end with it too.
      cap.turnEnded();
      cap.endFailed(e);
      throw e;
    }
    // A step is a turn; one left open (a tool the caller answers) ends here.
    cap.turnEnded();
    cap.turnStarted(Number.isSafeInteger(step?.stepNumber) && step.stepNumber >= 0 ? step.stepNumber : 0);
    // The user's words open the first turn, as in a generated run (their text; files and images are left out).
    if (step?.stepNumber === 0 && isArray(step?.messages)) {
      for (const m of step.messages) {
        if (m?.role !== 'user') continue;
        const text = typeof m.content === 'string' ? m.content : isArray(m.content) ? m.content.filter((/** @type {any} */ p) => p?.type === 'text' && typeof p.text === 'string').map((/** @type {any} */ p) => p.text).join('\n') : '';
        if (text) cap.record({ kind: 'message_appended', message: { role: 'user', content: text } });
      }
    }
    const result = isObject(mine) ? { ...mine } : {};
    if (cap.observers) {
      const context = cap.context();
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
    cap.prepared({
      iteration: step?.stepNumber,
      modelId: step?.model?.modelId,
      systemChars: textOf(result.instructions ?? step?.instructions ?? step?.system).length,
      messageCount: messages.length,
      tools: toolNames,
    });
    return mine === undefined && !('instructions' in result) ? undefined : result;
  }

  /** @param {any} step */
  async function onStepEnd(step) {
    await keep('observeAISdk: recording the step', () => {
      cap.start(o.agent ?? 'ai-sdk', step?.model?.modelId);
      const content = isArray(step?.content) ? step.content : [];
      const calls = content.filter((/** @type {any} */ p) => p?.type === 'tool-call');
      cap.assistant(content.filter((/** @type {any} */ p) => p?.type === 'text').map((/** @type {any} */ p) => p.text).join(''), calls);
      cap.usage(step?.usage, step?.finishReason);
      for (const call of calls) {
        cap.toolStarted(call.toolCallId, call.toolName, call.input);
        const end = content.find((/** @type {any} */ p) => (p?.type === 'tool-result' || p?.type === 'tool-error') && p.toolCallId === call.toolCallId);
        if (!end) continue; // a tool without execute: the caller answers it
        cap.toolEnded(call.toolCallId, call.toolName, call.input, { output: end.output, error: end.error, failed: end.type === 'tool-error' });
      }
      cap.turnEnded();
    });
    for (const f of userStepEnds) await keep('observeAISdk: your onStepEnd', () => f(step));
  }

  // A step whose model call failed: the loop rejects with the error.
  /** @param {any} event */
  async function onStepError(event) {
    await keep('observeAISdk: recording the failed step', () => {
      cap.start(o.agent ?? 'ai-sdk', event?.model?.modelId);
      cap.modelError(why(event?.error));
      cap.end({ failed: { message: why(event?.error), harness: false } });
    });
    // The loop fails with the model's error: yours has nowhere else to go than the console.
    if (userStepError) await guarded('observeAISdk: your onStepError', () => userStepError(event)).catch((e) => console.warn(e));
  }

  // streamText's signal or `timeout` ended the loop. A deadline passing is
  // a model that did not answer in time (an error, as a model call's
  // timeout is); any other abort is the caller's.
  /** @param {any} event */
  async function onAbort(event) {
    await keep('observeAISdk: recording the abort', () => {
      cap.turnEnded();
      const reason = event?.reason;
      cap.end(reason?.name === 'TimeoutError' ? { failed: { message: `the loop's deadline passed: ${why(reason)}`, harness: false } } : { aborted: reason === undefined ? 'aborted' : why(reason) });
    });
    if (userAbort) await guarded('observeAISdk: your onAbort', () => userAbort(event)).catch((e) => console.warn(e));
  }

  /** @param {any} event */
  async function onEnd(event) {
    // Yours first, so a failure in it is still written into run_ended.
    for (const f of userEnds) await keep('observeAISdk: your onEnd', () => f(event));
    cap.turnEnded();
    const last = isObject(event?.finishReason) ? event.finishReason.unified : event?.finishReason;
    // Our step cap (set with stopOn) cut a loop that still wanted its tools.
    const capped = settings.stopWhen && !userStops.length && last === 'tool-calls' && isArray(event?.steps) && event.steps.length >= maxSteps;
    cap.end({ finished: capped ? 'max-steps' : typeof last === 'string' ? last : undefined });
  }

  // Your stop condition failing fails the loop as your other callbacks do:
  // coded, your error as cause, written into run_ended.
  /** @param {(arg: any) => unknown} f */
  const yours = (f) => async (/** @type {any} */ arg) => {
    try {
      return await guarded('observeAISdk: your stopWhen', () => f(arg));
    } catch (e) {
      failure ??= e;
      cap.turnEnded();
      cap.endFailed(e);
      throw e;
    }
  };
  /** @type {import('./ai-sdk-types').AISdkLoopSettings<any, any, any, any, any, any>} */
  const settings = { prepareStep, onStepEnd, onStepError, onEnd, onAbort };
  if (cap.stopOn || userStops.length) {
    const ours = () => cap.stoppedBy !== undefined;
    // Our condition replaces the AI SDK's default one, so the step cap
    // the caller did not set comes back as maxSteps.
    const atCap = (/** @type {{ steps: unknown }} */ { steps }) => (isArray(steps) ? steps.length : 0) >= maxSteps;
    settings.stopWhen = [...(userStops.length ? userStops.map(yours) : [atCap]), ...(cap.stopOn ? [ours] : [])];
  }
  return settings;
}

/**
 * Records every model call of a wrapped model: the request's shape, the
 * answer as an assistant message, and its usage (streaming included).
 * @param {any} options
 * @returns {import('./ai-sdk-types').TrajectoryMiddleware}
 */
export function trajectoryMiddleware(options) {
  const place = 'trajectoryMiddleware options';
  if (isRecorder(options)) throw fail('INVALID_ARGUMENT', 'trajectoryMiddleware(options): pass the recorder as an option: trajectoryMiddleware({ recorder })');
  if (isObject(options) && typeof options.record === 'function') throw fail('INVALID_ARGUMENT', 'trajectoryMiddleware(options): got a sink; pass a recorder as an option: trajectoryMiddleware({ recorder: new TrajectoryRecorder(sink) })');
  if (!isObject(options)) throw fail('INVALID_ARGUMENT', `trajectoryMiddleware(options): options must be an object ({ recorder }), got ${shown(options)}`);
  wasm.checkOptions(options, ['recorder'], place);
  const { recorder } = options;
  if (!isRecorder(recorder)) throw notRecorder(recorder, place);
  let calls = 0;
  /**
   * @param {any} params
   * @param {any} model
   */
  const prepared = (params, model) => {
    const prompt = isArray(params?.prompt) ? params.prompt : [];
    const system = prompt.filter((/** @type {any} */ m) => m?.role === 'system').map((/** @type {any} */ m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    const tools = isArray(params?.tools) ? params.tools.map((/** @type {any} */ t) => String(t?.name)) : [];
    // Each model call is a turn, as a loop's step is.
    recorder.record({ kind: 'turn_started', turn_index: calls });
    recorder.record({
      kind: 'provider_request_prepared',
      iteration: calls++,
      ...(typeof model?.modelId === 'string' ? { model_id: model.modelId } : {}),
      system_prompt_chars: system.length,
      message_count: prompt.length - prompt.filter((/** @type {any} */ m) => m?.role === 'system').length,
      tool_count: tools.length,
      ...(tools.length ? { tools } : {}),
    });
    return calls - 1;
  };
  const parseInput = (/** @type {unknown} */ input) => {
    if (typeof input !== 'string') return asJson(input) ?? {};
    try {
      return JSON.parse(input);
    } catch {
      return input;
    }
  };
  /**
   * @param {number} turn
   * @param {string} text
   * @param {readonly any[]} toolCalls
   * @param {unknown} usage
   * @param {unknown} finishReason
   */
  const answered = (turn, text, toolCalls, usage, finishReason) => {
    const parts = assistantParts(text, toolCalls, parseInput);
    const message = /** @type {import('./records').ModelMessage} */ ({ role: 'assistant', content: parts.length ? parts : '' });
    recorder.record({ kind: 'message_appended', message });
    const used = usageRecord(usage, finishReason);
    if (used) recorder.record(used);
    recorder.record({ kind: 'turn_ended', turn_index: turn, assistant: message, tool_results: [] });
  };
  // A stream's error part is recorded where it comes; the turn ends with the stream.
  const failed = (/** @type {unknown} */ e) => {
    recorder.record(wasm.modelError(why(e)));
    return e;
  };
  // The request recorded, then the call; a call that throws is recorded and rethrown.
  /**
   * @param {unknown} params
   * @param {unknown} model
   * @param {() => PromiseLike<any>} f
   * @returns {Promise<[number, any]>}
   */
  const call = async (params, model, f) => {
    const turn = prepared(params, model);
    try {
      return [turn, await f()];
    } catch (e) {
      failed(e);
      recorder.record({ kind: 'turn_ended', turn_index: turn, assistant: { role: 'assistant', content: '' }, tool_results: [] });
      throw e;
    }
  };
  return {
    async wrapGenerate({ doGenerate, params, model }) {
      const [turn, r] = await call(params, model, doGenerate);
      const content = isArray(r?.content) ? r.content : [];
      answered(turn, content.filter((/** @type {any} */ p) => p?.type === 'text').map((/** @type {any} */ p) => p.text).join(''), content.filter((/** @type {any} */ p) => p?.type === 'tool-call'), r?.usage, r?.finishReason);
      return r;
    },
    async wrapStream({ doStream, params, model }) {
      const [turn, r] = await call(params, model, doStream);
      let text = '';
      /** @type {any[]} */
      const toolCalls = [];
      /** @type {unknown} */
      let usage;
      /** @type {unknown} */
      let finishReason;
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        answered(turn, text, toolCalls, usage, finishReason);
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

