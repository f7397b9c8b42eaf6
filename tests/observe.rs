//! Native tests of the observer pipeline: triggers, state, staleness,
//! each detector's true and false positives, escalation, snapshot/restore
//! and bad input.
#![cfg(not(target_arch = "wasm32"))]

use agent_trajectories::core::message::{ModelMessage, Role};
use agent_trajectories::core::observe::{
    Assessment, Budget, Builtin, CurrentAssessment, Observer, Outcome, Pipeline, PipelineSnapshot, Placement, Severity, Slot, ToolCallInput, Trigger,
};
use agent_trajectories::core::read::read;
use agent_trajectories::core::ErrorCode;
use serde_json::{json, Value};

fn trigger(v: Value) -> Trigger {
    Trigger::from_value(&v, "test").unwrap()
}

fn builtin(kind: &str, t: Value, opts: Value) -> Slot {
    Slot { trigger: trigger(t), observer: Observer::Builtin(Builtin::from_config(kind, Some(&opts), kind).unwrap()) }
}

fn custom(name: &str, t: Value) -> Slot {
    Slot { trigger: trigger(t), observer: Observer::External { name: name.into() } }
}

fn call(tool: &str, params: Value, ok: bool, err: &str) -> ToolCallInput {
    ToolCallInput {
        tool_name: tool.into(),
        params_json: Some(params.to_string()),
        params_summary: None,
        success: ok,
        error_message: (!ok).then(|| err.to_owned()),
    }
}

fn ok(tool: &str, params: Value) -> ToolCallInput {
    call(tool, params, true, "")
}

fn fail(tool: &str, params: Value, err: &str) -> ToolCallInput {
    call(tool, params, false, err)
}

/// Records the calls one per second; returns what each produced.
fn run(p: &mut Pipeline, calls: Vec<ToolCallInput>) -> Vec<Option<CurrentAssessment>> {
    let start = p.log().len() as f64;
    calls.into_iter().enumerate().map(|(i, c)| p.record_tool_call(c, (start + i as f64) * 1000.0, |_, _| Outcome::Quiet).unwrap()).collect()
}

fn only(p: &mut Pipeline, calls: Vec<ToolCallInput>) -> Vec<Assessment> {
    run(p, calls).into_iter().flatten().flat_map(|c| c.assessments).collect()
}

fn pipeline(slots: Vec<Slot>) -> Pipeline {
    Pipeline::new(slots, Budget::default(), 20, 0.0).unwrap()
}

#[test]
fn every_n_calls_resets_after_an_assessment_and_state_updates() {
    let mut p = pipeline(vec![builtin("resources", json!({ "everyNCalls": 3 }), Value::Null)]);
    let produced: Vec<bool> = run(&mut p, (0..7).map(|i| ok("ls", json!({ "i": i }))).collect()).iter().map(Option::is_some).collect();
    assert_eq!(produced, [false, false, true, false, false, true, false]);
    let s = p.state();
    assert_eq!((s.tool_calls_since_assessment, s.last_assessment_call_index, s.total_assessments, s.last_assessment_time), (1, 6, 2, Some(5000.0)));
    assert_eq!(p.current().unwrap().call_index, 6);
}

#[test]
fn triggers_are_ored_per_observer() {
    let mut p = pipeline(vec![builtin("resources", json!({ "everyNCalls": 10, "afterConsecutiveErrors": 2 }), Value::Null)]);
    let produced: Vec<bool> =
        run(&mut p, vec![ok("a", json!({})), fail("b", json!({}), "x"), fail("b", json!({}), "x")]).iter().map(Option::is_some).collect();
    assert_eq!(produced, [false, false, true], "two consecutive errors fire before ten calls");
}

