// Inputs for the AI SDK and Mastra adapters: withAISdkAgent (an Agent or a
// generateText config), withMastraAgent and fromAISdkModel, over generate
// functions that misbehave and answers that are changed; the messages an
// agent answers with must normalize.
import { show } from './render.mjs';
import { mutated, valid, wild } from './mutate.mjs';
import { fnx, msg, request } from './inputs.mjs';
import { SEP, isCoded, describe } from './checks.mjs';
import { behaviour, step, unknownOf, atomsOf } from './harness.mjs';

export function genAdapters(r, at, V, env, which) {
  const history = r.chance(0.7) ? valid([msg.user()], '[{ role: "user", content: "Where is my order?" }]') : r.chance(0.6) ? mutated(r, at, () => [msg.user(), msg.assistantParts(), msg.toolResult()], 'B.messages().slice(1, 4)') : wild(r, at, [], 'history');
  const answer = r.weighted([[40, () => valid({ text: 'ok', response: { messages: [msg.assistant()] }, steps: [{ response: { messages: [msg.assistant()] } }], usage: { inputTokens: 1, outputTokens: 2 } }, 'a generateText result')],
    [45, () => mutated(r, at, () => ({ text: 'ok', response: { messages: [msg.assistant()] }, steps: [{ response: { messages: [msg.assistantParts()] } }, { response: { messages: [msg.assistantParts(), msg.toolResult()] } }], usage: { inputTokens: 1, outputTokens: 2 } }), 'a generateText result')],
    [15, () => wild(r, at, {}, 'answer')]])();
  const b = behaviour(r, at, env, 'generate', async () => answer.v, `async () => (${answer.expr})`, { okWeight: 70 });
  const atoms = [...atomsOf(history, answer), ...(b.atom ? [b.atom] : [])];
  let target;
  let ctorExpr;
  let call;
  if (which === 'withAISdkAgent') {
    const k = r.weighted([[45, 'agent'], [45, 'config'], [10, 'wild']]);
    if (k === 'agent') target = r.chance(0.8) ? valid({ generate: b.fn }, `{ generate: ${show(b.fn)} }`) : mutated(r, at, () => ({ generate: b.fn }), `{ generate: ${show(b.fn)} }`);
    else if (k === 'config') target = r.chance(0.7) ? valid({ model: { id: 'm' }, temperature: 0, generateText: b.fn }, `{ model: { id: "m" }, temperature: 0, generateText: ${show(b.fn)} }`) : mutated(r, at, () => ({ model: { id: 'm' }, temperature: 0, generateText: b.fn }), `{ model: { id: "m" }, temperature: 0, generateText: ${show(b.fn)} }`);
    else target = wild(r, at, {}, 'target');
    ctorExpr = `a = withAISdkAgent(${target.expr})`;
    call = () => env.stash.a.respond(history.v, r.chance(0.5) ? { abortSignal: new AbortController().signal } : undefined);
  } else if (which === 'withMastraAgent') {
    target = r.chance(0.85) ? valid({ generate: b.fn }, `{ generate: ${show(b.fn)} }`) : wild(r, at, {}, 'agent');
    ctorExpr = `a = withMastraAgent(${target.expr})`;
    call = () => env.stash.a.respond(history.v);
  } else {
    const optsK = r.weighted([[85, () => valid({ generateText: b.fn }, `{ generateText: ${show(b.fn)} }`)], [10, () => mutated(r, at, () => ({ generateText: b.fn }), `{ generateText: ${show(b.fn)} }`, { closed: [''] })], [5, () => wild(r, at, {}, 'opts')]])();
    target = r.chance(0.85) ? valid({ modelId: 'm', doGenerate: fnx('async () => ({})', async () => ({})) }, '{ modelId: "m", doGenerate: async () => ({}) }') : wild(r, at, {}, 'model');
    atoms.push(...atomsOf(optsK));
    ctorExpr = `a = fromAISdkModel(${target.expr}, ${optsK.expr})`;
    const reqA = r.chance(0.7) ? valid(request(), 'B.request()') : mutated(r, at, request, 'B.request()');
    atoms.push(...reqA.atoms);
    env.stash.opts = optsK;
    const ctor = () => { env.stash.a = at.fromAISdkModel(target.v, optsK.v); };
    return {
      exp: which, env, atoms: [...atoms, ...atomsOf(target)], async: true,
      steps: [
        step(which, ctorExpr, ctor, { stopOnError: true, unknown: unknownOf(optsK) }),
        step(`${which} (call)`, `await a(${reqA.expr})`, () => env.stash.a(reqA.v), { after: (x) => (!x || typeof x !== 'object' ? [`the model answered ${show(x, 60)}`] : []) }),
      ],
    };
  }
  atoms.push(...atomsOf(target));
  return {
    exp: which, env, atoms, async: true,
    steps: [
      step(which, ctorExpr, () => { env.stash.a = which === 'withAISdkAgent' ? at.withAISdkAgent(target.v) : at.withMastraAgent(target.v); }, { stopOnError: true }),
      step(`${which} (respond)`, `await a.respond(${history.expr})`, call, {
        after: (x) => {
          if (!x || !Array.isArray(x.messages)) return [`respond resolved with ${show(x, 60)}`];
          try { at.normalizeMessages(x.messages); } catch (e) { if (!isCoded(e)) return [`respond's messages make normalizeMessages throw an uncoded error${SEP}${describe(e)}`]; }
          return [];
        },
      }),
    ],
  };
}
