// The observe side and the index as a strict harness writes them: values
// that may be undefined, readonly (`as const`) lists, a payload's optional
// fields given as undefined. Compiled with the other files here; run by
// defaults.test.mjs.
import { MemorySink, ObserverPipeline, TrajectoryIndex, TrajectoryRecorder, serializeTrajectoryJsonl, type ModelMessageInput } from 'agent-trajectories';

const POLLING = ['check_job'] as const;
const SCOPE = ['src'] as const;
const KINDS = ['tool_ended'] as const;

export function observeAndIndex(failures: readonly (string | undefined)[]): { context: string; ended: number; injected: number; jsonl: string } {
  const pipeline = new ObserverPipeline({
    observers: [
      { observer: 'stall', trigger: { onEveryCall: true }, options: { pollingTools: POLLING, repeatThreshold: 2 } },
      { observer: 'drift', trigger: { onEveryCall: true }, options: { scope: SCOPE } },
    ],
    clock: () => 1_700_000_000_000,
  });
  for (const error of failures) pipeline.recordToolCall({ toolName: 'read_file', params: { path: 'src/a.rs' }, success: error === undefined, errorMessage: error });
  const history: readonly ModelMessageInput[] = [{ role: 'user', content: 'Fix it.' }];
  const injected = pipeline.injectInto(history).length;
  const context = pipeline.context();
  pipeline.free();

  const sink = new MemorySink();
  const rec = new TrajectoryRecorder(sink, { runId: 'r', clock: () => 0 });
  const reason: string | undefined = failures.length > 2 ? undefined : 'short';
  rec.record({ kind: 'run_started', identity: { run_id: 'r', agent: undefined } });
  rec.record({ kind: 'turn_started', turn_index: undefined });
  rec.record({ kind: 'tool_started', tool_call_id: 'c', tool_name: 't' });
  rec.record({ kind: 'tool_ended', tool_call_id: 'c', tool_name: 't', result: 'no', is_error: true });
  rec.record({ kind: 'run_ended', outcome: { status: 'completed', reason } });
  const records = sink.records();
  const jsonl = serializeTrajectoryJsonl(records);
  const index = TrajectoryIndex.fromJsonl(jsonl);
  const errorsOnly: boolean | undefined = failures.length > 0 ? true : undefined;
  const ended = index.filter({ kind: KINDS, errorsOnly }).length;
  index.free();
  return { context, ended, injected, jsonl };
}