#[test]
fn every_n_seconds_counts_from_start_then_from_the_last_assessment() {
    let mut p = Pipeline::new(vec![builtin("resources", json!({ "everyNSeconds": 30 }), Value::Null)], Budget::default(), 20, 1000.0).unwrap();
    let at = |p: &mut Pipeline, t: f64| p.record_tool_call(ok("x", json!({})), t, |_, _| Outcome::Quiet).unwrap().is_some();
    assert!(!at(&mut p, 30_999.0));
    assert!(at(&mut p, 31_000.0), "30 s after the pipeline started");
    assert!(!at(&mut p, 60_000.0));
    assert!(at(&mut p, 61_000.0), "30 s after the last assessment");
}

#[test]
fn context_is_empty_when_stale_measured_from_the_latest_call() {
    let mut p = pipeline(vec![builtin("resources", json!({ "afterConsecutiveErrors": 1 }), Value::Null)]);
    run(&mut p, vec![fail("x", json!({}), "boom")]);
    assert!(p
        .context()
        .starts_with("## Trajectory Assessment\n\n_Generated after tool call #1_\n\n### Resources [info]\n\nNo resource constraints configured.\n"));
    run(&mut p, (0..20).map(|_| ok("y", json!({}))).collect());
    assert_ne!(p.context(), "", "exactly 20 calls later it still shows");
    run(&mut p, vec![ok("y", json!({}))]);
    assert_eq!(p.context(), "", "21 calls later it is stale");
}

#[test]
fn resources_reads_tokens_and_calls_from_the_pipeline() {
    let budget = Budget { max_tokens: Some(50_000), max_tool_calls: Some(10), ..Default::default() };
    let mut p = Pipeline::new(vec![builtin("resources", json!({ "everyNCalls": 8 }), Value::Null)], budget, 20, 0.0).unwrap();
    p.record_tokens(30_000).unwrap();
    p.record_tokens(5_000).unwrap();
    let a = only(&mut p, (0..8).map(|i| ok("t", json!({ "i": i }))).collect());
    assert_eq!(a[0].summary, "You have used 35,000 of 50,000 tokens (70% of budget). 15,000 tokens remaining. You have made 8 of 10 allowed tool calls. 2 calls remaining.");
    assert_eq!(a[0].severity, Severity::Caution);
    p.set_budget(Budget::default()).unwrap();
    assert_eq!(p.budget(), &Budget::default());
}

fn stall() -> Pipeline {
    pipeline(vec![builtin("stall", json!({ "onEveryCall": true }), json!({ "pollingTools": ["wait_for_job"] }))])
}

#[test]
fn stall_same_call_same_outcome_four_times() {
    let mut p = stall();
    let a = only(&mut p, (0..4).map(|_| ok("read_file", json!({ "path": "a.txt" }))).collect());
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].observations[0].category, "loop");
    assert!(a[0].observations[0].description.contains("calls #1, #2, #3, #4"), "{}", a[0].observations[0].description);
    assert!(a[0].observations[0].evidence.as_deref().unwrap().starts_with("#1 read_file(a.txt) -> ok"));
}

#[test]
fn stall_same_call_failing_three_times_even_with_other_calls_between() {
    let mut p = stall();
    let a = only(
        &mut p,
        vec![
            fail("run_tests", json!({ "path": "t.py" }), "AssertionError at t.py:41"),
            ok("read_file", json!({ "path": "x.py" })),
            fail("run_tests", json!({ "path": "t.py" }), "AssertionError at t.py:42"),
            ok("read_file", json!({ "path": "y.py" })),
            fail("run_tests", json!({ "path": "t.py" }), "AssertionError at t.py:43"),
        ],
    );
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].observations[0].category, "repeated_failure");
    assert!(a[0].observations[0].description.contains("calls #1, #3, #5"));
}

#[test]
fn stall_alternation_and_same_target() {
    let mut p = stall();
    let calls = (0..6).map(|i| if i % 2 == 0 { ok("open", json!({ "url": "a" })) } else { ok("open", json!({ "url": "b" })) }).collect();
    let a = only(&mut p, calls);
    assert!(a.iter().any(|a| a.observations.iter().any(|o| o.category == "alternation")), "{a:?}");

    let mut p = stall();
    let edits = (0..5).map(|i| ok("edit_file", json!({ "path": "src/lib.rs", "new": format!("v{i}") }))).collect();
    let a = only(&mut p, edits);
    assert!(
        a[0].observations[0].description.starts_with("`edit_file` worked on `src/lib.rs` 5 times in the last 5 calls"),
        "{:?}",
        a[0].observations
    );
}

