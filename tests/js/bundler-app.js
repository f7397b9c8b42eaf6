// The minimal browser app the bundler suites build (Vite, esbuild): a bare
// import of the package, `await init()`, a recorded and observed run, and
// the AI SDK adapters used without `ai` installed. Reports to
// window.__result. No top-level await: Vite 6's default targets refuse it.
import {
  init, TrajectoryRecorder, MemorySink, ObserverPipeline, createTrajectory, runTrajectory, toJSONL,
  withAISdkAgent, fromAISdkModel,
} from 'agent-trajectories';
import { viewerHtml } from 'agent-trajectories/viewer';

const codeOf = (fn) => {
  try { fn(); return 'no error'; } catch (e) { return `${e.code}: ${e.message}`; }
};

async function main() {
  await init();

  const sink = new MemorySink();
  const recorder = new TrajectoryRecorder(sink, { clock: () => 1_767_225_600_000 });
  recorder.record({ kind: 'run_started', identity: { run_id: 'bundled' } });
  recorder.record({ kind: 'tool_started', tool_call_id: 'c1', tool_name: 'run_tests', args: { path: 'a' } });

  const pipeline = new ObserverPipeline({ clock: () => 0, observers: [{ observer: 'stall', trigger: { onEveryCall: true } }] });
  let assessment;
  for (let i = 0; i < 4; i++) {
    assessment = pipeline.recordToolCall({ toolName: 'run_tests', params: { path: 'a' }, success: false, errorMessage: 'exit 1' }) ?? assessment;
  }

  // An AI SDK Agent object needs nothing from `ai`.
  const agent = withAISdkAgent({ generate: async ({ messages }) => ({ text: `seen ${messages.length}` }) });
  const trajectory = createTrajectory({
    goal: 'say hi', persona: { description: 'terse' },
    steps: { steps: [{ id: 'hi', instruction: 'say hi' }], start: 'hi', terminals: ['hi'] },
  }, agent);
  const result = await runTrajectory(trajectory, { userModel: async () => 'hello', clock: () => 0 });

  // Without `ai` (or generateText passed in), the adapters that call it refuse at once.
  const fakeModel = { specificationVersion: 'v3', doGenerate: async () => ({}) };
  let userModelError = 'no error';
  await runTrajectory(trajectory, { userModel: fakeModel }).catch((e) => { userModelError = `${e.code}: ${e.message}`; });

  // The viewer entry bundles without breaking the app (Vite once made its
  // file reads a glob over the package); it reads the package's files from
  // beside viewer.js, which a bundle does not serve (and a dev server answers
  // its fallback page for): NOT_INITIALIZED, saying what to do.
  const viewer = await viewerHtml({ records: sink.records() }).then(() => 'html', (e) => e.code);

  return {
    viewer,
    records: sink.length,
    kinds: sink.records().map((r) => r.payload.kind),
    observed: assessment?.assessments.map((a) => a.observerName) ?? [],
    end: result.end.reason,
    lines: toJSONL(result).length,
    agentAnswer: result.steps[0].agentMessages[0].content,
    configError: codeOf(() => withAISdkAgent({ model: fakeModel })),
    modelError: codeOf(() => fromAISdkModel(fakeModel)),
    userModelError,
    injected: codeOf(() => withAISdkAgent({ model: fakeModel, generateText: async () => ({ text: '' }) })),
  };
}

main().then(
  (result) => { window.__result = result; },
  (e) => { window.__result = { error: String(e?.stack ?? e) }; },
);
