//! Native tests of forks: the kept turns replay without a model and leave
//! the state the parent had; bad `resumeFrom` input is refused by key.
#![cfg(not(target_arch = "wasm32"))]

use agent_trajectories::core::capture::Payload;
use agent_trajectories::core::generate::*;
use agent_trajectories::core::message::ModelMessage;
use agent_trajectories::core::ErrorCode;
use agent_trajectories::judge::export::result_value;
use serde_json::{json, Value};

#[path = "support/generate.rs"]
mod support;
use support::*;

fn with_max_turns(n: u32) -> Trajectory {
    let mut v = chain();
    v["maxTurns"] = json!(n);
    def(v)
}

fn replying() -> Bot {
    bot(|n, _: &[ModelMessage]| Ok(says(&format!("reply {n}"))))
}

#[test]
fn a_fork_at_the_end_continues_the_run_and_at_zero_is_a_fresh_one() {
    let (user, agent) = (User::new(), replying());
    let (longer, _) = go(&with_max_turns(5), simple(&user, &agent));
    assert_eq!(longer.end().unwrap().reason, StopReason::GoalReached);
    assert_eq!(longer.steps.len(), 3);

    let (user, agent) = (User::new(), replying());
    let (short, _) = go(&with_max_turns(2), simple(&user, &agent));
    assert_eq!(short.end().unwrap().reason, StopReason::MaxTurns);

    let t = with_max_turns(5);
    let resume = |at: usize| Fork::from_value(&json!({ "result": result_value(&short), "atTurn": at }), &t).unwrap();
    // The fakes count their calls: the user goes on from its third message, the agent from its third reply.
    let (user, agent) = (User::new(), bot(|n, _: &[ModelMessage]| Ok(says(&format!("reply {}", n + 2)))));
    user.n.set(2);
    let (forked, events) = go_from(&t, simple(&user, &agent), Some(&resume(2)));
    let strip = |r: &TrajectoryResult| r.steps.iter().map(|s| StepTrace { end: None, ..s.clone() }).collect::<Vec<_>>();
    assert_eq!(strip(&forked), strip(&longer));
    assert_eq!((forked.end(), &forked.step_states), (longer.end(), &longer.step_states));
    assert_eq!((agent.calls.get(), user.requests.borrow().len()), (1, 1), "the kept turns asked no model");
    assert_eq!(forked.conversation_id, "c1-fork-2");
    let records = events.records.borrow();
    match &records[0] {
        Payload::RunStarted { identity } => assert_eq!(identity.parent_run_id.as_deref(), Some("c1")),
        other => panic!("{other:?}"),
    }
    assert!(records
        .iter()
        .any(|p| matches!(p, Payload::Custom { name, data } if name == "fork" && *data == json!({ "parentRunId": "c1", "atTurn": 2 }))));

    let (user, agent) = (User::new(), replying());
    let (fresh, _) = go_from(&t, simple(&user, &agent), Some(&resume(0)));
    assert_eq!(strip(&fresh), strip(&longer));
}

