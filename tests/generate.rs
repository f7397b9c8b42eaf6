//! Native tests of trajectory generation: definition rules, selection,
//! loop detection, policies, faults, records, observers (deadlines and
//! abort: generate_timeouts.rs).
#![cfg(not(target_arch = "wasm32"))]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use agent_trajectories::core::capture::{EndedOutcome, Payload};
use agent_trajectories::core::error::Result;
use agent_trajectories::core::generate::*;
use agent_trajectories::core::host::LocalBoxFuture;
use agent_trajectories::core::message::{ModelMessage, Role};
use agent_trajectories::core::{Error, ErrorCode};
use agent_trajectories::judge::export::{result_value, summarize, to_conversation, to_jsonl};
use serde_json::{json, Value};

#[path = "support/generate.rs"]
mod support;
use support::*;

#[test]
fn definition_errors_name_the_culprit() {
    let steps = |s: Value, start: &str, terminals: Value| base(json!({ "steps": s, "start": start, "terminals": terminals }));
    let e = invalid(steps(json!([{ "id": "a", "instruction": "x" }, { "id": "a", "instruction": "y" }]), "a", json!([])));
    assert!(e.message.contains("duplicate step id \"a\"") && e.step_id.as_deref() == Some("a"), "{}", e.message);
    let e = invalid(steps(json!([{ "id": "a", "instruction": "x" }]), "nope", json!([])));
    assert!(e.message.contains("steps.start names unknown step \"nope\""), "{}", e.message);
    let e = invalid(steps(json!([{ "id": "a", "instruction": "x" }]), "a", json!(["zz"])));
    assert!(e.message.contains("steps.terminals names unknown step \"zz\""), "{}", e.message);
    let e =
        invalid(steps(json!([{ "id": "a", "instruction": "x", "preconditions": [{ "type": "stepSatisfied", "stepId": "ghost" }] }]), "a", json!([])));
    assert!(e.message.contains("unknown step \"ghost\"") && e.step_id.as_deref() == Some("a"), "{}", e.message);
    let e = invalid(steps(
        json!([
            { "id": "a", "instruction": "x" },
            { "id": "b", "instruction": "x", "preconditions": [{ "type": "stepSatisfied", "stepId": "c" }] },
            { "id": "c", "instruction": "x", "preconditions": [{ "type": "stepSatisfied", "stepId": "b" }] }
        ]),
        "a",
        json!([]),
    ));
    assert!(e.message.contains("precondition cycle: b -> c -> b"), "{}", e.message);
    let e = invalid(steps(
        json!([
            { "id": "a", "instruction": "x" },
            { "id": "t1", "instruction": "x" },
            { "id": "t2", "instruction": "x", "preconditions": [{ "type": "stepSatisfied", "stepId": "t1" }] }
        ]),
        "a",
        json!(["t1", "t2"]),
    ));
    assert!(e.message.contains("terminal \"t2\" is unreachable from start \"a\"") && e.step_id.as_deref() == Some("t2"), "{}", e.message);
    for bad in [json!(0), json!(-3), json!(2.5), json!("10"), json!(1e12)] {
        let mut v = chain();
        v["maxTurns"] = bad.clone();
        let message = invalid(v).message;
        // (Shown as JS shows it: 1e12 is 1000000000000.)
        let shown = agent_trajectories::core::write::json(&bad);
        assert!(message.contains(&format!("maxTurns must be a positive integer (at most 4294967295), got {shown}")), "{message}");
    }
    let mut v = chain();
    v["steps"]["steps"][1]["preconditions"] = json!([{ "type": "custom", "name": "has-date" }]);
    let t = Trajectory::from_value(&v).unwrap();
    assert!(t.validate().unwrap_err().message.contains("custom(has-date) has no evaluate"));
    // A terminal without preconditions is reachable: the ranker may pick it.
    def(steps(json!([{ "id": "a", "instruction": "x" }, { "id": "b", "instruction": "y" }]), "a", json!(["b"])));
    assert_eq!(def(json!({ "goal": "g", "persona": { "description": "d" } })).max_turns, DEFAULT_MAX_TURNS);
}

