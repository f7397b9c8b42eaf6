// The matchers over generated conversations. Tests named "passes: ..."
// must pass; tests named "fails: ..." are meant to fail, and the driver
// (vitest.test.mjs) checks what their failure messages say.
import { describe, expect, test } from 'vitest';
import { TrajectoryIndex, type ExpectedCall } from 'agent-trajectories';
import { matchers } from 'agent-trajectories/vitest';
import { CRITERIA, generate, judgeModel, mumblingJudge } from './conversations.js';

const { booked, full, looping, bookedRecords, runs } = await generate();
const jsonl = bookedRecords.map((r) => JSON.stringify(r)).join('\n');

/** The code and message of the error `f` throws. */
function thrown(f: () => unknown): { code: unknown; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof Error && 'code' in e) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('nothing was thrown');
}

describe('a booking that works', () => {
  test('passes: it reaches its goal', () => {
    expect(booked).toReachGoal();
    expect(bookedRecords).toReachGoal({ runId: 'booked' });
  });

  test('passes: its calls match, as a result, records, JSONL, bytes and an index', () => {
    const expected: ExpectedCall[] = ['search', { toolName: 'book', input: { city: 'Paris' } }];
    const index = TrajectoryIndex.fromJsonl(jsonl);
    for (const run of [booked, bookedRecords, jsonl, new TextEncoder().encode(jsonl), index]) expect(run).toMatchTrajectory(expected);
    index.free();
    expect(booked).toMatchTrajectory([{ toolName: 'book', input: { city: 'paris' } }], { mode: 'superset', args: { book: (e, a) => JSON.stringify(e).toLowerCase() === JSON.stringify(a).toLowerCase() } });
    expect(booked).not.toMatchTrajectory(['book']);
  });

  test('passes: the judge passes it, after it judged every turn', async () => {
    const before = judgeModel.asked;
    await expect(booked).toPassJudge(CRITERIA, { model: judgeModel });
    await expect(booked).toPassJudge([{ name: 'booked', description: 'a table was booked' }], { model: judgeModel, timeoutMs: 5_000 });
    expect(judgeModel.asked - before).toBe(2);
    expect(booked.steps.map((s) => s.judgement?.verdict)).toEqual(['inconclusive', 'pass', 'pass']);
  });

  test('passes: its checks and findings', () => {
    expect(booked).toPassChecks({ maxFailedCalls: 0, maxTurns: 5, maxToolCalls: 2, reachedSteps: ['greet', 'ask', 'confirm'] });
    expect(booked).toHaveNoFindingsAtOrAbove('info');
    expect(booked).not.toPassChecks({ maxTokens: 10 });
  });

  test('passes: as asymmetric matchers inside toEqual', () => {
    expect(runs.find((r) => r.id === 'booked')).toEqual(expect.objectContaining({ result: expect.toReachGoal() }));
    expect({ run: booked }).toEqual({ run: expect.toMatchTrajectory(['search', 'book']) });
    expect({ run: full }).not.toEqual({ run: expect.toPassChecks() });
  });
});

describe('a booking that fails', () => {
  test('passes: .not of each matcher', async () => {
    expect(full).not.toReachGoal();
    expect(full).not.toPassChecks({ maxFailedCalls: 0 });
    await expect(full).not.toPassJudge(CRITERIA, { model: judgeModel });
    expect(looping).not.toHaveNoFindingsAtOrAbove('caution');
    // The stall's warning in the last turn, shown to no call, counts too.
    expect(looping).not.toHaveNoFindingsAtOrAbove('warning');
  });

  test('passes: bad arguments are coded errors naming the matcher', () => {
    // Each refused by the types too (tsc fails if one is not).
    // @ts-expect-error maxTurn is no option of checkRun
    const misspelt = thrown(() => expect(booked).toPassChecks({ maxTurn: 1 }));
    expect([misspelt.code, misspelt.message]).toEqual(['INVALID_ARGUMENT', expect.stringMatching(/^toPassChecks: checkRun: options: unknown option "maxTurn".*did you mean "maxTurns"/)]);
    // @ts-expect-error toReachGoal takes runId only
    const own = thrown(() => expect(booked).toReachGoal({ maxTurns: 1 }));
    expect(own.message).toBe('toReachGoal: options: unknown option "maxTurns" (valid: runId; toPassChecks takes every check of checkRun)');
    const notARun = thrown(() => expect({ nope: 1 }).toMatchTrajectory([]));
    expect([notARun.code, notARun.message.startsWith('toMatchTrajectory: matchTrajectory: run must be a run')]).toEqual(['INVALID_ARGUMENT', true]);
    // @ts-expect-error not a severity
    expect(thrown(() => expect(booked).toHaveNoFindingsAtOrAbove('high')).code).toBe('INVALID_ARGUMENT');
    // Left out, the assertion would hold the run to nothing: refused, not passed.
    // @ts-expect-error the severity is required
    expect(thrown(() => expect(looping).toHaveNoFindingsAtOrAbove()).message).toBe('toHaveNoFindingsAtOrAbove: the severity (its first argument) is required, got undefined');
    // A matcher's own option slipped is named, as checkRun's are.
    // @ts-expect-error runID is no option
    expect(thrown(() => expect(booked).toReachGoal({ runID: 'x' })).message).toBe('toReachGoal: options: unknown option "runID"; did you mean "runId"? (valid: runId; toPassChecks takes every check of checkRun)');
  });

  test('passes: a judge whose answers cannot be read is inconclusive, which does not pass', async () => {
    await expect(booked).not.toPassJudge(['polite'], { model: mumblingJudge });
  });

  test('passes: the matchers object extends an expect of your own', () => {
    expect(Object.keys(matchers).sort()).toEqual(['toHaveNoFindingsAtOrAbove', 'toMatchTrajectory', 'toPassChecks', 'toPassJudge', 'toReachGoal']);
    expect.extend(matchers);
    expect(booked).toHaveNoFindingsAtOrAbove('info');
  });
});

describe('meant to fail', () => {
  test('fails: toReachGoal on the failed booking', () => {
    expect(full).toReachGoal();
  });
  test('fails: toPassJudge on the failed booking', async () => {
    await expect(full).toPassJudge(CRITERIA, { model: judgeModel });
  });
  test('fails: toPassJudge with a judge whose answers cannot be read', async () => {
    await expect(booked).toPassJudge(['polite'], { model: mumblingJudge });
  });
  test('fails: toMatchTrajectory with the wrong city', () => {
    expect(booked).toMatchTrajectory(['search', { toolName: 'book', input: { city: 'Rome' } }]);
  });
  test('fails: toMatchTrajectory with a call that was not made', () => {
    expect(booked).toMatchTrajectory(['search', 'pay', 'book'], { mode: 'in-order' });
  });
  test('fails: toPassChecks on the failed booking', () => {
    expect(full).toPassChecks({ maxFailedCalls: 0, maxTurns: 1 });
  });
  test('fails: toHaveNoFindingsAtOrAbove on the polling loop', () => {
    expect(looping).toHaveNoFindingsAtOrAbove('caution');
  });
  test('fails: .not.toReachGoal on the booking that works', () => {
    expect(booked).not.toReachGoal();
  });
  test('fails: .not.toPassChecks on the booking that works', () => {
    expect(booked).not.toPassChecks({ maxTurns: 5 });
  });
});
