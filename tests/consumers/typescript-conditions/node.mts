// What a Node ESM project sees: writeArtifacts too.
import { writeArtifacts, type Trajectory, type TrajectoryResult } from 'agent-trajectories';
import { withAISdkAgent } from 'agent-trajectories/ai';

declare const result: TrajectoryResult;
declare const def: Trajectory;
export const written: Promise<string[]> = writeArtifacts('out', result, def);
export const agent = withAISdkAgent({ model: {} });