#[test]
fn a_chain_runs_start_then_preconditions_ordered_to_goal() {
    let t = def(chain());
    let (user, agent) = (User::new(), bot(|n, _| Ok(says(&format!("reply {n}")))));
    let (r, events) = go(&t, simple(&user, &agent));
    let path: Vec<_> = r.steps.iter().map(|s| (s.step_id.clone().unwrap(), s.selection.method)).collect();
    assert_eq!(
        path,
        [
            ("greet".into(), SelectionMethod::Start),
            ("ask".into(), SelectionMethod::PreconditionsOrdered),
            ("confirm".into(), SelectionMethod::PreconditionsOrdered)
        ]
    );
    let end = r.steps[2].end.as_ref().unwrap();
    assert_eq!((end.reason, end.completed, end.is_final), (StopReason::GoalReached, true, true));
    assert!(r.steps[..2].iter().all(|s| s.end.is_none()));
    assert!(r.step_states.iter().all(|s| s.status == StepStatus::Satisfied && s.attempts == 1));
    assert_eq!(r.steps[1].user_message.text_content(), "user message 2");
    assert_eq!(r.steps[0].timestamp, "2023-11-14T22:13:20.000Z");
    // The agent saw the whole history each turn.
    assert_eq!(agent.calls.get(), 3);
    // The user prompt carries persona, goal and the step's instruction.
    let first = &user.requests.borrow()[0];
    assert!(first.system.as_deref().unwrap().contains("Ana") && first.system.as_deref().unwrap().contains("say hello"));
    // The records: run_started, the step graph, per turn turn_started, step_selected, messages, turn_ended; run_ended.
    let kinds: Vec<&str> = events.records.borrow().iter().map(|p| p.kind()).collect();
    assert_eq!(&kinds[..7], ["run_started", "custom", "turn_started", "step_selected", "message_appended", "message_appended", "turn_ended"]);
    let Payload::Custom { name, data } = &events.records.borrow()[1] else { panic!("the second record is custom") };
    assert_eq!(name, "step_graph");
    assert_eq!(
        data,
        &json!({
            "steps": [
                { "id": "greet", "requires": [], "preconditions": [] },
                { "id": "ask", "requires": ["greet"], "preconditions": ["stepSatisfied(greet)"] },
                { "id": "confirm", "requires": ["ask"], "preconditions": ["stepSatisfied(ask)"] }
            ],
            "start": "greet", "terminals": ["confirm"], "maxTurns": t.max_turns
        })
    );
    assert_eq!(*kinds.last().unwrap(), "run_ended");
    let records = events.records.borrow();
    let Payload::Custom { name, data } = &records[records.len() - 2] else { panic!("step_states before run_ended") };
    assert_eq!((name.as_str(), data["states"].as_array().unwrap().len()), ("step_states", 3));
    assert_eq!(
        (&data["states"][2]["stepId"], &data["states"][2]["status"], &data["states"][2]["attempts"]),
        (&json!("confirm"), &json!("satisfied"), &json!(1))
    );
    drop(records);
    assert_eq!(events.traces.borrow().as_slice(), r.steps.as_slice());
    // Exporters.
    let rv = result_value(&r);
    let lines = to_jsonl(&rv).unwrap();
    assert_eq!(lines.len(), 3);
    let first: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(first["conversationId"], "c1");
    assert_eq!(first["stepIndex"], 0);
    assert_eq!(first["input"], json!({ "role": "user", "content": "user message 1" }));
    assert_eq!(first["output"], json!([{ "role": "assistant", "content": "reply 1" }]));
    assert_eq!(first["metadata"]["stepId"], "greet");
    assert_eq!(first["metadata"]["turnIndex"], 0);
    assert_eq!(first["metadata"]["selection"]["method"], "start");
    // Every line carries the run's outcome (as Tally's lines do); only the last has `end`.
    assert_eq!((first["metadata"]["reason"].as_str(), first["metadata"]["completed"].as_bool()), (Some("goal-reached"), Some(true)));
    assert!(first["metadata"].get("end").is_none());
    let last: Value = serde_json::from_str(&lines[2]).unwrap();
    assert_eq!(last["metadata"]["end"]["isFinal"], true);
    let conv = to_conversation(&rv, None).unwrap();
    assert_eq!(conv["id"], "c1");
    assert_eq!(conv["steps"].as_array().unwrap().len(), 3);
    assert_eq!(conv["metadata"]["reason"], "goal-reached");
    assert_eq!(conv["steps"][1]["metadata"]["turnIndex"], 1);
    let s = summarize(&rv).unwrap();
    assert!(s.contains("3 turns") && s.contains("goal-reached") && s.contains("Steps satisfied: 3/3"), "{s}");
}

