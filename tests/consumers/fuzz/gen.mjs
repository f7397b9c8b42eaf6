// The fuzz inputs: valid inputs taken from the README (B), mutated one field
// at a time, plus fully random values, for every export of the package.
// `makeCase(seed, i, at, V)` builds input `i` deterministically from the
// seed: a list of calls (steps), each with the export it exercises, a JS
// expression of the call (for the reproduction) and what to check after it.
// This module holds the table of generators (which one makes input `i`, by
// weight), makeCase, and the documented error codes with codedProblems (the
// code-list test of the node-esm consumer reads the fallback copy here).
// The generators are in gen-*.mjs by capability (capture, records, observe,
// generate, models, integrations, package); the valid inputs in inputs.mjs;
// the callbacks, clocks and sinks of a case in harness.mjs; the shared
// checks in checks.mjs; the PRNG, the rendering of values, the hostile
// values and the mutation engine in rng.mjs, render.mjs, hostile.mjs and
// mutate.mjs. It exports what the worker and the runner use.
import { readFileSync } from 'node:fs';
import { caseSeed, Rng } from './rng.mjs';
import { SEP, messageFinding } from './checks.mjs';
import { Env } from './harness.mjs';
import { genRecorder, genMemorySink, genJsonlSink } from './gen-capture.mjs';
import { genParse, genSerialize, genNormalize } from './gen-records.mjs';
import { genPipeline, genRestore } from './gen-observe.mjs';
import { genRun, genCreate, genExport, genPolicy } from './gen-generate.mjs';
import { genKey, genRecording, genReplay, genOpenAI } from './gen-models.mjs';
import { genAdapters } from './gen-integrations.mjs';
import { genMisc, genRandom } from './gen-package.mjs';

// What the worker, the runner and the reproductions use, from where it lives.
export { T0, PAYLOADS, B, prepare, user } from './inputs.mjs';
export { STOP, Env } from './harness.mjs';
export { SEP, messageProblem, firstDiff, isOwnException, isCoded, describe } from './checks.mjs';
export { resultProblems } from './gen-generate.mjs';

const GENERATORS = [
  [13, genRecorder], [3, genMemorySink], [4, genJsonlSink], [10, genParse], [5, genSerialize], [5, genNormalize],
  [13, genPipeline], [4, genRestore], [5, genCreate], [14, genRun],
  [2.5, (r, at, V, env) => genExport(r, at, V, env, 'toJSONL')], [2.5, (r, at, V, env) => genExport(r, at, V, env, 'toConversation')],
  [2.5, (r, at, V, env) => genExport(r, at, V, env, 'summarize')], [2.5, (r, at, V, env) => genExport(r, at, V, env, 'toArtifacts')],
  [0.4, (r, at, V, env) => genExport(r, at, V, env, 'writeArtifacts')],
  [2, genPolicy], [3, genKey], [3, genRecording], [4, genReplay], [5, genOpenAI],
  [2.5, (r, at, V, env) => genAdapters(r, at, V, env, 'withAISdkAgent')], [1.5, (r, at, V, env) => genAdapters(r, at, V, env, 'withMastraAgent')],
  [1.5, (r, at, V, env) => genAdapters(r, at, V, env, 'fromAISdkModel')],
  [1, genMisc], [6, genRandom],
];

/** Input `i` of the run seeded `seed`. */
export function makeCase(seed, i, at, V) {
  const r = new Rng(caseSeed(seed, i));
  const g = r.weighted(GENERATORS.map(([w, f]) => [w, f]));
  const env = new Env();
  const c = g(r, at, V, env);
  env.exp = c.exp;
  c.index = i;
  c.atoms = (c.atoms ?? []).filter(Boolean);
  return c;
}

// ---- classification helpers (shared with the worker) ---------------------------

/** The error codes the package documents (its `ErrorCode` type), read from the installed index.d.cts (index.d.ts re-exports it). */
export const DOCUMENTED_CODES = (() => {
  // Only if index.d.cts cannot be read (the test of the code list checks that copy against the core's).
  const fallback = ['INVALID_ARGUMENT', 'INVALID_MESSAGE', 'INVALID_RECORD', 'UNSUPPORTED_SCHEMA_VERSION', 'JSONL_PARSE', 'SINK_FAILED', 'CALLBACK_FAILED', 'NOT_INITIALIZED', 'BUSY', 'INTERNAL', 'INVALID_TRAJECTORY', 'TIMEOUT', 'EMPTY_USER_MESSAGE', 'SIMULATOR_ISSUE', 'REPLAY_MISS', 'SEQ_GAP', 'VFS_PATH', 'VFS_LIMIT'];
  try {
    const dts = readFileSync(new URL('./index.d.cts', import.meta.resolve('agent-trajectories/package.json')), 'utf8');
    const m = dts.match(/export type ErrorCode\s*=([^;]*);/);
    const codes = m ? [...m[1].matchAll(/'([A-Z_]+)'/g)].map((x) => x[1]) : [];
    return new Set(codes.length ? codes : fallback);
  } catch { return new Set(fallback); }
})();

/** Problems of a coded error: an undocumented code, INTERNAL, a message people cannot use. */
export function codedProblems(e) {
  const out = [];
  if (!DOCUMENTED_CODES.has(e.code)) out.push(`error code ${JSON.stringify(e.code)} is not one of the documented ErrorCode values${SEP}${String(e.message).slice(0, 200)}`);
  if (e.code === 'INTERNAL') out.push(`an INTERNAL error${SEP}${String(e.message).slice(0, 300)}`);
  const p = messageFinding(`a ${e.code} error's message`, String(e.message));
  if (p) out.push(p);
  return out;
}
