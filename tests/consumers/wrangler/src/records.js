// A Worker using only what the entry takes from the glue (the README's
// Workers quickstart): the case where a bundler that follows re-exports past
// a `sideEffects: false` entry would skip its initSync.
import { TrajectoryRecorder, MemorySink } from 'agent-trajectories';

export default {
  async fetch(request) {
    const sink = new MemorySink();
    const recorder = new TrajectoryRecorder(sink, { clock: () => Date.now() });
    recorder.record({ kind: 'run_started', identity: { run_id: 'edge' } });
    recorder.record({ kind: 'custom', name: 'request', data: { url: request.url } });
    return Response.json({ kinds: sink.records().map((r) => r.payload.kind) });
  },
};
