// Every runtime-agnostic suite, by name. Consumers in Node, Chromium and
// workerd run all of them against the installed tarball.
import { checks as capture } from './capture-scenario.mjs';
import { checks as observe } from './observe-scenario.mjs';
import { checks as generate } from './generate-scenario.mjs';
import { inputChecks as generateInput } from './generate-input-scenario.mjs';
import { checks as models } from './models-scenario.mjs';
import { checks as background } from './background-scenario.mjs';
import { checks as simulation, batchChecks as batch, replayChecks as replay } from './simulation-scenario.mjs';
import { forkChecks as fork } from './fork-scenario.mjs';
import { recordChecks as records } from './records-scenario.mjs';
import { judgeChecks as judge } from './judge-scenario.mjs';

export const suites = { capture, observe, generate, 'generate input': generateInput, models, background, simulation, batch, replay, fork, records, judge };

// A suite that exports no checks (a renamed export, an emptied object) would
// pass in every host without running anything: refuse it when loading.
for (const [suite, checks] of Object.entries(suites)) {
  if (!checks || typeof checks !== 'object' || !Object.keys(checks).length || !Object.values(checks).every((c) => typeof c === 'function')) {
    throw new Error(`scenarios.mjs: suite "${suite}" exports no checks (or a check that is not a function)`);
  }
}

/**
 * Every check's result name, `suite: name`, in the order runScenario runs
 * them: a host that runs the scenarios elsewhere (a page, a Worker) compares
 * the names it got back with these, so a missing or empty result fails.
 */
export const checkNames = Object.entries(suites).flatMap(([suite, checks]) => Object.keys(checks).map((name) => `${suite}: ${name}`));

/** Runs every check of every suite; never throws. */
export async function runScenario(at) {
  const results = [];
  for (const [suite, checks] of Object.entries(suites)) {
    for (const [name, check] of Object.entries(checks)) {
      try {
        await check(at);
        results.push({ name: `${suite}: ${name}`, ok: true });
      } catch (err) {
        results.push({ name: `${suite}: ${name}`, ok: false, message: String(err?.stack ?? err) });
      }
    }
  }
  return results;
}
