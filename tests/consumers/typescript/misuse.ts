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
