// Agent and model adapters: AI SDK and Mastra agents as AgentHandles, an AI
// SDK language model or any OpenAI-compatible endpoint as a Model. Plain JS
// objects, so they live here rather than in Rust. The AI SDK ones call
// `generateText` of `ai`, an optional peer dependency that no module names
// for bundlers: aiSdkAdapters(importAi) makes them for whoever has it
// (generate.js for the main entries, agent-trajectories/ai with its
// import bound); without it the caller passes `generateText`.

import { fail, why, guard, guarded, sealed, isObject, isArray, checkKeys, AI_SCHEMA } from './util.js';

/** @typedef {import('./generate-types').AgentHandle} AgentHandle */
/** @typedef {import('./generate-types').Model} Model */
/** @typedef {import('./generate-types').ModelRequest} ModelRequest */
/** @typedef {import('./generate-types').TokenUsage} TokenUsage */
/** @typedef {import('./records').ModelMessage} ModelMessage */
/** @typedef {{ generateText: Function }} AiModule */
/** @typedef {() => AiModule | Promise<AiModule>} ImportAi */

/**
 * Token counts as numbers: AI SDK 5+ reports numbers, provider-level usage
 * (and some clients) `{ total }` objects.
 * @param {any} v
 * @returns {number | undefined}
 */
const count = (v) => {
  const n = typeof v === 'number' ? v : v?.total;
  return typeof n === 'number' && n >= 0 && n <= Number.MAX_SAFE_INTEGER ? n : undefined;
};
/**
 * @param {unknown} u
 * @returns {{ usage?: TokenUsage }}
 */
const usageOf = (u) => {
  if (!isObject(u)) return {};
  /** @type {Record<string, number>} */
  const usage = {};
  for (const k of ['inputTokens', 'outputTokens', 'totalTokens']) {
    const n = count(u[k]);
    if (n !== undefined) usage[k] = n;
  }
  return Object.keys(usage).length ? { usage } : {};
};

/**
 * The turn's assistant and tool messages. AI SDK 7 keeps each step's own
 * messages on the step (and only the last on `response`); AI SDK 5 made
 * them cumulative. Mastra answers with `response.messages`.
 * @param {any[]} steps
 * @returns {any[]}
 */
function stepMessages(steps) {
  const per = steps.map((s) => s?.response?.messages ?? []);
  const last = per[per.length - 1];
  const cumulative = per.length > 1 && last.length >= per[0].length && per[0].every((/** @type {unknown} */ m, /** @type {number} */ i) => m === last[i] || JSON.stringify(m) === JSON.stringify(last[i]));
  return cumulative ? last : per.flat();
}
/**
 * @param {any} result
 * @param {string} who
 * @param {boolean} [preferSteps]
 * @returns {any[]}
 */
function messagesOf(result, who, preferSteps = false) {
  // Each field read once: what was checked is what is returned.
  const steps = result?.steps;
  if (preferSteps && isArray(steps) && steps.length) {
    const out = stepMessages(steps);
    if (out.length) return out;
  }
  const response = result?.response?.messages;
  if (isArray(response)) return response;
  const messages = result?.messages;
  if (isArray(messages)) return messages;
  if (isArray(steps) && steps.length) {
    const out = stepMessages(steps);
    if (out.length) return out;
  }
  const text = result?.text;
  if (typeof text === 'string') return [{ role: 'assistant', content: text }];
  throw fail('CALLBACK_FAILED', `${who} returned no messages (no response.messages, steps or text)`);
}

/**
 * A turn's answer: its messages and what the whole call cost (AI SDK:
 * `totalUsage` over every step; `usage` is the last step's in AI SDK 5+).
 * @param {any} result
 * @param {string} who
 * @param {boolean} [preferSteps]
 */
const turn = (result, who, preferSteps) => ({ messages: messagesOf(result, who, preferSteps), ...usageOf(result?.totalUsage ?? result?.usage) });

/**
 * A JSON Schema as the AI SDK's Schema, the shape its `jsonSchema()`
 * returns (its marker is a registered symbol), so no import of `ai` is needed.
 * @param {unknown} jsonSchema
 */
const aiSchema = (jsonSchema) => ({ [AI_SCHEMA]: true, _type: undefined, jsonSchema, validate: undefined });

