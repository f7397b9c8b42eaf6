//! Native tests of the background loop: the code review, a reflection
//! retry, every termination, faults of the model and the tools, the VFS
//! escapes as the model meets them, resume, and determinism.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::RefCell;

use agent_trajectories::core::background::{run, Config, Env, Status};
use agent_trajectories::core::capture::{EndedOutcome, OutcomeStatus, Payload};
use agent_trajectories::core::error::Result;
use agent_trajectories::core::generate::concurrency::block_on;
use agent_trajectories::core::host::{FixedClock, ModelRequest, ModelResponse, Purpose, Usage};
use agent_trajectories::core::{Error, ErrorCode};
use serde_json::json;

#[path = "support/background.rs"]
mod harness;
#[path = "support/generate.rs"]
mod support;
use harness::{calls, go, kinds, observed, review, scripted, text, Tools};
use support::Events;

/// The scripted reviewer: plans, reads, lints, notes, marks done, finishes.
fn reviewer(n: usize, req: &ModelRequest) -> Result<ModelResponse> {
    match (n, req.purpose) {
        (0, Purpose::Decide) => {
            calls(json!([{ "toolName": "plan_create", "input": { "steps": ["Map the changes", "Run checks", "Confirm tests"] } }]))
        }
        (1, _) => calls(json!([
            { "toolName": "read_file", "input": { "path": "diff/change.patch" } },
            { "toolName": "plan_update_step", "input": { "step": 1, "status": "done", "note": "add() takes b now" } },
        ])),
        (2, _) => calls(json!([
            { "toolName": "lint", "input": { "path": "diff/src/lib.rs" } },
            { "toolName": "plan_update_step", "input": { "step": 2, "status": "done", "note": "lint clean" } },
        ])),
        (3, _) => calls(json!([
            { "toolName": "grep", "input": { "text": "add", "path": "diff/tests" } },
            { "toolName": "plan_update_step", "input": { "step": 3, "status": "done" } },
            { "toolName": "finish", "input": { "status": "completed", "summary": "one API change", "deliverable": { "verdict": "approve" } } },
        ])),
        (4, Purpose::Summarize) => text("Approve: add() gained a parameter; lint clean; tests cover it."),
        other => panic!("unexpected call {other:?}"),
    }
}

#[test]
fn code_review_completes_with_its_deliverable() {
    let (r, events) = go(&review(), &Config::default(), &scripted(reviewer), &Tools::default(), None);
    assert_eq!(r.status, Status::Completed, "{r:?}");
    assert_eq!(r.reason, "model-completed");
    assert_eq!(r.iterations, 4);
    assert_eq!(r.failures, 0);
    assert_eq!(r.deliverable, Some(json!({ "verdict": "approve" })));
    assert!(r.final_summary.starts_with("Approve"));
    let plan = r.snapshot.plan.as_ref().unwrap();
    assert_eq!(plan.steps[0].notes, ["add() takes b now"]);
    let k = kinds(&events);
    assert_eq!(k.first(), Some(&"run_started"));
    assert_eq!(&k[k.len() - 2..], ["run_terminated", "run_ended"]);
    assert_eq!(k.iter().filter(|k| **k == "iteration_started").count(), 4);
    assert_eq!(k.iter().filter(|k| **k == "tool_started").count(), k.iter().filter(|k| **k == "tool_ended").count());
    let records = events.records.borrow();
    let done = records.iter().find_map(|p| match p {
        Payload::IterationCompleted { iteration: 2, tools, failed, .. } => Some((tools.clone(), *failed)),
        _ => None,
    });
    assert_eq!(done, Some((vec!["lint".to_owned(), "plan_update_step".to_owned()], false)));
}

