import { TrajectoryRecorder, MemorySink } from './node_modules/agent-trajectories/workerd.js';

export default {
  async fetch(request) {
    const sink = new MemorySink();
    // Workers freeze Date.now() between I/O; inject the clock you trust.
    const recorder = new TrajectoryRecorder(sink, { clock: () => Date.now() });
    recorder.record({ kind: 'run_started', identity: { run_id: 'edge-run' } });
    recorder.record({ kind: 'custom', name: 'request', data: { url: request.url } });
    return new Response(sink.toJsonl(), { headers: { 'content-type': 'application/x-ndjson' } });
  },
};
// responds: "run_id":"edge-run"
