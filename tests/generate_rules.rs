//! Native tests of what generated runs got wrong before: invented traces,
//! wasted model calls, the cap, failures at the end, what the agent saw,
//! token usage, graph validation at scale.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::Cell;

use agent_trajectories::core::capture::Payload;
use agent_trajectories::core::error::Result;
use agent_trajectories::core::generate::env::{JudgeAnswer, JudgeVerdict, RunJudge};
use agent_trajectories::core::generate::*;
use agent_trajectories::core::host::{LocalBoxFuture, ModelResponse, Purpose, Timer, Usage};
use agent_trajectories::core::message::{ModelMessage, Role};
use agent_trajectories::core::observe::{Assessment, Budget};
use agent_trajectories::core::{Error, ErrorCode};
use agent_trajectories::judge::export::{result_value, to_jsonl};
use serde_json::json;

#[path = "support/generate.rs"]
mod support;
use support::*;

/// A policy that always answers the same.
struct Always(PolicyDecision);
impl Policy for Always {
    fn evaluate<'a>(&'a self, _: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>> {
        let d = self.0.clone();
        Box::pin(async move { Ok(d) })
    }
}

fn ranks(user: &User) -> usize {
    user.requests.borrow().iter().filter(|r| r.purpose == Purpose::RankSteps).count()
}

#[test]
fn a_policy_stop_never_invents_a_trace() {
    for reason in [StopReason::Error, StopReason::Aborted, StopReason::PolicyViolation] {
        let t = def(json!({ "goal": "g", "persona": { "description": "d" } }));
        let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
        // Stop before the third turn.
        struct StopAt2(StopReason);
        impl Policy for StopAt2 {
            fn evaluate<'a>(&'a self, ctx: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>> {
                let d = if ctx.turn_index == 2 { PolicyDecision::stop(self.0, false, "stop") } else { PolicyDecision::CONTINUE };
                Box::pin(async move { Ok(d) })
            }
        }
        let (r, _) = go(&t, Run { policy: Some(&StopAt2(reason)), ..simple(&user, &agent) });
        assert_eq!(r.steps.len(), 2, "{reason:?}: two turns, no empty third");
        assert!(r.steps.iter().all(|s| !s.user_message.text_content().is_empty()));
        assert_eq!(r.steps[1].end.as_ref().unwrap().reason, reason);
        assert_eq!(to_jsonl(&result_value(&r)).unwrap().len(), 2);
    }
}

#[test]
fn no_model_call_after_the_goal_or_past_max_turns() {
    // Satisfying the terminal ends the run before any selection for a next turn.
    let (user, agent) = (User::new().ranking(|_| panic!("no ranking after the goal")), bot(|_, _| Ok(says("ok"))));
    let t = def(base(json!({
        "steps": [{ "id": "a", "instruction": "x" }, { "id": "b", "instruction": "y" }],
        "start": "a", "terminals": ["a"]
    })));
    let (r, _) = go(&t, simple(&user, &agent));
    assert_eq!((r.steps.len(), reason(&r)), (1, StopReason::GoalReached));
    assert_eq!(user.requests.borrow().len(), 1, "only the one user message");

    // maxTurns 2: no ranking for a third turn, and the run ends max-turns even when the ranker would fail.
    let user =
        User::new()
            .ranking(|r| if r.purpose == Purpose::RankSteps { Err(Error::new(ErrorCode::CallbackFailed, "ranker down")) } else { unreachable!() });
    let mut v = base(json!({
        "steps": [{ "id": "a", "instruction": "x" }, { "id": "b", "instruction": "y" }, { "id": "c", "instruction": "z" }],
        "start": "a", "terminals": ["c"]
    }));
    v["maxTurns"] = json!(1);
    let (r, _) = go(&def(v), simple(&user, &agent));
    assert_eq!((r.steps.len(), reason(&r), ranks(&user)), (1, StopReason::MaxTurns, 0));
}