#[test]
fn the_prompt_carries_rules_sections_scratchpad_and_every_tool() {
    let model = scripted(reviewer);
    go(&review(), &Config::default(), &model, &Tools::default(), None);
    let seen = model.seen.borrow();
    let first = &seen[0];
    let system = first.system.as_deref().unwrap();
    assert!(system.contains("ASCII") && system.contains("Plan before acting") && system.contains("## Checklist"), "{system}");
    let names: Vec<&str> = first.tools.as_ref().unwrap().iter().map(|t| t.name.as_str()).collect();
    for n in ["plan_create", "read_file", "edit_file", "grep", "finish", "lint"] {
        assert!(names.contains(&n), "{names:?}");
    }
    let pad = seen[2].messages[0].text_content();
    assert!(pad.contains("1. [done] Map the changes") && pad.contains("- diff/src/lib.rs"), "{pad}");
    assert!(pad.contains("read_file"), "the last calls are shown: {pad}");
}

/// A read of a wrong path fails; reflection retries with the right one.
fn retrying(n: usize, req: &ModelRequest) -> Result<ModelResponse> {
    match (n, req.purpose) {
        (0, _) => calls(json!([{ "toolName": "plan_create", "input": { "steps": ["Read the patch"] } }])),
        (1, _) => calls(json!([{ "toolName": "read_file", "input": { "path": "diff/changes.patch" } }])),
        (2, Purpose::Reflect) => {
            assert!(req.messages[0].text_content().contains("no such file"));
            text("{\"action\": \"retry\", \"input\": { \"path\": \"diff/change.patch\" }, \"reason\": \"typo in the name\"}")
        }
        (3, Purpose::Decide) => {
            assert!(req.messages[0].text_content().contains("retried read_file"));
            calls(json!([{ "toolName": "plan_update_step", "input": { "step": 1, "status": "done" } }]))
        }
        (4, Purpose::Reflect) => text("{\"action\": \"complete\", \"reason\": \"read\"}"),
        (5, Purpose::Summarize) => text("{\"summary\": \"read it\", \"deliverable\": { \"verdict\": \"approve\" }}"),
        other => panic!("unexpected call {other:?}"),
    }
}

#[test]
fn reflection_retries_a_failed_read_with_the_corrected_path() {
    let (r, events) = go(&review(), &Config::default(), &scripted(retrying), &Tools::default(), None);
    assert_eq!((r.status, r.reason.as_str()), (Status::Completed, "plan-completed"), "{r:?}");
    assert_eq!(r.failures, 1);
    assert_eq!(r.iterations, 4);
    assert_eq!(r.deliverable, Some(json!({ "verdict": "approve" })), "asked of the summary");
    let records = events.records.borrow();
    let decisions: Vec<(String, bool)> = records
        .iter()
        .filter_map(|p| match p {
            Payload::IterationCompleted { decision, failed, .. } => Some((decision.clone(), *failed)),
            _ => None,
        })
        .collect();
    assert_eq!(decisions, [("tools".into(), false), ("tools".into(), true), ("retry".into(), false), ("tools".into(), false)]);
    let error = records.iter().find_map(|p| match p {
        Payload::IterationCompleted { error: Some(e), .. } => Some(e.clone()),
        _ => None,
    });
    assert_eq!(error.as_deref(), Some("INVALID_ARGUMENT: diff/changes.patch: no such file"));
    let retried = r.snapshot.tool_invocations.iter().find(|i| i.tool_call_id == "retry-2").unwrap();
    assert!(retried.ok && retried.result.as_str().unwrap().contains("+fn add"));
}

