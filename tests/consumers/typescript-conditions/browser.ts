// What a browser, bundler or Worker project sees: everything but Node's
// writeArtifacts, and the AI SDK adapters from agent-trajectories/ai.
import { init, runTrajectory, withAISdkAgent, type Model } from 'agent-trajectories';
import * as ai from 'agent-trajectories/ai';
// @ts-expect-error writeArtifacts exists only in Node's entry
import { writeArtifacts } from 'agent-trajectories';

declare const languageModel: { specificationVersion: 'v3'; doGenerate(options: never): Promise<unknown> };
const model: Model = ai.fromAISdkModel(languageModel);
export const used = [init, runTrajectory, withAISdkAgent, ai.withAISdkAgent({ model: {} }), model, writeArtifacts];