#[test]
fn stall_read_write_thrash_on_one_path() {
    let mut p = stall();
    let a = only(
        &mut p,
        vec![
            ok("read_file", json!({ "path": "cfg.toml" })),
            ok("write_file", json!({ "path": "cfg.toml", "text": "a" })),
            ok("read_file", json!({ "path": "cfg.toml", "lines": 10 })),
            ok("write_file", json!({ "path": "cfg.toml", "text": "b" })),
        ],
    );
    assert_eq!(a[0].observations[0].category, "thrash", "{a:?}");
}

#[test]
fn stall_false_positives_stay_quiet() {
    // Varied work, a polling tool waited on, and three identical successful reads.
    let mut p = stall();
    let mut calls: Vec<ToolCallInput> = (0..8).map(|_| ok("wait_for_job", json!({ "id": "j1" }))).collect();
    calls.extend((0..3).map(|_| ok("read_file", json!({ "path": "a.txt" }))));
    calls.extend((0..10).map(|i| ok("read_file", json!({ "path": format!("src/{i}.rs") }))));
    calls.push(ok("write_file", json!({ "path": "out.txt" })));
    calls.push(ok("read_file", json!({ "path": "out.txt" })));
    assert!(only(&mut p, calls).is_empty());
}

#[test]
fn escalates_on_repeats_and_stops_when_resolved() {
    let mut p = stall();
    let same = || fail("deploy", json!({ "env": "prod" }), "permission denied for user 42");
    let severities: Vec<Severity> = only(&mut p, (0..5).map(|_| same()).collect()).iter().map(|a| a.severity).collect();
    assert_eq!(severities, [Severity::Info, Severity::Caution, Severity::Warning]);
    let a = only(&mut p, vec![same()]);
    assert!(a[0].summary.contains("This is the 4th report of this problem in a row; still at warning."), "{}", a[0].summary);
    assert!(!p.context().is_empty());
    // The agent moves on; once the failures leave the window the assessment is withdrawn.
    let produced = only(&mut p, (0..20).map(|i| ok("read_file", json!({ "path": format!("f{i}") }))).collect());
    assert!(produced.is_empty());
    assert_eq!(p.current(), None, "resolved problem no longer reported");
    assert_eq!(p.context(), "");
}

#[test]
fn error_cascade_groups_similar_errors() {
    let mut p = pipeline(vec![builtin("error-cascade", json!({ "afterConsecutiveErrors": 3 }), Value::Null)]);
    let a = only(
        &mut p,
        vec![
            ok("ls", json!({})),
            fail("read", json!({ "path": "/a/b.txt" }), "ENOENT: no such file /a/b.txt"),
            fail("read", json!({ "path": "/a/c.txt" }), "ENOENT: no such file /a/c.txt"),
            fail("http", json!({ "url": "x" }), "timeout after 30s"),
        ],
    );
    assert_eq!(a.len(), 1);
    assert!(a[0].summary.starts_with("3 consecutive tool calls have failed (since call #2), with 2 distinct errors."), "{}", a[0].summary);
    assert_eq!(a[0].observations[0].description, "2 x the same error (calls #2, #3).");
    assert_eq!(a[0].observations[0].evidence.as_deref(), Some("ENOENT: no such file <path>"));
    assert!(a[0].suggestions[0].contains("reassess"));
    // A success ends the cascade; two failures after it are not one.
    assert!(only(&mut p, vec![ok("ls", json!({})), fail("x", json!({}), "e"), fail("x", json!({}), "e")]).is_empty());
}