#[test]
fn a_reflection_that_fails_is_recorded_and_shown_to_the_model() {
    // A failed read, then a reflection with a slip ("acton"), then one that throws.
    let model = scripted(|n, req| match (n, req.purpose) {
        (0 | 2, Purpose::Decide) => calls(json!([{ "toolName": "read_file", "input": { "path": "diff/changes.patch" } }])),
        (1, Purpose::Reflect) => text("{\"acton\": \"retry\", \"input\": { \"path\": \"diff/change.patch\" }}"),
        (3, Purpose::Reflect) => Err(Error::new(ErrorCode::CallbackFailed, "the model (reflect) threw: rate limited")),
        (4, Purpose::Decide) => {
            assert!(req.messages[0].text_content().contains("\nReflection: your reflection failed: the model (reflect) threw: rate limited"));
            calls(json!([{ "toolName": "finish", "input": { "status": "abandoned", "summary": "cannot read it" } }]))
        }
        (_, Purpose::Summarize) => text("gave up"),
        other => panic!("unexpected call {other:?}"),
    });
    let (r, events) = go(&review(), &Config::default(), &model, &Tools::default(), None);
    assert_eq!((r.status, r.failures), (Status::Abandoned, 2), "{r:?}");
    let seen = model.seen.borrow();
    assert!(seen[2].messages[0]
        .text_content()
        .contains("\nReflection: your reflection failed: the model (reflect): the reflection answer's action is missing"));
    let errors: Vec<String> = events
        .records
        .borrow()
        .iter()
        .filter_map(|p| match p {
            Payload::IterationCompleted { error: Some(e), .. } => Some(e.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        errors,
        [
            "INVALID_ARGUMENT: diff/changes.patch: no such file; then the model (reflect): the reflection answer's action is missing; expected retry, continue, reset_plan, abandon or complete",
            "INVALID_ARGUMENT: diff/changes.patch: no such file; then the model (reflect) threw: rate limited",
        ]
    );
}

#[test]
fn a_model_that_always_throws_fails_after_max_failures_naming_the_error() {
    let model = scripted(|_, _| Err(Error::new(ErrorCode::CallbackFailed, "model down: 503")));
    let cfg = Config { max_failures: 3, ..Config::default() };
    let (r, events) = go(&review(), &cfg, &model, &Tools::default(), None);
    assert_eq!(r.status, Status::Failed);
    assert!(r.reason.starts_with("max-failures: last error: CALLBACK_FAILED"), "{}", r.reason);
    assert_eq!((r.iterations, r.failures), (3, 3));
    assert!(r.final_summary.contains("model down: 503"), "{}", r.final_summary);
    assert_eq!(kinds(&events).last(), Some(&"run_ended"));
}

#[test]
fn a_replay_that_misses_ends_the_run_at_once() {
    let model = scripted(|_, _| Err(Error::new(ErrorCode::ReplayMiss, "no recorded answer for this request")));
    let (r, _) = go(&review(), &Config::default(), &model, &Tools::default(), None);
    assert_eq!((r.status, r.reason.as_str()), (Status::Failed, "error: replay failed: no recorded answer for this request"));
    // One decision, not retried as a model's failure (up to maxFailures); then the summary's request.
    assert_eq!((r.iterations, model.calls.get()), (0, 2));
    assert_eq!(r.error.map(|e| e.code), Some("REPLAY_MISS".to_owned()));
}

#[test]
fn a_finding_is_recorded_once_and_the_last_iterations_at_the_end() {
    use agent_trajectories::core::observe::{Builtin, Observer, Pipeline, Slot, Trigger};
    // Every decision reads a file that is not there; the cascade observer runs every third call.
    let model = scripted(|_, req| match req.purpose {
        Purpose::Decide => calls(json!([{ "toolName": "read_file", "input": { "path": "diff/missing.rs" } }])),
        _ => text("stopped"),
    });
    let slot = Slot {
        observer: Observer::Builtin(Builtin::from_config("error-cascade", None, "cascade").unwrap()),
        trigger: Trigger { every_n_calls: Some(3), ..Default::default() },
    };
    let pipeline = support::Observed(RefCell::new(Pipeline::new(vec![slot], Default::default(), 20, 0.0).unwrap()));
    let cfg = Config { max_iterations: 6, max_failures: 10, enable_reflection: false, ..Config::default() };
    let (r, events) = observed(&review(), &cfg, &model, &Tools::default(), None, Some(&pipeline));
    assert_eq!((r.status, r.reason.as_str()), (Status::Failed, "max-iterations"));
    // The finding made after call 3 is shown to three decisions (calls 4 to 6)...
    let shown: Vec<bool> = model.seen.borrow().iter().map(|q| q.messages[0].text_content().contains("\nObservers: ")).collect();
    assert_eq!(shown, [false, false, false, true, true, true, false]);
    let records = events.records.borrow();
    let produced: Vec<(usize, u64)> = records
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Payload::AssessmentProduced { call_index, .. } => Some((i, *call_index)),
            _ => None,
        })
        .collect();
    // ... and recorded once; the one made after call 6, which no decision
    // saw, is recorded after the last iteration, before the run's end.
    assert_eq!(produced.iter().map(|p| p.1).collect::<Vec<_>>(), [3, 6]);
    let last = produced[1].0;
    assert_eq!([records[last - 1].kind(), records[last + 1].kind()], ["iteration_completed", "run_terminated"]);
}

