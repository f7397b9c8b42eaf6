// One nearest-word rule: src/js/nearest.js (for the command line and the
// reports, which check their words without the module's internals) answers
// as the core's `options::nearest` does, which the package's option checks
// use (through the tarball's module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nearest } from '../../src/js/nearest.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const installed = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');
await import(pathToFileURL(join(installed, 'node.mjs')).href); // initializes the module
const glue = await import(pathToFileURL(join(installed, 'agent_trajectories.js')).href);

/** The core's answer: the name its unknown-option message suggests, if any. */
function core(word, names) {
  try {
    glue.__checkOptions({ [word]: 1 }, names, 'o');
  } catch (e) {
    return /did you mean "([^"]*)"\?/.exec(e.message)?.[1];
  }
  return word; // a valid name
}

const NAMES = {
  run: ['userModel', 'observers', 'onSinkError', 'maxTurns', 'sink', 'clock', 'signal', 'judge'],
  report: ['info', 'warning', 'error', 'critical'],
  commands: ['report', 'compare', 'view', 'output', 'junit', 'github', 'title', 'fail-on', 'json'],
  words: ['retries', 'checks', 'policy', 'tracer', 'content'], // (words of other checks, for more shapes of slip)
};
const WORDS = [
  'maxturns', 'MAXTURNS', 'onSinkErorr', 'observer', 'observerss', 'zzz', 'sinks', 'clk', 'clocks', 'signl', 'jduge', 'judges', 'user',
  'warnning', 'warn', 'err', 'errors', 'critcal', 'inf', 'information', 'Warning',
  'reprot', 'out', 'outputs', 'junit-xml', 'git', 'githib', 'fail_on', 'failon', 'js', 'tit', 'titles', 'compar', 'vew',
  'retry', 'check', 'policies', 'trace', 'tracers', 'contnet', 'conten', 'x', 'tr', 'abcdefghijkl',
];

test('nearest.js names the word the core names, for every slip tried', () => {
  let compared = 0;
  for (const names of Object.values(NAMES)) {
    for (const word of WORDS.filter((w) => !names.includes(w))) {
      assert.equal(nearest(word, names), core(word, names), `${JSON.stringify(word)} among ${names.join(', ')}`);
      compared++;
    }
  }
  assert.ok(compared > 150, `compared ${compared} cases`);
  // Both name something for the slips that matter, so agreeing is not agreeing on nothing.
  assert.equal(nearest('warnning', NAMES.report), 'warning');
  assert.equal(nearest('contnet', NAMES.words), 'content');
  assert.equal(nearest('retry', NAMES.words), 'retries');
  assert.equal(nearest('zzz', NAMES.run), undefined);
});
