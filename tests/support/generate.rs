//! Fakes and helpers for the generation tests: a numbered simulated user,
//! a scripted agent, an event log, predicates and definition builders.
// Shared by several test binaries; each uses a different subset.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use agent_trajectories::core::capture::{Payload, Recorder};
use agent_trajectories::core::error::Result;
use agent_trajectories::core::generate::concurrency::block_on;
use agent_trajectories::core::generate::*;
use agent_trajectories::core::host::{
    Abort, FixedClock, LocalBoxFuture, Model, ModelRequest, ModelResponse, Purpose, Records, ShownAssessment, Timer, ToolObservers, Usage,
};
use agent_trajectories::core::message::{ModelMessage, Role};
use agent_trajectories::core::observe::{Pipeline, ToolCallInput};
use agent_trajectories::core::{Error, ErrorCode};
use serde_json::{json, Value};

type Ranker = Box<dyn Fn(&ModelRequest) -> Result<String>>;
type PredFn = Box<dyn Fn(&PredicateContext<'_>) -> Result<bool>>;

/// The simulated user: numbered messages, and a ranker answer from `rank`.
pub struct User {
    pub n: Cell<u32>,
    pub rank: RefCell<Ranker>,
    pub empty_first: Cell<u32>,
    /// Replies given (in order) before the numbered ones.
    pub script: RefCell<std::collections::VecDeque<String>>,
    pub requests: RefCell<Vec<ModelRequest>>,
    /// The usage each answer reports.
    pub usage: Cell<Usage>,
}

impl User {
    pub fn new() -> User {
        User {
            n: Cell::new(0),
            rank: RefCell::new(Box::new(|_| Ok("{\"candidates\":[]}".into()))),
            empty_first: Cell::new(0),
            script: RefCell::default(),
            requests: RefCell::default(),
            usage: Cell::new(Usage::default()),
        }
    }
    pub fn scripted(self, replies: &[&str]) -> User {
        self.script.borrow_mut().extend(replies.iter().map(|r| r.to_string()));
        self
    }
    pub fn ranking(self, f: impl Fn(&ModelRequest) -> Result<String> + 'static) -> User {
        *self.rank.borrow_mut() = Box::new(f);
        self
    }
}

impl Model for User {
    fn complete(&self, req: ModelRequest) -> LocalBoxFuture<'_, Result<ModelResponse>> {
        self.requests.borrow_mut().push(req.clone());
        let out = match req.purpose {
            Purpose::RankSteps => (self.rank.borrow())(&req),
            _ if self.empty_first.get() > 0 => {
                self.empty_first.set(self.empty_first.get() - 1);
                Ok("   ".into())
            }
            _ if !self.script.borrow().is_empty() => Ok(self.script.borrow_mut().pop_front().expect("not empty")),
            _ => {
                self.n.set(self.n.get() + 1);
                Ok(format!("user message {}", self.n.get()))
            }
        };
        let usage = self.usage.get();
        Box::pin(async move { out.map(|text| ModelResponse { text, usage, ..Default::default() }) })
    }
}

type Reply = Box<dyn Fn(usize, &[ModelMessage]) -> Result<Vec<ModelMessage>>>;

pub struct Bot {
    pub reply: Reply,
    pub calls: Cell<usize>,
    pub contexts: RefCell<Vec<Option<String>>>,
    /// The usage each answer reports.
    pub usage: Cell<Usage>,
}

pub fn bot(reply: impl Fn(usize, &[ModelMessage]) -> Result<Vec<ModelMessage>> + 'static) -> Bot {
    Bot { reply: Box::new(reply), calls: Cell::new(0), contexts: RefCell::default(), usage: Cell::new(Usage::default()) }
}

pub fn says(text: &str) -> Vec<ModelMessage> {
    vec![ModelMessage::text(Role::Assistant, text)]
}

impl Agent for Bot {
    /// `contexts` keeps what the agent was shown in place of the last user
    /// message (the user message with the assessment), when anything.
    fn respond<'a>(&'a self, history: &'a [ModelMessage], shown_last: Option<&'a ModelMessage>) -> LocalBoxFuture<'a, Result<AgentAnswer>> {
        self.calls.set(self.calls.get() + 1);
        self.contexts.borrow_mut().push(shown_last.map(|c| c.text_content()));
        let out = (self.reply)(self.calls.get(), history).map(|messages| AgentAnswer { messages, usage: self.usage.get() });
        Box::pin(async move { out })
    }
}

#[derive(Default)]
pub struct Events {
    pub recorder: RefCell<Recorder>,
    pub records: RefCell<Vec<Payload>>,
    pub traces: RefCell<Vec<StepTrace>>,
    /// A payload kind the sink refuses (`SINK_FAILED`).
    pub refuse: Cell<Option<&'static str>>,
    /// What `flush` fails with.
    pub flush_error: RefCell<Option<Error>>,
}

impl Records for Events {
    fn record(&self, payload: Payload) -> Result<()> {
        if self.refuse.get() == Some(payload.kind()) {
            return Err(Error::new(ErrorCode::SinkFailed, format!("the sink refused {}", payload.kind())));
        }
        self.recorder.borrow_mut().stamp(payload.clone(), 1000.0)?;
        self.records.borrow_mut().push(payload);
        Ok(())
    }
    fn flush(&self) -> LocalBoxFuture<'_, Result<()>> {
        let out = match self.flush_error.borrow().clone() {
            Some(e) => Err(e),
            None => Ok(()),
        };
        Box::pin(async move { out })
    }
}

