// Compiled with `tsc --strict --noEmit` against the installed tarball's types:
// a consumer that uses the API as documented must compile cleanly, without
// DOM or Node typings.
import {
  init,
  JsonlSink,
  MemorySink,
  TrajectoryRecorder,
  parseTrajectoryJsonl,
  serializeTrajectoryJsonl,
  normalizeMessages,
  trajectorySchemaVersion,
  TRAJECTORY_SCHEMA_VERSION,
  type AgentTrajectoriesError,
  type ErrorCode,
  type ModelMessage,
  type Sink,
  type TrajectoryPayload,
  type TrajectoryRecord,
} from 'agent-trajectories';

// Neither DOM nor Node typings: only what the package itself declares.
declare const console: { log(...values: unknown[]): void };

await init();

const seen: TrajectoryRecord[] = [];
const jsSink: Sink = { record: (r) => { seen.push(r); } };
const asyncSink: Sink = { record: async (r) => { seen.push(r); } };

const rec = new TrajectoryRecorder(jsSink, {
  clock: () => 1_700_000_000_000,
  onSinkError: 'drop',
  onError: (error: AgentTrajectoriesError, record: TrajectoryRecord) => {
    const code: ErrorCode = error.code;
    console.log(code, record.seq);
  },
});
const payload: TrajectoryPayload = { kind: 'run_started', identity: { run_id: 'r1' } };
const seq: number = rec.record(payload);
const child: TrajectoryRecorder = rec.child('sub');
child.record({ kind: 'tool_started', tool_call_id: 'c1', tool_name: 'ls', args: { dir: '/' } });
const unnamed: TrajectoryRecorder = rec.child(); // the run id is optional, as the README shows
unnamed.free();
await rec.flush();
new TrajectoryRecorder(asyncSink).record({ kind: 'turn_started' });

for (const r of seen) {
  // Narrowing on `kind` gives each payload's own fields.
  if (r.payload.kind === 'tool_started') console.log(r.payload.tool_name.toUpperCase(), r.seq + seq);
}

const mem = new MemorySink();
const lines = new JsonlSink((line: string) => { console.log(line.length); });
new TrajectoryRecorder(mem).record({ kind: 'custom', name: 'x', data: { nested: [1, 'two', null] } });
new TrajectoryRecorder(lines).record({ kind: 'turn_started', turn_index: 0 });
const back: TrajectoryRecord[] = parseTrajectoryJsonl(serializeTrajectoryJsonl(mem.records()));
const lenient = parseTrajectoryJsonl(mem.toJsonl(), { lenient: true });
const firstBadLine: number | undefined = lenient.errors[0]?.line;
// Lenient or not as a boolean says at run time: either result.
const either: TrajectoryRecord[] | { records: TrajectoryRecord[] } = parseTrajectoryJsonl(mem.toJsonl(), { lenient: Math.random() > 2 });
console.log(Array.isArray(either));
const messages: ModelMessage[] = normalizeMessages([{ role: 'user', content: 'hi' }]);
const version: number = trajectorySchemaVersion();
const pinned: 1 = TRAJECTORY_SCHEMA_VERSION;
console.log(pinned);
console.log(back.length, firstBadLine, messages[0]?.role, version);

try {
  parseTrajectoryJsonl('{');
} catch (e) {
  const err = e as AgentTrajectoriesError;
  if (err.code === 'JSONL_PARSE') console.log(err.line);
  const cause: unknown = err.cause;
  console.log(cause);
}

{
  using disposable = new MemorySink();
  console.log(disposable.length);
}

// ---- observe ----
import {
  ObserverPipeline,
  type Assessment,
  type CurrentAssessment,
  type CustomObserver,
  type ObserverConfig,
  type PipelineSnapshot,
  type ToolCallRecord,
} from 'agent-trajectories';

const mine: CustomObserver = {
  name: 'Error Budget',
  shouldRun: (ctx) => ctx.state.toolCallsSinceAssessment > 2,
  observe(ctx) {
    const recent: ToolCallRecord[] = ctx.recentToolCalls(5);
    return { summary: `${recent.length} calls, ${ctx.errorRate(5)} failed`, severity: 'info' };
  },
};
const configs: ObserverConfig[] = [
  { observer: 'resources', trigger: { everyNCalls: 10 }, options: { cautionThreshold: 0.4 } },
  { observer: 'stall', trigger: { onEveryCall: true }, options: { pollingTools: ['wait'] } },
  { observer: 'drift', trigger: { everyNSeconds: 30 }, options: { scope: ['src/'] } },
  { observer: mine, trigger: { afterConsecutiveErrors: 2 } },
];
const pipeline = new ObserverPipeline({ observers: configs, budget: { maxTokens: 1000 }, recorder: rec, onError: (e, name) => console.log(e.code, name) });
const produced: CurrentAssessment | undefined = pipeline.recordToolCall({ toolName: 'ls', params: { dir: '.' }, success: true });
const first: Assessment | undefined = produced?.assessments[0];
pipeline.recordTokens(10);
const injected: ModelMessage[] = pipeline.injectInto([{ role: 'user', content: 'go' }], { position: 'after-system' });
const snap: PipelineSnapshot = pipeline.snapshot();
const again: ObserverPipeline = ObserverPipeline.restore(snap, { observers: configs });
console.log(first?.severity, injected.length, again.callCount, pipeline.context().length, pipeline.state.totalAssessments);
