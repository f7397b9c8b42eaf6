// Types only (tsc, never run): what the matchers' declarations accept and
// refuse. Each @ts-expect-error line must be an error, or tsc fails.
import { expect } from 'vitest';
import type { TrajectoryResult } from 'agent-trajectories';
import { matchers, type TrajectoryMatchers } from 'agent-trajectories/vitest';
import { judgeModel } from './conversations.js';

export async function typed(run: TrajectoryResult): Promise<void> {
  // Your own expect takes the matchers object as vitest types expect.extend.
  expect.extend(matchers);
  const judged: Promise<void> = expect(run).toPassJudge([{ name: 'booked', description: 'a table was booked' }], { model: judgeModel, runId: 'r' });
  await judged;
  const sync: void = expect(run).toReachGoal();
  const names: (keyof TrajectoryMatchers)[] = ['toReachGoal', 'toPassJudge'];
  expect([sync, names]).toBeDefined();
  expect({ run }).toEqual({ run: expect.toPassChecks({ maxTurns: 3 }) });
  await expect(Promise.resolve(run)).resolves.toReachGoal();

  // @ts-expect-error the judge needs a model
  await expect(run).toPassJudge(['polite']);
  // @ts-expect-error a criterion is a name or { name, description }
  await expect(run).toPassJudge([{ title: 'polite' }], { model: judgeModel });
  // @ts-expect-error the judge is asynchronous, so it is no asymmetric matcher
  expect.toPassJudge(['polite'], { model: judgeModel });
  // @ts-expect-error an expected call is a name or { toolName, input }
  expect(run).toMatchTrajectory([{ tool: 'search' }]);
  // @ts-expect-error no such mode
  expect(run).toMatchTrajectory(['search'], { mode: 'fuzzy' });
  // @ts-expect-error a severity is info, caution or warning
  expect(run).toHaveNoFindingsAtOrAbove('critical');
  // @ts-expect-error maxTurns is a number
  expect(run).toPassChecks({ maxTurns: '3' });
}
