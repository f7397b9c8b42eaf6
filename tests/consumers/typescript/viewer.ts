// The viewer entry and TrajectoryIndex as a strict TypeScript user writes them.
import { viewerHtml, writeViewerHtml, type ViewerRun } from 'agent-trajectories/viewer';
import { TrajectoryIndex, type IndexedRun, type IndexHits } from 'agent-trajectories';

declare const console: { log(...values: unknown[]): void };

const text = '{"schema_version":1,"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"run_started"}}';
const index = TrajectoryIndex.fromJsonl(text);
const runs: IndexedRun[] = index.runs();
const hits: IndexHits = index.search('run');
index.free();

const one: ViewerRun = { name: 'a.jsonl', text };
const html: Promise<string> = viewerHtml([one, { records: [JSON.parse(text)] }], { title: 'bug 42' });
const path: Promise<string> = writeViewerHtml('bug-42.html', text);
// @ts-expect-error: a run is text, bytes, { name?, text } or { name?, records }
void viewerHtml({ lines: [] });
// @ts-expect-error: options are { title? }
void viewerHtml([], { titel: 'x' });
console.log(runs.length, hits.count, html, path);