/**
 * An AI SDK language model (an object with doGenerate); a getter that throws is named.
 * @param {unknown} m
 * @returns {m is Record<string, any>}
 */
const isAiSdkModel = (m) => isObject(m) && typeof guard('reading model.doGenerate threw', () => m.doGenerate) === 'function';

/**
 * The AI SDK adapters and `asModel`, bound to where `ai` comes from:
 * `source()` gives the function that imports it (read when an adapter is
 * made and when it first calls `generateText`), or undefined where the
 * caller must pass `generateText`.
 * @param {() => ImportAi | undefined} source
 */
export function aiSdkAdapters(source) {
  /** Loaded on first use: `ai` is an optional peer dependency. @type {AiModule | undefined} */
  let ai;
  /**
   * @param {unknown} given
   * @returns {Promise<AiModule>}
   */
  const loadAi = async (given) => {
    if (typeof given === 'function') return { generateText: given };
    try {
      ai ??= await /** @type {ImportAi} */ (source())();
    } catch (e) {
      throw fail('INVALID_ARGUMENT', `this needs the optional peer dependency \`ai\` (npm install ai, or import from 'agent-trajectories/ai'): ${why(e)}`, e);
    }
    return ai;
  };
  /**
   * Checked when the adapter is made, not at its first call inside a run.
   * @param {unknown} given
   * @param {string} what
   * @param {string} pass
   * @param {string} [other] the other way: what to take from agent-trajectories/ai
   */
  const needAi = (given, what, pass, other = 'import the adapters') => {
    if (typeof given !== 'function' && !source()) {
      throw fail('INVALID_ARGUMENT', `${what} needs the AI SDK's generateText: pass it (${pass}, with generateText from 'ai'), or ${other} from 'agent-trajectories/ai'`);
    }
  };

  /**
   * @param {any} target an AI SDK Agent or a generateText config (checked here)
   * @returns {AgentHandle}
   */
  function withAISdkAgent(target) {
    const usage = 'withAISdkAgent needs an AI SDK Agent (with generate) or a generateText config (with model)';
    if (!isObject(target)) throw fail('INVALID_ARGUMENT', usage);
    return guard('withAISdkAgent(agentOrConfig)', () => {
      if (typeof target.generate === 'function') {
        return {
          respond: (/** @type {readonly ModelMessage[]} */ messages, { abortSignal } = /** @type {import('./generate-types').CallOptions} */ ({})) => guarded('withAISdkAgent: agent.generate', async () => turn(await target.generate({ messages, abortSignal }), 'agent.generate', true)),
        };
      }
      if (!target.model) throw fail('INVALID_ARGUMENT', `${usage}; this has neither`);
      if ('messages' in target || 'prompt' in target) {
        throw fail('INVALID_ARGUMENT', 'withAISdkAgent: leave `messages` and `prompt` out of the config; the history is passed as `messages`');
      }
      const { generateText: given, ...config } = target;
      needAi(given, 'withAISdkAgent(config)', 'withAISdkAgent({ model, generateText })');
      return {
        /**
         * @param {readonly ModelMessage[]} messages
         * @param {import('./generate-types').CallOptions} [options]
         */
        async respond(messages, { abortSignal } = {}) {
          const { generateText } = await loadAi(given);
          return guarded('withAISdkAgent: generateText', async () => turn(await generateText({ ...config, messages, abortSignal }), 'generateText', true));
        },
      };
    });
  }

  /** @type {typeof import('./generate-types').fromAISdkModel} */
  function fromAISdkModel(model, opts) {
    if (!isAiSdkModel(model)) throw fail('INVALID_ARGUMENT', 'fromAISdkModel needs an AI SDK language model (with doGenerate)');
    const given = guard('fromAISdkModel(model, opts)', () => {
      if (opts === undefined) return undefined;
      if (!isObject(opts)) throw fail('INVALID_ARGUMENT', `fromAISdkModel(model, opts): opts must be { generateText? }, got ${why(opts)}`);
      checkKeys(opts, ['generateText'], 'fromAISdkModel options', () => '; the only one is "generateText"');
      return opts.generateText;
    });
    needAi(given, 'fromAISdkModel(model)', 'fromAISdkModel(model, { generateText })');
    return sealed('fromAISdkModel', async (/** @type {ModelRequest} */ req, { abortSignal } = {}) => {
      const { generateText } = await loadAi(given);
      return guarded('fromAISdkModel: generateText', async () => {
        // Tools are offered without `execute`, so generateText returns the
        // model's calls for the caller (the background loop) to run.
        const tools = req.tools?.length ? { tools: Object.fromEntries(req.tools.map((t) => [t.name, { description: t.description, inputSchema: aiSchema(t.inputSchema) }])) } : {};
        const r = await generateText({ model, system: req.system, messages: req.messages, abortSignal, ...tools });
        const calls = isArray(r.toolCalls) ? r.toolCalls.map((/** @type {any} */ c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })) : [];
        return { text: r.text, ...(calls.length ? { toolCalls: calls } : {}), ...usageOf(r.totalUsage ?? r.usage) };
      });
    });
  }

  /**
   * A model option as a Model: a function as is, an AI SDK model through fromAISdkModel.
   * @param {unknown} m
   * @param {string} what
   * @returns {Model}
   */
  const asModel = (m, what) => {
    if (typeof m === 'function') return /** @type {Model} */ (m);
    if (isAiSdkModel(m)) {
      // A bare model: importing agent-trajectories/ai does not bind this entry's generateText; wrapping it there does.
      needAi(undefined, `${what} (an AI SDK model)`, 'fromAISdkModel(model, { generateText })', 'wrap it with fromAISdkModel');
      return fromAISdkModel(/** @type {any} */ (m));
    }
    throw fail('INVALID_ARGUMENT', `${what} must be a function (request) => Promise<string | { text }> or an AI SDK language model`);
  };

  return { withAISdkAgent, fromAISdkModel, asModel };
}

