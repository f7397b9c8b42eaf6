// Bundled with esbuild --platform=node where `ai` is not installed: Node's
// entry must not make the bundler resolve `ai`. Prints what it saw.
import { TrajectoryRecorder, MemorySink, withAISdkAgent, writeArtifacts } from 'agent-trajectories';

const sink = new MemorySink();
new TrajectoryRecorder(sink).record({ kind: 'run_started', identity: { run_id: 'node-bundle' } });
// Node may still load `ai` by name at run time; without it, a coded error.
const agent = withAISdkAgent({ model: { doGenerate: async () => ({}) } });
const error = await agent.respond([{ role: 'user', content: 'hi' }]).then(() => 'no error', (e) => `${e.code}: ${e.message}`);
console.log(JSON.stringify({ records: sink.length, writeArtifacts: typeof writeArtifacts, error }));