#[test]
fn ranking_picks_above_threshold_and_garbage_is_recorded_not_thrown() {
    let v = base(json!({
        "steps": [{ "id": "a", "instruction": "x" }, { "id": "b", "instruction": "y" }, { "id": "c", "instruction": "z" }],
        "start": "a"
    }));
    let t = def(v);
    let turn = Rc::new(Cell::new(0));
    let seen = turn.clone();
    let user = User::new().ranking(move |_| {
        seen.set(seen.get() + 1);
        Ok(match seen.get() {
            1 => "{\"candidates\":[{\"stepId\":\"c\",\"score\":0.9,\"reasons\":[\"fits\"]},{\"stepId\":\"b\",\"score\":0.3}]}".into(),
            2 => "no idea, sorry".into(),
            _ => "[{\"stepId\":\"b\",\"score\":0.8}]".into(),
        })
    });
    user.usage.set(agent_trajectories::core::host::Usage { input_tokens: Some(5), output_tokens: Some(2), total_tokens: None });
    let agent = bot(|n, _| Ok(if n == 1 { says("hi") } else { says("ok") }));
    let (r, events) = go(&t, simple(&user, &agent));
    // The ranking's tokens count in the turn it chose for: recorded after its turn_started.
    let kinds: Vec<String> = events
        .records
        .borrow()
        .iter()
        .map(|p| match p {
            Payload::Custom { name, data } if name == "model_usage" => format!("usage:{}", data["source"].as_str().unwrap()),
            Payload::TurnStarted { turn_index } => format!("turn:{}", turn_index.unwrap()),
            other => other.kind().to_owned(),
        })
        .filter(|k| k.starts_with("usage") || k.starts_with("turn:"))
        .collect();
    assert_eq!(&kinds[..6], ["turn:0", "usage:user-simulator", "turn:1", "usage:ranker", "usage:user-simulator", "turn:2"]);
    assert_eq!(r.steps[1].tokens, 14, "the ranking's and the user message's");
    assert_eq!(r.steps[1].selection.method, SelectionMethod::LlmRanked);
    assert_eq!(r.steps[1].step_id.as_deref(), Some("c"));
    let c = &r.steps[1].selection.candidates.as_ref().unwrap()[0];
    assert_eq!((c.step_id.as_str(), c.score, c.reasons.as_deref()), ("c", 0.9, Some(&["fits".to_owned()][..])));
    assert_eq!(r.steps[2].selection.method, SelectionMethod::None);
    assert!(r.steps[2].selection.ranker_error.as_deref().unwrap().contains("not JSON"));
    assert_eq!(r.steps[2].step_id, None);
    assert_eq!(r.steps[3].step_id.as_deref(), Some("b"));
    assert_eq!(reason(&r), StopReason::GoalReached, "all steps satisfied without terminals");
    let selected = events.records.borrow().iter().filter(|p| p.kind() == "step_selected").count();
    assert_eq!(selected, 4);
    assert_eq!(turn.get(), 3);
}

