// Inputs for the models a run talks to: modelRequestKey on changed
// requests, recordingModel over models that misbehave (its recording must
// be JSON-safe and replay the same answer), replayModel on changed and
// garbled recordings, fromOpenAIChat over fetches and answer bodies that
// fail or are changed.
import { tag, strExpr, show } from './render.mjs';
import { hostile } from './hostile.mjs';
import { mutated, valid, wild } from './mutate.mjs';
import { fnx, err, request, chatBody, clone } from './inputs.mjs';
import { SEP, firstDiff, errShape, describe } from './checks.mjs';
import { behaviour, step, atomsOf } from './harness.mjs';

export function genKey(r, at, V, env) {
  const req = r.weighted([[75, () => mutated(r, at, request, 'B.request()')], [10, () => valid(request(), 'B.request()')], [15, () => wild(r, at, {}, 'request')]])();
  const after = (k) => {
    if (typeof k !== 'string' || !/^[0-9a-f]{16}$/.test(k)) return [`modelRequestKey returned a key that is not 16 hex digits${SEP}${show(k)}`];
    let copy;
    // A getter may answer differently each time it is read: no clone can be compared then.
    if (req.atoms.some((a) => /getter|proxy/.test(a))) return [];
    try { copy = structuredClone(req.v); } catch { return []; }
    try { if (at.modelRequestKey(copy) !== k) return ['modelRequestKey differs for a structured clone of the same request']; } catch { /* clone differs (accessors) */ }
    return [];
  };
  return { exp: 'modelRequestKey', steps: [step('modelRequestKey', `modelRequestKey(${req.expr})`, () => at.modelRequestKey(req.v), { after })], env, atoms: req.atoms };
}

export function genRecording(r, at, V, env) {
  // 'aisdk' runs the real `ai` package (slow to load in each new worker): kept rare.
  const mk = r.weighted([[60, 'behaviour'], [2, 'aisdk'], [13, 'mutated-response'], [25, 'wild']]);
  let model;
  const atoms = [];
  if (mk === 'behaviour') {
    const b = behaviour(r, at, env, 'model', async () => ({ text: 'hi', usage: { inputTokens: 1, outputTokens: 2 } }), 'async () => ({ text: "hi", usage: { inputTokens: 1, outputTokens: 2 } })', { okWeight: 50 });
    model = valid(b.fn);
    if (b.atom) atoms.push(b.atom);
  } else if (mk === 'aisdk') model = valid(tag({ doGenerate: async () => ({}) }, '{ doGenerate: async () => ({}) } (an AI SDK model object: runs the real `ai` generateText when it resolves)'));
  else if (mk === 'mutated-response') {
    const m = mutated(r, at, () => ({ text: 'hi', toolCalls: [{ toolCallId: 't1', toolName: 'lookup', input: { id: 1 } }], usage: { inputTokens: 1, outputTokens: 2 } }), 'a model response');
    model = valid(fnx(`async () => (${m.expr})`, async () => m.v));
    atoms.push(...m.atoms.map((a) => `response ${a}`));
  } else model = wild(r, at, () => {}, 'model');
  atoms.push(...model.atoms);
  const req = r.chance(0.7) ? valid(request(), 'B.request()') : r.chance(0.7) ? mutated(r, at, request, 'B.request()') : wild(r, at, {}, 'request');
  atoms.push(...req.atoms);
  const steps = [
    step('recordingModel', `m = recordingModel(${model.expr})`, () => { env.stash.m = at.recordingModel(model.v); }, { stopOnError: true }),
    step('recordingModel (call)', `await m(${req.expr})`, () => env.stash.m(req.v)),
    step('recordingModel .recording', 'm.recording', () => env.stash.m.recording, {
      after: (rec) => {
        if (!rec || !Array.isArray(rec.entries)) return [`.recording is ${show(rec, 60)}`];
        let json;
        try { json = JSON.parse(JSON.stringify(rec)); } catch (e) { return [`.recording is not JSON-safe: ${e.message}`]; }
        env.stash.rec = json;
        return [];
      },
    }),
    step('replayModel', 'await replayModel(JSON.parse(JSON.stringify(m.recording)))(req)', async () => {
      if (!env.stash.rec || !env.stash.rec.entries.length) return undefined;
      const answer = await at.replayModel(env.stash.rec)(req.v);
      const d = firstDiff(answer, env.stash.rec.entries[0].response);
      return d ? { problem: `replayModel answers differently from the recording${SEP}${d}` } : undefined;
    }, {
      after: (x) => (x && x.problem ? [x.problem] : []),
      // A recorded failure is thrown again, with its code and message; anything else coded is a broken replay.
      onCoded: (e) => {
        const first = env.stash.rec?.entries[0];
        if (!first) return [];
        if (first.error) return e.code === first.error.code && e.message === first.error.message ? [] : [`replayModel throws another error than the one it recorded: ${errShape(e)} vs ${first.error.code} ${first.error.message}`];
        return [`replayModel cannot answer the request it recorded: ${errShape(e)}${SEP}${describe(e)}`];
      },
    }),
  ];
  return { exp: 'recordingModel', steps, env, atoms, async: true };
}

