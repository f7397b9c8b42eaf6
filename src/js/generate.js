// The JS side of generation: agent and model adapters for the AI SDK and
// Mastra (plain JS objects, so they live here rather than in Rust), model
// record/replay, and runTrajectory's option normalisation. Inlined into
// every entry by scripts/assemble.mjs as `makeGenerate(wasm, importAi)`;
// `importAi` yields `ai`'s exports where the entry can get them (Node by
// name, agent-trajectories/ai by its import); elsewhere it is undefined and
// the caller passes `generateText`, since no entry may name `ai` for bundlers.
function makeGenerate(wasm, importAi) {
  const fail = (code, message) => {
    const err = new Error(message);
    err.name = 'AgentTrajectoriesError';
    err.code = code;
    return err;
  };
  const plain = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

  // Loaded on first use: `ai` is an optional peer dependency.
  let ai;
  const loadAi = async (given) => {
    if (typeof given === 'function') return { generateText: given };
    try {
      ai ??= await importAi();
    } catch (e) {
      throw fail('INVALID_ARGUMENT', `this needs the optional peer dependency \`ai\` (npm install ai, or import from 'agent-trajectories/ai'): ${e && e.message}`);
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
    if (preferSteps && Array.isArray(result?.steps) && result.steps.length) {
      const out = stepMessages(result.steps);
      if (out.length) return out;
    }
    if (Array.isArray(result?.response?.messages)) return result.response.messages;
    if (Array.isArray(result?.messages)) return result.messages;
    if (Array.isArray(result?.steps) && result.steps.length) {
      const out = stepMessages(result.steps);
      if (out.length) return out;
    }
    if (typeof result?.text === 'string') return [{ role: 'assistant', content: result.text }];
    throw fail('CALLBACK_FAILED', `${who} returned no messages (no response.messages, steps or text)`);
  }

  function withAISdkAgent(target) {
    if (target === null || typeof target !== 'object') {
      throw fail('INVALID_ARGUMENT', 'withAISdkAgent needs an AI SDK Agent (with generate) or a generateText config (with model)');
    }
    if (typeof target.generate === 'function') {
      return {
        async respond(messages, { abortSignal } = {}) {
          return { messages: messagesOf(await target.generate({ messages, abortSignal }), 'agent.generate', true) };
        },
      };
    }
    if (!target.model) throw fail('INVALID_ARGUMENT', 'withAISdkAgent: a generateText config needs `model`');
    if ('messages' in target || 'prompt' in target) {
      throw fail('INVALID_ARGUMENT', 'withAISdkAgent: leave `messages` and `prompt` out of the config; the history is passed as `messages`');
    }
    const { generateText: given, ...config } = target;
    needAi(given, 'withAISdkAgent(config)', 'withAISdkAgent({ model, generateText })');
    return {
      async respond(messages, { abortSignal } = {}) {
        const { generateText } = await loadAi(given);
        return { messages: messagesOf(await generateText({ ...config, messages, abortSignal }), 'generateText', true) };
      },
    };
  }

  function withMastraAgent(agent) {
    if (agent === null || typeof agent !== 'object' || typeof agent.generate !== 'function') {
      throw fail('INVALID_ARGUMENT', 'withMastraAgent needs a Mastra Agent (with generate)');
    }
    return {
      async respond(messages, { abortSignal } = {}) {
        return { messages: messagesOf(await agent.generate(messages, { abortSignal }), 'mastra agent.generate') };
      },
    };
  }

  function fromAISdkModel(model, { generateText: given } = {}) {
    if (model === null || typeof model !== 'object') throw fail('INVALID_ARGUMENT', 'fromAISdkModel needs an AI SDK language model');
    needAi(given, 'fromAISdkModel(model)', 'fromAISdkModel(model, { generateText })');
    return async (req, { abortSignal } = {}) => {
      const { generateText } = await loadAi(given);
      const r = await generateText({ model, system: req.system, messages: req.messages, abortSignal });
      return { text: r.text, usage: { inputTokens: r.usage?.inputTokens, outputTokens: r.usage?.outputTokens } };
    };
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
      } else if (m.role === 'assistant' && Array.isArray(m.content)) {
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
  function fromOpenAIChat({ baseURL, model, apiKey, headers, fetch: given, ...extra } = {}) {
    if (typeof baseURL !== 'string' || typeof model !== 'string') {
      throw fail('INVALID_ARGUMENT', 'fromOpenAIChat needs `baseURL` (e.g. https://api.openai.com/v1) and `model`');
    }
    const url = `${baseURL.replace(/\/+$/, '')}/chat/completions`;
    return async (req, { abortSignal } = {}) => {
      const doFetch = given ?? globalThis.fetch;
      const body = {
        ...extra,
        model,
        messages: [...(req.system ? [{ role: 'system', content: req.system }] : []), ...toChatMessages(req.messages)],
        ...(req.tools?.length ? { tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })) } : {}),
        ...(req.responseFormat === 'json' ? { response_format: { type: 'json_object' } } : {}),
      };
      const res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
        body: JSON.stringify(body),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      const text = await res.text();
      if (!res.ok) throw fail('CALLBACK_FAILED', `fromOpenAIChat: POST ${url} answered ${res.status}: ${text.slice(0, 300)}`);
      let msg, usage;
      try {
        const json = JSON.parse(text);
        msg = json.choices[0].message;
        usage = json.usage;
      } catch {
        throw fail('CALLBACK_FAILED', `fromOpenAIChat: POST ${url} answered no choices[0].message: ${text.slice(0, 300)}`);
      }
      const toolCalls = (msg.tool_calls ?? []).map((c) => {
        let input;
        try {
          input = JSON.parse(c.function.arguments || '{}');
        } catch {
          throw fail('CALLBACK_FAILED', `fromOpenAIChat: tool call ${c.id} (${c.function.name}) has arguments that are not JSON: ${c.function.arguments}`);
        }
        return { toolCallId: c.id, toolName: c.function.name, input };
      });
      return {
        text: msg.content ?? '',
        ...(toolCalls.length ? { toolCalls } : {}),
        ...(usage ? { usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } } : {}),
      };
    };
  }

  const isAiSdkModel = (m) => m !== null && typeof m === 'object' && typeof m.doGenerate === 'function';
  const asModel = (m, what) => {
    if (typeof m === 'function') return m;
    if (isAiSdkModel(m)) {
      needAi(undefined, `${what} (an AI SDK model)`, 'fromAISdkModel(model, { generateText })');
      return fromAISdkModel(m);
    }
    throw fail('INVALID_ARGUMENT', `${what} must be a function (request) => Promise<string | { text }> or an AI SDK language model`);
  };

  // Record/replay. A request's key hashes its canonical JSON (object keys
  // sorted), so key order does not matter.
  const canonical = (v) => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v === null || typeof v !== 'object') return v;
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = canonical(v[k]);
    return out;
  };
  function modelRequestKey(request) {
    // Two independent 32-bit FNV-1a style lanes over the UTF-16 text: 16 hex digits.
    const text = JSON.stringify(canonical(request));
    let a = 0x811c9dc5, b = 0x01000193 ^ text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193) >>> 0;
      b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
      b ^= b >>> 15;
    }
    return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
  }
  const show = (v) => {
    const s = JSON.stringify(v) ?? 'undefined';
    return s.length > 80 ? `${s.slice(0, 80)}…` : s;
  };
  // Where two JSON values differ, as `path: recorded X, requested Y` lines;
  // long strings are shown at their first differing line.
  function diff(a, b, path, out) {
    if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
      if (Array.isArray(a)) {
        if (a.length !== b.length) out.push(`${path}: recorded ${a.length} items, requested ${b.length}`);
        for (let i = 0; i < Math.min(a.length, b.length); i++) diff(a[i], b[i], `${path}[${i}]`, out);
      } else {
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
          if (!(k in b)) out.push(`${path}.${k}: recorded ${show(a[k])}, requested (missing)`);
          else if (!(k in a)) out.push(`${path}.${k}: recorded (missing), requested ${show(b[k])}`);
          else diff(a[k], b[k], `${path}.${k}`, out);
        }
      }
    } else if (typeof a === 'string' && typeof b === 'string' && a !== b) {
      const la = a.split('\n'), lb = b.split('\n');
      let i = 0;
      while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
      out.push(`${path} line ${i + 1}: recorded ${show(la[i] ?? '(no such line)')}, requested ${show(lb[i] ?? '(no such line)')}`);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push(`${path}: recorded ${show(a)}, requested ${show(b)}`);
    }
    return out;
  }

  const FORMAT = 'agent-trajectories/model-recording';
  function recordingModel(model) {
    const call = asModel(model, 'recordingModel(model)');
    const entries = [];
    const recording = async (req, options) => {
      const response = await call(req, options);
      entries.push({ key: modelRequestKey(req), request: plain(req), response: plain(response) });
      return response;
    };
    Object.defineProperty(recording, 'recording', {
      get: () => ({ format: FORMAT, version: 1, entries: entries.map((e) => ({ ...e })) }),
    });
    return recording;
  }

  function replayModel(recording) {
    const rec = typeof recording === 'string' ? JSON.parse(recording) : recording;
    if (rec?.format !== FORMAT || !Array.isArray(rec.entries)) {
      throw fail('INVALID_ARGUMENT', `replayModel: not a model recording (expected format ${JSON.stringify(FORMAT)} with entries)`);
    }
    if (!(rec.version <= 1)) throw fail('UNSUPPORTED_SCHEMA_VERSION', `replayModel: recording version ${rec.version}; this build reads up to 1`);
    // Keys are recomputed, so a hand-edited request still matches.
    const byKey = new Map();
    rec.entries.forEach((e, i) => {
      if (!e || !('request' in e) || !('response' in e)) throw fail('INVALID_ARGUMENT', `replayModel: entries[${i}] needs request and response`);
      const key = modelRequestKey(e.request);
      if (!byKey.has(key)) byKey.set(key, { list: [], next: 0 });
      byKey.get(key).list.push(e.response);
    });
    return async (req) => {
      const key = modelRequestKey(req);
      const hit = byKey.get(key);
      if (hit) return plain(hit.list[Math.min(hit.next++, hit.list.length - 1)]);
      const same = rec.entries.filter((e) => e.request?.purpose === req?.purpose);
      const diffs = same.map((e) => diff(canonical(e.request), canonical(plain(req)), 'request', []));
      diffs.sort((x, y) => x.length - y.length);
      const purpose = req?.purpose ?? '?';
      throw fail('REPLAY_MISS', diffs.length
        ? `replayModel: no recorded answer for this ${purpose} request (key ${key}). Closest recorded request differs at:\n${diffs[0].slice(0, 8).join('\n')}`
        : `replayModel: no recorded answer for this ${purpose} request (key ${key}); the recording has no ${purpose} requests`);
    };
  }

  async function runTrajectory(trajectory, opts = {}) {
    if (opts === null || typeof opts !== 'object') throw fail('INVALID_ARGUMENT', 'runTrajectory(trajectory, { userModel, ... })');
    const userModel = asModel(opts.userModel ?? trajectory?.userModel, 'opts.userModel');
    let observers = opts.observers;
    if (observers != null && typeof observers.recordToolCall !== 'function') {
      observers = new wasm.ObserverPipeline(Array.isArray(observers) ? { observers } : observers);
    }
    return wasm.runTrajectory(trajectory, { ...opts, userModel, observers });
  }

  /**
   * The built-in stop rules, as a policy object: a replacement policy can
   * defer to it. Its answer is the one the core computed for this context
   * (`ctx.defaultDecision`).
   */
  class DefaultPolicy {
    evaluate(ctx) {
      if (!ctx || typeof ctx.defaultDecision !== 'object') {
        throw fail('INVALID_ARGUMENT', 'DefaultPolicy.evaluate needs the context runTrajectory passes to policies');
      }
      return ctx.defaultDecision;
    }
  }

  /** `conversation.jsonl`, `stepTraces.json` and `trajectory.meta.json` of a run, as strings. */
  function toArtifacts(result, def) {
    const lines = wasm.toJSONL(result);
    const steps = result.steps;
    const end = result.end ?? steps[steps.length - 1]?.end;
    // The definition as data: live objects left out, callbacks named.
    const definition = JSON.parse(JSON.stringify(def ?? {}, function (key, value) {
      if (this === def && (key === 'agent' || key === 'userModel')) return undefined;
      return typeof value === 'function' ? `[function ${value.name || key}]` : value;
    }));
    const meta = {
      trajectoryId: result.conversationId ?? def?.conversationId ?? null,
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
  }

  return { withAISdkAgent, withMastraAgent, fromAISdkModel, fromOpenAIChat, recordingModel, replayModel, modelRequestKey, runTrajectory, DefaultPolicy, toArtifacts };
}
