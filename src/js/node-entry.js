// What node.mjs adds to the glue: it reads the module from disk at import,
// and writes a run's artifacts into a folder. Only node.mjs imports this.

import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toArtifacts } from './generate.js';
import { fail } from './util.js';

/**
 * The module's bytes. Unreadable, most often a bundle without the .wasm
 * copied beside it: NOT_INITIALIZED, saying so.
 * @param {URL | string} file
 * @returns {Uint8Array}
 */
export function readWasm(file) {
  try {
    return readFileSync(file);
  } catch (e) {
    const err = /** @type {{ code?: string, message?: string }} */ (e);
    throw fail('NOT_INITIALIZED', `agent-trajectories: cannot read its WebAssembly module (${err.code ?? err.message}: ${file}); a bundle needs agent_trajectories_bg.wasm copied beside it`, e);
  }
}

/**
 * Writes toArtifacts(result, def) into `dir` (created if needed); resolves with the paths.
 * @param {string} dir
 * @param {import('./generate-types').TrajectoryResult} result
 * @param {import('./generate-types').Trajectory} def
 * @returns {Promise<string[]>}
 */
export async function writeArtifacts(dir, result, def) {
  const files = toArtifacts(result, def);
  const paths = [];
  // A folder or file that cannot be written is SINK_FAILED, the file named and the system's error kept as cause.
  let at = dir;
  try {
    await mkdir(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      at = join(dir, name);
      await writeFile(at, text);
      paths.push(at);
    }
  } catch (e) {
    const err = /** @type {{ code?: string, message?: string }} */ (e);
    throw fail('SINK_FAILED', `writeArtifacts: cannot write ${at}: ${err.code ?? err.message}`, e);
  }
  return paths;
}