export function genReplay(r, at, V, env) {
  const k = r.weighted([[55, 'mutated'], [15, 'string'], [10, 'valid'], [20, 'wild']]);
  let recArg;
  if (k === 'mutated') recArg = mutated(r, at, () => clone(V.recording), 'V.recording (recordingModel of a 2-turn run)');
  else if (k === 'string') {
    let s = JSON.stringify(V.recording);
    const cut = r.int(0, s.length);
    const op = r.pick(['truncate', 'garble', 'version', 'empty']);
    if (op === 'truncate') s = s.slice(0, cut); else if (op === 'garble') s = `${s.slice(0, cut)}}{${s.slice(cut)}`; else if (op === 'version') s = s.replace('"version":1', `"version":${r.pick(['2', '"1"', 'null', '0.5', '-1'])}`); else s = r.pick(['', ' ', 'null', '[]', '{}', '"x"']);
    recArg = { v: s, expr: s.length < 120 ? JSON.stringify(s) : `JSON.stringify(V.recording) ${op === 'truncate' ? `cut to ${cut} chars` : op === 'garble' ? `with "}{" inserted at ${cut}` : 'with another version'}`, atoms: [`recording string ${op}`], unknownKeys: [] };
  } else if (k === 'valid') recArg = valid(clone(V.recording), 'V.recording');
  else recArg = wild(r, at, {}, 'recording');
  const req = r.chance(0.5) ? valid(clone(V.recording.entries[0].request), 'V.recording.entries[0].request') : r.chance(0.7) ? mutated(r, at, () => clone(V.recording.entries[0].request), 'V.recording.entries[0].request') : wild(r, at, {}, 'request');
  const steps = [
    step('replayModel', `m = replayModel(${recArg.expr})`, () => { env.stash.m = at.replayModel(recArg.v); }, { stopOnError: true }),
    step('replayModel (call)', `await m(${req.expr})`, () => env.stash.m(req.v), { after: (a) => (a === undefined && k === 'valid' ? ['replay answered undefined'] : []) }),
  ];
  return { exp: 'replayModel', steps, env, atoms: atomsOf(recArg, req), async: true };
}