#[test]
fn a_model_that_never_finishes_stops_at_max_iterations() {
    let model = scripted(|_, req| match req.purpose {
        Purpose::Decide => calls(json!([{ "toolName": "ls", "input": {} }])),
        _ => text("ran out of iterations"),
    });
    let cfg = Config { max_iterations: 5, ..Config::default() };
    let (r, events) = go(&review(), &cfg, &model, &Tools::default(), None);
    assert_eq!((r.status, r.reason.as_str(), r.iterations), (Status::Failed, "max-iterations", 5));
    // run_ended says it the way every producer does: a limit is the agent's failure, not an error.
    let records = events.records.borrow();
    let Some(Payload::RunEnded { outcome: EndedOutcome::Structured(o), .. }) = records.last() else { panic!("no run_ended last") };
    assert_eq!((o.status, o.reason.as_deref(), o.verdict.as_deref()), (OutcomeStatus::Stopped, Some("max-iterations"), Some("agent")));
}

#[test]
fn a_background_run_records_its_model_usage_and_passes_when_done() {
    let model = scripted(|n, req| {
        let mut r = reviewer(n, req)?;
        r.usage = Usage { input_tokens: Some(100), output_tokens: Some(10), total_tokens: None };
        Ok(r)
    });
    let (r, events) = go(&review(), &Config::default(), &model, &Tools::default(), None);
    assert_eq!(r.status, Status::Completed);
    let records = events.records.borrow();
    let usage: Vec<_> = records
        .iter()
        .filter_map(|p| match p {
            Payload::Custom { name, data } if name == "model_usage" => Some(data.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(usage.len(), 5, "four decisions and the summary");
    assert_eq!(usage[0], json!({ "source": "agent", "inputTokens": 100, "outputTokens": 10, "totalTokens": 110 }));
    assert_eq!(usage[4]["source"], "summarize");
    let Some(Payload::RunEnded { outcome: EndedOutcome::Structured(o), .. }) = records.last() else { panic!("no run_ended last") };
    assert_eq!((o.status, o.verdict.as_deref()), (OutcomeStatus::Completed, Some("pass")));
}

#[test]
fn garbage_answers_are_counted_failures_the_model_sees() {
    let model = scripted(|n, req| match (n, req.purpose) {
        (0, _) => calls(json!([{ "toolName": "delete_everything", "input": {} }])),
        (1, Purpose::Reflect) => text("not json"),
        (2, _) => calls(json!([{ "toolName": "read_file", "input": "{not json" }])),
        (3, Purpose::Reflect) => text("{\"action\":\"continue\"}"),
        (4, _) => calls(json!([{ "toolName": "read_file", "input": { "path": "../../etc/passwd" } }])),
        (5, Purpose::Reflect) => text("{\"action\":\"continue\"}"),
        (6, _) => calls(json!([{ "toolName": "lint", "input": { "path": "x" } }])),
        (7, Purpose::Reflect) => text("{\"action\":\"abandon\",\"reason\":\"cannot lint\"}"),
        (8, Purpose::Summarize) => text("Abandoned: the linter is broken."),
        other => panic!("unexpected call {other:?}"),
    });
    let tools = Tools { lint_fails: Some("linter crashed".into()), ..Tools::default() };
    let (r, _) = go(&review(), &Config::default(), &model, &tools, None);
    assert_eq!((r.status, r.reason.as_str()), (Status::Abandoned, "reflection-abandoned"), "{r:?}");
    assert_eq!(r.failures, 4);
    let errors: Vec<String> = r.snapshot.tool_invocations.iter().map(|i| i.result.as_str().unwrap_or("").to_owned()).collect();
    assert!(errors[0].contains("no tool \"delete_everything\""), "{errors:?}");
    assert!(errors[1].contains("not valid JSON"), "{errors:?}");
    assert!(errors[2].starts_with("VFS_PATH"), "{errors:?}");
    assert!(errors[3].contains("linter crashed"), "{errors:?}");
}

#[test]
fn a_caller_tool_that_always_fails_ends_the_run_with_what_it_threw_as_the_cause() {
    let model = scripted(|_, req| match req.purpose {
        Purpose::Decide => calls(json!([{ "toolName": "lint", "input": { "path": "x" } }])),
        _ => text("the linter is broken"),
    });
    let tools = Tools { lint_fails: Some("linter crashed".into()), ..Tools::default() };
    let cfg = Config { max_failures: 2, enable_reflection: false, ..Config::default() };
    let (r, _) = go(&review(), &cfg, &model, &tools, None);
    assert_eq!((r.status, r.reason.as_str()), (Status::Failed, "max-failures: last error: CALLBACK_FAILED: linter crashed"));
    let error = r.error.expect("the last failure");
    let thrown = error.cause.as_ref().and_then(|c| c.0.downcast_ref::<String>());
    assert_eq!((error.message.as_str(), thrown.map(String::as_str)), ("linter crashed", Some("linter crashed")));
}

#[test]
fn every_vfs_escape_is_a_failed_call_not_a_crash() {
    let escapes = [
        json!({ "toolName": "read_file", "input": { "path": "../secret" } }),
        json!({ "toolName": "read_file", "input": { "path": "diff/../../secret" } }),
        json!({ "toolName": "read_file", "input": { "path": "C:\\Windows\\win.ini" } }),
        json!({ "toolName": "read_file", "input": { "path": "\\\\server\\share" } }),
        json!({ "toolName": "read_file", "input": { "path": "~/.ssh/id_rsa" } }),
        json!({ "toolName": "write_file", "input": { "path": "a\u{0}b", "content": "x" } }),
        json!({ "toolName": "write_file", "input": { "path": "x".repeat(2000), "content": "x" } }),
        json!({ "toolName": "write_file", "input": { "path": format!("d/{}", "n".repeat(300)), "content": "x" } }),
        json!({ "toolName": "ls", "input": { "path": ".." } }),
        json!({ "toolName": "glob", "input": { "pattern": "../**" } }),
        json!({ "toolName": "grep", "input": { "text": "a", "path": "../" } }),
        json!({ "toolName": "rm", "input": { "path": "/../x" } }),
        json!({ "toolName": "write_file", "input": { "path": "big", "content": "x".repeat(2000) } }),
    ];
    let n = escapes.len();
    let model = scripted(move |i, req| match req.purpose {
        Purpose::Decide if i < n => calls(json!([escapes[i].clone()])),
        Purpose::Decide => calls(json!([{ "toolName": "finish", "input": { "status": "abandoned", "summary": "done probing" } }])),
        _ => text("probed"),
    });
    let cfg = Config {
        enable_reflection: false,
        max_failures: 100,
        vfs: agent_trajectories::core::vfs::VfsLimits { max_file_bytes: 1000, ..Default::default() },
        ..Config::default()
    };
    let (r, _) = go(&review(), &cfg, &model, &Tools::default(), None);
    assert_eq!(r.status, Status::Abandoned);
    assert_eq!(r.failures as usize, n);
    assert!(r.snapshot.overlay.written.is_empty(), "nothing escaped into the overlay");
    let codes: Vec<String> = r.snapshot.tool_invocations.iter().map(|i| i.result.as_str().unwrap().split(':').next().unwrap().to_owned()).collect();
    // The last five kept: the rm, the size cap.
    assert_eq!(codes[codes.len() - 2..], ["VFS_PATH", "VFS_LIMIT"]);
}

#[test]
fn a_recorded_run_is_deterministic_and_resumable() {
    let (a, ea) = go(&review(), &Config::default(), &scripted(retrying), &Tools::default(), None);
    let (b, eb) = go(&review(), &Config::default(), &scripted(retrying), &Tools::default(), None);
    assert_eq!(a, b);
    assert_eq!(*ea.records.borrow(), *eb.records.borrow());
    // A run stopped by maxIterations resumes where it stopped, with a higher cap.
    let cfg = Config { max_iterations: 2, ..Config::default() };
    let (stopped, _) = go(&review(), &cfg, &scripted(reviewer), &Tools::default(), None);
    assert_eq!(stopped.reason, "max-iterations");
    let snapshot = serde_json::to_value(&stopped.snapshot).unwrap();
    let model = scripted(|n, req| reviewer(n + 2, req));
    let (resumed, _) = go(&review(), &Config::default(), &model, &Tools::default(), Some(&snapshot));
    assert_eq!((resumed.status, resumed.iterations), (Status::Completed, 4), "{resumed:?}");
    assert_eq!(resumed.snapshot.plan.unwrap().steps[0].notes, ["add() takes b now"]);
}

#[test]
fn a_deliverable_that_does_not_validate_fails_the_run_quoting_the_validator() {
    let tools = Tools { refuse: Some("verdict: expected one of approve, reject".into()), ..Tools::default() };
    let (r, events) = go(&review(), &Config::default(), &scripted(reviewer), &tools, None);
    assert_eq!(r.status, Status::Failed);
    assert_eq!(r.reason, "deliverable-failed: verdict: expected one of approve, reject");
    let records = events.records.borrow();
    assert!(records.iter().any(|p| matches!(p, Payload::RunTerminated { status, .. } if status == "failed")));
    let factory = Tools { factory: true, ..Tools::default() };
    let (r, _) = go(&review(), &Config::default(), &scripted(reviewer), &factory, None);
    assert_eq!(r.deliverable, Some(json!({ "files": 3 })));
}

#[test]
fn a_completed_run_with_a_deliverable_schema_must_deliver() {
    let model_forgot = Tools { nothing: true, ..Tools::default() };
    let (r, _) = go(&review(), &Config::default(), &scripted(reviewer), &model_forgot, None);
    assert_eq!(r.status, Status::Failed);
    assert!(r.reason.starts_with("deliverable-failed: the model gave no deliverable"), "{}", r.reason);
    assert_eq!(r.error.as_ref().map(|e| e.code.as_str()), Some("CALLBACK_FAILED"));
    let factory_forgot = Tools { nothing: true, factory: true, ..Tools::default() };
    let (r, _) = go(&review(), &Config::default(), &scripted(reviewer), &factory_forgot, None);
    assert_eq!(r.reason, "deliverable-failed: deliverableFactory returned no deliverable");
    assert_eq!(r.error.as_ref().map(|e| e.code.as_str()), Some("INVALID_ARGUMENT"));
}

#[test]
fn a_recorder_that_fails_ends_the_run_failed_with_records_kept() {
    let events = Events::default();
    events.refuse.set(Some("tool_started"));
    let model = scripted(reviewer);
    let tools = Tools::default();
    let env = Env {
        clock: &FixedClock(0.0),
        model: &model,
        host: &tools,
        tools: vec![],
        timer: None,
        abort: None,
        observers: None,
        events: &events,
        run_id: None,
        run_number: 1,
    };
    let r = block_on(run(&review(), &Config::default(), &env, None)).unwrap();
    assert_eq!(r.status, Status::Failed);
    assert!(r.reason.starts_with("error: recorder failed: the sink refused tool_started"), "{}", r.reason);
    assert_eq!(kinds(&events)[..3], ["run_started", "iteration_started", "message_appended"]);
    assert_eq!(r.run_id, "background-0");
}
