// What web.js (browsers, and the default condition) adds to the glue: no
// top-level await (it deadlocks some bundlers), so the module is loaded by
// `await init()`, and until it has been, every export throws
// NOT_INITIALIZED naming the API that was called. Only web.js imports this.

import { fail } from './util.js';

let ready = false;
/** @type {Promise<void> | undefined} */
let loading;

/**
 * @param {string} name
 */
const notReady = (name) => fail('NOT_INITIALIZED', `agent-trajectories: ${name} used before the WebAssembly module was loaded; call \`await init()\` first`);

/** The glue's loader (its default export), given by web.js. @type {(input?: { module_or_path: unknown }) => Promise<unknown>} */
let initWasm;

/**
 * web.js gives the glue's loader (its default export) before anything can call init().
 * @param {typeof initWasm} loader
 */
export function useLoader(loader) {
  initWasm = loader;
}

/**
 * Loads the WebAssembly module; call once before anything else. `input` is
 * a URL, Response, bytes or a compiled WebAssembly.Module (default: the
 * .wasm next to this file).
 * @param {unknown} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  loading ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(
    () => { ready = true; },
    (err) => {
      loading = undefined; // a failed load (say, a 404) may be retried
      const from = input === undefined ? 'agent_trajectories_bg.wasm next to the package' : typeof input === 'string' || input instanceof URL ? String(input) : `the ${/** @type {any} */ (input)?.constructor?.name ?? typeof input} given to init()`;
      const message = String(err?.message ?? err);
      // A server that answers a missing file with a page (a dev server's index.html) gives the engine's words about a "magic" number.
      const page = /magic/i.test(message) ? ' (what it answered is not a WebAssembly module: an HTML page, say, for a file the server does not have)' : '';
      throw fail('NOT_INITIALIZED', `agent-trajectories: init() could not load the WebAssembly module from ${from}${page}: ${message}`, err);
    },
  );
  return loading;
}

/**
 * `target` (a function or class of the glue) behind a guard: before init()
 * has loaded the module, calling or constructing it, or calling one of its
 * own static functions, throws NOT_INITIALIZED naming `name`.
 * @template {object} T
 * @param {string} name
 * @param {T} target
 * @returns {T}
 */
export function guard(name, target) {
  return new Proxy(target, {
    construct(t, args, newTarget) {
      if (!ready) throw notReady(name);
      return Reflect.construct(/** @type {Function} */ (t), args, newTarget);
    },
    apply(t, self, args) {
      if (!ready) throw notReady(name);
      return Reflect.apply(/** @type {Function} */ (t), self, args);
    },
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver);
      if (!ready && typeof value === 'function' && prop !== 'prototype' && Object.hasOwn(t, prop)) {
        return () => { throw notReady(`${name}.${String(prop)}`); };
      }
      return value;
    },
  });
}