#[test]
fn max_turns_caps_whatever_the_policy_says() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 3 }));
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
    let (r, _) = go(&t, Run { policy: Some(&Always(PolicyDecision::CONTINUE)), ..simple(&user, &agent) });
    assert_eq!((r.steps.len(), reason(&r)), (3, StopReason::MaxTurns));
}

#[test]
fn the_run_yields_to_the_host_before_its_first_turn_and_every_8th() {
    struct Counting(Cell<u32>);
    impl Timer for Counting {
        fn sleep(&self, _: f64) -> LocalBoxFuture<'static, ()> {
            Box::pin(async {})
        }
        fn yield_now(&self) -> LocalBoxFuture<'static, ()> {
            self.0.set(self.0.get() + 1);
            Box::pin(async {})
        }
    }
    let timer = Counting(Cell::new(0));
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 20 }));
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
    let (r, _) = go(&t, Run { timer: Some(&timer), ..simple(&user, &agent) });
    assert_eq!(r.steps.len(), 20);
    // Before turns 0, 8 and 16.
    assert_eq!(timer.0.get(), 3);

    // An answer of many parts is a turn's worth of waiting: the next turn yields too.
    let timer = Counting(Cell::new(0));
    let heavy = |n: usize| {
        vec![ModelMessage::from_value(&json!({ "role": "assistant", "content": vec![json!({ "type": "text", "text": "x" }); n] })).unwrap()]
    };
    let agent = bot(move |call, _| Ok(if call == 2 { heavy(agent_trajectories::core::host::YIELD_AFTER_PARTS) } else { says("ok") }));
    let (r, _) = go(&t, Run { timer: Some(&timer), ..simple(&user, &agent) });
    assert_eq!(r.steps.len(), 20);
    // Before turns 0, 2 (after the heavy answer of turn 1), 8 and 16.
    assert_eq!(timer.0.get(), 4);
}

#[test]
fn a_sink_failing_at_the_end_ends_the_run_in_error() {
    let t = def(chain());
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
    // run_ended refused.
    let events = Events::default();
    events.refuse.set(Some("run_ended"));
    let r = run_with(&t, &user, &agent, &events);
    let end = r.end.clone().unwrap();
    assert_eq!((end.reason, end.completed), (StopReason::Error, false));
    let err = end.error.unwrap();
    assert_eq!((err.code.as_str(), err.side), ("SINK_FAILED", Side::Recorder));
    assert!(end.summary.unwrap().contains("the run had ended: goal-reached"));
    assert_eq!(r.steps.last().unwrap().end.as_ref().unwrap().reason, StopReason::Error, "the last trace carries the same end");
    assert_eq!(r.steps.len(), 3, "every turn kept");

    // The final flush fails.
    let events = Events::default();
    *events.flush_error.borrow_mut() = Some(Error::new(ErrorCode::SinkFailed, "disk full at seq 12"));
    let r = run_with(&t, &user, &agent, &events);
    let end = r.end.unwrap();
    assert_eq!((end.reason, end.error.unwrap().message.as_str()), (StopReason::Error, "disk full at seq 12"));

    // A run that already failed keeps its own error, and the sink's is added to the summary.
    let failing = bot(|_, _| Err(Error::new(ErrorCode::CallbackFailed, "agent.respond threw: boom")));
    let events = Events::default();
    events.refuse.set(Some("run_ended"));
    let r = run_with(&t, &user, &failing, &events);
    let end = r.end.unwrap();
    assert_eq!(end.error.as_ref().unwrap().side, Side::Agent);
    assert!(end.summary.unwrap().contains("then the recorder failed too: the sink refused run_ended"));

    // The same failure twice (a clock that throws fails the run, then the record of its end, which it stamps) is said once.
    let same = bot(|_, _| Err(Error::new(ErrorCode::CallbackFailed, "the sink refused run_ended")));
    let events = Events::default();
    events.refuse.set(Some("run_ended"));
    let end = run_with(&t, &user, &same, &events).end.unwrap();
    assert_eq!(end.error.as_ref().unwrap().side, Side::Agent);
    assert!(!end.summary.unwrap().contains("then the recorder failed too"));

    // The step states' record refused: run_ended is still recorded, and the first failure is the one said.
    let events = Events::default();
    events.refuse.set(Some("custom"));
    let r = run_with(&t, &user, &agent, &events);
    assert_eq!(events.records.borrow().last().map(Payload::kind), Some("run_ended"), "the stream keeps its end");
    assert_eq!(r.end.unwrap().error.unwrap().message, "the sink refused custom");
}

