//! Native tests of simulated-user faults told apart from the agent's: the
//! reply checks and their retries and records, `minTurns`, and the verdict
//! every end carries into the exports.
#![cfg(not(target_arch = "wasm32"))]

use agent_trajectories::core::capture::Payload;
use agent_trajectories::core::error::Result;
use agent_trajectories::core::generate::*;
use agent_trajectories::core::host::LocalBoxFuture;
use agent_trajectories::core::{Error, ErrorCode};
use agent_trajectories::judge::export::{result_value, summarize, to_conversation, to_jsonl};
use serde_json::{json, Value};

#[path = "support/generate.rs"]
mod support;
use support::*;

fn issues(events: &Events) -> Vec<(u64, String, u64, bool)> {
    events
        .records
        .borrow()
        .iter()
        .filter_map(|p| match p {
            Payload::SimulatorIssue { turn_index, issue, attempt, retried, .. } => Some((*turn_index, issue.clone(), *attempt, *retried)),
            _ => None,
        })
        .collect()
}

fn end(r: &TrajectoryResult) -> &End {
    r.steps.last().and_then(|t| t.end.as_ref()).or(r.end.as_ref()).unwrap()
}

#[test]
fn a_reply_that_is_not_the_user_is_retried_with_a_reminder_and_recorded() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 2, "simulator": { "checks": { "repeat": true } } }));
    let agent = bot(|_, _| Ok(says("ok")));
    let user = User::new().scripted(&["<think>the user is hungry</think> A table, please.", "A table, please.", "A table, please."]);
    let (r, events) = go(&t, simple(&user, &agent));
    // Turn 0: reasoning rejected, then accepted; turn 1: a verbatim repeat rejected, then "user message 1".
    assert_eq!(r.steps.iter().map(|s| s.user_message.text_content()).collect::<Vec<_>>(), ["A table, please.", "user message 1"]);
    assert_eq!(issues(&events), [(0, "reasoning".into(), 1, true), (1, "repeat".into(), 1, true)]);
    let reqs = user.requests.borrow();
    assert!(reqs[1].messages[0].text_content().ends_with("Answer with the user's message only, nothing else."));
    assert!(reqs[3].messages[0].text_content().ends_with("Write a new message that moves toward the goal."));
    assert_eq!((end(&r).reason, end(&r).verdict), (StopReason::MaxTurns, Verdict::Agent));
}

#[test]
fn a_persisting_issue_ends_the_run_as_the_simulators_fault() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "simulator": { "retries": 2 } }));
    let agent = bot(|_, _| Ok(says("ok")));
    let user = User::new().scripted(&["Assistant: how can I help?", "How can I help you today?", "User: a table"]);
    let (r, events) = go(&t, simple(&user, &agent));
    assert_eq!(issues(&events), [(0, "role".into(), 1, true), (0, "role".into(), 2, true), (0, "role".into(), 3, false)]);
    let e = end(&r);
    let err = e.error.as_ref().unwrap();
    assert_eq!((e.reason, e.verdict, err.side, err.code.as_str()), (StopReason::Error, Verdict::Simulator, Side::UserSimulator, "SIMULATOR_ISSUE"));
    assert_eq!(err.message, "turn 0: the user model's replies were not the user speaking (3 times, each retry with a reminder): role, role, role");
    assert_eq!(agent.calls.get(), 0, "the agent is never called with a broken user message");
    // The same replies pass with the role check off.
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 1, "simulator": { "checks": { "role": false } } }));
    let user = User::new().scripted(&["Assistant: how can I help?"]);
    let (r, events) = go(&t, simple(&user, &agent));
    assert_eq!((r.steps[0].user_message.text_content(), issues(&events).len()), ("Assistant: how can I help?".to_owned(), 0));
}

#[test]
fn empty_replies_keep_their_code_and_retries_are_bounded() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "simulator": { "retries": 0 } }));
    let agent = bot(|_, _| Ok(says("ok")));
    let user = User::new();
    user.empty_first.set(1);
    let (r, events) = go(&t, simple(&user, &agent));
    let err = end(&r).error.as_ref().unwrap();
    assert_eq!((err.code.as_str(), err.message.as_str()), ("EMPTY_USER_MESSAGE", "turn 0: the user model returned an empty message (once)"));
    assert_eq!(issues(&events), [(0, "empty".into(), 1, false)]);
    for (bad, says) in [
        (json!({ "retries": 11 }), "simulator.retries must be at most 10, got 11"),
        (json!({ "retry": 1 }), "simulator: unknown option \"retry\"; did you mean \"retries\"? (valid: retries, checks)"),
        (json!({ "checks": { "role": 1 } }), "simulator.checks.role must be true or false, got a number"),
    ] {
        let e = invalid(json!({ "goal": "g", "persona": { "description": "d" }, "simulator": bad }));
        assert!(e.code == ErrorCode::InvalidTrajectory && e.message.contains(says), "{}", e.message);
    }
}