/** @type {typeof import('./generate-types').withMastraAgent} */
export function withMastraAgent(agent) {
  if (!isObject(agent) || typeof guard('withMastraAgent(agent)', () => agent.generate) !== 'function') {
    throw fail('INVALID_ARGUMENT', 'withMastraAgent needs a Mastra Agent (with generate)');
  }
  return {
    respond: (messages, { abortSignal } = {}) => guarded('withMastraAgent: agent.generate', async () => turn(await agent.generate(/** @type {never[]} */ (messages), { abortSignal: /** @type {never} */ (abortSignal) }), 'mastra agent.generate')),
  };
}

/**
 * A message's content as text: a string as is, else its text parts joined.
 * @param {any} content
 * @returns {string}
 */
const textOf = (content) => (typeof content === 'string' ? content
  : content.filter((/** @type {any} */ p) => p.type === 'text').map((/** @type {any} */ p) => p.text).join(''));
/**
 * Model messages as OpenAI chat messages: tool calls and results in the
 * history map to `tool_calls` and `role: 'tool'`.
 * @param {readonly any[]} messages
 */
function toChatMessages(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue;
        const v = p.output?.value ?? p.output;
        out.push({ role: 'tool', tool_call_id: p.toolCallId, content: typeof v === 'string' ? v : JSON.stringify(v) });
      }
    } else if (m.role === 'assistant' && isArray(m.content)) {
      const calls = m.content.filter((/** @type {any} */ p) => p.type === 'tool-call').map((/** @type {any} */ p) => ({
        id: p.toolCallId, type: 'function', function: { name: p.toolName, arguments: JSON.stringify(p.input ?? {}) },
      }));
      out.push({ role: 'assistant', content: textOf(m.content) || null, ...(calls.length ? { tool_calls: calls } : {}) });
    } else {
      out.push({ role: m.role, content: textOf(m.content) });
    }
  }
  return out;
}

/**
 * A Model over any OpenAI-compatible chat completions endpoint, by `fetch`
 * alone: what a Worker can use without bundling `ai`.
 * @type {typeof import('./generate-types').fromOpenAIChat}
 */
