// An uncaught package error in Node prints the source line of its throw
// site. The minified files break lines, so that is a short line, not the
// whole 24 KB glue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const cases = [
  ['a glue error, ESM', 'module', "import { parseTrajectoryJsonl } from 'agent-trajectories'; parseTrajectoryJsonl('not json\\n');", /JSONL|invalid JSON/],
  ['a JS-layer error, ESM', 'module', "import { withMastraAgent } from 'agent-trajectories'; withMastraAgent({});", /withMastraAgent needs/],
  ['a glue error, CommonJS', 'commonjs', "const { TrajectoryRecorder } = require('agent-trajectories'); new TrajectoryRecorder({});", /sink must be/],
];

for (const [name, type, code, message] of cases) {
  test(`uncaught: ${name} prints a few short lines`, () => {
    const r = spawnSync(process.execPath, [`--input-type=${type}`, '-e', code], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /AgentTrajectoriesError/);
    assert.match(r.stderr, message);
    const longest = Math.max(...r.stderr.split('\n').map((l) => l.length));
    assert.ok(longest <= 400, `longest stderr line: ${longest} characters`);
    assert.ok(r.stderr.length <= 3000, `stderr: ${r.stderr.length} characters`);
  });
}
