// What every module of the JS layer shares: this package's coded errors, a
// value as an error message shows it, and the reads of a caller's values
// that never let what they throw escape unnamed. One copy each; every
// module imports them from here.

/** @typedef {import('./records').AgentTrajectoriesError} AgentTrajectoriesError */
/** @typedef {import('./vocabulary').ErrorCode} ErrorCode */

/** The name of every error this package throws. */
export const NAME = 'AgentTrajectoriesError';

/**
 * One of this package's errors: a real Error named AgentTrajectoriesError
 * with a stable `code`, and `cause` when there is one.
 * @param {ErrorCode} code
 * @param {string} message
 * @param {unknown} [cause]
 * @returns {AgentTrajectoriesError}
 */
export function fail(code, message, cause) {
  const err = /** @type {AgentTrajectoriesError} */ (new Error(message, cause === undefined ? undefined : { cause }));
  // Enumerable, so JSON.stringify keeps it (a saved batch's run.error), as it keeps the code.
  Object.defineProperty(err, 'message', { value: message, enumerable: true, writable: true, configurable: true });
  err.name = NAME;
  err.code = code;
  return err;
}

/**
 * One of this package's errors (a lookalike without a code is not).
 * @param {unknown} e
 * @returns {e is AgentTrajectoriesError}
 */
export const ours = (e) => e instanceof Error && e.name === NAME && typeof (/** @type {{ code?: unknown }} */ (e).code) === 'string';

/**
 * An object (not null); arrays and functions aside, what a caller passes as options.
 * @param {unknown} v
 * @returns {v is Record<PropertyKey, any>}
 */
export const isObject = (v) => v !== null && typeof v === 'object';

/**
 * Whether a callback answered with a Promise (or any thenable).
 * @param {unknown} v
 * @returns {v is PromiseLike<unknown>}
 */
