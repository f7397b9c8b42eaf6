// A CommonJS TypeScript project: resolves the `require` types (index.d.cts),
// compiles to require() calls, and runs against node.cjs.
import { MemorySink, ObserverPipeline, TrajectoryRecorder, TRAJECTORY_SCHEMA_VERSION, type TrajectoryRecord } from 'agent-trajectories';

declare const console: { log(...values: unknown[]): void };

const sink = new MemorySink();
const recorder = new TrajectoryRecorder(sink, { clock: () => 1_700_000_000_000, runId: 'cjs' });
recorder.record({ kind: 'turn_started', turn_index: 0 });
const records: TrajectoryRecord[] = sink.records();

const pipeline = new ObserverPipeline({ observers: [{ observer: 'resources', trigger: { afterConsecutiveErrors: 1 } }] });
const produced = pipeline.recordToolCall({ toolName: 'build', success: false, errorMessage: 'exit 2' });
const version: 1 = TRAJECTORY_SCHEMA_VERSION;

console.log(JSON.stringify({ seq: records[0]?.seq, run: records[0]?.run_id, observed: produced?.assessments.length ?? 0, version }));
