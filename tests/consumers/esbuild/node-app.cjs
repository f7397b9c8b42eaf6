// The CommonJS twin of node-app.mjs.
const { TrajectoryRecorder, MemorySink, withAISdkAgent, writeArtifacts } = require('agent-trajectories');

const sink = new MemorySink();
new TrajectoryRecorder(sink).record({ kind: 'run_started', identity: { run_id: 'node-bundle' } });
const agent = withAISdkAgent({ model: { doGenerate: async () => ({}) } });
agent.respond([{ role: 'user', content: 'hi' }]).then(() => 'no error', (e) => `${e.code}: ${e.message}`)
  .then((error) => console.log(JSON.stringify({ records: sink.length, writeArtifacts: typeof writeArtifacts, error })));
