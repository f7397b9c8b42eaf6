// Fast path for ObserverPipeline.recordToolCall, installed by every main
// entry on the glue's class (and the rule that a subclass is called through
// its methods). A plain call crosses as values (params as one
// JSON.stringify) through one export; anything else takes the checked path.
// Rust judges both by the same rules. Measured: tests/bench/observe.mjs.
/**
 * @param {{ prototype: any }} cls the glue's ObserverPipeline
 */
export function installFastPaths(cls) {
  const checked = cls.prototype.recordToolCall;
  // A run calls the package's own pipeline directly, not through its JS
  // methods: a subclass is not the package's own, so its methods (and any
  // override of them) are called, as any observers object's are.
  const handle = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(cls.prototype, '__pipelineHandle')).get;
  Object.defineProperty(cls.prototype, '__pipelineHandle', {
    get() { return Object.getPrototypeOf(this) === cls.prototype ? handle?.call(this) : undefined; },
  });
  /**
   * @this {any}
   * @param {any} call
   */
  cls.prototype.recordToolCall = function recordToolCall(call) {
    // Transport only: the fields cross as values and the params as one JSON
    // text, far cheaper than an object read key by key; every rule is the
    // Rust side's. Anything unusual (not an object, a key that is not a
    // call's, a getter that throws, params JSON cannot write) goes to the
    // checked path, which reads the call itself and says what is wrong.
    let toolName, json, paramsSummary, success, errorMessage;
    try {
      if (call === null || typeof call !== 'object' || Array.isArray(call)) throw call;
      for (const k in call) if (k !== 'toolName' && k !== 'params' && k !== 'paramsSummary' && k !== 'success' && k !== 'errorMessage') throw k;
      const params = call.params;
      json = params === undefined ? undefined : JSON.stringify(params);
      if (params !== undefined && typeof json !== 'string') throw params;
      ({ toolName, paramsSummary, success, errorMessage } = call);
    } catch {
      return checked.call(this, call);
    }
    // Fields already of their types cross as such (no value asked about from
    // Rust); any other goes as it is, for Rust to say what is wrong.
    if (typeof toolName === 'string' && typeof success === 'boolean' && (paramsSummary === undefined || typeof paramsSummary === 'string')
      && (errorMessage === undefined || typeof errorMessage === 'string')) {
      return this.__recordToolCallTyped(toolName, json, paramsSummary, success, errorMessage);
    }
    return this.__recordToolCallFields(toolName, json, paramsSummary, success, errorMessage);
  };
}