export function fromOpenAIChat(options) {
  const usage = 'fromOpenAIChat needs { baseURL, model } (baseURL e.g. https://api.openai.com/v1)';
  if (!isObject(options)) throw fail('INVALID_ARGUMENT', usage);
  // Keys other than these are request body fields (temperature, max_tokens, ...).
  const { baseURL, model, apiKey, headers, fetch: given, ...extra } = guard('fromOpenAIChat(options)', () => ({ ...options }));
  if (typeof baseURL !== 'string' || typeof model !== 'string') {
    // Other keys are body fields, so a slip of baseURL's spelling would only be sent to the endpoint: named here.
    const slip = baseURL === undefined && Object.keys(extra).find((k) => /^base_?url$/i.test(k));
    throw fail('INVALID_ARGUMENT', slip ? `${usage}; it was given ${JSON.stringify(slip)}: write baseURL` : usage);
  }
  if (given !== undefined && typeof given !== 'function') throw fail('INVALID_ARGUMENT', 'fromOpenAIChat: `fetch` must be a function (default: the global fetch)');
  const url = `${baseURL.replace(/\/+$/, '')}/chat/completions`;
  /**
   * @param {unknown} what
   * @param {unknown} text
   * @param {unknown} [cause]
   */
  const bad = (what, text, cause) => fail('CALLBACK_FAILED', `fromOpenAIChat: POST ${url} answered ${what}: ${why(text).slice(0, 300)}`, cause);
  return sealed('fromOpenAIChat', async (/** @type {ModelRequest} */ req, { abortSignal } = {}) => {
    if (!isArray(req?.messages)) throw fail('INVALID_ARGUMENT', 'fromOpenAIChat: a request needs `messages` (an array)');
    /** @type {Function} */
    const doFetch = given ?? globalThis.fetch;
    if (typeof doFetch !== 'function') throw fail('INVALID_ARGUMENT', 'fromOpenAIChat: this runtime has no global fetch; pass `fetch`');
    const body = guard('fromOpenAIChat: the request', () => JSON.stringify({
      ...extra,
      model,
      messages: [...(req.system ? [{ role: 'system', content: req.system }] : []), ...toChatMessages(req.messages)],
      ...(req.tools?.length ? { tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })) } : {}),
      ...(req.responseFormat === 'json' ? { response_format: { type: 'json_object' } } : {}),
    }));
    /** @type {any} */
    let res;
    /** @type {string} */
    let text;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
        body,
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
    } catch (e) {
      throw fail('CALLBACK_FAILED', `fromOpenAIChat: POST ${url} failed: ${why(e)}`, e);
    }
    if (!isObject(res) || typeof res.text !== 'function' || typeof res.ok !== 'boolean') {
      throw fail('CALLBACK_FAILED', `fromOpenAIChat: fetch resolved to something that is not a Response (no ok or text()) for POST ${url}`);
    }
    try {
      text = await res.text();
    } catch (e) {
      throw bad('a body that could not be read', why(e), e);
    }
    if (!res.ok) throw bad(res.status, text);
    /** @type {any} */
    let json;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw bad('no JSON', text, e);
    }
    const msg = json?.choices?.[0]?.message;
    if (!isObject(msg)) throw bad('no choices[0].message', text);
    const calls = msg.tool_calls ?? [];
    if (!isArray(calls)) throw bad('tool_calls that are not an array', text);
    const toolCalls = calls.map((c, i) => {
      const f = c?.function;
      if (!isObject(f) || typeof f.name !== 'string') throw bad(`tool_calls[${i}] without function.name`, text);
      let input;
      try {
        input = JSON.parse(f.arguments || '{}');
      } catch (e) {
        throw bad(`tool call ${c.id} (${f.name}) with arguments that are not JSON`, f.arguments, e);
      }
      return { toolCallId: c.id, toolName: f.name, input };
    });
    const u = json.usage;
    // `content` is text, null (tool calls only), or a list of text parts.
    const content = msg.content ?? '';
    const parts = isArray(content) && content.every((p) => isObject(p) && typeof p.text === 'string');
    if (typeof content !== 'string' && !parts) throw bad('a message whose content is not text', text);
    return {
      text: parts ? content.map((/** @type {{ text: string }} */ p) => p.text).join('') : /** @type {string} */ (content),
      ...(toolCalls.length ? { toolCalls } : {}),
      ...usageOf(isObject(u) ? { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens, totalTokens: u.total_tokens } : undefined),
    };
  });
}
