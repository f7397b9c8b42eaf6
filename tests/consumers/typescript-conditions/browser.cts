// The same seen from a CommonJS file under a bundler's resolution.
import at = require('agent-trajectories');
import ai = require('agent-trajectories/ai');

// @ts-expect-error writeArtifacts exists only in Node's entry
export const missing = at.writeArtifacts;
export const used = [at.init, ai.withAISdkAgent, ai.fromAISdkModel];