#[test]
fn loops_stop_with_agent_loop() {
    // The agent never answers with text, so the start step is never satisfied... but the
    // start is selected only at turn 0; the ranker keeps choosing `a`.
    let t = def(base(json!({ "steps": [{ "id": "s", "instruction": "x" }, { "id": "a", "instruction": "y" }], "start": "s" })));
    let user = User::new().ranking(|_| Ok("[{\"stepId\":\"a\",\"score\":0.9}]".into()));
    let agent = bot(|n, _| Ok(if n == 1 { says("hi") } else { says("") }));
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!(reason(&r), StopReason::AgentLoop);
    // s, then a three times; the fourth selection of a stops before its turn.
    assert_eq!(r.steps.len(), 4);
    assert!(r.steps[3].end.as_ref().unwrap().summary.as_deref().unwrap().contains("\"a\" selected 4 times"));

    // A cycle a -> b repeated three times.
    let t = def(base(
        json!({ "steps": [{ "id": "s", "instruction": "x" }, { "id": "a", "instruction": "y" }, { "id": "b", "instruction": "z" }], "start": "s" }),
    ));
    let flip = Cell::new(false);
    let user = User::new().ranking(move |_| {
        flip.set(!flip.get());
        Ok(format!("[{{\"stepId\":\"{}\",\"score\":0.9}}]", if flip.get() { "a" } else { "b" }))
    });
    let agent = bot(|n, _| Ok(if n == 1 { says("hi") } else { says("") }));
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!(reason(&r), StopReason::AgentLoop);
    assert!(r.end.unwrap().summary.unwrap().contains("cycle a -> b repeated 3 times"));
    assert_eq!(r.steps.len(), 6);
}

#[test]
fn max_turns_is_the_only_cap_and_no_step_match_ends_a_dead_graph() {
    let mut v = json!({ "goal": "chat", "persona": { "description": "d" }, "maxTurns": 5 });
    let t = def(v.clone());
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!((r.steps.len(), reason(&r)), (5, StopReason::MaxTurns));
    assert!(r.steps.iter().all(|s| s.selection.method == SelectionMethod::None && s.step_id.is_none()));
    v["maxTurns"] = json!(1000);
    let (r, _) = go(&def(v), simple(&user, &agent));
    assert_eq!(r.steps.len(), 1000);

    // `b` fails after 2 unsatisfied attempts; `c` waits for it and is skipped; nothing is left.
    let t = def(base(json!({
        "steps": [
            { "id": "a", "instruction": "x" },
            { "id": "b", "instruction": "y", "maxAttempts": 2, "preconditions": [{ "type": "stepSatisfied", "stepId": "a" }] },
            { "id": "c", "instruction": "z", "preconditions": [{ "type": "stepSatisfied", "stepId": "b" }] }
        ],
        "start": "a", "terminals": ["c"]
    })));
    let agent = bot(|n, _| Ok(if n == 1 { says("hi") } else { says(" ") }));
    // After its first try, `b` is no longer "next after the current step"; the ranker re-picks it.
    let user = User::new().ranking(|_| Ok("[{\"stepId\":\"b\",\"score\":0.9}]".into()));
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!(reason(&r), StopReason::NoStepMatch);
    let status: Vec<StepStatus> = r.step_states.iter().map(|s| s.status).collect();
    assert_eq!(status, [StepStatus::Satisfied, StepStatus::Failed, StepStatus::Skipped]);
    assert_eq!(r.step_states[1].attempts, 2);
}