#[test]
fn error_cascade_lists_the_most_frequent_error_first_and_ties_in_order() {
    let mut p = pipeline(vec![builtin("error-cascade", json!({ "afterConsecutiveErrors": 6 }), Value::Null)]);
    let a = only(
        &mut p,
        vec![
            fail("a", json!({}), "alpha failed"),
            fail("b", json!({}), "beta failed"),
            fail("c", json!({}), "gamma failed"),
            fail("c", json!({}), "gamma failed"),
            fail("b", json!({}), "beta failed"),
            fail("c", json!({}), "gamma failed"),
        ],
    );
    let order: Vec<_> = a[0].observations.iter().map(|o| o.evidence.clone().unwrap_or_default()).collect();
    // gamma 3 times, then beta and alpha; beta (2) before alpha (1).
    assert_eq!(order, ["gamma failed", "beta failed", "alpha failed"]);
    let mut q = pipeline(vec![builtin("error-cascade", json!({ "afterConsecutiveErrors": 4 }), Value::Null)]);
    let ties = only(
        &mut q,
        vec![
            fail("a", json!({}), "alpha failed"),
            fail("b", json!({}), "beta failed"),
            fail("b", json!({}), "beta failed"),
            fail("a", json!({}), "alpha failed"),
        ],
    );
    let order: Vec<_> = ties[0].observations.iter().map(|o| o.evidence.clone().unwrap_or_default()).collect();
    assert_eq!(order, ["alpha failed", "beta failed"], "equal counts keep the order they first failed in");
}

#[test]
fn drift_flags_work_outside_the_scope_only() {
    let scope = json!({ "scope": ["src/parser", "tests/"] });
    let mut p = pipeline(vec![builtin("drift", json!({ "onEveryCall": true }), scope.clone())]);
    let mut calls: Vec<ToolCallInput> = (0..3).map(|i| ok("read_file", json!({ "path": format!("src/parser/{i}.rs") }))).collect();
    calls.extend((0..6).map(|i| ok("read_file", json!({ "path": format!("docs/page{i}.md") }))));
    calls.push(ok("execute_bash", json!({ "command": "ls" }))); // no path: not counted
    assert!(only(&mut p, calls).is_empty(), "6 of 9 path-bearing calls is below both the window and 70 %");
    let a = only(&mut p, vec![ok("read_file", json!({ "path": "src/parserx/evil.rs" }))]);
    assert_eq!(a.len(), 1, "7 of the last 10 outside; `src/parserx` is not inside `src/parser`");
    assert!(a[0].summary.starts_with("7 of the last 10 file operations were outside the task's scope (src/parser, tests/)."));

    let mut quiet = pipeline(vec![builtin("drift", json!({ "onEveryCall": true }), scope)]);
    let calls =
        (0..20).map(|i| ok("edit", json!({ "path": if i % 3 == 0 { "README.md".to_string() } else { format!("./tests/t{i}.rs") } }))).collect();
    assert!(only(&mut quiet, calls).is_empty(), "a third outside is not drift");
}

#[test]
fn custom_observers_run_through_the_host_and_failures_are_isolated() {
    let mut p = pipeline(vec![custom("mine", json!({ "onEveryCall": true })), builtin("resources", json!({ "onEveryCall": true }), Value::Null)]);
    let mut seen = Vec::new();
    let current = p
        .record_tool_call(ok("x", json!({})), 5.0, |slot, p| {
            seen.push((slot, p.log().len(), p.state().tool_calls_since_assessment));
            Outcome::Report(Assessment::new("mine", "custom says hi", Severity::Caution))
        })
        .unwrap()
        .unwrap();
    assert_eq!(seen, [(0, 1, 1)]);
    assert_eq!(current.assessments.iter().map(|a| a.observer_name.as_str()).collect::<Vec<_>>(), ["mine", "Resources"]);
    assert_eq!(current.assessments[0].timestamp, Some(5.0), "stamped by the pipeline's clock");
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let mut p = stall();
    run(&mut p, vec![ok("a", json!({}))]);
    let before = p.snapshot();
    let e = p.record_tool_call(ToolCallInput { tool_name: " ".into(), ..Default::default() }, 1.0, |_, _| Outcome::Quiet).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let e = p.record_tool_call(ok("a", json!({})), f64::NAN, |_, _| Outcome::Quiet).unwrap_err();
    assert_eq!(e.code, ErrorCode::CallbackFailed);
    assert_eq!(p.snapshot(), before);
    let e = Builtin::from_config("stal", None, "observers[0]").unwrap_err();
    assert!(e.message.starts_with("observers[0]: unknown observer \"stal\"; did you mean \"stall\"? expected one of"), "{}", e.message);
    let e = Builtin::from_config("drift", None, "observers[1]").unwrap_err();
    assert!(e.message.contains("scope"), "{}", e.message);
    let e = Builtin::from_config("stall", Some(&json!({ "windw": 3 })), "observers[2]").unwrap_err();
    assert!(e.message.starts_with("observers[2]: options: unknown option \"windw\"; did you mean \"window\"?"), "{}", e.message);
}

