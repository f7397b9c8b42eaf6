// The background loop, runtime-agnostic (see capture-scenario.mjs): the
// canonical code review through the installed tarball in Node (ESM, CJS),
// Chromium and workerd. No schema library here: the deliverable's schema is
// a Standard Schema written out (what zod or valibot hand the runner).
import { assert, eq, warnings } from './capture-scenario.mjs';

const clock = () => 1_700_000_000_000;

export const diffMount = {
  path: 'diff',
  files: {
    'change.patch': '--- a/src/lib.rs\n+++ b/src/lib.rs\n-fn add(a: i32) {}\n+fn add(a: i32, b: i32) {}\n',
    'src/lib.rs': 'fn add(a: i32, b: i32) {}\n',
    'tests/add.rs': '#[test] fn adds() { add(1, 2); }\n',
  },
};

/** `{ verdict, findings[], nextSteps[] }` as a Standard Schema with its JSON Schema form. */
export const reviewSchema = {
  '~standard': {
    version: 1,
    vendor: 'handwritten',
    validate(v) {
      const ok = v && typeof v === 'object' && ['approve', 'reject'].includes(v.verdict) && Array.isArray(v.findings) && Array.isArray(v.nextSteps);
      return ok ? { value: v } : { issues: [{ message: 'expected { verdict: approve | reject, findings: string[], nextSteps: string[] }', path: ['verdict'] }] };
    },
    jsonSchema: {
      input: () => ({
        type: 'object',
        properties: { verdict: { enum: ['approve', 'reject'] }, findings: { type: 'array', items: { type: 'string' } }, nextSteps: { type: 'array', items: { type: 'string' } } },
        required: ['verdict', 'findings', 'nextSteps'],
      }),
    },
  },
};

export const lintTool = {
  description: 'Lint a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async ({ path }) => ({ path, warnings: 0 }),
};

const calls = (...toolCalls) => ({ toolCalls });

/** The scripted review: plans, reads the patch (a wrong path first, which reflection retries), lints, notes, finishes. */
export function reviewScript() {
  return [
    calls({ toolName: 'plan_create', input: { steps: ['Map the changes', 'Run checks', 'Confirm tests'] } }),
    calls({ toolName: 'read_file', input: { path: 'diff/changes.patch' } }),
    '{"action": "retry", "input": {"path": "diff/change.patch"}, "reason": "the file is change.patch"}',
    calls({ toolName: 'plan_update_step', input: { step: 1, status: 'done', note: 'add() gained a parameter b' } }, { toolName: 'lint', input: { path: 'diff/src/lib.rs' } }),
    calls({ toolName: 'grep', input: { text: 'add(', path: 'diff/tests' } }, { toolName: 'plan_update_step', input: { step: 2, status: 'done', note: 'lint clean' } }),
    calls(
      { toolName: 'plan_update_step', input: { step: 3, status: 'done', note: 'tests call add(1, 2)' } },
      { toolName: 'finish', input: { status: 'completed', summary: 'one API change', deliverable: { verdict: 'approve', findings: ['add() gained b'], nextSteps: [] } } },
    ),
    'Approve: add() gained a parameter; lint is clean and the tests cover it.',
  ];
}

/** A model answering from `answers` in order; it keeps the requests it saw. */
export function scripted(answers) {
  let i = 0;
  const model = async (req) => {
    model.seen.push(req);
    if (i >= answers.length) throw new Error(`script exhausted at ${req.purpose}`);
    return answers[i++];
  };
  model.seen = [];
  return model;
}

export const reviewObjective = {
  objective: 'Review the patch in diff/ for regressions',
  deliverableSchema: reviewSchema,
  hostMounts: [diffMount],
  contextSections: [{ title: 'Checklist', body: '- tests updated' }],
};

