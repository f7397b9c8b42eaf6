// Observers and capture where Mastra agents run, through Mastra's own
// extension point: one processor, listed among the input, output and error
// processors, that observeMastra() returns to spread into `new Agent(...)`
// or `agent.generate / stream(messages, ...)`. Per step it
//   processInputStep   feeds the previous step's tool results to the
//                      observers, records them, and stops the run (a
//                      tripwire) once `stopOn` is met;
//   processLLMRequest  shows the observers' assessment to this model call
//                      only: the prompt it returns is not written back to
//                      the message list, so memory never stores it;
//   processOutputStep  records the assistant's text and tool calls (before
//                      the tools run, so tool_started is on time) and the
//                      step's tokens;
//   processOutputResult records the last step's results and run_ended;
//   processAPIError    keeps the model's error for run_ended.
// Nothing here imports @mastra/core.

import { wasm } from './binding.js';
import { loopCapture } from './loop-capture.js';
import { fail, why, isObject, isArray } from './util.js';

const OPTIONS = ['observers', 'recorder', 'stopOn', 'budget', 'agent', 'inputProcessors', 'outputProcessors', 'errorProcessors'];
const ID = 'agent-trajectories';

/**
 * The caller's processors of one list, each checked to be one.
 * @param {unknown} v
 * @param {string} where
 * @returns {any[]}
 */
const processors = (v, where) => {
  if (v === undefined) return [];
  if (!isArray(v)) throw fail('INVALID_ARGUMENT', `${where} must be an array of processors, got ${why(v)}`);
  v.forEach((p, i) => {
    if (!isObject(p) || typeof p.id !== 'string') throw fail('INVALID_ARGUMENT', `${where}[${i}] must be a Mastra processor (an object with an id), got ${why(p)}`);
  });
  return v;
};
/** @param {any} m @returns {string} */
const messageText = (m) => (typeof m?.content === 'string' ? m.content : isArray(m?.content) ? m.content.map((/** @type {any} */ p) => p?.text ?? '').join('') : '');
/**
 * A tool result part of a Mastra step: { output: { type: 'json' | 'text' | 'error-text' | ..., value } }, or a tool-error part.
 * @param {any} p
 */
const ending = (p) => {
  const out = p.output;
  const wrapped = isObject(out) && typeof out.type === 'string' && 'value' in out;
  const failed = p.type === 'tool-error' || (wrapped && out.type.startsWith('error'));
  const value = wrapped ? out.value : out;
  return { output: value, error: p.type === 'tool-error' ? p.error : value, failed };
};

/**
 * @template {readonly unknown[]} [Input=[]]
 * @template {readonly unknown[]} [Output=[]]
 * @template {readonly unknown[]} [Errors=[]]
 * @param {import('./mastra-types').ObserveMastraOptions<Input, Output, Errors>} [options]
 * @returns {import('./mastra-types').MastraProcessors<Input, Output, Errors>}
 */