fn run_with(t: &Trajectory, user: &User, agent: &Bot, events: &Events) -> TrajectoryResult {
    let env = Env {
        clock: &agent_trajectories::core::host::FixedClock(1_700_000_000_000.0),
        user_model: user,
        agent,
        policy: &DefaultPolicy,
        timer: None,
        abort: None,
        observers: None,
        events,
        run_id: None,
        call_timeout_ms: None,
        judge: None,
    };
    agent_trajectories::core::generate::concurrency::block_on(run(t, &env, None))
}

#[test]
fn end_errors_name_the_step_that_failed() {
    let (user, agent) =
        (User::new(), bot(|n, _| if n == 2 { Err(Error::new(ErrorCode::CallbackFailed, "agent.respond threw: boom")) } else { Ok(says("ok")) }));
    let (r, _) = go(&def(chain()), simple(&user, &agent));
    assert_eq!(r.end.unwrap().error.unwrap().step_id.as_deref(), Some("ask"));
}

#[test]
fn what_the_agent_saw_is_recorded_and_usage_reaches_the_budget() {
    let observed = cascade_observed(Budget { max_tokens: Some(10_000), ..Default::default() });
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 4 }));
    let agent = bot(|n, _| Ok(failing_search(n)));
    agent.usage.set(Usage { input_tokens: Some(100), output_tokens: Some(20), total_tokens: None });
    let user = User::new();
    let (r, events) = go(&t, Run { observers: Some(&observed), ..simple(&user, &agent) });
    // The agent was shown the assessment inside the user message, never as a system message.
    let shown = agent.contexts.borrow()[3].clone().unwrap();
    assert!(shown.starts_with("user message 4") && shown.contains("## Trajectory Assessment"), "{shown}");
    assert!(
        r.steps.iter().all(|s| s.user_message.role == Role::User && !s.user_message.text_content().contains("Assessment")),
        "the history keeps the plain user message"
    );
    // It is on the trace (and in the step JSONL) and in the record stream, with the turn.
    assert!(r.steps[3].assessment.as_deref().is_some_and(|a| a.contains("Error Cascade")));
    assert!(to_jsonl(&result_value(&r)).unwrap()[3].contains("\"assessment\":\"## Trajectory Assessment"));
    let recs = events.records.borrow();
    let produced: Vec<(u64, Option<u64>)> = recs
        .iter()
        .filter_map(|p| match p {
            Payload::AssessmentProduced { call_index, turn_index, .. } => Some((*call_index, *turn_index)),
            _ => None,
        })
        .collect();
    // The last turn's failure, which no next call showed, is recorded at the end, in no turn, and kept on the end marker.
    assert_eq!(produced, [(3, Some(3)), (4, None)], "the cascade of three failures is shown in turn 3");
    let end = r.end.as_ref().and_then(|e| e.assessment.as_deref());
    assert!(end.is_some_and(|a| a.contains("_Generated after tool call #4_")), "{end:?}");
    // Each answer's usage is recorded in its turn, for readers of the stream (the viewer's budget chart).
    let usage: Vec<&serde_json::Value> = recs
        .iter()
        .filter_map(|p| match p {
            Payload::Custom { name, data } if name == "model_usage" => Some(data),
            _ => None,
        })
        .collect();
    assert_eq!(usage.len(), 4);
    assert_eq!(usage[0], &json!({ "source": "agent", "inputTokens": 100, "outputTokens": 20, "totalTokens": 120 }));
    // 4 agent answers of 120 tokens each.
    assert_eq!(observed.0.borrow().budget().tokens_used, Some(480));
}

