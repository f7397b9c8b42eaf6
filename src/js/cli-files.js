// The command's files: its inputs read and told apart by the viewer
// page's own rule (a saved batch, a step export or record JSONL), and its
// outputs written, never over a file of data.

import * as main from 'agent-trajectories';
import { fail, ours, why } from './util.js';
// The viewer page's rule for what a file holds, so that view refuses no file the page shows.
import { headKind, jsonKind, stepLines } from '../../www/kind.js';

/** @typedef {import('./cli.js').Node} Node */

// stepsToJsonl is the glue's: the type check maps the package to the JS layer, which does not list it.
const glue = /** @type {{ stepsToJsonl(steps: unknown[]): string }} */ (/** @type {unknown} */ (main));

/**
 * @param {Node} node
 * @param {string} file
 */
export async function read(node, file) {
  try {
    return await node.fs.readFile(file);
  } catch (e) {
    const code = /** @type {{ code?: string }} */ (e).code;
    const said = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : why(e);
    throw fail('INVALID_ARGUMENT', `cannot read ${file}: ${said}`, e);
  }
}

/**
 * @param {Node} node
 * @param {string} file
 * @param {string} text
 * @param {boolean} [append]
 */
export async function write(node, file, text, append = false) {
  try {
    await mkdirs(node, node.path.dirname(file));
    await (append ? node.fs.appendFile(file, text) : node.fs.writeFile(file, text));
  } catch (e) {
    throw fail('SINK_FAILED', `cannot write ${file}: ${why(e)}`, e);
  }
}

/**
 * Refuses an output file that holds JSON data: one of the inputs, or a
 * run's records a shell glob put there (`-o runs/*.jsonl` makes the first
 * file the output). Writing would lose them, and no report or page starts
 * with `{` or `[`.
 * @param {Node} node
 * @param {string} flag
 * @param {string} file
 */
export async function notData(node, flag, file) {
  // Its first bytes only: the file may be a run's 100 MB of records.
  const head = new Uint8Array(64);
  let read;
  try {
    const f = await node.fs.open(file, 'r');
    try {
      read = (await f.read(head, 0, head.length, 0)).bytesRead;
    } finally {
      await f.close();
    }
  } catch {
    return; // not there yet (or unreadable, which the write says)
  }
  if (/^\uFEFF?\s*[[{]/.test(new TextDecoder().decode(head.subarray(0, read)))) {
    throw fail('INVALID_ARGUMENT', `${flag} ${file}: the file holds JSON data (records or a batch; one of the inputs?), which writing there would lose; name another file`);
  }
}

/**
 * Makes `dir` and its missing parents one at a time: Node 20's
 * `mkdir(dir, { recursive: true })` never returns under /proc (it retries
 * ENOENT), and a CI job would wait for it until its own timeout.
 * @param {Node} node
 * @param {string} dir
 */
async function mkdirs(node, dir) {
  const missing = [];
  for (let d = dir; ; d = node.path.dirname(d)) {
    try {
      await node.fs.stat(d);
      break;
    } catch {
      missing.push(d);
      if (node.path.dirname(d) === d) break;
    }
  }
  for (const d of missing.reverse()) {
    // Made meanwhile (another output of the same run, into the same new folder): there it is.
    await node.fs.mkdir(d).catch((/** @type {any} */ e) => {
      if (e?.code !== 'EEXIST') throw e;
    });
  }
}

/**
 * What a file holds, by the viewer page's own rule (www/kind.js): a saved
 * batch result ({ runs, ... } or its runs alone), a step export (its
 * steps), or record JSONL (neither). One JSON value that is none of them
 * is refused, said as what it seems to be.
 * @param {string} text
 * @param {string} file where the text is from, for errors
 * @param {'records' | 'steps' | 'json'} [kind] what its head says, when already read
 * @returns {{ batch: { runs: Record<string, any>[] } } | { steps: unknown[], bad: { line: number, message: string }[] } | null}
 */
export function kindOf(text, file, kind = headKind(text.slice(0, 65536))) {
  if (kind === 'json') {
    let whole;
    try {
      whole = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (e) {
      // An array, or an object written over many lines (a record's line is never `{` alone),
      // is one JSON value: say where it breaks, not that each of its lines is a bad record.
      const one = /^\uFEFF?\s*(\[|\{\s*\n)/.exec(text);
      if (one) throw fail('INVALID_ARGUMENT', `${file}: not a JSON ${one[1] === '[' ? 'array' : 'object'}: ${why(e)}`, e);
      return null; // Not one JSON value: read as JSONL, which names the bad line.
    }
    const value = jsonKind(whole);
    if (value) return 'steps' in value ? { steps: value.steps, bad: [] } : value;
    if (whole?.runs !== undefined) return null; // a batch whose runs are not a list: judgeRuns says so
    // One JSON value that holds no runs (package.json, writeArtifacts' trajectory.meta.json, a run's result): said as what it is.
    const array = Array.isArray(whole);
    const like = array && whole.some((/** @type {unknown} */ r) => r !== null && typeof r === 'object' && 'payload' in r)
      ? ': records in one array, it seems; write one per line (serializeTrajectoryJsonl)'
      : Array.isArray(whole?.steps) ? ': a run\'s result, it seems; save toJSONL(result) as lines (as writeArtifacts\' conversation.jsonl), or the batch' : '';
    throw fail('INVALID_ARGUMENT', `${file}: one JSON ${array ? 'array' : 'value'} that holds no runs${like} (expected record JSONL, a step export or a saved batch result)`);
  }
  return kind === 'records' ? null : stepLines(text);
}

/**
 * What a file's bytes hold (kindOf), read once for report and compare.
 * Record JSONL, the usual input, is told apart from its first 64 KB and
 * not decoded: null.
 * @param {string} file
 * @param {Uint8Array} bytes
 */
export function fileKind(file, bytes) {
  const kind = headKind(new TextDecoder().decode(bytes.subarray(0, 65536)));
  return kind === 'records' ? null : kindOf(new TextDecoder().decode(bytes), file, kind);
}

/**
 * What report and compare judge of a file: a step export becomes the records
 * it stands for (the core's stepsToJsonl, as the page reads it); anything
 * else is read as it is. A step line that is not JSON fails, naming it.
 * @param {string} file
 * @param {Uint8Array} bytes
 * @param {ReturnType<typeof fileKind>} kind what fileKind read of the bytes
 * @returns {Uint8Array | string}
 */
export function recordsOf(file, bytes, kind) {
  if (!kind || !('steps' in kind)) return bytes;
  const [bad] = kind.bad;
  if (bad) throw Object.assign(fail('JSONL_PARSE', `${file}: line ${bad.line}: ${bad.message}`), { line: bad.line });
  // Steps that name no run (a saved stepTraces.json) are the file's run, so two files are two runs.
  const steps = kind.steps.map((s) => (s !== null && typeof s === 'object' && !('conversationId' in s) ? { ...s, conversationId: file } : s));
  try {
    return glue.stepsToJsonl(steps);
  } catch (e) {
    throw fail(ours(e) ? e.code : 'INVALID_ARGUMENT', `${file}: not a step export: ${why(e)}`, e);
  }
}