fn mixed() -> Vec<Slot> {
    vec![
        builtin("stall", json!({ "everyNCalls": 2 }), Value::Null),
        builtin("error-cascade", json!({ "afterConsecutiveErrors": 3 }), Value::Null),
        builtin("drift", json!({ "everyNCalls": 5 }), json!({ "scope": ["src"] })),
        builtin("resources", json!({ "everyNSeconds": 7 }), Value::Null),
        custom("mine", json!({ "everyNCalls": 4 })),
    ]
}

fn script(i: usize) -> ToolCallInput {
    match i % 7 {
        0 | 3 => fail("build", json!({ "target": "all" }), &format!("error E{} at src/x.rs:{i}", i % 2)),
        1 => ok("read_file", json!({ "path": format!("docs/{}.md", i % 3) })),
        2 => fail("build", json!({ "target": "all" }), "linker failed"),
        _ => ok("edit_file", json!({ "path": "src/x.rs", "v": i % 4 })),
    }
}

#[test]
fn snapshot_restore_continues_exactly_as_the_original() {
    let budget = Budget { max_tool_calls: Some(200), max_tokens: Some(9_000), ..Default::default() };
    let mut a = Pipeline::new(mixed(), budget, 20, 0.0).unwrap();
    let ext = |_: usize, p: &Pipeline| Outcome::Report(Assessment::new("mine", format!("{} calls", p.log().len()), Severity::Info));
    for i in 0..37 {
        a.record_tool_call(script(i), i as f64 * 1500.0, ext).unwrap();
        a.record_tokens(100).unwrap();
    }
    // Through JSON text, as a host would store it.
    let text = serde_json::to_string(&a.snapshot()).unwrap();
    let mut b = Pipeline::restore(PipelineSnapshot::from_json(&text).unwrap(), mixed()).unwrap();
    assert_eq!(b.snapshot(), a.snapshot());
    for i in 37..120 {
        let (x, y) = (a.record_tool_call(script(i), i as f64 * 1500.0, ext).unwrap(), b.record_tool_call(script(i), i as f64 * 1500.0, ext).unwrap());
        assert_eq!(x, y, "call {i}");
        assert_eq!(a.context(), b.context());
    }
    assert_eq!(a.snapshot(), b.snapshot());
}

#[test]
fn restore_refuses_other_schemas_and_mismatched_observers() {
    let p = Pipeline::new(mixed(), Budget::default(), 20, 0.0).unwrap();
    let mut snap = p.snapshot();
    snap.schema = "something-else".into();
    assert_eq!(Pipeline::restore(snap, mixed()).unwrap_err().code, ErrorCode::InvalidArgument);
    // Versions 1 and 2 are read; a newer one is refused, and so is version 0.
    for (version, ok) in [(0, false), (1, true), (2, true), (3, false)] {
        let mut snap = p.snapshot();
        snap.version = version;
        match Pipeline::restore(snap, mixed()) {
            Ok(_) => assert!(ok, "version {version} restored"),
            Err(e) => {
                assert!(!ok, "version {version}: {}", e.message);
                assert_eq!(e.code, ErrorCode::UnsupportedSchemaVersion);
                assert!(e.message.contains("is not one this build reads (1 to 2)"), "{}", e.message);
            }
        }
    }
    let mut fewer = mixed();
    fewer.pop();
    assert!(Pipeline::restore(p.snapshot(), fewer).unwrap_err().message.contains("5 observers but the options configure 4"));
    let mut swapped = mixed();
    swapped.swap(0, 1);
    assert!(Pipeline::restore(p.snapshot(), swapped).unwrap_err().message.contains("does not match"));
}

