//! Native tests of a generated run's deadlines and abort: a callback that
//! never answers (the agent past its step's timeoutMs, a policy past the
//! run's callTimeoutMs) and a signal that fired, with the records kept.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::Cell;

use agent_trajectories::core::capture::{EndedOutcome, Payload};
use agent_trajectories::core::error::Result;
use agent_trajectories::core::generate::concurrency::block_on;
use agent_trajectories::core::generate::*;
use agent_trajectories::core::host::{Abort, FixedClock, LocalBoxFuture, Timer};
use agent_trajectories::core::message::ModelMessage;
use serde_json::json;

#[path = "support/generate.rs"]
mod support;
use support::*;

struct Instant;
impl Timer for Instant {
    fn sleep(&self, _ms: f64) -> LocalBoxFuture<'static, ()> {
        Box::pin(async {})
    }
    fn yield_now(&self) -> LocalBoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

struct Stuck;
impl Agent for Stuck {
    fn respond<'a>(&'a self, _: &'a [ModelMessage], _: Option<&'a ModelMessage>) -> LocalBoxFuture<'a, Result<AgentAnswer>> {
        Box::pin(std::future::pending())
    }
}

/// A policy that never answers.
struct Hung;
impl Policy for Hung {
    fn evaluate<'a>(&'a self, _: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>> {
        Box::pin(std::future::pending())
    }
}

struct Signal(Cell<bool>, Option<&'static str>);
impl Abort for Signal {
    fn aborted(&self) -> bool {
        self.0.get()
    }
    fn reason(&self) -> Option<String> {
        self.1.map(str::to_owned)
    }
    fn wait(&self) -> LocalBoxFuture<'static, ()> {
        let fired = self.0.get();
        Box::pin(async move {
            if !fired {
                std::future::pending::<()>().await
            }
        })
    }
}

#[test]
fn timeouts_and_abort() {
    let mut v = chain();
    v["steps"]["steps"][0]["timeoutMs"] = json!(50);
    let t = def(v);
    let user = User::new();
    let events = Events::default();
    let env = Env {
        clock: &FixedClock(0.0),
        user_model: &user,
        agent: &Stuck,
        policy: &DefaultPolicy,
        timer: Some(&Instant),
        abort: None,
        observers: None,
        events: &events,
        run_id: None,
        call_timeout_ms: None,
        judge: None,
    };
    let r = block_on(run(&t, &env, None));
    let err = r.steps[0].end.as_ref().unwrap().error.clone().unwrap();
    assert_eq!((err.code.as_str(), err.side), ("TIMEOUT", Side::Agent));
    assert_eq!(r.conversation_id, "c1");

    // Any callback the run awaits has the deadline, a policy's too.
    let agent = bot(|_, _| Ok(says("ok")));
    let fresh = Events::default();
    let env = Env { agent: &agent, policy: &Hung, call_timeout_ms: Some(100.0), events: &fresh, ..env };
    let end = block_on(run(&def(chain()), &env, None)).end.unwrap();
    let err = end.error.unwrap();
    assert_eq!(
        (end.reason, err.code.as_str(), err.side, err.message.as_str()),
        (StopReason::Error, "TIMEOUT", Side::Policy, "no answer within callTimeoutMs (100 ms)")
    );

    let signal = Signal(Cell::new(true), None);
    let agent = bot(|_, _| Ok(says("ok")));
    let (r, events) = go(&def(chain()), Run { abort: Some(&signal), ..simple(&user, &agent) });
    assert!(r.steps.is_empty());
    let end = r.end.unwrap();
    assert_eq!((end.reason, end.summary.as_deref()), (StopReason::Aborted, Some("aborted by the signal")));
    let kinds: Vec<String> =
        events.records.borrow().iter().map(|p| if let Payload::Custom { name, .. } = p { name.clone() } else { p.kind().to_owned() }).collect();
    assert_eq!(kinds, ["run_started", "step_graph", "step_states", "run_ended"]);
    // The reason the signal's owner gave is said, in the result and in run_ended.
    let signal = Signal(Cell::new(true), Some("the user closed the tab"));
    let (r, events) = go(&def(chain()), Run { abort: Some(&signal), ..simple(&user, &agent) });
    assert_eq!(r.end.unwrap().summary.as_deref(), Some("aborted by the signal: the user closed the tab"));
    let last = events.records.borrow().last().cloned();
    let Some(Payload::RunEnded { outcome: EndedOutcome::Structured(outcome), .. }) = last else { panic!("run_ended last: {last:?}") };
    assert_eq!(outcome.message.as_deref(), Some("aborted by the signal: the user closed the tab"));
}
