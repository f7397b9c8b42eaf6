// Node CommonJS consumer: `require` of the installed tarball.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const at = require('agent-trajectories');

test('require resolves the CommonJS entry, ready without init()', () => {
  assert.match(require.resolve('agent-trajectories'), /\/node_modules\/agent-trajectories\/node\.cjs$/);
  const rec = new at.TrajectoryRecorder(new at.MemorySink());
  assert.equal(rec.record({ kind: 'turn_started' }), 0);
});

test('scenarios', async (t) => {
  const { suites } = await import('../../js/scenarios.mjs');
  for (const [suite, checks] of Object.entries(suites)) {
    for (const [name, check] of Object.entries(checks)) await t.test(`${suite}: ${name}`, () => check(at));
  }
});