impl RunEvents for Events {
    fn trace(&self, trace: &StepTrace) {
        self.traces.borrow_mut().push(trace.clone());
    }
    fn ended(&self, end: &End) {
        self.traces.borrow_mut().last_mut().unwrap().end = Some(end.clone());
    }
    fn judged(&self, turn: u32, judgement: &Value) {
        self.traces.borrow_mut()[turn as usize].judgement = Some(judgement.clone());
    }
    fn tokens(&self, turn: u32, tokens: u64) {
        self.traces.borrow_mut()[turn as usize].tokens = tokens;
    }
}

pub struct Pred(PredFn);
impl Predicate for Pred {
    fn evaluate<'a>(&'a self, ctx: &'a PredicateContext<'a>) -> LocalBoxFuture<'a, Result<bool>> {
        let out = (self.0)(ctx);
        Box::pin(async move { out })
    }
}
pub fn pred(f: impl Fn(&PredicateContext<'_>) -> Result<bool> + 'static) -> Rc<dyn Predicate> {
    Rc::new(Pred(Box::new(f)))
}

pub struct Run<'a> {
    pub user: &'a User,
    pub agent: &'a Bot,
    pub policy: Option<&'a dyn Policy>,
    pub timer: Option<&'a dyn Timer>,
    pub abort: Option<&'a dyn Abort>,
    pub observers: Option<&'a dyn ToolObservers>,
    /// The rubric judge.
    pub judge: Option<&'a dyn agent_trajectories::core::generate::env::RunJudge>,
}

pub fn go(t: &Trajectory, r: Run<'_>) -> (TrajectoryResult, Events) {
    go_from(t, r, None)
}

/// A run, or a fork of a recorded one.
pub fn go_from(t: &Trajectory, r: Run<'_>, fork: Option<&Fork>) -> (TrajectoryResult, Events) {
    let events = Events::default();
    let env = Env {
        clock: &FixedClock(1_700_000_000_000.0),
        user_model: r.user,
        agent: r.agent,
        policy: r.policy.unwrap_or(&DefaultPolicy),
        timer: r.timer,
        abort: r.abort,
        observers: r.observers,
        events: &events,
        run_id: None,
        call_timeout_ms: None,
        judge: r.judge,
    };
    let result = block_on(run(t, &env, fork));
    (result, events)
}

pub fn simple<'a>(user: &'a User, agent: &'a Bot) -> Run<'a> {
    Run { user, agent, policy: None, timer: None, abort: None, observers: None, judge: None }
}

pub fn def(v: Value) -> Trajectory {
    let t = Trajectory::from_value(&v).unwrap();
    t.validate().unwrap();
    t
}

pub fn base(steps: Value) -> Value {
    json!({ "goal": "book a table", "persona": { "name": "Ana", "description": "terse diner" }, "steps": steps, "conversationId": "c1" })
}

pub fn chain() -> Value {
    base(json!({
        "steps": [
            { "id": "greet", "instruction": "say hello" },
            { "id": "ask", "instruction": "ask for a table", "preconditions": [{ "type": "stepSatisfied", "stepId": "greet" }] },
            { "id": "confirm", "instruction": "confirm", "preconditions": [{ "type": "stepSatisfied", "stepId": "ask" }] }
        ],
        "start": "greet", "terminals": ["confirm"]
    }))
}

pub fn invalid(v: Value) -> Error {
    let e = match Trajectory::from_value(&v) {
        Ok(t) => t.validate().unwrap_err(),
        Err(e) => e,
    };
    assert_eq!(e.code, ErrorCode::InvalidTrajectory, "{}", e.message);
    e
}

pub fn reason(r: &TrajectoryResult) -> StopReason {
    r.steps.last().and_then(|t| t.end.as_ref()).or(r.end.as_ref()).unwrap().reason
}

/// An observer pipeline as the run uses it: tool calls in, the current
/// assessment out, tokens into the budget.
pub struct Observed(pub RefCell<Pipeline>);
impl ToolObservers for Observed {
    fn tool_call(&self, call: ToolCallInput) -> Result<()> {
        self.0.borrow_mut().record_tool_call(call, 0.0, |_, _| unreachable!()).map(drop)
    }
    fn current(&self) -> Result<Option<ShownAssessment>> {
        let p = self.0.borrow();
        let text = p.context();
        Ok(p.current().filter(|_| !text.is_empty()).map(|c| ShownAssessment { text, call_index: c.call_index, assessments: c.assessments.clone() }))
    }
    fn record_tokens(&self, n: u64) -> Result<()> {
        self.0.borrow_mut().record_tokens(n)
    }
}

/// One agent turn that calls `search` and gets an error back, then says it retries.
pub fn failing_search(n: usize) -> Vec<ModelMessage> {
    let call = json!({ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": format!("t{n}"), "toolName": "search", "input": { "q": "x" } }] });
    let result = json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": format!("t{n}"), "toolName": "search", "output": { "type": "error-text", "value": "timeout after 30s" } }] });
    vec![ModelMessage::from_value(&call).unwrap(), ModelMessage::from_value(&result).unwrap(), ModelMessage::text(Role::Assistant, "trying")]
}

/// A pipeline with an error-cascade observer run on every call.
pub fn cascade_observed(budget: agent_trajectories::core::observe::Budget) -> Observed {
    use agent_trajectories::core::observe::{Builtin, Observer, Slot, Trigger};
    let slot = Slot {
        observer: Observer::Builtin(Builtin::from_config("error-cascade", None, "cascade").unwrap()),
        trigger: Trigger { on_every_call: true, ..Default::default() },
    };
    Observed(RefCell::new(Pipeline::new(vec![slot], budget, 20, 0.0).unwrap()))
}
