// The JS side of generation: agent and model adapters for the AI SDK and
// Mastra (plain JS objects, so they live here rather than in Rust), model
// record/replay, and runTrajectory's option normalisation. Inlined into
// every entry by scripts/assemble.mjs as `makeGenerate(wasm, importAi)`;
// `importAi` yields `ai`'s exports where the entry can get them (Node by
// name, agent-trajectories/ai by its import); elsewhere it is undefined and
// the caller passes `generateText`, since no entry may name `ai` for bundlers.
function makeGenerate(wasm, importAi, otelApi) {
  const NAME = 'AgentTrajectoriesError';
  const fail = (code, message, cause) => {
    const err = new Error(message, cause === undefined ? undefined : { cause });
    err.name = NAME;
    err.code = code;
    return err;
  };
  // A thrown value as a message says it: an Error's message, a string as
  // is, anything else as JS would write it (never "[object Object]").
  const why = (e) => {
    if (typeof e === 'string') return e;
    if (typeof e === 'bigint') return `${e}n`;
    if (typeof e === 'symbol' || typeof e === 'function' || e === undefined) return String(e);
    try {
      // (A Proxy can throw even from instanceof.)
      if (e instanceof Error && typeof e.message === 'string') return e.message;
      const json = JSON.stringify(e);
      return json.length > 200 ? `${json.slice(0, 200)}…` : json;
    } catch {
      return isArray(e) ? 'an array' : 'an object';
    }
  };
  // A value as an error message shows it: strings quoted, numbers as JS writes them (NaN, Infinity).
  const shown = (v) => (typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' ? String(v) : why(v));
  // Runs `f`; anything it throws that is not already one of ours becomes a
  // coded error saying `where`, with the thrown value as its cause.
  // One of this package's errors (a lookalike without a code is not).
  const ours = (e) => e instanceof Error && e.name === NAME && typeof e.code === 'string';
  const guard = (where, f, code = 'INVALID_ARGUMENT') => {
    try {
      return f();
    } catch (e) {
      throw ours(e) ? e : fail(code, `${where}: ${why(e)}`, e);
    }
  };
  const guarded = async (where, f) => {
    try {
      return await f();
    } catch (e) {
      throw ours(e) ? e : fail('CALLBACK_FAILED', `${where} threw: ${why(e)}`, e);
    }
  };
  // A model or agent function this package hands out: whatever its caller's
  // arguments throw when read (a getter, a Proxy) is named, never escaped.
  const sealed = (where, f) => async (...args) => {
    try {
      return await f(...args);
    } catch (e) {
      throw ours(e) ? e : fail('INVALID_ARGUMENT', `${where}: reading its arguments threw: ${why(e)}`, e);
    }
  };
  const isObject = (v) => v !== null && typeof v === 'object';
  // Array.isArray throws on a revoked Proxy: such a value is no array here.
  const isArray = (v) => {
    try {
      return Array.isArray(v);
    } catch {
      return false;
    }
  };
  const plain = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

  // Token counts as numbers: AI SDK 5+ reports numbers, provider-level usage
  // (and some clients) `{ total }` objects.
  const count = (v) => {
    const n = typeof v === 'number' ? v : v?.total;
    return typeof n === 'number' && n >= 0 && n <= Number.MAX_SAFE_INTEGER ? n : undefined;
  };
  const usageOf = (u) => {
    if (!isObject(u)) return {};
    const inputTokens = count(u.inputTokens), outputTokens = count(u.outputTokens);
    return inputTokens === undefined && outputTokens === undefined ? {} : { usage: { inputTokens, outputTokens } };
  };

  // Loaded on first use: `ai` is an optional peer dependency.
  let ai;
  const loadAi = async (given) => {
    if (typeof given === 'function') return { generateText: given };
    try {
      ai ??= await importAi();
    } catch (e) {
      throw fail('INVALID_ARGUMENT', `this needs the optional peer dependency \`ai\` (npm install ai, or import from 'agent-trajectories/ai'): ${why(e)}`, e);
    }
    return ai;
  };
  // Checked when the adapter is made, not at its first call inside a run.
  const needAi = (given, what, pass) => {
    if (typeof given !== 'function' && !importAi) {
      throw fail('INVALID_ARGUMENT', `${what} needs the AI SDK's generateText: pass it (${pass}, with generateText from 'ai'), or import the adapters from 'agent-trajectories/ai'`);
    }
  };

  // The turn's assistant and tool messages. AI SDK 7 keeps each step's own
  // messages on the step (and only the last on `response`); AI SDK 5 made
  // them cumulative. Mastra answers with `response.messages`.
  function stepMessages(steps) {
    const per = steps.map((s) => s?.response?.messages ?? []);
    const last = per[per.length - 1];
    const cumulative = per.length > 1 && last.length >= per[0].length && per[0].every((m, i) => m === last[i] || JSON.stringify(m) === JSON.stringify(last[i]));
    return cumulative ? last : per.flat();
  }
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

  // A turn's answer: its messages and what the whole call cost (AI SDK:
  // `totalUsage` over every step; `usage` is the last step's in AI SDK 5+).
  const turn = (result, who, preferSteps) => ({ messages: messagesOf(result, who, preferSteps), ...usageOf(result?.totalUsage ?? result?.usage) });

  function withAISdkAgent(target) {
    const usage = 'withAISdkAgent needs an AI SDK Agent (with generate) or a generateText config (with model)';
    if (!isObject(target)) throw fail('INVALID_ARGUMENT', usage);
    return guard('withAISdkAgent(agentOrConfig)', () => {
      if (typeof target.generate === 'function') {
        return {
          respond: (messages, { abortSignal } = {}) => guarded('withAISdkAgent: agent.generate', async () => turn(await target.generate({ messages, abortSignal }), 'agent.generate', true)),
        };
      }
      if (!target.model) throw fail('INVALID_ARGUMENT', `${usage}; this has neither`);
      if ('messages' in target || 'prompt' in target) {
        throw fail('INVALID_ARGUMENT', 'withAISdkAgent: leave `messages` and `prompt` out of the config; the history is passed as `messages`');
      }
      const { generateText: given, ...config } = target;
      needAi(given, 'withAISdkAgent(config)', 'withAISdkAgent({ model, generateText })');
      return {
        async respond(messages, { abortSignal } = {}) {
          const { generateText } = await loadAi(given);
          return guarded('withAISdkAgent: generateText', async () => turn(await generateText({ ...config, messages, abortSignal }), 'generateText', true));
        },
      };
    });
  }

  function withMastraAgent(agent) {
    if (!isObject(agent) || typeof guard('withMastraAgent(agent)', () => agent.generate) !== 'function') {
      throw fail('INVALID_ARGUMENT', 'withMastraAgent needs a Mastra Agent (with generate)');
    }
    return {
      respond: (messages, { abortSignal } = {}) => guarded('withMastraAgent: agent.generate', async () => turn(await agent.generate(messages, { abortSignal }), 'mastra agent.generate')),
    };
  }

  // A JSON Schema as the AI SDK's Schema, the shape its `jsonSchema()`
  // returns (its marker is a registered symbol), so no import of `ai` is needed.
  const aiSchema = (jsonSchema) => ({ [Symbol.for('vercel.ai.schema')]: true, _type: undefined, jsonSchema, validate: undefined });

  function fromAISdkModel(model, opts) {
    if (!isAiSdkModel(model)) throw fail('INVALID_ARGUMENT', 'fromAISdkModel needs an AI SDK language model (with doGenerate)');
    const given = guard('fromAISdkModel(model, opts)', () => {
      if (opts === undefined) return undefined;
      if (!isObject(opts)) throw fail('INVALID_ARGUMENT', `fromAISdkModel(model, opts): opts must be { generateText? }, got ${why(opts)}`);
      const unknown = Object.keys(opts).find((k) => k !== 'generateText');
      if (unknown !== undefined) throw fail('INVALID_ARGUMENT', `fromAISdkModel options: unknown option ${JSON.stringify(unknown)}; the only one is "generateText"`);
      return opts.generateText;
    });
    needAi(given, 'fromAISdkModel(model)', 'fromAISdkModel(model, { generateText })');
    return sealed('fromAISdkModel', async (req, { abortSignal } = {}) => {
      const { generateText } = await loadAi(given);
      return guarded('fromAISdkModel: generateText', async () => {
        // Tools are offered without `execute`, so generateText returns the
        // model's calls for the caller (the background loop) to run.
        const tools = req.tools?.length ? { tools: Object.fromEntries(req.tools.map((t) => [t.name, { description: t.description, inputSchema: aiSchema(t.inputSchema) }])) } : {};
        const r = await generateText({ model, system: req.system, messages: req.messages, abortSignal, ...tools });
        const calls = isArray(r.toolCalls) ? r.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })) : [];
        return { text: r.text, ...(calls.length ? { toolCalls: calls } : {}), ...usageOf(r.totalUsage ?? r.usage) };
      });
    });
  }

  // A Model over any OpenAI-compatible chat completions endpoint, by
  // `fetch` alone: what a Worker can use without bundling `ai`. Tool calls
  // and results in the history map to `tool_calls` and `role: 'tool'`.
  const textOf = (content) => (typeof content === 'string' ? content
    : content.filter((p) => p.type === 'text').map((p) => p.text).join(''));
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
        const calls = m.content.filter((p) => p.type === 'tool-call').map((p) => ({
          id: p.toolCallId, type: 'function', function: { name: p.toolName, arguments: JSON.stringify(p.input ?? {}) },
        }));
        out.push({ role: 'assistant', content: textOf(m.content) || null, ...(calls.length ? { tool_calls: calls } : {}) });
      } else {
        out.push({ role: m.role, content: textOf(m.content) });
      }
    }
    return out;
  }
  function fromOpenAIChat(options) {
    const usage = 'fromOpenAIChat needs { baseURL, model } (baseURL e.g. https://api.openai.com/v1)';
    if (!isObject(options)) throw fail('INVALID_ARGUMENT', usage);
    // Keys other than these are request body fields (temperature, max_tokens, ...).
    const { baseURL, model, apiKey, headers, fetch: given, ...extra } = guard('fromOpenAIChat(options)', () => ({ ...options }));
    if (typeof baseURL !== 'string' || typeof model !== 'string') throw fail('INVALID_ARGUMENT', usage);
    if (given !== undefined && typeof given !== 'function') throw fail('INVALID_ARGUMENT', 'fromOpenAIChat: `fetch` must be a function (default: the global fetch)');
    const url = `${baseURL.replace(/\/+$/, '')}/chat/completions`;
    const bad = (what, text, cause) => fail('CALLBACK_FAILED', `fromOpenAIChat: POST ${url} answered ${what}: ${why(text).slice(0, 300)}`, cause);
    return sealed('fromOpenAIChat', async (req, { abortSignal } = {}) => {
      if (!isArray(req?.messages)) throw fail('INVALID_ARGUMENT', 'fromOpenAIChat: a request needs `messages` (an array)');
      const doFetch = given ?? globalThis.fetch;
      if (typeof doFetch !== 'function') throw fail('INVALID_ARGUMENT', 'fromOpenAIChat: this runtime has no global fetch; pass `fetch`');
      const body = guard('fromOpenAIChat: the request', () => JSON.stringify({
        ...extra,
        model,
        messages: [...(req.system ? [{ role: 'system', content: req.system }] : []), ...toChatMessages(req.messages)],
        ...(req.tools?.length ? { tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })) } : {}),
        ...(req.responseFormat === 'json' ? { response_format: { type: 'json_object' } } : {}),
      }));
      let res, text;
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
        text: parts ? content.map((p) => p.text).join('') : content,
        ...(toolCalls.length ? { toolCalls } : {}),
        ...usageOf(isObject(u) ? { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens } : undefined),
      };
    });
  }

  const isAiSdkModel = (m) => isObject(m) && typeof guard('reading model.doGenerate threw', () => m.doGenerate) === 'function';
  const asModel = (m, what) => {
    if (typeof m === 'function') return m;
    if (isAiSdkModel(m)) {
      needAi(undefined, `${what} (an AI SDK model)`, 'fromAISdkModel(model, { generateText })');
      return fromAISdkModel(m);
    }
    throw fail('INVALID_ARGUMENT', `${what} must be a function (request) => Promise<string | { text }> or an AI SDK language model`);
  };

  const { recordingModel, replayModel, modelRequestKey } = makeModelReplay(wasm, { fail, why, ours, guard, sealed, isObject, isArray, plain, asModel });

  async function runTrajectory(trajectory, opts = {}) {
    const place = 'runTrajectory options';
    if (!isObject(opts) || isArray(opts)) throw fail('INVALID_ARGUMENT', `runTrajectory(trajectory, opts): opts must be an object ({ userModel, ... })`);
    // Every key goes on to the core, which refuses the unknown ones (naming
    // the nearest); here the values are only read (a getter that throws is
    // named) and the model and observers adapted.
    const given = {};
    for (const key of guard(`${place}: its keys could not be read`, () => Object.keys(opts))) {
      given[key] = guard(`${place}.${key}: reading it threw`, () => opts[key]);
    }
    // Missing, it is the core's to report (after any misspelt key, such as `usermodel`).
    const model = given.userModel ?? guard('runTrajectory(trajectory): reading trajectory.userModel threw', () => trajectory?.userModel);
    const userModel = model === undefined ? undefined : asModel(model, 'opts.userModel');
    let observers = given.observers;
    if (observers != null && typeof guard(`${place}.observers.recordToolCall: reading it threw`, () => observers.recordToolCall) !== 'function') {
      // Options, not a pipeline: it takes the run's clock (unless they name
      // their own), so assessments are stamped as the records are.
      const o = isArray(observers) ? { observers } : observers;
      const runClock = isObject(o) && given.clock !== undefined && guard(`${place}.observers.clock: reading it threw`, () => o.clock) === undefined;
      observers = new wasm.ObserverPipeline(runClock ? guard(`${place}.observers: reading its options threw`, () => ({ ...o, clock: given.clock })) : o);
    }
    return wasm.runTrajectory(trajectory, { ...given, userModel, ...(observers == null ? {} : { observers }) });
  }

  /**
   * The built-in stop rules, as a policy object: a replacement policy can
   * defer to it. Its answer is the one the core computed for this context
   * (`ctx.defaultDecision`).
   */
  class DefaultPolicy {
    evaluate(ctx) {
      const decision = guard('DefaultPolicy.evaluate(ctx): reading ctx.defaultDecision threw', () => ctx?.defaultDecision);
      if (!isObject(decision)) throw fail('INVALID_ARGUMENT', 'DefaultPolicy.evaluate needs the context runTrajectory passes to policies (with defaultDecision)');
      // A copy: what goes back is plain data, whatever the context held.
      return guard('DefaultPolicy.evaluate(ctx): reading ctx.defaultDecision threw', () => ({ ...decision }));
    }
  }

  /** `conversation.jsonl`, `stepTraces.json` and `trajectory.meta.json` of a run, as strings. */
  function toArtifacts(result, def) {
    const where = 'toArtifacts(result, def)';
    if (!isObject(result)) throw fail('INVALID_ARGUMENT', `${where}: result must be what runTrajectory resolved with`);
    if (!isObject(def)) throw fail('INVALID_ARGUMENT', `${where}: def must be the trajectory definition`);
    const lines = wasm.toJSONL(result);
    return guard(where, () => {
      const steps = result.steps;
      const end = result.end ?? steps[steps.length - 1]?.end;
      // The definition as data: live objects left out, callbacks named.
      const definition = JSON.parse(JSON.stringify(def, function (key, value) {
        if (this === def && (key === 'agent' || key === 'userModel')) return undefined;
        return typeof value === 'function' ? `[function ${value.name || key}]` : value;
      }));
      const meta = {
        trajectoryId: result.conversationId ?? def.conversationId ?? null,
        createdAt: steps[0]?.timestamp ?? null,
        turns: steps.length,
        end: end ?? null,
        stepStates: result.stepStates ?? null,
        definition,
      };
      return {
        'conversation.jsonl': lines.length ? `${lines.join('\n')}\n` : '',
        'stepTraces.json': `${JSON.stringify(steps, null, 2)}\n`,
        'trajectory.meta.json': `${JSON.stringify(meta, null, 2)}\n`,
      };
    });
  }

  // The background runner's JS layer is inlined only in builds whose module has the loop (see Cargo.toml).
  const background = typeof makeBackground === 'function' ? makeBackground(wasm, { fail, why, ours, guard, guarded, isObject, isArray, asModel }) : {};
  const loops = makeLoopCapture(wasm, { fail, why, shown, guard, isObject, isArray });
  const aiSdk = makeAISdk(wasm, { fail, why, guarded, isObject, isArray, loops });
  const mastra = makeMastra(wasm, { fail, why, isObject, isArray, loops });
  // agent-trajectories/otel passes @opentelemetry/api; no other entry has the exporter.
  const otel = otelApi ? makeOtel(otelApi, { fail, why, isObject, isArray }) : {};
  const index = wasm?.TrajectoryIndexCore ? makeTrajectoryIndex(wasm, { fail, shown, checkOptions: wasm.checkOptions }) : {};
  // agent-trajectories/ai and /otel build the adapters alone, without the module.
  const batch = wasm?.checkOptions ? makeBatch(wasm, { fail, why, shown, ours, isObject, isArray, checkOptions: wasm.checkOptions, runTrajectory, toArtifacts, createTrajectory: wasm.createTrajectory }) : {};
  const agentReplay = makeAgentReplay({ fail, why, ours, isObject, recordingModel, replayModel });
  return { ...index, ...batch, ...agentReplay, withAISdkAgent, withMastraAgent, fromAISdkModel, fromOpenAIChat, recordingModel, replayModel, modelRequestKey, runTrajectory, DefaultPolicy, toArtifacts, ...aiSdk, ...mastra, ...otel, ...background };
}
