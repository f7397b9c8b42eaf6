// What a Node CommonJS project sees: writeArtifacts too.
import at = require('agent-trajectories');
import ai = require('agent-trajectories/ai');

declare const result: at.TrajectoryResult;
declare const def: at.Trajectory;
export const written: Promise<string[]> = at.writeArtifacts('out', result, def);
export const agent = ai.withAISdkAgent({ model: {} });
