// Each line below must be a type error. If the public types degraded to
// `any`, these directives would be unused and tsc would fail.
import { TrajectoryRecorder, MemorySink, parseTrajectoryJsonl } from 'agent-trajectories';

const rec = new TrajectoryRecorder(new MemorySink());
// @ts-expect-error unknown payload kind
rec.record({ kind: 'no_such_kind' });
// @ts-expect-error tool_ended needs is_error
rec.record({ kind: 'tool_ended', tool_call_id: 'c', tool_name: 't' });
// @ts-expect-error the policy is 'drop' or 'fail'
new TrajectoryRecorder(new MemorySink(), { onSinkError: 'retry' });
// @ts-expect-error a sink needs record()
new TrajectoryRecorder({ write() {} });
// @ts-expect-error strict parse returns records, not { records, errors }
parseTrajectoryJsonl('').errors;
// @ts-expect-error seq is a number
const s: string = rec.record({ kind: 'turn_started' });
export { s };

import { ObserverPipeline } from 'agent-trajectories';
// @ts-expect-error drift needs options with a scope
new ObserverPipeline({ observers: [{ observer: 'drift', trigger: { everyNCalls: 1 } }] });
// @ts-expect-error unknown built-in observer
new ObserverPipeline({ observers: [{ observer: 'stal', trigger: { everyNCalls: 1 } }] });
const pl = new ObserverPipeline({ observers: [] });
// @ts-expect-error success is required
pl.recordToolCall({ toolName: 'x' });
// @ts-expect-error severity is a fixed set
pl.recordToolCall({ toolName: 'x', success: true })?.assessments[0]?.severity === 'fatal';
