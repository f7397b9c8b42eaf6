// Node ESM consumer: `import` of the installed tarball.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as at from 'agent-trajectories';
import { suites } from '../../js/scenarios.mjs';

test('import resolves the node ESM entry, ready without init()', async () => {
  assert.match(import.meta.resolve('agent-trajectories'), /\/node_modules\/agent-trajectories\/node\.mjs$/);
  await at.init(); // a no-op here, kept for code shared with browsers
  assert.equal(new at.MemorySink().length, 0);
});

for (const [suite, checks] of Object.entries(suites)) {
  for (const [name, check] of Object.entries(checks)) test(`${suite}: ${name}`, () => check(at));
}