#[test]
fn every_n_calls_counts_from_when_that_observer_last_ran() {
    // A quiet observer never resets the shared counter; it must still run
    // every 5th call, not on every call once 5 have passed.
    let mut p = pipeline(vec![custom("quiet", json!({ "everyNCalls": 5 })), builtin("resources", json!({ "everyNCalls": 3 }), Value::Null)]);
    let mut ran = Vec::new();
    for i in 0..20 {
        p.record_tool_call(ok("ls", json!({ "i": i })), i as f64, |_, p: &Pipeline| {
            ran.push(p.log().len());
            Outcome::Quiet
        })
        .unwrap();
    }
    assert_eq!(ran, [5, 10, 15, 20]);
    assert_eq!(p.state().total_assessments, 6, "resources every 3rd call, as before");
    // The per-observer counters survive a snapshot.
    let mut q = Pipeline::restore(
        p.snapshot(),
        vec![custom("quiet", json!({ "everyNCalls": 5 })), builtin("resources", json!({ "everyNCalls": 3 }), Value::Null)],
    )
    .unwrap();
    let mut later = Vec::new();
    for i in 20..30 {
        q.record_tool_call(ok("ls", json!({ "i": i })), i as f64, |_, p: &Pipeline| {
            later.push(p.log().len());
            Outcome::Quiet
        })
        .unwrap();
    }
    assert_eq!(later, [25, 30]);
}

#[test]
fn a_rolled_back_call_leaves_no_trace() {
    let mut p = pipeline(mixed());
    for i in 0..9 {
        p.record_tool_call(script(i), i as f64, |_, _| Outcome::Quiet).unwrap();
    }
    let before = p.snapshot();
    let cp = p.checkpoint();
    let produced = p.record_tool_call(script(9), 9.0, |_, _| Outcome::Report(Assessment::new("mine", "x", Severity::Info))).unwrap();
    assert!(produced.is_some());
    p.rollback(cp);
    assert_eq!(p.snapshot(), before, "log, counters, detector state and current assessment are as before the call");
    // And the pipeline goes on exactly as one that never saw the call.
    let mut twin = Pipeline::restore(before, mixed()).unwrap();
    for i in 9..30 {
        assert_eq!(
            p.record_tool_call(script(i), i as f64, |_, _| Outcome::Quiet).unwrap(),
            twin.record_tool_call(script(i), i as f64, |_, _| Outcome::Quiet).unwrap()
        );
    }
}

#[test]
fn restore_refuses_other_detector_options() {
    let slots = |window: u64| {
        vec![
            builtin("stall", json!({ "everyNCalls": 1 }), json!({ "window": window })),
            builtin("drift", json!({ "everyNCalls": 1 }), json!({ "scope": ["src"], "window": window })),
        ]
    };
    let mut p = pipeline(slots(20));
    run(&mut p, (0..25).map(script).collect());
    let e = Pipeline::restore(p.snapshot(), slots(8)).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(e.message.starts_with("restore: observers[0] (Stall) was snapshotted with options"), "{}", e.message);
    assert!(e.message.contains("\"window\":20") && e.message.contains("\"window\":8"), "{}", e.message);
    assert!(Pipeline::restore(p.snapshot(), slots(20)).is_ok());
}

