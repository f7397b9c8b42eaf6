// What a file of runs holds (www/kind.js), the one rule the viewer page and
// the `agent-trajectories` command share: told apart by content.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headKind, jsonKind } from '../../www/kind.js';

const record = JSON.stringify({ schema_version: 1, seq: 0, run_id: 'r', depth: 0, recorded_at_unix_ms: 1, payload: { kind: 'run_started' } });
const trace = { turnIndex: 0, userMessage: { role: 'user', content: 'hi' }, agentMessages: [] };
const line = { conversationId: 'c', stepIndex: 0, input: {}, output: [] };

test('headKind: record JSONL, step lines, and one JSON value', () => {
  assert.equal(headKind(`${record}\n${record}`), 'records');
  assert.equal(headKind(`${JSON.stringify(line)}\n`), 'steps');
  assert.equal(headKind(JSON.stringify([trace], null, 2)), 'json');
  assert.equal(headKind(JSON.stringify({ runs: [] }, null, 2)), 'json');
  assert.equal(headKind('not json at all'), 'records', 'read as records: the index names the bad line');
});

test('jsonKind: a batch, its runs alone, step traces; anything else is no step export', () => {
  assert.deepEqual(jsonKind({ runs: [] }), { batch: { runs: [] } });
  assert.deepEqual(jsonKind([{ id: 'a', verdict: 'pass' }]), { batch: { runs: [{ id: 'a', verdict: 'pass' }] } });
  assert.deepEqual(jsonKind([trace, line]), { steps: [trace, line] });
  // Numbers, chat messages, empty objects: read as records, each refused by its line.
  for (const other of [[1, 2, { a: 3 }], [{ role: 'user', content: 'hi' }], [{}], { a: 1 }]) assert.equal(jsonKind(other), null, JSON.stringify(other));
});
