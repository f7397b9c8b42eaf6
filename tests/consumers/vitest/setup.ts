// vitest's setupFiles: importing the entry extends `expect` with the
// matchers, and (for tsc) brings in their types.
import 'agent-trajectories/vitest';