struct Violation;
impl Policy for Violation {
    fn evaluate<'a>(&'a self, ctx: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>> {
        let d = if ctx.turn_index == 2 {
            PolicyDecision::stop(StopReason::PolicyViolation, false, "agent leaked a card number")
        } else {
            DefaultPolicy::decide(ctx)
        };
        Box::pin(async move { Ok(d) })
    }
}

#[test]
fn a_replacement_policy_decides() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" } }));
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
    let (r, _) = go(&t, Run { policy: Some(&Violation), ..simple(&user, &agent) });
    assert_eq!(r.steps.len(), 2);
    let end = r.steps[1].end.as_ref().unwrap();
    assert_eq!((end.reason, end.summary.as_deref()), (StopReason::PolicyViolation, Some("agent leaked a card number")));
}

#[test]
fn empty_user_messages_are_retried_once_then_fail() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 2 }));
    let agent = bot(|_, _| Ok(says("ok")));
    let user = User::new();
    user.empty_first.set(1);
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!((r.steps.len(), reason(&r)), (2, StopReason::MaxTurns));
    assert!(user.requests.borrow()[1].messages[0].text_content().contains("previous answer was empty"));

    let user = User::new();
    user.empty_first.set(2);
    let (r, events) = go(&t, simple(&user, &agent));
    assert_eq!(r.steps.len(), 1);
    let end = r.steps[0].end.as_ref().unwrap();
    let err = end.error.as_ref().unwrap();
    assert_eq!((end.reason, err.side, err.code.as_str()), (StopReason::Error, Side::UserSimulator, "EMPTY_USER_MESSAGE"));
    assert_eq!(agent.calls.get(), 2, "the agent was not called for the failed turn");
    assert_eq!(events.records.borrow().last().unwrap().kind(), "run_ended");
}

#[test]
fn faults_end_with_error_and_keep_everything_before() {
    let t = def(chain());
    let user = User::new();
    let agent = bot(|n, _| if n == 2 { Err(Error::new(ErrorCode::CallbackFailed, "agent.respond threw: boom")) } else { Ok(says("ok")) });
    let (r, events) = go(&t, simple(&user, &agent));
    assert_eq!(r.steps.len(), 2);
    let end = r.steps[1].end.as_ref().unwrap();
    let err = end.error.as_ref().unwrap();
    assert_eq!((end.reason, err.side, err.code.as_str()), (StopReason::Error, Side::Agent, "CALLBACK_FAILED"));
    assert!(err.message.contains("boom"));
    assert_eq!(r.steps[1].user_message.text_content(), "user message 2", "the failing turn keeps its user message");
    assert_eq!(r.steps[0].agent_messages, says("ok"));
    let recs = events.records.borrow();
    assert!(
        matches!(recs.last().unwrap(), Payload::RunEnded { outcome: EndedOutcome::Structured(o), .. } if o.error_code.as_deref() == Some("CALLBACK_FAILED"))
    );

    // A precondition that fails names its step.
    let mut t = def(chain());
    let g = t.steps.as_mut().unwrap();
    g.steps[2].preconditions.push(Precondition::Custom {
        name: Some("booked".into()),
        evaluate: Some(pred(|_| Err(Error::new(ErrorCode::CallbackFailed, "evaluate threw: db down")))),
    });
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
    let (r, _) = go(&t, simple(&user, &agent));
    let err = r.steps.last().unwrap().end.as_ref().unwrap().error.clone().unwrap();
    assert_eq!((err.side, err.step_id.as_deref()), (Side::Precondition, Some("confirm")));
    assert!(err.message.contains("precondition booked"), "{}", err.message);

    // isSatisfied decides satisfaction, and its failure is the satisfaction side's.
    let mut t = def(chain());
    t.steps.as_mut().unwrap().steps[0].is_satisfied = Some(pred(|ctx| Ok(ctx.traces.len() >= 2)));
    let user = User::new().ranking(|_| Ok("[{\"stepId\":\"greet\",\"score\":0.7}]".into()));
    let agent = bot(|_, _| Ok(says("ok")));
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!(r.steps.iter().map(|s| s.step_id.clone().unwrap()).collect::<Vec<_>>(), ["greet", "greet", "ask", "confirm"]);
    let mut t = def(chain());
    t.steps.as_mut().unwrap().steps[0].is_satisfied = Some(pred(|_| Err(Error::new(ErrorCode::CallbackFailed, "nope"))));
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!(r.steps.len(), 1);
    assert_eq!(r.steps[0].end.as_ref().unwrap().error.as_ref().unwrap().side, Side::Satisfaction);

    // Agent garbage: a user message in its answer.
    let agent = bot(|_, _| Ok(vec![ModelMessage::text(Role::User, "me again")]));
    let (r, _) = go(&def(chain()), simple(&user, &agent));
    assert!(r.steps[0].end.as_ref().unwrap().error.as_ref().unwrap().message.contains("returned a user message"));
}