#[test]
fn a_user_model_answer_of_the_wrong_shape_is_a_callback_failure() {
    let e = ModelResponse::from_value(json!({ "reply": "hi" })).unwrap_err();
    assert_eq!(e.code, ErrorCode::CallbackFailed);
    assert!(e.message.contains("without `text` or `toolCalls` (its keys: reply)"), "{}", e.message);
    let e = ModelResponse::from_value(json!({ "text": "hi", "usage": { "inputTokens": "many" } })).unwrap_err();
    assert!(e.message.contains("usage.inputTokens must be a number"), "{}", e.message);
    let ok = ModelResponse::from_value(json!({ "text": "hi", "usage": { "inputTokens": { "total": 7 }, "outputTokens": 3 } })).unwrap();
    assert_eq!(ok.usage.total(), 10);
}

#[test]
fn long_graphs_validate_without_recursion_and_in_linear_time() {
    let chain = |n: usize| {
        let steps: Vec<_> = (0..n)
            .map(|i| if i == 0 { json!({ "id": "s0", "instruction": "go" }) } else { json!({ "id": format!("s{i}"), "instruction": "go", "preconditions": [{ "type": "stepSatisfied", "stepId": format!("s{}", i - 1) }] }) })
            .collect();
        json!({ "goal": "g", "persona": { "description": "d" }, "steps": { "steps": steps, "start": "s0", "terminals": [format!("s{}", n - 1)] } })
    };
    let started = std::time::Instant::now();
    let t = Trajectory::from_value(&chain(100_000)).unwrap();
    t.validate().unwrap();
    // Quadratic reachability took seconds at 10,000 steps; linear takes milliseconds at 100,000.
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    // A cycle through a long chain is still found and named.
    let mut v = chain(50_000);
    v["steps"]["steps"][0]["preconditions"] = json!([{ "type": "stepSatisfied", "stepId": "s49999" }]);
    let e = invalid(v);
    assert!(e.message.starts_with("precondition cycle: "), "{}", &e.message[..80]);
}

#[test]
fn step_timeouts_past_the_js_timer_limit_are_refused() {
    let mut v = chain();
    v["steps"]["steps"][0]["timeoutMs"] = json!(2_147_483_648u64);
    let e = invalid(v);
    assert!(e.message.contains("at most 2147483647"), "{}", e.message);
    let mut v = chain();
    v["steps"]["steps"][0]["timeoutMs"] = json!(2_147_483_647u64);
    def(v);
}

#[test]
fn huge_loop_limits_do_not_overflow() {
    for reps in [2_147_483_647u64, 4_294_967_295] {
        let mut v = json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 6 });
        v["loopDetection"] = json!({ "maxCycleRepetitions": reps, "maxCycleLength": reps, "maxConsecutiveSameStep": reps });
        let (user, agent) = (User::new(), bot(|_, _| Ok(says("ok"))));
        let (r, _) = go(&def(v), simple(&user, &agent));
        assert_eq!(reason(&r), StopReason::MaxTurns);
    }
}

#[test]
fn unknown_definition_keys_are_refused_naming_the_nearest() {
    let mut v = chain();
    v["maxturns"] = json!(3);
    assert!(invalid(v).message.contains("trajectory: unknown option \"maxturns\"; did you mean \"maxTurns\"?"));
    let mut v = chain();
    v["steps"]["terminal"] = json!(["confirm"]);
    assert!(invalid(v).message.contains("unknown option \"terminal\"; did you mean \"terminals\"?"));
    let mut v = chain();
    v["steps"]["steps"][1]["precondition"] = json!([]);
    let e = invalid(v);
    assert!(e.message.contains("steps.steps[1]: unknown option \"precondition\"; did you mean \"preconditions\"?"), "{}", e.message);
    assert_eq!(e.step_id.as_deref(), Some("ask"));
    let mut v = chain();
    v["loopDetection"] = json!({ "maxCycleRepetition": 2 });
    assert!(invalid(v).message.contains("did you mean \"maxCycleRepetitions\"?"));
}

