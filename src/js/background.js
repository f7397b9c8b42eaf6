// The JS side of the background loop: BackgroundAgentRunner. It adapts
// what belongs to other libraries — the model (a Model or an AI SDK model),
// the caller's tools in the AI SDK tool() shape, schemas (a JSON Schema, a
// Standard Schema such as zod / valibot / arktype, or an AI SDK schema:
// converted to JSON Schema by the library's own `~standard.jsonSchema`,
// validated by its own `validate`, a plain JSON Schema by
// @cfworker/json-schema) — and keeps the busy state. Every decision of the
// loop is the core's (`__runBackground`).

import { wasm, asOption } from './binding.js';
import { asModel } from './generate.js';
import { fail, why, ours, guard, guarded, isObject, isArray, readOptions, macrotask, callSignal, AI_SCHEMA } from './util.js';

/** @typedef {import('./background-types').BackgroundAgentRunner} DeclaredRunner */

// Loaded on first use: only runs with a plain JSON Schema need it.
/** @type {typeof import('@cfworker/json-schema') | undefined} */
let cfworker;
const loadValidator = async () => (cfworker ??= await import('@cfworker/json-schema'));

// The keywords of JSON Schema (drafts 4 to 2020-12) an object needs one of to be read as a schema.
// (In groups: the minified build keeps lines short, and one array would be one line.)
/** @type {Set<string>} */
const JSON_SCHEMA_KEYWORDS = new Set();
const keywords = (/** @type {string} */ group) => group.split(' ').forEach((k) => JSON_SCHEMA_KEYWORDS.add(k));
keywords('$schema $id id $ref $defs definitions $comment $anchor $dynamicRef type enum const title description default examples');
keywords('properties patternProperties additionalProperties required propertyNames minProperties maxProperties dependentRequired');
keywords('dependentSchemas dependencies items prefixItems additionalItems contains minItems maxItems uniqueItems');
keywords('unevaluatedItems unevaluatedProperties allOf anyOf oneOf not if then else minimum maximum exclusiveMinimum');
keywords('exclusiveMaximum multipleOf minLength maxLength pattern format nullable readOnly writeOnly deprecated contentMediaType contentEncoding');
/** @param {unknown} v */
const describe = (v) => (v === null ? 'null' : isArray(v) ? 'an array' : typeof v);

/**
 * The JSON Schema form of a schema, by what its library offers.
 * @param {any} schema
 * @param {string} where
 * @returns {any}
 */
const jsonSchemaOf = (schema, where) => {
  if (!isObject(schema) && typeof schema !== 'function') {
    throw fail('INVALID_ARGUMENT', `${where} must be a JSON Schema, a Standard Schema (zod, valibot, arktype) or an AI SDK schema, got ${describe(schema)}`);
  }
  const std = schema['~standard'];
  if (isObject(std)) {
    const js = std.jsonSchema;
    if (isObject(js) && typeof js.input === 'function') return guard(`${where}: ~standard.jsonSchema.input`, () => js.input({ target: 'draft-07' }));
    if (typeof schema.toJsonSchema === 'function') return guard(`${where}: toJsonSchema()`, () => schema.toJsonSchema());
    throw fail('INVALID_ARGUMENT', `${where}: this ${String(std.vendor)} schema has no JSON Schema form (no ~standard.jsonSchema); use a version of ${String(std.vendor)} that implements Standard JSON Schema, or pass a JSON Schema`);
  }
  if (AI_SCHEMA in schema) return schema.jsonSchema;
  // What is left must be a JSON Schema. An object of schemas is a shape
  // (zod's `{ a: z.number() }`), which validates nothing as JSON Schema.
  const keys = Object.keys(schema);
  const shape = keys.filter((k) => isObject(schema[k]) && isObject(schema[k]['~standard']));
  if (shape.length) {
    throw fail('INVALID_ARGUMENT', `${where} is an object of schemas (${shape.slice(0, 3).map((k) => JSON.stringify(k)).join(', ')}), not a schema: wrap it, z.object({ ... }), or pass a JSON Schema`);
  }
  if (keys.length && !keys.some((k) => JSON_SCHEMA_KEYWORDS.has(k))) {
    throw fail('INVALID_ARGUMENT', `${where} is not a JSON Schema: none of its keys (${keys.slice(0, 3).map((k) => JSON.stringify(k)).join(', ')}) is a JSON Schema keyword; for an object with these properties write { type: 'object', properties: { ... } }`);
  }
  return schema;
};

/**
 * Where a value fails a schema, as the validator said it.
 * @param {any[]} issues
 */