#[test]
fn tool_pairs_are_recorded_and_feed_the_observers() {
    use agent_trajectories::core::observe::Budget;
    let observed = cascade_observed(Budget::default());
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 4 }));
    let agent = bot(|n, _| Ok(failing_search(n)));
    let user = User::new();
    let (r, events) = go(&t, Run { observers: Some(&observed), ..simple(&user, &agent) });
    assert_eq!(r.steps.len(), 4);
    let recs = events.records.borrow();
    let tools: Vec<&Payload> = recs.iter().filter(|p| matches!(p.kind(), "tool_started" | "tool_ended")).collect();
    assert_eq!(tools.len(), 8);
    assert!(matches!(tools[1], Payload::ToolEnded { is_error: true, tool_name, .. } if tool_name == "search"));
    // The tool's own result, as a capture of the AI SDK records it: not the output's `{ type, value }`.
    assert!(matches!(tools[1], Payload::ToolEnded { result, .. } if result == &json!("timeout after 30s")), "{:?}", tools[1]);
    assert_eq!(observed.0.borrow().log().len(), 4);
    let contexts = agent.contexts.borrow();
    assert_eq!(contexts[0], None, "nothing to say before the first call");
    assert!(contexts[3].as_deref().is_some_and(|c| c.contains("Error")), "{:?}", contexts[3]);
}

#[test]
fn custom_preconditions_gate_eligibility() {
    let mut v = chain();
    v["steps"]["steps"][2]["preconditions"] = json!([{ "type": "stepSatisfied", "stepId": "ask" }, { "type": "custom", "name": "turns" }]);
    let mut t = Trajectory::from_value(&v).unwrap();
    let calls = Rc::new(Cell::new(0));
    let seen = calls.clone();
    if let Precondition::Custom { evaluate, .. } = &mut t.steps.as_mut().unwrap().steps[2].preconditions[1] {
        *evaluate = Some(pred(move |ctx| {
            seen.set(seen.get() + 1);
            Ok(ctx.traces.len() >= 4)
        }));
    }
    t.validate().unwrap();
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
    let (r, _) = go(&t, simple(&user, &agent));
    let path: Vec<Option<String>> = r.steps.iter().map(|s| s.step_id.clone()).collect();
    assert_eq!(path, [Some("greet".into()), Some("ask".into()), None, None, Some("confirm".into())]);
    assert_eq!(reason(&r), StopReason::GoalReached);
    assert_eq!(r.step_states[2].status, StepStatus::Satisfied);
    assert!(calls.get() >= 3);
}

#[test]
fn histories_are_passed_whole_and_in_order() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 3 }));
    let lens = Rc::new(RefCell::new(Vec::new()));
    let l = lens.clone();
    let agent = bot(move |_, h| {
        l.borrow_mut().push(h.len());
        Ok(says("ok"))
    });
    let user = User::new();
    let (_r, _) = go(&t, simple(&user, &agent));
    assert_eq!(*lens.borrow(), [1, 3, 5]);
}
