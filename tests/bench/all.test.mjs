// The benchmarks, as a smoke run: `node tests/bench/all.mjs --quick` runs
// every bench at a small size against the built package and prints its one
// table. Timings are not judged here (benchmarks measure speed, tests do
// not); what is checked is that every hot path still runs and reports a
// row with its target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

test('every benchmark runs and reports its rows in one table', () => {
  const out = execFileSync(process.execPath, ['tests/bench/all.mjs', '--quick'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const rows = out.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| path'));
  for (const path of ['record() from JS', 'parseTrajectoryJsonl', 'TrajectoryIndex.fromJsonl(text)', 'TrajectoryIndex.fromJsonl(bytes)', 'recordToolCall', 'pipeline snapshot',
    'generation per turn, plain', 'generation per turn, tools', 'a record the core makes', 'parseTrajectoryJsonl lenient', 'TrajectoryIndex search(text)',
    'TrajectoryIndex search(RegExp)', 'TrajectoryIndex filter', 'runTrajectories', 'background loop', 'cold start']) {
    assert.ok(rows.some((r) => r.startsWith(`| ${path}`)), `no row for ${path}:\n${out}`);
  }
  // Every row names its numbers: a value, and a baseline or a target. (A
  // difference of two times, as the batch's own cost, may come out below
  // zero at smoke sizes: noise, shown as measured.)
  for (const r of rows) assert.match(r, /^\| [^|]+ \| -?[\d.]+ [^|]+ \| /, r);
  assert.match(out, /\d+ of \d+ targets met\./);
});