export const isThenable = (v) => (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (/** @type {any} */ (v)).then === 'function';

/**
 * Array.isArray, except that a revoked Proxy (on which it throws) is no array here.
 * @param {unknown} v
 * @returns {v is any[]}
 */
export const isArray = (v) => {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
};

/**
 * A thrown value as a message says it: an Error's message, a string as
 * is, anything else as JS would write it (never "[object Object]").
 * @param {unknown} e
 * @returns {string}
 */
export const why = (e) => {
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

/**
 * UTF-8 bytes as text. Bytes that are not are refused, as the core refuses
 * such a line (JSONL_PARSE, its number, the same words), never read with
 * replacement characters, which would change the data unsaid.
 * @param {Uint8Array} bytes
 * @param {string} where
 */
export const utf8 = (bytes, where) => {
  const decode = (/** @type {Uint8Array} */ b) => new TextDecoder('utf-8', { fatal: true }).decode(b);
  try {
    return decode(bytes);
  } catch (e) {
    let line = 1;
    for (let start = 0, end = 0; end >= 0; line++, start = end + 1) {
      end = bytes.indexOf(10, start);
      try {
        decode(bytes.subarray(start, end < 0 ? bytes.length : end));
      } catch {
        break;
      }
    }
    throw Object.assign(fail('JSONL_PARSE', `${where}: line ${line}: the line is not UTF-8 text`, e), { line });
  }
};

/**
 * A value as an error message shows it: strings quoted, numbers as JS writes them (NaN, Infinity).
 * @param {unknown} v
 * @returns {string}
 */
export const shown = (v) => (typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' ? String(v) : why(v));

// XML 1.0 cannot carry these at all, not even as character references.
const NOT_XML = /[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/**
 * Text with what XML cannot carry (control characters, lone surrogates) written as `\uXXXX`.
 * @param {string} s
 */
export const visible = (s) => s.replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A markdown table cell: markdown's and HTML's punctuation escaped, lines
 * joined by <br>, `–` for none (the reports' and compareBatches' tables).
 * @param {unknown} v
 */
export const cell = (v) => (v == null ? '–' : visible(String(v)).replace(/[\\`*_{}[\]<>|#~&!]/g, '\\$&').replace(/\r?\n|\r/g, '<br>'));

/**
 * A value as plain JSON data (a deep copy through JSON); undefined stays undefined.
 * @param {unknown} v
 * @returns {any}
 */
export const plain = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/**
 * Runs `f`; anything it throws that is not already one of ours becomes a
 * coded error saying `where`, with the thrown value as its cause.
 * @template T
 * @param {string} where
 * @param {() => T} f
 * @param {ErrorCode} [code]
 * @returns {T}
 */
export const guard = (where, f, code = 'INVALID_ARGUMENT') => {
  try {
    return f();
  } catch (e) {
    throw ours(e) ? e : fail(code, `${where}: ${why(e)}`, e);
  }
};

/**
 * Awaits `f()`, a callback of the caller's: what it throws or rejects with
 * becomes CALLBACK_FAILED saying `where` (unless it is one of ours).
 * @template T
 * @param {string} where
 * @param {() => T | PromiseLike<T>} f
 * @returns {Promise<T>}
 */
export const guarded = async (where, f) => {
  try {
    return await f();
  } catch (e) {
    throw ours(e) ? e : fail('CALLBACK_FAILED', `${where} threw: ${why(e)}`, e);
  }
};

/**
 * A model or agent function this package hands out: whatever its caller's
 * arguments throw when read (a getter, a Proxy) is named, never escaped.
 * @template {any[]} A
 * @template T
 * @param {string} where
 * @param {(...args: A) => Promise<T>} f
 * @returns {(...args: A) => Promise<T>}
 */
export const sealed = (where, f) => async (...args) => {
  try {
    return await f(...args);
  } catch (e) {
    throw ours(e) ? e : fail('INVALID_ARGUMENT', `${where}: reading its arguments threw: ${why(e)}`, e);
  }
};

/**
 * The caller's options as plain values, each key read once: a key list or
 * a getter that throws is named (`place.key: reading it threw`). What the
 * keys mean is for the caller (most often the core) to judge.
 * @param {object} opts
 * @param {string} place
 * @returns {Record<string, any>}
 */
export function readOptions(opts, place) {
  // No prototype: a key named `__proto__` is a key like any other (refused
  // later as unknown), not the copy's prototype, whose getters would run.
  /** @type {Record<string, any>} */
  const given = Object.create(null);
  for (const key of guard(`${place}: its keys could not be read`, () => Object.keys(opts))) {
    given[key] = guard(`${place}.${key}: reading it threw`, () => /** @type {Record<string, unknown>} */ (opts)[key]);
  }
  return given;
}

/**
 * Refuses the first key of `obj` that is not in `allowed`, as INVALID_ARGUMENT
 * `<where>: unknown <what> "<key>"<advice(key)>`. The core checks the options
 * of what runs in the WebAssembly module; this is the check of the code that
 * runs without it (the viewer, the exporter, the AI SDK model adapter).
 * @param {object} obj
 * @param {readonly string[]} allowed
 * @param {string} where
 * @param {(key: string) => string} advice
 * @param {string} [what]
 */
export function checkKeys(obj, allowed, where, advice, what = 'option') {
  const unknown = Object.keys(obj).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw fail('INVALID_ARGUMENT', `${where}: unknown ${what} ${JSON.stringify(unknown)}${advice(unknown)}`);
}

/** The AI SDK's marker of a Schema (its `jsonSchema()` result): a registered symbol, so `ai` need not be imported. */
export const AI_SCHEMA = Symbol.for('vercel.ai.schema');

/**
 * One macrotask: resolves after the host's due timers have had their turn
 * (a microtask would not let them). A run waits this between turns.
 * `setImmediate` where there is one (Node), else a `MessageChannel`
 * message (browsers, Workers; its ports closed, so they keep nothing
 * alive), else `setTimeout(0)`.
 * @returns {Promise<void>}
 */
export function macrotask() {
  // Node's, which the DOM types the layer is checked with do not declare.
  const { setImmediate } = /** @type {{ setImmediate?: (f: () => void) => unknown }} */ (globalThis);
  return new Promise((resolve) => {
    const done = () => resolve();
    try {
      if (typeof setImmediate === 'function') return void setImmediate(done);
    } catch {}
    try {
      if (typeof MessageChannel === 'function') {
        const { port1, port2 } = new MessageChannel();
        port1.onmessage = () => {
          port1.close();
          port2.close();
          done();
        };
        return void port2.postMessage(undefined);
      }
    } catch {}
    try {
      if (typeof setTimeout === 'function') return void setTimeout(done, 0);
    } catch {}
    done();
  });
}

/** The `abortSignal` getter every CallOptions shares (set in its static block). @type {PropertyDescriptor} */
let signalGetter;

/**
 * The options of one callback call (`{ abortSignal }`): an own enumerable
 * getter, so `{ ...options }` carries the signal. The AbortController is
 * made only when the callee reads `abortSignal`: making one costs more than
 * the rest of a call. The state is private fields and the getter one shared
 * descriptor: an object literal with a getter closing over its state cost
 * three times as much to make (0.3 against 0.1 µs, measured), and a run
 * makes one per model and agent call.
 */
class CallOptions {
  /** @type {AbortController | undefined} */
  #controller;
  #stopped = false;
  /** @type {unknown} */
  #why;

  static {
    signalGetter = {
      enumerable: true,
      /** @this {CallOptions} */
      get() {
        if (!this.#controller) {
          this.#controller = new AbortController();
          if (this.#stopped) this.#controller.abort(this.#why);
        }
        return this.#controller.signal;
      },
    };
  }

  constructor() {
    Object.defineProperty(this, 'abortSignal', signalGetter);
  }

  /**
   * Aborts the call's signal, made or not yet made.
   * @param {CallOptions} options
   * @param {unknown} reason
   */
  static stop(options, reason) {
    if (options.#stopped) return;
    options.#stopped = true;
    options.#why = reason;
    options.#controller?.abort(reason);
  }
}

/**
 * The options of one callback call and the way to abort it, for the core's
 * runs (their host object's `callSignal`). `stop(reason)` aborts it, and a
 * signal first read after that is aborted already.
 * @returns {[options: { readonly abortSignal: AbortSignal }, stop: (reason: unknown) => void]}
 */
export function callSignal() {
  const options = new CallOptions();
  return [/** @type {any} */ (options), (reason) => CallOptions.stop(options, reason)];
}