#[test]
fn messages_speak_js_not_rust() {
    let mut v = chain();
    v["steps"]["steps"][1]["preconditions"] = json!([{ "type": "stepSatisified", "stepId": "greet" }]);
    let e = invalid(v);
    assert!(e.message.ends_with("got \"stepSatisified\"; did you mean \"stepSatisfied\"?"), "{}", e.message);
    let mut v = chain();
    v["steps"]["steps"][1]["preconditions"] = json!([{ "stepId": "greet" }]);
    assert!(invalid(v).message.ends_with("got nothing"));
}

#[test]
fn a_goal_reached_on_the_last_allowed_turn_is_goal_reached() {
    let mut v = base(json!({ "steps": [{ "id": "s", "instruction": "x" }], "start": "s", "terminals": ["s"] }));
    v["maxTurns"] = json!(1);
    let (user, agent) = (User::new(), bot(|_, _| Ok(says("done"))));
    let (r, _) = go(&def(v), simple(&user, &agent));
    let end = r.end.unwrap();
    assert_eq!((r.steps.len(), end.reason, end.completed), (1, StopReason::GoalReached, true));
}

/// A judge that answers `inconclusive` at a cost of 7 tokens, every turn or at the end.
struct Costly {
    every_turn: bool,
}
impl RunJudge for Costly {
    fn every_turn(&self) -> bool {
        self.every_turn
    }
    fn end_on_fail(&self) -> bool {
        false
    }
    fn end_on_pass(&self) -> bool {
        false
    }
    fn judge<'a>(&'a self, _: &'a [ModelMessage], _: &'a [(Option<u64>, Assessment)], _: u32, _: bool) -> LocalBoxFuture<'a, Result<JudgeAnswer>> {
        Box::pin(async {
            Ok(JudgeAnswer {
                verdict: JudgeVerdict::Inconclusive,
                failed: Vec::new(),
                judgement: json!({ "verdict": "inconclusive" }),
                usage: Usage { input_tokens: Some(5), output_tokens: Some(2), total_tokens: None },
            })
        })
    }
}

#[test]
fn the_judges_tokens_count_in_the_turn_it_judged_as_in_the_records() {
    let t = def(json!({ "goal": "g", "persona": { "description": "d" }, "maxTurns": 3 }));
    let agent = bot(|_, _| Ok(says("ok")));
    agent.usage.set(Usage { input_tokens: Some(10), output_tokens: Some(1), total_tokens: None });
    let user = User::new();
    // Judged after every turn and once more at the end, or only at the end: the last turn carries the end's judgement.
    for (every_turn, tokens) in [(true, vec![18, 18, 25]), (false, vec![11, 11, 18])] {
        let judge = Costly { every_turn };
        let (r, events) = go(&t, Run { judge: Some(&judge), ..simple(&user, &agent) });
        assert_eq!(r.steps.iter().map(|s| s.tokens).collect::<Vec<_>>(), tokens, "every turn: {every_turn}");
        assert_eq!(events.traces.borrow().iter().map(|s| s.tokens).collect::<Vec<_>>(), tokens, "the host was told");
        // The same total as every model_usage record's: the judge's included.
        let recorded: u64 = events
            .records
            .borrow()
            .iter()
            .filter_map(|p| match p {
                Payload::Custom { name, data } if name == "model_usage" => data["totalTokens"].as_u64(),
                _ => None,
            })
            .sum();
        assert_eq!(recorded, tokens.iter().sum::<u64>());
    }
}
