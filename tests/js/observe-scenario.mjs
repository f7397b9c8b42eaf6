// The observe contract, runtime-agnostic (see capture-scenario.mjs).
import { assert, eq, expectCode, warnings } from './capture-scenario.mjs';

const MIN = 60_000;
const T0 = 1_700_000_000_000;

/** A pipeline on a scripted clock: `p.at(ms)` moves time. */
function pipeline(at, opts) {
  let now = T0;
  const p = new at.ObserverPipeline({ clock: () => now, ...opts });
  p.at = (ms) => { now = T0 + ms; };
  return p;
}

const read = (path) => ({ toolName: 'read_file', params: { path }, success: true });
const failing = (msg = 'permission denied for user 42') => ({ toolName: 'deploy', params: { env: 'prod' }, success: false, errorMessage: msg });

export const checks = {
  'resources render byte for byte (the spec example, caution)'(at) {
    const p = pipeline(at, {
      budget: { deadline: T0 + 8.5 * MIN, elapsedSeconds: 22 * 60, maxTokens: 50_000, maxToolCalls: 100 },
      observers: [{ observer: 'resources', trigger: { everyNCalls: 47 } }],
    });
    p.recordTokens(30_000);
    p.recordTokens(5_000);
    let out;
    for (let i = 1; i <= 47; i++) out = p.recordToolCall({ toolName: 'step', params: { i }, success: true });
    eq(out.callIndex, 47, 'assessment after call 47');
    eq(p.context(),
      '## Trajectory Assessment\n\n_Generated after tool call #47_\n\n### Resources [caution]\n\n' +
      'You have 8 minutes remaining before the deadline. You have used 35,000 of 50,000 tokens (70% of budget). 15,000 tokens remaining. ' +
      'You have made 47 of 100 allowed tool calls. 53 calls remaining.\n\n**Suggestions**:\n- Be mindful of remaining resources when planning next steps.\n',
      'render');
    eq(p.budget.tokensUsed, 35_000, 'recordTokens adds up');
  },

  'triggers are ORed and any assessment resets the shared state'(at) {
    const p = pipeline(at, { observers: [{ observer: 'resources', trigger: { everyNCalls: 5, afterConsecutiveErrors: 2 } }] });
    const produced = [read('a'), failing(), failing(), read('b'), read('c')].map((c, i) => { p.at(i * 1000); return p.recordToolCall(c) !== undefined; });
    eq(produced, [false, false, true, false, false], 'two failures fire before five calls');
    eq(p.state, { toolCallsSinceAssessment: 2, lastAssessmentTime: T0 + 2000, lastAssessmentCallIndex: 3, totalAssessments: 1 }, 'state');
    expectCode(() => new at.ObserverPipeline({ observers: [{ observer: 'resources', trigger: { everyNCalls: 0 } }] }), 'INVALID_ARGUMENT', 'non-positive');
    expectCode(() => new at.ObserverPipeline({ observers: [{ observer: 'resources', trigger: { afterConsecutiveErrors: 1.5 } }] }), 'INVALID_ARGUMENT', 'non-integer');
  },

  'the context goes stale 21 calls after it was generated'(at) {
    const p = pipeline(at, { observers: [{ observer: 'resources', trigger: { afterConsecutiveErrors: 1 } }] });
    p.recordToolCall(failing());
    for (let i = 0; i < 20; i++) p.recordToolCall(read(`f${i}`));
    assert(p.context().startsWith('## Trajectory Assessment'), '20 calls later it still shows');
    p.recordToolCall(read('last'));
    eq(p.context(), '', '21 calls later it is gone');
    eq(p.injectInto([{ role: 'user', content: 'hi' }]), [{ role: 'user', content: 'hi' }], 'nothing injected when stale');
  },

  'a JS custom observer reads the context and its assessment is rendered'(at) {
    const seen = [];
    const p = pipeline(at, {
      budget: { maxToolCalls: 10 },
      observers: [{
        observer: {
          name: 'Error Budget',
          shouldRun: (ctx) => ctx.recentToolCalls(3).length === 3,
          observe(ctx) {
            seen.push({ idx: ctx.callIndex, last: ctx.recentToolCalls(1)[0].toolName, since: ctx.toolCallsSince(T0 + 1500).length, budget: ctx.budget.maxToolCalls, calls: ctx.state.toolCallsSinceAssessment });
            const rate = ctx.errorRate(3);
            return { summary: `Error rate ${Math.round(rate * 100)}% over the last 3 calls.`, severity: rate > 0.5 ? 'warning' : 'info', observations: [{ category: 'errors', description: 'from JS', evidence: ctx.recentToolCalls(3).map((c) => `#${c.callIndex} ${c.paramsSummary}`).join('\n') }] };
          },
        },
        trigger: { onEveryCall: true },
      }],
    });
    [read('a.txt'), failing(), failing()].forEach((c, i) => { p.at(i * 1000); p.recordToolCall(c); });
    eq(seen, [{ idx: 3, last: 'deploy', since: 1, budget: 10, calls: 3 }], 'context methods');
    assert(p.context().includes('### Error Budget [warning]\n\nError rate 67% over the last 3 calls.\n\n**errors**: from JS\n```\n#1 a.txt\n#2 {"env":"prod"}\n#3 {"env":"prod"}\n```'), p.context());
  },

  'a throwing JS observer is isolated; the others still run; onError hears of it'(at) {
    const boom = { name: 'Boom', observe() { throw new Error('kaput'); } };
    const p = pipeline(at, { observers: [{ observer: boom, trigger: { onEveryCall: true } }, { observer: 'resources', trigger: { onEveryCall: true } }] });
    const out = p.recordToolCall(read('a'));
    eq(out.assessments.map((a) => a.observerName), ['Boom', 'Resources'], 'both present');
    eq(out.assessments[0].observations, [{ category: 'error', description: 'observer "Boom" observe threw: kaput' }], 'error observation');
    assert(p.recordToolCall(read('b')) !== undefined, 'still usable');

    const errors = [];
    const q = pipeline(at, { onError: (e, name) => errors.push([e.code, name]), observers: [{ observer: { name: 'Garbage', observe: () => ({ severity: 'loud' }) }, trigger: { onEveryCall: true } }, { observer: 'resources', trigger: { onEveryCall: true } }] });
    eq(q.recordToolCall(read('a')).assessments.map((a) => a.observerName), ['Resources'], 'reported, not rendered');
    eq(errors, [['CALLBACK_FAILED', 'Garbage']], 'onError');
    // A field the observer misspelt is refused, named, not dropped.
    const said = [];
    const typo = pipeline(at, { onError: (e) => said.push(e.message), observers: [{ observer: { name: 'Typo', observe: () => ({ summary: 'x', severity: 'info', sevrity: 'warning' }) }, trigger: { onEveryCall: true } }] });
    typo.recordToolCall(read('a'));
    assert(said.length === 1 && said[0].includes('unknown field "sevrity"; did you mean "severity"?'), said.join('; '));
    const r = pipeline(at, { observers: [{ observer: { name: 'Reentrant', observe: () => { r.recordToolCall(read('x')); } }, trigger: { onEveryCall: true } }] });
    assert(r.recordToolCall(read('a')).assessments[0].observations[0].description.includes('BUSY') || r.current().assessments[0].observations[0].description.includes('already running'), 're-entrant call refused');
    eq(r.callCount, 1, 'the re-entrant call was not recorded');
  },

  async 'an onError that rejects is said on the console, never left unhandled'(at) {
    const warned = await warnings(() => {
      const q = pipeline(at, { onError: async () => { throw new Error('reporter down'); }, observers: [{ observer: { name: 'Garbage', observe: () => ({ severity: 'loud' }) }, trigger: { onEveryCall: true } }] });
      eq(q.recordToolCall(read('a'))?.assessments ?? [], [], 'handed to onError, not rendered');
    });
    eq(warned.length, 1, 'said once');
    assert(String(warned[0][0]).includes('onError rejected, told that observer "Garbage" failed'), String(warned[0][0]));
    assert(typeof warned[0][1] === 'string' && warned[0][1].startsWith('[CALLBACK_FAILED] '), String(warned[0][1]));
    eq(warned[0][2]?.message, 'reporter down', 'what was being reported (a line), and the reason');
  },

  'a repeated failing call escalates to warning with evidence naming the calls'(at) {
    const p = pipeline(at, { observers: [{ observer: 'stall', trigger: { onEveryCall: true } }, { observer: 'error-cascade', trigger: { afterConsecutiveErrors: 3 } }] });
    const worst = {};
    for (let i = 0; i < 6; i++) {
      const out = p.recordToolCall(failing(`permission denied for user ${40 + i}`));
      for (const a of out?.assessments ?? []) worst[a.observerName] = a.severity;
    }
    eq(worst, { Stall: 'warning', 'Error Cascade': 'warning' }, 'both escalate');
    const ctx = p.context();
    assert(ctx.includes('6 consecutive tool calls have failed (since call #1)'), ctx);
    assert(ctx.includes('#6 deploy({"env":"prod"}) -> error: permission denied for user <n>'), ctx);
  },

  'drift flags work outside the scope'(at) {
    const p = pipeline(at, { observers: [{ observer: 'drift', trigger: { everyNCalls: 10 }, options: { scope: ['src/'] } }] });
    for (let i = 0; i < 3; i++) p.recordToolCall(read(`src/${i}.ts`));
    let out;
    for (let i = 0; i < 7; i++) out = p.recordToolCall(read(`vendor/lib${i}.js`));
    assert(out?.assessments[0].summary.startsWith('7 of the last 10 file operations were outside the task\'s scope (src/).'), JSON.stringify(out));
    expectCode(() => new at.ObserverPipeline({ observers: [{ observer: 'drift', trigger: { everyNCalls: 1 } }] }), 'INVALID_ARGUMENT', 'drift needs a scope');
  },

  'injectInto appends a system message, or places it after the system prompt'(at) {
    const p = pipeline(at, { observers: [{ observer: 'resources', trigger: { onEveryCall: true } }] });
    const msgs = [{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'hi' }];
    eq(p.injectInto(msgs), msgs, 'unchanged before any assessment');
    p.recordToolCall(read('a'));
    const end = p.injectInto(msgs);
    eq(end.map((m) => m.role), ['system', 'user', 'system'], 'appended after the existing messages');
    eq(end[2].content, p.context(), 'the context itself');
    eq(p.injectInto(msgs, { position: 'after-system' }).map((m) => m.role), ['system', 'system', 'user'], 'after the system prompt');
    eq(msgs.length, 2, 'input not mutated');
  },

  'snapshot/restore mid-run continues exactly as the original'(at) {
    const observers = () => [
      { observer: 'stall', trigger: { everyNCalls: 3 } },
      { observer: 'error-cascade', trigger: { afterConsecutiveErrors: 2 } },
      { observer: 'resources', trigger: { everyNSeconds: 5 } },
      { observer: { name: 'Counter', observe: (ctx) => ({ summary: `${ctx.callIndex} calls`, severity: 'info' }) }, trigger: { everyNCalls: 4 } },
    ];
    const script = (i) => (i % 5 === 0 ? failing(`error ${i}`) : i % 3 === 0 ? read('same.txt') : read(`f${i % 4}.txt`));
    let now = T0;
    const a = new at.ObserverPipeline({ clock: () => now, budget: { maxTokens: 1000 }, observers: observers() });
    for (let i = 0; i < 23; i++) { now += 700; a.recordToolCall(script(i)); a.recordTokens(10); }
    const snap = JSON.parse(JSON.stringify(a.snapshot()));
    eq(snap.schema, 'agent-trajectories/observer-pipeline', 'schema');
    eq([snap.version, snap.log.calls.length, snap.log.absoluteTimes], [2, 23 * 4, false], 'the log is in it, four numbers a call');
    eq(snap.log.strings.includes('f1.txt'), true, 'each string once');
    // A version 1 snapshot (the log as call objects) restores the same way.
    const v1 = { ...snap, version: 1, log: a.recentToolCalls(23) };
    eq(v1.log.length, 23, 'version 1: every call');
    const b = at.ObserverPipeline.restore(snap, { clock: () => now, observers: observers() });
    const c = at.ObserverPipeline.restore(v1, { clock: () => now, observers: observers() });
    eq(c.snapshot(), b.snapshot(), 'version 1 restores to the same state');
    // Its JSON text, as it was stored, restores the same.
    eq(at.ObserverPipeline.restore(JSON.stringify(a.snapshot()), { clock: () => now, observers: observers() }).snapshot(), b.snapshot(), 'from its JSON text');
    for (let i = 23; i < 70; i++) {
      now += 700;
      const want = a.recordToolCall(script(i));
      eq(b.recordToolCall(script(i)), want, `same result at call ${i + 1}`);
      eq(c.recordToolCall(script(i)), want, `same result at call ${i + 1} (from version 1)`);
      eq(b.context(), a.context(), `same context at call ${i + 1}`);
    }
    eq(b.snapshot(), a.snapshot(), 'same end state');
  },

  'a recorder receives assessment_produced records, evidence included'(at) {
    const sink = new at.MemorySink();
    const recorder = new at.TrajectoryRecorder(sink, { clock: () => T0, runId: 'observed' });
    const p = pipeline(at, { recorder, observers: [{ observer: 'error-cascade', trigger: { afterConsecutiveErrors: 3 } }] });
    for (let i = 0; i < 3; i++) p.recordToolCall(failing());
    const records = sink.records();
    eq(records.map((r) => [r.payload.kind, r.payload.call_index]), [['assessment_produced', 3]], 'one record');
    eq(records[0].payload.assessment.observations[0].evidence, 'permission denied for user <n>', 'evidence kept');
    eq(at.parseTrajectoryJsonl(sink.toJsonl()), records, 'round trips');
  },

  'bad input gets coded errors and leaves the pipeline unchanged'(at) {
    const p = pipeline(at, { observers: [{ observer: 'stall', trigger: { onEveryCall: true } }] });
    p.recordToolCall(read('a'));
    const before = JSON.stringify(p.snapshot());
    for (const bad of [{}, { toolName: 'x' }, { toolName: '', success: true }, { toolName: 'x', success: 'yes' }, null, { toolName: 'x', success: true, params: { n: 1n } }]) {
      expectCode(() => p.recordToolCall(bad), 'INVALID_ARGUMENT', `rejects ${String(JSON.stringify(bad, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)))}`);
    }
    eq(JSON.stringify(p.snapshot()), before, 'state unchanged');
    expectCode(() => new at.ObserverPipeline({ observers: [{ observer: 'stal', trigger: { onEveryCall: true } }] }), 'INVALID_ARGUMENT', 'unknown observer');
    expectCode(() => new at.ObserverPipeline({ observers: [{ observer: 'stall' }] }), 'INVALID_ARGUMENT', 'missing trigger');
    expectCode(() => at.ObserverPipeline.restore({ schema: 'other', version: 1 }, { observers: [] }), 'INVALID_ARGUMENT', 'another schema');
    expectCode(() => at.ObserverPipeline.restore({ ...JSON.parse(before), version: 99 }, { observers: [{ observer: 'stall', trigger: { onEveryCall: true } }] }), 'UNSUPPORTED_SCHEMA_VERSION', 'newer snapshot');
    // A NaN put in a snapshot is said as NaN, not as the null JSON would make it.
    const nan = expectCode(() => at.ObserverPipeline.restore({ ...JSON.parse(before), log: { ...JSON.parse(before).log, calls: NaN } }, { observers: [] }), 'INVALID_ARGUMENT', 'a NaN log');
    eq(nan.message, 'snapshot.log.calls: invalid type: NaN, expected an array', 'NaN named');
    expectCode(() => at.ObserverPipeline.restore('{"schema":', { observers: [] }), 'INVALID_ARGUMENT', 'JSON text cut short');
  },

  'a recorder that throws undoes the call, so a retry counts it once'(at) {
    let refuse = true;
    const recorder = { record() { if (refuse) throw new Error('disk full'); } };
    const p = pipeline(at, { recorder, observers: [{ observer: 'error-cascade', trigger: { afterConsecutiveErrors: 1 }, options: { threshold: 1 } }] });
    const err = expectCode(() => p.recordToolCall(failing()), 'CALLBACK_FAILED', 'the recorder failure surfaces');
    assert(err.message.includes('disk full') && err.message.includes('undone'), err.message);
    eq(err.cause.message, 'disk full', 'the thrown error is the cause');
    eq([p.callCount, p.current() ?? null, p.state.totalAssessments], [0, null, 0], 'nothing counted');
    refuse = false;
    p.recordToolCall(failing());
    eq([p.callCount, p.current().callIndex], [1, 1], 'the retry is call 1');
  },

  'everyNCalls counts from when that observer last ran'(at) {
    let runs = 0;
    const quiet = { name: 'quiet', observe() { runs += 1; } };
    const p = pipeline(at, { observers: [{ observer: quiet, trigger: { everyNCalls: 5 } }] });
    for (let i = 0; i < 20; i++) p.recordToolCall(read(`f${i}`));
    eq(runs, 4, 'calls 5, 10, 15 and 20');
  },

  'restore refuses other detector options; numbers stay in range'(at) {
    const obs = (window) => [{ observer: 'stall', trigger: { onEveryCall: true }, options: { window } }];
    const p = pipeline(at, { observers: obs(20) });
    for (let i = 0; i < 25; i++) p.recordToolCall(read(`f${i % 3}`));
    const err = expectCode(() => at.ObserverPipeline.restore(p.snapshot(), { observers: obs(8) }), 'INVALID_ARGUMENT', 'a window of 8 over 20');
    assert(err.message.includes('"window":20') && err.message.includes('"window":8'), err.message);
    expectCode(() => p.recordTokens(1e300), 'INVALID_ARGUMENT', 'recordTokens(1e300)');
    expectCode(() => p.recordTokens('5'), 'INVALID_ARGUMENT', 'recordTokens of a string');
    expectCode(() => new at.ObserverPipeline({ observers: [], maxAgeCalls: 1e300 }), 'INVALID_ARGUMENT', 'maxAgeCalls: 1e300');
    const last = p.injectInto([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], { position: 'last-user' });
    eq([last.length, last[1].content.length, last[1].content[0].text], [2, 2, 'b'], 'last-user: a text part of the last user message');
    expectCode(() => p.injectInto([], { postion: 'end' }), 'INVALID_ARGUMENT', 'a misspelt option');
    const near = expectCode(() => new at.ObserverPipeline({ observer: [] }), 'INVALID_ARGUMENT', '`observer:` for `observers:`');
    assert(near.message.includes('did you mean "observers"?'), near.message);
    const entry = expectCode(() => new at.ObserverPipeline({ observers: [{ observer: 'stall', triger: { onEveryCall: true } }] }), 'INVALID_ARGUMENT', 'a misspelt entry key');
    assert(entry.message.startsWith('observers[0]: unknown option "triger"; did you mean "trigger"?'), entry.message);
    const throwing = { get observers() { throw new RangeError('no observers today'); } };
    const got = expectCode(() => new at.ObserverPipeline(throwing), 'INVALID_ARGUMENT', 'a getter that throws');
    eq(got.cause instanceof RangeError, true, 'kept as the cause');
  },

  'an observer that answers with a Promise is reported as failed, not left to reject unhandled'(at) {
    const p = pipeline(at, { observers: [{ observer: { name: 'later', observe: async () => { throw new Error('boom'); } }, trigger: { onEveryCall: true } }] });
    const got = p.recordToolCall(read('a'));
    const obs = got.assessments[0].observations[0];
    eq(obs.category, 'error', 'isolated as a failure');
    assert(obs.description.includes('returned a Promise'), obs.description);
  },
};