const stdIssues = (issues) => issues.slice(0, 3).map((i) => {
  const path = isArray(i?.path) ? i.path.map((/** @type {any} */ p) => (isObject(p) ? p.key : p)).join('.') : '';
  return path ? `${path}: ${i?.message}` : String(i?.message);
}).join('; ');
/** @param {any} s */
const draftOf = (s) => {
  const id = typeof s?.$schema === 'string' ? s.$schema : '';
  return id.includes('2020-12') ? '2020-12' : id.includes('2019-09') ? '2019-09' : id.includes('draft-04') ? '4' : '7';
};
/**
 * A function (value) → Promise<the validated value>, throwing `code` with the validator's message.
 * @param {any} schema
 * @param {unknown} json
 * @param {string} where
 * @param {'INVALID_ARGUMENT' | 'CALLBACK_FAILED'} code a tool's input is a call's argument; the deliverable, what the model returned
 * @returns {(value: unknown) => Promise<unknown>}
 */
const validatorOf = (schema, json, where, code) => {
  /**
   * @param {string} message
   * @param {unknown} [cause]
   */
  const refuse = (message, cause) => fail(code, `${where}: ${message}`, cause);
  const std = schema['~standard'];
  if (isObject(std) && typeof std.validate === 'function') {
    return async (v) => {
      const r = await std.validate(v);
      if (isArray(r?.issues)) throw refuse(stdIssues(r.issues));
      return r.value;
    };
  }
  if (AI_SCHEMA in schema && typeof schema.validate === 'function') {
    return async (v) => {
      const r = await schema.validate(v);
      if (!r?.success) throw refuse(why(r?.error), r?.error);
      return r.value;
    };
  }
  /** @type {import('@cfworker/json-schema').Validator | undefined} */
  let validator;
  return async (v) => {
    const { Validator } = await loadValidator();
    validator ??= new Validator(await json, draftOf(await json), false);
    const r = validator.validate(v);
    if (!r.valid) {
      // The deepest errors say most; the outer ones repeat them.
      const depth = (/** @type {{ instanceLocation: string }} */ e) => e.instanceLocation.split('/').length;
      const max = Math.max(...r.errors.map(depth));
      throw refuse(r.errors.filter((e) => depth(e) === max).slice(0, 3).map((e) => `${e.instanceLocation.replace(/^#\/?/, '') || '(root)'}: ${e.error}`).join('; '));
    }
    return v;
  };
};

/**
 * The caller's tools: { name: { description?, inputSchema, execute } }.
 * @param {unknown} tools
 * @returns {{ name: string, description: string, json: unknown, execute: Function, validate: (value: unknown) => Promise<unknown> }[]}
 */
const toolsOf = (tools) => {
  if (tools == null) return [];
  if (!isObject(tools) || isArray(tools)) throw fail('INVALID_ARGUMENT', `tools must be an object { name: tool({ description, inputSchema, execute }) }, got ${describe(tools)}`);
  return Object.keys(tools).map((name) => {
    const where = `tools.${name}`;
    const t = guard(`${where}: reading it threw`, () => tools[name]);
    if (!isObject(t)) throw fail('INVALID_ARGUMENT', `${where} must be a tool { description, inputSchema, execute }, got ${describe(t)}`);
    const { description: about, inputSchema: given, execute } = guard(`${where}: reading it threw`, () => ({ ...t }));
    if (typeof execute !== 'function') throw fail('INVALID_ARGUMENT', `${where}.execute must be a function (input, { abortSignal, toolCallId }) => result (a tool the runner cannot run is not offered)`);
    // A slip of a key the runner reads (`inputschema`, AI SDK 4's
    // `parameters`, `descripton`) is said, not taken as a tool without it;
    // a tool object's other keys (`type`, `outputSchema`, ...) are its own.
    const want = given === undefined ? 'inputSchema' : about === undefined && 'description';
    const slip = want && Object.keys(t).find((k) => k !== want && (want === 'inputSchema' ? /^(inputschema|parameters)$/i : /^desc/i).test(k));
    if (slip) throw fail('INVALID_ARGUMENT', `${where}: unknown option ${JSON.stringify(slip)}; did you mean "${want}"?`);
    // AI SDK 7: a description may be a function of the call's context; a schema may be lazy.
    const description = typeof about === 'function' ? guard(`${where}.description()`, () => about({ context: undefined })) : about === undefined ? '' : about;
    if (typeof description !== 'string') throw fail('INVALID_ARGUMENT', `${where}.description must be a string`);
    const inputSchema = typeof given === 'function' && !isObject(given['~standard']) ? guard(`${where}.inputSchema()`, () => given()) : given;
    const json = jsonSchemaOf(inputSchema, `${where}.inputSchema`);
    return { name, description, json, execute, validate: validatorOf(inputSchema, json, `tool ${name}: its input does not match inputSchema`, 'INVALID_ARGUMENT') };
  });
};

/**
 * A tool's answer; an AI SDK streaming tool (an async iterable) gives its last value.
 * @param {any} out
 */
const settle = async (out) => {
  if (out != null && typeof out[Symbol.asyncIterator] === 'function') {
    let last;
    for await (const v of out) last = v;
    return last;
  }
  return out;
};

/** @param {() => Promise<unknown>} f */
const outcome = async (f) => {
  try {
    return { ok: await f() };
  } catch (e) {
    return { error: ours(e) ? e : fail('CALLBACK_FAILED', why(e), e) };
  }
};