export function genOpenAI(r, at, V, env) {
  const bodyK = r.weighted([[35, 'valid'], [35, 'mutated'], [15, 'text'], [15, 'status']]);
  let body;
  let bodyExpr;
  let status = 200;
  if (bodyK === 'valid') { body = JSON.stringify(chatBody()); bodyExpr = 'JSON.stringify(B.chatBody())'; }
  else if (bodyK === 'mutated') {
    const m = mutated(r, at, chatBody, 'B.chatBody()');
    try { body = JSON.stringify(m.v); } catch { body = '{'; }
    if (typeof body !== 'string') body = 'undefined';
    bodyExpr = `JSON.stringify(${m.expr})`;
  } else if (bodyK === 'text') { body = r.pick(['', 'not json', '{"choices":[]}', '{"choices":[{}]}', 'null', '[]', '{"choices":[{"message":null}]}', '{"choices":[{"message":{"content":null,"tool_calls":[{"id":"t","function":{"name":"f","arguments":"{oops"}}]}}]}', '{"choices":[{"message":{"content":5}}]}', '{"choices":[{"message":{"tool_calls":{}}}]}', '{"choices":[{"message":{"tool_calls":[null]}}]}']); bodyExpr = JSON.stringify(body); }
  else { status = r.pick([500, 429, 404, 0, 302, 199]); body = r.pick(['rate limited', '', 'x'.repeat(1000)]); bodyExpr = strExpr(body); }
  const fk = r.weighted([[65, 'ok'], [8, 'throws'], [8, 'rejects'], [6, 'garbage'], [5, 'text-throws'], [4, 'text-garbage'], [4, 'no-text']]);
  let fetch;
  const okRes = () => ({ ok: status >= 200 && status < 300, status, text: async () => body });
  switch (fk) {
    case 'ok': fetch = fnx(`async () => ({ ok: ${status >= 200 && status < 300}, status: ${status}, text: async () => ${bodyExpr} })`, async () => okRes()); break;
    case 'throws': fetch = fnx('() => { throw new TypeError("fuzz: fetch failed") }', () => { throw new TypeError('fuzz: fetch failed'); }); break;
    case 'rejects': fetch = fnx('async () => { throw new TypeError("fuzz: network down") }', async () => { throw new TypeError('fuzz: network down'); }); break;
    case 'garbage': { const [g, ge] = hostile(r, undefined, at); fetch = fnx(`async () => (${ge})`, async () => g); break; }
    case 'text-throws': fetch = fnx('async () => ({ ok: true, status: 200, text: async () => { throw new Error("fuzz: body stream") } })', async () => ({ ok: true, status: 200, text: async () => { throw err('body stream'); } })); break;
    case 'text-garbage': { const [g, ge] = hostile(r, '', at); fetch = fnx(`async () => ({ ok: true, status: 200, text: async () => (${ge}) })`, async () => ({ ok: true, status: 200, text: async () => g })); break; }
    default: fetch = fnx('async () => ({ ok: true, status: 200 })', async () => ({ ok: true, status: 200 })); break;
  }
  const baseOpts = () => ({ baseURL: 'https://llm.test/v1/', model: 'gpt-test', apiKey: 'k', headers: { 'x-team': 'fuzz' }, temperature: 0.2, fetch });
  const opts = r.weighted([[55, () => valid(baseOpts(), `{ baseURL: "https://llm.test/v1/", model: "gpt-test", apiKey: "k", headers: { "x-team": "fuzz" }, temperature: 0.2, fetch: ${show(fetch)} }`)], [35, () => mutated(r, at, baseOpts, `{ baseURL, model, apiKey, headers, temperature, fetch: ${show(fetch)} }`)], [10, () => wild(r, at, {}, 'options')]])();
  const req = r.weighted([[50, () => valid(request(), 'B.request()')], [40, () => mutated(r, at, request, 'B.request()')], [10, () => wild(r, at, {}, 'request')]])();
  const ac = r.chance(0.3) ? new AbortController() : null;
  const atoms = [...atomsOf(opts, req), `fetch ${fk}`, `body ${bodyK}`];
  const steps = [
    step('fromOpenAIChat', `m = fromOpenAIChat(${opts.expr})`, () => { env.stash.m = at.fromOpenAIChat(opts.v); }, { stopOnError: true }),
    step('fromOpenAIChat (call)', `await m(${req.expr}${ac ? ', { abortSignal: new AbortController().signal }' : ''})`, () => (ac ? env.stash.m(req.v, { abortSignal: ac.signal }) : env.stash.m(req.v)), {
      after: (a) => (!a || typeof a.text !== 'string' ? [`the model answered without a text string${SEP}${show(a, 120)}`] : []),
    }),
  ];
  return { exp: 'fromOpenAIChat', steps, env, atoms, async: true };
}
