// What node.mjs exports beyond every runtime's API (node.d.mts and
// node.d.cts add it to index.d.ts's).

import type { Trajectory, TrajectoryResult } from './generate-types';

/** Node only: writes toArtifacts(result, def) into `dir` (created if needed); resolves with the written paths. A folder or file it cannot write rejects with `SINK_FAILED`, naming it, the system's error as `cause`. */
export function writeArtifacts(dir: string, result: TrajectoryResult, def: Trajectory): Promise<string[]>;