const RUN_OPTIONS = ['resumeFrom'];

/** @implements {DeclaredRunner} */
export class BackgroundAgentRunner {
  /** @type {Record<string, any>} */
  #opts;
  /** @type {ReturnType<typeof toolsOf>} */
  #tools;
  #running = false;
  #runs = 0;

  /** @param {import('./background-types').BackgroundAgentRunnerOptions} opts */
  constructor(opts) {
    const place = 'BackgroundAgentRunner options';
    if (!isObject(opts) || isArray(opts)) throw fail('INVALID_ARGUMENT', `new BackgroundAgentRunner(opts): opts must be an object ({ model, ... }), got ${describe(opts)}`);
    const given = readOptions(opts, place);
    wasm.checkBackground(given, given.config, Object.keys(isObject(given.tools) ? given.tools : {}));
    if (given.model === undefined) throw fail('INVALID_ARGUMENT', `${place}.model is required: a Model function or an AI SDK language model`);
    given.model = asModel(given.model, `${place}.model`);
    this.#tools = toolsOf(given.tools);
    this.#opts = given;
  }

  /**
   * Runs one objective to its end (the contract is in background-types.d.ts).
   * @param {any} objective
   * @param {{ resumeFrom?: import('./background-types').AgentSnapshot }} [options]
   * @returns {Promise<any>}
   */
  async run(objective, options = {}) {
    if (this.#running) throw fail('BUSY', 'this BackgroundAgentRunner is already running an objective; await it, or use another runner');
    this.#running = true;
    try {
      return await this.#run(objective, options);
    } finally {
      this.#running = false;
    }
  }

  /**
   * @param {any} objective
   * @param {any} options
   */
  async #run(objective, options) {
    if (!isObject(options) || isArray(options)) throw fail('INVALID_ARGUMENT', `run(objective, options): options must be an object ({ resumeFrom })`);
    wasm.checkOptions(options, RUN_OPTIONS, 'run options');
    const { tools: _, config = {}, observers: given, ...harness } = this.#opts;
    const factory = isObject(config) ? config.deliverableFactory : undefined;
    const resumeFrom = options.resumeFrom;
    /** @type {unknown} */
    let schema;
    /** @type {((value: unknown) => Promise<unknown>) | undefined} */
    let validate;
    let goal = objective;
    if (isObject(objective) && !isArray(objective)) {
      const { deliverableSchema, ...rest } = guard('objective: reading it threw', () => ({ ...objective }));
      goal = rest;
      if (deliverableSchema != null) {
        schema = await jsonSchemaOf(deliverableSchema, 'objective.deliverableSchema');
        validate = validatorOf(deliverableSchema, schema, 'the deliverable does not match objective.deliverableSchema', 'CALLBACK_FAILED');
      }
    }
    let observers = given;
    if (observers != null && typeof observers.recordToolCall !== 'function') {
      const o = isArray(observers) ? { observers } : observers;
      const saved = resumeFrom?.observers;
      observers = asOption('BackgroundAgentRunner options.observers', isArray(observers), () => (saved ? wasm.ObserverPipeline.restore(saved, o) : new wasm.ObserverPipeline(o)));
    }
    const specs = [];
    for (const t of this.#tools) specs.push({ name: t.name, description: t.description, inputSchema: await t.json });
    const byName = new Map(this.#tools.map((t) => [t.name, t]));
    const host = {
      ...harness,
      ...(observers == null ? {} : { observers }),
      tools: specs,
      runNumber: ++this.#runs,
      macrotask,
      callSignal,
      hasFactory: typeof factory === 'function',
      // Both settle as { ok } or { error }, never reject: the error is
      // already this package's, worded for the run, and must not be
      // wrapped again as a callback that threw.
      callTool: (/** @type {string} */ name, /** @type {unknown} */ input, /** @type {{ abortSignal: unknown, toolCallId: string }} */ { abortSignal, toolCallId }) => outcome(async () => {
        const t = /** @type {ReturnType<typeof toolsOf>[number]} */ (byName.get(name));
        const valid = await t.validate(input);
        return guarded(`tool ${name}`, async () => settle(await t.execute(valid, { abortSignal, toolCallId, messages: [] })));
      }),
      deliver: (/** @type {{ snapshot: any, proposed: unknown }} */ { snapshot, proposed }) => outcome(async () => {
        let d = proposed;
        if (typeof factory === 'function') {
          // The factory sees the observers' state too, as the result's snapshot will hold it.
          if (observers != null) snapshot.observers = observers.snapshot();
          d = await guarded('deliverableFactory', () => factory(snapshot));
        }
        // No deliverable is for the core to judge (a completed run with a schema must deliver).
        if (d == null) return null;
        return validate ? validate(d) : d;
      }),
    };
    const result = await wasm.runBackground(host, goal, schema, config, resumeFrom);
    if (observers != null) result.snapshot.observers = observers.snapshot();
    return result;
  }
}