/** What every runtime must see of a finished review (model: the script above, or an endpoint playing it). */
export function checkReview(at, r, records) {
  const errors = records.filter((x) => x.payload.kind === 'iteration_completed' && x.payload.failed).map((x) => x.payload.error);
  eq([r.status, r.reason, r.iterations, r.failures], ['completed', 'model-completed', 6, 1], `the review's outcome (${r.reason}; failed: ${errors.join(' | ')})`);
  eq(r.deliverable, { verdict: 'approve', findings: ['add() gained b'], nextSteps: [] }, 'the deliverable, validated');
  assert(/^Approve/.test(r.finalSummary), `the final summary: ${r.finalSummary}`);
  eq(r.snapshot.plan.steps.map((s) => s.status), ['done', 'done', 'done'], 'every plan step done');
  const parsed = at.parseTrajectoryJsonl(at.serializeTrajectoryJsonl(records));
  const kinds = parsed.map((x) => x.payload.kind);
  eq([kinds[0], ...kinds.slice(-2)], ['run_started', 'run_terminated', 'run_ended'], 'the stream starts and ends');
  eq(kinds.filter((k) => k === 'iteration_started').length, 6, 'one iteration_started per iteration');
  const failed = parsed.find((x) => x.payload.kind === 'iteration_completed' && x.payload.failed);
  assert(/diff\/changes\.patch: no such file/.test(failed?.payload.error), `the failed read is recorded: ${failed?.payload.error}`);
  const retried = parsed.filter((x) => x.payload.kind === 'tool_started' && x.payload.tool_name === 'read_file').map((x) => x.payload.args.path);
  eq(retried, ['diff/changes.patch', 'diff/change.patch'], 'reflection retried the read with the corrected path');
}

