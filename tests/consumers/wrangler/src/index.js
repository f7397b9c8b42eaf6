// A Worker importing the package by its bare name, bundled by wrangler
// (which picks workerd.js through the "workerd" condition) where `ai` is not
// installed. Answers with what it saw, as JSON.
import { TrajectoryRecorder, MemorySink, ObserverPipeline, createTrajectory, runTrajectory, withAISdkAgent } from 'agent-trajectories';

const codeOf = (fn) => {
  try { fn(); return 'no error'; } catch (e) { return `${e.code}: ${e.message}`; }
};

export default {
  async fetch(request) {
    const sink = new MemorySink();
    // Workers freeze Date.now() between I/O; the clock is injected.
    const recorder = new TrajectoryRecorder(sink, { clock: () => Date.now() });
    recorder.record({ kind: 'run_started', identity: { run_id: 'edge' } });
    recorder.record({ kind: 'custom', name: 'request', data: { url: request.url } });

    const pipeline = new ObserverPipeline({ clock: () => 0, observers: [{ observer: 'error-cascade', trigger: { afterConsecutiveErrors: 3 } }] });
    let observed;
    for (let i = 0; i < 3; i++) observed = pipeline.recordToolCall({ toolName: 'deploy', success: false, errorMessage: `timeout ${i}` }) ?? observed;

    const agent = withAISdkAgent({ generate: async () => ({ text: 'hello from the edge' }) });
    const trajectory = createTrajectory({
      goal: 'greet', persona: { description: 'terse' },
      steps: { steps: [{ id: 'hi', instruction: 'say hi' }], start: 'hi', terminals: ['hi'] },
    }, agent);
    const result = await runTrajectory(trajectory, { userModel: async () => 'hi', clock: () => 0 });

    return Response.json({
      kinds: sink.records().map((r) => r.payload.kind),
      observed: observed?.assessments.map((a) => a.observerName) ?? [],
      end: result.end.reason,
      answer: result.steps[0].agentMessages[0].content,
      configError: codeOf(() => withAISdkAgent({ model: { doGenerate: async () => ({}) } })),
    });
  },
};
