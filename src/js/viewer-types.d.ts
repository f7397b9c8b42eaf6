/**
 * A run for the one-file viewer: record JSONL (or a step JSONL /
 * stepTraces.json), the records themselves, or a saved batch's JSON
 * (`{ name: 'batch.json', text: JSON.stringify(await runTrajectories(...)) }`:
 * each of its runs, and the batch beside another one).
 */
export type ViewerRun =
  | string
  | Uint8Array
  | { name?: string; text: string | Uint8Array }
  | { name?: string; records: readonly object[] };

export interface ViewerOptions {
  /** The page title (default "agent-trajectories · run viewer"). */
  title?: string | undefined;
}

/**
 * The run viewer as one self-contained HTML file (its script and styles, the
 * package's modules and WebAssembly inlined) with `runs` in it: it opens from
 * `file://` with no server and no network. `runs` is one run, an array of
 * runs, or the records of one run; `[]` gives the viewer alone.
 */
export function viewerHtml(runs: ViewerRun | readonly ViewerRun[] | readonly object[], options?: ViewerOptions): Promise<string>;

/** Writes {@link viewerHtml} to `file` (Node only); resolves with the path. */
export function writeViewerHtml(file: string, runs: ViewerRun | readonly ViewerRun[] | readonly object[], options?: ViewerOptions): Promise<string>;