export const checks = {
  async 'a code review completes: plan, VFS reads, a retried wrong path, a validated deliverable'(at) {
    const model = scripted(reviewScript());
    const sink = new at.MemorySink();
    const r = await new at.BackgroundAgentRunner({ model, clock, sink, tools: { lint: lintTool } }).run(reviewObjective);
    checkReview(at, r, sink.records());
    eq(model.seen.map((q) => q.purpose).join(), 'decide,decide,reflect,decide,decide,decide,summarize', 'the model calls by purpose');
    const finish = model.seen[0].tools.find((t) => t.name === 'finish');
    eq(finish.inputSchema.properties.deliverable.required, ['verdict', 'findings', 'nextSteps'], 'the schema shown to the model');
    eq([r.snapshot.overlay.written, r.snapshot.overlay.deleted], [{}, []], 'a review writes nothing');
    eq(r.droppedRecords, 0, 'no record lost');
    // A sink that refuses a record (under the default 'drop'): the run goes on, and its result counts what was lost.
    let refused = 0;
    const flaky = { record: () => { if (refused++ === 2) throw new Error('disk full'); } };
    let lossy;
    const warned = await warnings(async () => { lossy = await new at.BackgroundAgentRunner({ model: scripted(reviewScript()), clock, sink: flaky, tools: { lint: lintTool } }).run(reviewObjective); });
    eq([lossy.status, lossy.droppedRecords, warned.length], ['completed', 1, 1], 'completed, one record dropped, said once on the console');
  },

  async 'a recorded run replays byte for byte with no model'(at) {
    const rec = at.recordingModel(scripted(reviewScript()));
    const a = new at.MemorySink();
    const first = await new at.BackgroundAgentRunner({ model: rec, clock, sink: a, tools: { lint: lintTool } }).run(reviewObjective);
    const b = new at.MemorySink();
    const replay = at.replayModel(JSON.parse(JSON.stringify(rec.recording)));
    const again = await new at.BackgroundAgentRunner({ model: replay, clock, sink: b, tools: { lint: lintTool } }).run(reviewObjective);
    eq(at.serializeTrajectoryJsonl(b.records()), at.serializeTrajectoryJsonl(a.records()), 'the record stream');
    eq(again, first, 'the result');
  },

  async 'a model that always throws ends failed after maxFailures, naming the error, every record kept'(at) {
    const sink = new at.MemorySink();
    const thrown = [];
    const model = async () => {
      thrown.push(new Error('provider down'));
      throw thrown.at(-1);
    };
    const r = await new at.BackgroundAgentRunner({ model, clock, sink, config: { maxFailures: 3, enableReflection: false } }).run('Summarise diff/');
    eq([r.status, r.iterations, r.failures], ['failed', 3, 3], `the outcome (${r.reason})`);
    eq(r.error.code, 'CALLBACK_FAILED', 'the last error');
    assert(thrown.includes(r.error.cause), 'what the model threw is the cause');
    eq(Object.keys(r.error), ['code', 'message'], 'the cause is not enumerable (JSON leaves it out)');
    // A failing onRecord ends the run with its own error as the cause too.
    const bad = new Error('onRecord down');
    const r2 = await new at.BackgroundAgentRunner({ model, clock, onRecord: () => { throw bad; } }).run('Summarise diff/');
    eq([r2.status, r2.error?.code], ['failed', 'CALLBACK_FAILED'], r2.reason);
    assert(r2.error.cause === bad, 'onRecord\'s own error is the cause');
    // So does a tool of the caller's that always throws.
    const down = new Error('connection reset');
    const calling = async (req) => (req.purpose === 'decide' ? { toolCalls: [{ toolName: 'query', input: {} }] } : 'done');
    const tools = { query: { description: 'q', inputSchema: { type: 'object' }, execute: () => { throw down; } } };
    const r3 = await new at.BackgroundAgentRunner({ model: calling, clock, tools, config: { maxFailures: 2, enableReflection: false } }).run('Summarise diff/');
    eq([r3.status, r3.error?.message, r3.error?.cause === down], ['failed', 'tool query threw: connection reset', true], r3.reason);
    assert(/^max-failures: last error: CALLBACK_FAILED: .*provider down/.test(r.reason), `the reason names the last error: ${r.reason}`);
    assert(/provider down/.test(r.finalSummary), `the summary names the error: ${r.finalSummary}`);
    const kinds = sink.records().map((x) => x.payload.kind);
    eq(kinds.filter((k) => k === 'iteration_completed').length, 3, 'every iteration recorded');
    eq(kinds.at(-1), 'run_ended', 'the stream ends');
  },

  async 'bad input is a coded error that names the option'(at) {
    const runner = new at.BackgroundAgentRunner({ model: scripted([]), clock });
    let err;
    try {
      await runner.run({ objective: '' });
    } catch (e) {
      err = e;
    }
    eq([err?.name, err?.code], ['AgentTrajectoriesError', 'INVALID_ARGUMENT'], `an empty objective (${err?.message})`);
    try {
      new at.BackgroundAgentRunner({ model: scripted([]), config: { maxIterations: 0 } });
      err = undefined;
    } catch (e) {
      err = e;
    }
    assert(err && /maxIterations/.test(err.message), `maxIterations: 0 is refused naming it (${err?.message})`);
    // A misspelt key is refused even when its value is undefined (which JSON would leave out); a known one so is not given.
    try {
      new at.BackgroundAgentRunner({ model: scripted([]), config: { maxIteratons: undefined } });
      err = undefined;
    } catch (e) {
      err = e;
    }
    assert(err?.code === 'INVALID_ARGUMENT' && err.message.includes('unknown option "maxIteratons"; did you mean "maxIterations"?'), `a slip with no value (${err?.message})`);
    new at.BackgroundAgentRunner({ model: scripted([]), config: { maxIterations: undefined } });
    // What run() would refuse of the recorder's options is refused when the runner is made.
    for (const [opts, said] of [[{ onSinkError: 'ignore' }, "onSinkError must be 'drop' or 'fail', got \"ignore\""], [{ runId: '' }, 'BackgroundAgentRunner options.runId must not be empty']]) {
      try {
        new at.BackgroundAgentRunner({ model: scripted([]), ...opts });
        err = undefined;
      } catch (e) {
        err = e;
      }
      assert(err?.code === 'INVALID_ARGUMENT' && err.message.includes(said), `${JSON.stringify(opts)} at construction (${err?.message})`);
    }
  },
};
