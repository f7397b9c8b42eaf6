// The glue wasm-bindgen writes, patched for this package. The build fails
// if the glue changes shape, so a patch never silently stops applying.

// wasm-bindgen's own refusals (a method on a freed object, an object used
// from inside its own callback) throw a plain Error from the glue: make them
// this package's coded errors.
const bindingError = `function __bindingError(message) {
  const gone = 'freed (by free() or a using block), or not one of this package\\'s objects';
  const inUse = 'busy in a call that has not returned (used from its own callback?)';
  const freed = message.startsWith('null pointer passed');
  const busy = /^(recursive use|attempted to take ownership)/.test(message);
  const err = new Error(freed ? \`this object is \${gone}\` : busy ? \`this object is \${inUse}\` : message);
  err.name = 'AgentTrajectoriesError';
  err.code = freed ? 'INVALID_ARGUMENT' : busy ? 'BUSY' : 'INTERNAL';
  return err;
}
`;

/**
 * The glue wasm-bindgen wrote, patched (see each step); `file` names it in
 * the build's errors.
 * @param {string} text
 * @param {string} file
 */
export function patchGlue(text, file) {
  const thrower = /(__wbg___wbindgen_throw_[0-9a-f]+: function\(arg0, arg1\) \{\s*)throw new Error\(getStringFromWasm0\(arg0, arg1\)\);/;
  if (!thrower.test(text)) throw new Error(`assemble: ${file}: the glue's __wbindgen_throw changed shape`);
  // free() twice (or a `using` block after an explicit free) is a no-op, as disposing should be.
  const free = /(free\(\) \{\s*const ptr = this\.__destroy_into_raw\(\);)/g;
  const frees = text.match(free)?.length ?? 0;
  if (frees < 5) throw new Error(`assemble: ${file}: the glue's free() changed shape (${frees} found)`);
  // The loaders' old one-argument forms (a bare module or URL, with a
  // console warning) are never used: the entries always pass an object.
  const oldForms = /if \(Object\.getPrototypeOf\((\w+)\) === Object\.prototype\) \{\s*\(\{\w+\} = \w+\)\s*\} else \{\s*console\.warn\('using deprecated parameters[^']*'\)\s*\}/g;
  if (text.match(oldForms)?.length !== 2) throw new Error(`assemble: ${file}: the glue's loaders changed shape`);
  // Each class's finalizer, with its fallback where a runtime has no
  // FinalizationRegistry, written once.
  const registries = /\(typeof FinalizationRegistry === 'undefined'\)\s*\?\s*\{ register: \(\) => \{\}, unregister: \(\) => \{\} \}\s*:\s*new FinalizationRegistry\(/g;
  if ((text.match(registries)?.length ?? 0) < 5) throw new Error(`assemble: ${file}: the glue's finalizers changed shape`);
  // TextEncoder's encodeInto is in every supported runtime (the module
  // imports it itself, for its strings): the glue's fallback is dead.
  const encodeInto = /if \(!\('encodeInto' in cachedTextEncoder\)\) \{\s*cachedTextEncoder\.encodeInto = function \(arg, view\) \{[^}]*\{[^}]*\};\s*\};\s*\}/;
  if (!encodeInto.test(text)) throw new Error(`assemble: ${file}: the glue's encodeInto fallback changed shape`);
  // A server that does not serve the .wasm as application/wasm: said in
  // the package's words (wasm-bindgen's are twice as long).
  const mime = /console\.warn\("`WebAssembly\.instantiateStreaming` failed because your server does not serve Wasm with `application\/wasm` MIME type\. Falling back to `WebAssembly\.instantiate` which is slower\. Original error:\\n", e\);/;
  if (!mime.test(text)) throw new Error(`assemble: ${file}: the glue's MIME type warning changed shape`);
  // Its fallback is taken for any response not served as application/wasm;
  // an opaque one (no-cors) then fails to compile, as it fails to stream.
  const responseType = /const validResponse = expectedResponseType\(module\.type\);\s*if \(validResponse && (module\.headers)/;
  const responseTypes = /\s*function expectedResponseType\(type\) \{\s*switch \(type\) \{[^}]*\}\s*return false;\s*\}/;
  if (!responseType.test(text) || !responseTypes.test(text)) throw new Error(`assemble: ${file}: the glue's response check changed shape`);
  const patched = `${bindingError}function __finalization(f) {
  return typeof FinalizationRegistry === 'undefined' ? { register: () => {}, unregister: () => {} } : new FinalizationRegistry(f);
}
${text}`
    .replace(registries, '__finalization(')
    .replace(encodeInto, '')
    .replace(responseType, 'if ($1')
    .replace(responseTypes, '')
    .replace(mime, "console.warn('agent-trajectories: .wasm not served as application/wasm:', e);")
    .replace(thrower, '$1throw __bindingError(getStringFromWasm0(arg0, arg1));')
    .replace(free, '$1 if (ptr === 0) return;')
    .replace(oldForms, '({$1} = $1);');
  return patched;
}