#[test]
fn min_turns_keeps_a_reached_goal_talking_until_then() {
    // "greet" is the start and the terminal: satisfied at turn 0.
    let one = json!({ "steps": [{ "id": "greet", "instruction": "say hello" }], "start": "greet", "terminals": ["greet"] });
    let agent = bot(|_, _| Ok(says("ok")));
    let user = User::new();
    let (r, _) = go(&def(base(one.clone())), simple(&user, &agent));
    assert_eq!((r.steps.len(), end(&r).reason), (1, StopReason::GoalReached));
    let mut v = base(one);
    v["minTurns"] = json!(3);
    let user = User::new();
    let (r, _) = go(&def(v.clone()), simple(&user, &agent));
    assert_eq!((r.steps.len(), end(&r).reason, end(&r).verdict), (3, StopReason::GoalReached, Verdict::Pass));
    assert_eq!(
        r.steps.iter().map(|s| s.selection.method).collect::<Vec<_>>(),
        [SelectionMethod::Start, SelectionMethod::None, SelectionMethod::None]
    );
    // maxTurns still caps it; minTurns above it is refused.
    v["maxTurns"] = json!(2);
    v["minTurns"] = json!(2);
    let (r, _) = go(&def(v.clone()), simple(&User::new(), &agent));
    assert_eq!((r.steps.len(), end(&r).reason), (2, StopReason::GoalReached));
    v["minTurns"] = json!(3);
    assert_eq!(invalid(v).message, "minTurns (3) must not exceed maxTurns (2)");
}

struct Fails;
impl Policy for Fails {
    fn evaluate<'a>(&'a self, _: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>> {
        Box::pin(async { Err(Error::new(ErrorCode::CallbackFailed, "policy threw")) })
    }
}

#[test]
fn every_end_has_a_verdict_and_the_exports_carry_it() {
    let t = def(chain());
    let agent = bot(|_, _| Ok(says("ok")));
    let (r, _) = go(&t, simple(&User::new(), &agent));
    assert_eq!(end(&r).verdict, Verdict::Pass);
    let v = result_value(&r);
    let lines: Vec<Value> = to_jsonl(&v).unwrap().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["metadata"]["verdict"], "pass");
    assert_eq!(to_conversation(&v, None).unwrap()["metadata"]["verdict"], "pass");
    assert!(summarize(&v).unwrap().contains("\nVerdict: pass (the goal was reached)"));

    let failing = bot(|_, _| Err(Error::new(ErrorCode::CallbackFailed, "agent.respond threw: boom")));
    let (r, _) = go(&t, simple(&User::new(), &failing));
    assert_eq!(end(&r).verdict, Verdict::Agent);
    let (r, _) = go(&t, Run { policy: Some(&Fails), ..simple(&User::new(), &agent) });
    assert_eq!((end(&r).error.as_ref().unwrap().side, end(&r).verdict), (Side::Policy, Verdict::Harness));
    let v = result_value(&r);
    assert!(summarize(&v).unwrap().contains("\nVerdict: harness (a callback of the harness failed, not the agent)"));
    assert_eq!(v["steps"].as_array().map_or(0, Vec::len), 0);
    assert_eq!(v["end"]["verdict"], "harness");
    let ranker_fails = User::new().ranking(|_| Err(Error::new(ErrorCode::CallbackFailed, "ranker threw")));
    let free = json!({ "steps": [{ "id": "a", "instruction": "x" }, { "id": "b", "instruction": "y" }, { "id": "c", "instruction": "z" }], "start": "a", "terminals": ["c"] });
    let (r, _) = go(&def(base(free)), simple(&ranker_fails, &agent));
    assert_eq!((end(&r).error.as_ref().map(|e| e.side), end(&r).verdict), (Some(Side::Ranker), Verdict::Simulator));
}
