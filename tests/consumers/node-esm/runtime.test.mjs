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

test('writeArtifacts: a folder it cannot write rejects with SINK_FAILED, naming the path, the system\'s error as cause', async () => {
  const { mkdtempSync, writeFileSync, readdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'at-artifacts-'));
  const def = { goal: 'say hi', persona: { description: 'a visitor' }, maxTurns: 1 };
  const result = await at.runTrajectory(at.createTrajectory(def, { respond: async () => ({ messages: [{ role: 'assistant', content: 'hi' }] }) }), { userModel: async () => 'hello', clock: () => 0 });
  const written = await at.writeArtifacts(join(dir, 'ok'), result, def);
  assert.deepEqual(readdirSync(join(dir, 'ok')).sort(), written.map((p) => p.slice(join(dir, 'ok').length + 1)).sort());
  writeFileSync(join(dir, 'file'), 'not a folder');
  await assert.rejects(at.writeArtifacts(join(dir, 'file', 'run'), result, def), (e) => {
    assert.equal(e.name, 'AgentTrajectoriesError');
    assert.equal(e.code, 'SINK_FAILED');
    assert.match(e.message, /^writeArtifacts: cannot write .*file[\\/]run: ENOTDIR$/);
    assert.equal(e.cause?.code, 'ENOTDIR');
    return true;
  });
});
