// What a file of runs holds, told apart by its content: the one rule the
// viewer page (load.js) and the `agent-trajectories view` command share,
// so that the command refuses no file the page shows.
//
// - Record JSONL: a record per line (its first line has a `payload`).
// - A step export: `toJSONL`'s lines (`conversation.jsonl` of
//   writeArtifacts: a `stepIndex`, no `payload`), or `result.steps` saved
//   as one JSON array (stepTraces.json).
// - A saved batch: a runTrajectories result as one JSON value (`{ runs }`),
//   or its runs alone (an array of runs, each with its `verdict`).

/**
 * A step of an export: a trace (`userMessage`) or a `toJSONL` line (`stepIndex`).
 * @param {unknown} s
 */
const isStep = (s) => s !== null && typeof s === 'object' && ('stepIndex' in s || 'userMessage' in s);

/**
 * A file's kind from its first bytes (its head: 64 KB is plenty). 'json'
 * means one JSON value over the whole file: read it with `jsonKind`. A
 * record file is never parsed whole here (it may be 100 MB).
 * @param {string} head
 * @returns {'records' | 'steps' | 'json'}
 */
export function headKind(head) {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  /** @type {unknown} */
  let first;
  try {
    first = JSON.parse(text.slice(0, text.indexOf('\n') >>> 0));
  } catch {
    // Not one value on line 1: a value written over many lines, or not JSON (the index says which line).
    return /^[[{]/.test(text) ? 'json' : 'records';
  }
  if (Array.isArray(first)) return 'json';
  if (first === null || typeof first !== 'object' || 'payload' in first) return 'records';
  if (isStep(first)) return 'steps';
  // A `runs` key makes it a batch (its runs read, or refused as not a list), never a record.
  return 'runs' in first ? 'json' : 'records';
}

/**
 * What a file that is one JSON value holds: a batch (`{ runs }`, or its
 * runs alone), step traces (an array of steps only), or null for anything else.
 * @param {unknown} value
 * @returns {{ batch: { runs: any[] } } | { steps: any[] } | null}
 */
export function jsonKind(value) {
  if (Array.isArray(value)) {
    const isRun = (/** @type {unknown} */ r) => r !== null && typeof r === 'object' && !Array.isArray(r) && 'verdict' in r;
    if (value.every(isRun)) return { batch: { runs: value } };
    // Anything else (numbers, chat messages) is no step export: read as records, it is refused by its line.
    return value.every(isStep) ? { steps: value } : null;
  }
  const runs = value !== null && typeof value === 'object' ? /** @type {{ runs?: unknown }} */ (value).runs : undefined;
  return Array.isArray(runs) ? { batch: /** @type {{ runs: any[] }} */ (value) } : null;
}

/**
 * A step export's lines (`toJSONL`'s) read: its steps, and each line that
 * is not JSON, by number, with `JSON.parse`'s message. Blank lines are
 * skipped.
 * @param {string} text
 * @returns {{ steps: unknown[], bad: { line: number, message: string }[] }}
 */
export function stepLines(text) {
  /** @type {unknown[]} */
  const steps = [];
  /** @type {{ line: number, message: string }[]} */
  const bad = [];
  text.split('\n').forEach((l, k) => {
    if (!l.trim()) return;
    try {
      steps.push(JSON.parse(l));
    } catch (e) {
      bad.push({ line: k + 1, message: /** @type {Error} */ (e).message });
    }
  });
  return { steps, bad };
}