export function observeMastra(options = {}) {
  const place = 'observeMastra options';
  wasm.checkOptions(options, OPTIONS, place);
  const o = /** @type {Record<string, any>} */ (options ?? {});
  const cap = loopCapture(o, 'observeMastra');
  const mine = {
    input: processors(o.inputProcessors, `${place}.inputProcessors`),
    output: processors(o.outputProcessors, `${place}.outputProcessors`),
    error: processors(o.errorProcessors, `${place}.errorProcessors`),
  };
  /** @type {string[] | undefined} */
  let toolNames;
  let settled = 0; // steps whose tool results are recorded
  const started = new Set(); // tool_started recorded, by call id
  /** @type {string | undefined} */
  let modelError;
  let userRecorded = false;

  const start = (/** @type {any} */ args) => cap.start(o.agent ?? 'mastra', args?.model?.modelId);
  // Records the tool calls of every finished step not yet recorded, in order.
  const settle = (/** @type {unknown} */ steps) => {
    if (!isArray(steps)) return;
    for (; settled < steps.length; settled++) {
      const content = isArray(steps[settled]?.content) ? steps[settled].content : [];
      for (const call of content.filter((/** @type {any} */ p) => p?.type === 'tool-call')) {
        if (!started.has(call.toolCallId)) cap.toolStarted(call.toolCallId, call.toolName, call.input);
        started.delete(call.toolCallId);
        const end = content.find((/** @type {any} */ p) => (p?.type === 'tool-result' || p?.type === 'tool-error') && p.toolCallId === call.toolCallId);
        if (end) cap.toolEnded(call.toolCallId, call.toolName, call.input, ending(end));
      }
    }
  };

  // Typed by what it reads (more than MastraTrajectoryProcessor declares: the declaration names only what a caller may rely on).
  /** @type {import('./mastra-types').MastraTrajectoryProcessor & Record<string, any>} */
  const processor = {
    id: ID,
    name: 'agent-trajectories observers and capture',
    /** @param {any} args */
    processInputStep(args) {
      // Mastra gives each processor one `state` object per request: a new one is a new run.
      if (isObject(args?.state) && !args.state[ID]) {
        args.state[ID] = true;
        cap.begin();
      }
      start(args);
      if (isObject(args?.tools)) toolNames = Object.keys(args.tools);
      settle(args?.steps);
      // The previous step's turn ends once its tool results are in.
      cap.turnEnded();
      const stopped = cap.stoppedBy;
      if (stopped && typeof args?.abort === 'function') {
        cap.end({ finished: undefined });
        args.abort(`${stopped.observerName}: ${stopped.summary}`, { metadata: { stoppedOn: /** @type {import('./binding-types').StopOn} */ (cap.stopOn).severity, assessment: stopped } });
        return;
      }
      cap.turnStarted(Number.isSafeInteger(args?.stepNumber) && args.stepNumber >= 0 ? args.stepNumber : settled);
    },
    /** @param {any} args */
    processLLMRequest(args) {
      start(args);
      const prompt = isArray(args?.prompt) ? args.prompt : [];
      const context = cap.context();
      let sent = prompt;
      if (context) {
        // After the leading system messages: providers that take system
        // text only at the start of the conversation still accept it.
        let at = 0;
        while (at < prompt.length && prompt[at]?.role === 'system') at++;
        sent = [...prompt.slice(0, at), { role: 'system', content: context }, ...prompt.slice(at)];
      }
      // The user's words open the first turn, as in a generated run (their text; files and images are left out).
      if (!userRecorded) {
        userRecorded = true;
        for (const m of prompt.filter((/** @type {any} */ x) => x?.role === 'user')) {
          const text = messageText(m);
          if (text) cap.record({ kind: 'message_appended', message: { role: 'user', content: text } });
        }
      }
      const system = sent.filter((/** @type {any} */ m) => m?.role === 'system');
      cap.prepared({ iteration: args?.stepNumber, modelId: args?.model?.modelId, systemChars: system.map(messageText).join('\n').length, messageCount: sent.length - system.length, tools: toolNames });
      return context ? { prompt: sent } : undefined;
    },
    /** @param {any} args */
    processOutputStep(args) {
      start(args);
      const calls = (isArray(args?.toolCalls) ? args.toolCalls : []).map((/** @type {any} */ c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.args }));
      cap.assistant(typeof args?.text === 'string' ? args.text : '', calls);
      cap.usage(args?.usage, args?.finishReason);
      for (const c of calls) {
        cap.toolStarted(c.toolCallId, c.toolName, c.input);
        started.add(c.toolCallId);
      }
      return args.messageList;
    },
    /** @param {any} args */
    processAPIError(args) {
      modelError = why(args?.error);
      cap.modelError(modelError);
    },
  };
  // The run's end, after every output processor of yours: one that throws
  // fails the run before run_ended could say it passed.
  /** @type {import('./mastra-types').MastraTrajectoryEnd & Record<string, any>} */
  const end = {
    id: 'agent-trajectories-end',
    name: 'agent-trajectories run end',
    /** @param {any} args */
    processOutputResult(args) {
      settle(args?.result?.steps);
      cap.turnEnded();
      const reason = typeof args?.result?.finishReason === 'string' ? args.result.finishReason : undefined;
      if (reason === 'error') {
        if (modelError === undefined) cap.modelError('the model call failed');
        cap.end({ failed: { message: modelError ?? 'the model call failed', harness: false } });
      } else cap.end({ finished: reason });
      return args.messageList;
    },
  };
  // Ours last among the input processors (it sees the prompt the model
  // gets) and first among the output ones (it records what the model said).
  return /** @type {any} */ ({ inputProcessors: [...mine.input, processor], outputProcessors: [processor, ...mine.output, end], errorProcessors: [...mine.error, processor] });
}