#[test]
fn bad_resume_input_is_refused_by_key() {
    let (user, agent) = (User::new(), replying());
    let (parent, _) = go(&with_max_turns(3), simple(&user, &agent));
    let result = result_value(&parent);
    let t = with_max_turns(3);
    let refused = |v: Value, needle: &str| {
        let e = Fork::from_value(&v, &t).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(e.message.contains(needle), "{}", e.message);
    };
    refused(json!({ "result": result, "atTurn": 4 }), "resumeFrom.atTurn must be a whole number from 0 to 3");
    refused(json!({ "result": result, "atTurn": -1 }), "got -1");
    refused(json!({ "result": result, "atTurn": "NaN" }), "got NaN");
    refused(json!({ "result": result, "atTurm": 1 }), "did you mean \"atTurn\"");
    refused(json!({ "result": 5, "atTurn": 0 }), "resumeFrom.result must be a result runTrajectory resolved with");
    let mut other = result.clone();
    other["steps"][1]["stepId"] = json!("pay");
    refused(json!({ "result": other, "atTurn": 2 }), "resumeFrom.result.steps[1].stepId: \"pay\" is not a step of this trajectory");
    let mut other = result.clone();
    other["steps"][0]["userMessage"] = json!({ "role": "assistant", "content": "hi" });
    refused(json!({ "result": other, "atTurn": 1 }), "resumeFrom.result.steps[0]: expected a user message");
    other["steps"][0]["userMessage"] = json!({ "role": "user", "content": 7 });
    refused(json!({ "result": other, "atTurn": 1 }), "resumeFrom.result.steps[0].userMessage:");
    for (key, bad, needle) in [
        ("stepId", json!(7), "steps[1].stepId: expected a string, got a number"),
        ("tokens", json!(-500), "steps[1].tokens: expected a whole number of tokens, got -500"),
        ("assessment", json!(42), "steps[1].assessment: expected a string"),
        ("turnIndex", json!(5), "steps[1].turnIndex is 5, not 1"),
        ("timestamp", json!("yesterday"), "steps[1].timestamp: expected an ISO 8601 time"),
        ("timestamp", json!("2026-13-45T99:99:99.000Z"), "steps[1].timestamp: expected an ISO 8601 time"),
        ("tokens", json!(1u64 << 60), "steps[1].tokens: expected a whole number of tokens"),
        ("turnIndex", Value::Null, "steps[1].turnIndex is null, not 1"),
        ("stepID", json!("ask"), "steps[1]: unknown option \"stepID\"; did you mean \"stepId\"?"),
        ("selection", json!("x"), "steps[1].selection: expected { method, candidates?, rankerError? }, got a string"),
        ("selection", json!({ "method": "none" }), "steps[1].selection.method is \"none\" for step \"ask\""),
        ("selection", json!({ "method": "llm-ranked", "candidates": "x" }), "steps[1].selection.candidates: expected an array, got a string"),
        ("selection", json!({ "method": "llm-ranked", "rankerError": 5 }), "steps[1].selection.rankerError: expected a string, got a number"),
        ("end", json!({ "reason": "max-turns" }), "steps[1].end: a turn before the last has an end marker"),
    ] {
        let mut other = result.clone();
        other["steps"][1][key] = bad;
        refused(json!({ "result": other, "atTurn": 2 }), needle);
    }
    let mut other = result.clone();
    other["conversationId"] = json!("");
    refused(json!({ "result": other, "atTurn": 0 }), "result.conversationId must be the id of the run forked from, got an empty string");
    other.as_object_mut().unwrap().remove("conversationId");
    refused(json!({ "result": other, "atTurn": 0 }), "got nothing");
    refused(json!({ "result": result }), "atTurn must be a whole number from 0 to 3 (how many of the result's turns to keep), got nothing");
    let mut failed = result.clone();
    failed["steps"][2]["end"] = json!({ "reason": "error" });
    refused(json!({ "result": failed, "atTurn": 3 }), "ended in turn 2 (error), which may be incomplete");
    assert_eq!(Fork::from_value(&json!({ "result": failed, "atTurn": 2 }), &t).unwrap().turns.len(), 2);
    // A turn the run ended after (not in) is kept whole: its end marker is left behind.
    let whole = Fork::from_value(&json!({ "result": result, "atTurn": 3 }), &t).unwrap();
    assert!(parent.steps[2].end.is_some() && whole.turns[2].end.is_none());
}

#[test]
fn a_kept_turn_this_trajectory_would_not_have_run_ends_the_fork() {
    let (user, agent) = (User::new(), replying());
    let (parent, _) = go(&with_max_turns(3), simple(&user, &agent));
    let t = with_max_turns(5);
    let mut edited = result_value(&parent);
    // `confirm` waits for `ask`, which is not satisfied before turn 1.
    edited["steps"][1]["stepId"] = json!("confirm");
    let fork = Fork::from_value(&json!({ "result": edited, "atTurn": 3 }), &t).unwrap();
    let (user, agent) = (User::new(), replying());
    let (r, _) = go_from(&t, simple(&user, &agent), Some(&fork));
    let end = r.end().unwrap();
    assert_eq!((end.reason, end.verdict), (StopReason::Error, Verdict::Harness));
    let e = end.error.as_ref().unwrap();
    assert!(e.message.contains("resumeFrom.result.steps[1] ran step \"confirm\", which this trajectory would not have run there"), "{}", e.message);
    assert_eq!((agent.calls.get(), r.steps.len()), (0, 1), "turn 0 kept, turn 1 refused before it began, no model asked");
    edited["steps"][0]["stepId"] = json!("ask");
    let fork = Fork::from_value(&json!({ "result": edited, "atTurn": 1 }), &t).unwrap();
    let (r, _) = go_from(&t, simple(&user, &agent), Some(&fork));
    assert!(r.end().unwrap().error.as_ref().unwrap().message.contains("turn 0 runs the start step \"greet\""));
    // A turn without a step where the graph's order chose one (no model decides that) is not this trajectory's either.
    let mut edited = result_value(&parent);
    edited["steps"][1]["stepId"] = Value::Null;
    edited["steps"][1]["selection"] = json!({ "method": "none" });
    let fork = Fork::from_value(&json!({ "result": edited, "atTurn": 2 }), &t).unwrap();
    let (r, _) = go_from(&t, simple(&user, &agent), Some(&fork));
    let message = &r.end().unwrap().error.as_ref().unwrap().message;
    assert!(
        message.contains("steps[1] ran no step, which this trajectory would not have run there (the next eligible step in graph order was \"ask\")"),
        "{message}"
    );
}
