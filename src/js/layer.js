// The JS layer as the main entries (node.mjs, web.js, workerd.js) export
// it, beside the glue's own exports. scripts/assemble.mjs reads this list
// and defines each name in every main entry.

export { runTrajectory, DefaultPolicy, toArtifacts, withAISdkAgent, fromAISdkModel } from './generate.js';
export { withMastraAgent, fromOpenAIChat } from './models.js';
export { recordingModel, replayModel, modelRequestKey } from './model-replay.js';
export { recordingAgent, replayAgent } from './agent-replay.js';
export { observeAISdk, trajectoryMiddleware } from './ai-sdk.js';
export { observeMastra } from './mastra.js';
export { BackgroundAgentRunner } from './background.js';
export { TrajectoryIndex } from './trajectory-index.js';
export { runTrajectories, trajectoryMatrix, summarizeBatch } from './batch.js';
export { matchTrajectory, checkRun, compareBatches, judge } from './judge.js';
