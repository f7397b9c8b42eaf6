// The core's well-known record names (the `custom` names, the spellings of
// a model_usage record's counts), for code that reads records without the
// WebAssembly module (the OpenTelemetry exporter). scripts/assemble.mjs
// replaces this module's text with the value the built module gives
// (`__wellKnown()`), so the entries never carry a hand-kept copy; this
// text is what the type check and the build's check of that replacement read.

/**
 * @typedef {object} WellKnown
 * @property {string[]} kinds Every record kind (payload.kind) this build reads.
 * @property {string[]} custom The names of the `custom` records the core writes and reads.
 * @property {{ input: string[], output: string[], total: string[], finishReason: string[] }} usage Each count of a model_usage record, under every spelling it reads.
 */

/** @type {WellKnown} */
export const WELL_KNOWN = JSON.parse('null'); // replaced at build time (see above)
