// Runs inside workerd. Miniflare does not resolve bare package names, so
// the installed package's workerd entry is imported by its path (a bundler
// such as wrangler picks the same file through the "workerd" condition).
import * as at from './node_modules/agent-trajectories/workerd.js';
import { runScenario } from '../../js/scenarios.mjs';

export default {
  async fetch() {
    return Response.json(await runScenario(at));
  },
};