#[test]
fn numbers_stay_in_range() {
    let mut p = pipeline(vec![]);
    p.record_tokens(9_007_199_254_740_000).unwrap();
    let e = p.record_tokens(1_000).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(p.budget().tokens_used, Some(9_007_199_254_740_000), "a refused add changes nothing");
    assert!(Pipeline::new(vec![], Budget::default(), u64::MAX, 0.0).is_err());
    let e = Builtin::from_config("stall", Some(&json!({ "window": 4_000_000_000u64 })), "observers[0]").unwrap_err();
    assert!(e.message.contains("at most 1000"), "{}", e.message);
    let e = Builtin::from_config("drift", Some(&json!({ "scope": ["a"], "window": 5000 })), "observers[0]").unwrap_err();
    assert!(e.message.contains("at most 1000"), "{}", e.message);
    let budget = read::<Budget>(json!({ "maxTokens": 9_007_199_254_740_992u64 }), "budget").unwrap_err();
    assert_eq!(budget, "budget.maxTokens: 9007199254740992 is past the largest exact JS integer (9007199254740991)");
    let budget = read::<Budget>(json!({ "maxToken": 5 }), "").unwrap_err();
    assert_eq!(
        budget,
        "unknown option \"maxToken\"; did you mean \"maxTokens\"? (valid: deadline, elapsedSeconds, maxTokens, tokensUsed, maxToolCalls)"
    );
    let e = Builtin::from_config("stall", Some(&json!({ "repeatThreshold": "NaN" })), "observers[0] (stall)").unwrap_err();
    assert_eq!(e.message, "observers[0] (stall): options: repeatThreshold: invalid value: the number NaN, expected a whole number (0 or more)");
}

#[test]
fn the_assessment_can_travel_inside_the_last_user_message() {
    let mut p = pipeline(vec![builtin("resources", json!({ "onEveryCall": true }), Value::Null)]);
    run(&mut p, vec![ok("ls", json!({}))]);
    let history = vec![ModelMessage::text(Role::User, "first"), ModelMessage::text(Role::Assistant, "ok"), ModelMessage::text(Role::User, "second")];
    let out = serde_json::to_value(p.inject_into(history.clone(), Placement::LastUser)).unwrap();
    assert_eq!(out.as_array().unwrap().len(), 3, "no message added");
    assert_eq!(out[2]["content"][0], json!({ "type": "text", "text": "second" }));
    assert!(out[2]["content"][1]["text"].as_str().unwrap().starts_with("## Trajectory Assessment"));
    assert_eq!(out[0]["content"], "first");
    assert!(out.as_array().unwrap().iter().all(|m| m["role"] != "system"));
    assert_eq!(Placement::parse("last-user"), Some(Placement::LastUser));
}

#[test]
fn snapshots_survive_a_trip_through_js_and_counters_saturate() {
    let slots = || vec![builtin("resources", json!({ "everyNCalls": 2 }), json!({ "cautionThreshold": 1 }))];
    let mut p = pipeline(slots());
    run(&mut p, vec![ok("a", json!({}))]);
    // JS writes 1.0 back as 1: still the same options.
    let text = serde_json::to_string(&p.snapshot()).unwrap().replace("\"cautionThreshold\":1.0", "\"cautionThreshold\":1");
    assert!(text.contains("\"cautionThreshold\":1,"), "{text}");
    assert!(Pipeline::restore(PipelineSnapshot::from_json(&text).unwrap(), slots()).is_ok());
    // Counters restored at 2^53 - 1 stay there instead of passing it.
    let mut snap = p.snapshot();
    snap.observers[0].calls_since_run = Some(9_007_199_254_740_991);
    snap.state.tool_calls_since_assessment = 9_007_199_254_740_991;
    let mut q = Pipeline::restore(snap, slots()).unwrap();
    run(&mut q, vec![ok("b", json!({})), ok("c", json!({}))]);
    let again = serde_json::to_string(&q.snapshot()).unwrap();
    assert!(Pipeline::restore(PipelineSnapshot::from_json(&again).unwrap(), slots()).is_ok(), "{again}");
}
