//! What the background loop's native tests share: a scripted model, a
//! host with one caller tool (`lint`), the code-review objective, and a
//! run of it with its records.

use std::cell::{Cell, RefCell};

use agent_trajectories::core::background::{run, Config, Env, Host, Objective, RunResult, RunSnapshot};
use agent_trajectories::core::error::{Cause, Result};
use agent_trajectories::core::generate::concurrency::block_on;
use agent_trajectories::core::host::{FixedClock, LocalBoxFuture, Model, ModelRequest, ModelResponse, ToolObservers, ToolSpec};
use agent_trajectories::core::{Error, ErrorCode};
use serde_json::{json, Value};

use super::support::Events;

pub type Answer = Box<dyn Fn(usize, &ModelRequest) -> Result<ModelResponse>>;

/// A model answering from a script: call n gets `script(n, request)`.
pub struct Scripted {
    answer: Answer,
    pub calls: Cell<usize>,
    pub seen: RefCell<Vec<ModelRequest>>,
}

impl Model for Scripted {
    fn complete(&self, request: ModelRequest) -> LocalBoxFuture<'_, Result<ModelResponse>> {
        let n = self.calls.get();
        self.calls.set(n + 1);
        let out = (self.answer)(n, &request);
        self.seen.borrow_mut().push(request);
        Box::pin(async move { out })
    }
}

pub fn scripted(f: impl Fn(usize, &ModelRequest) -> Result<ModelResponse> + 'static) -> Scripted {
    Scripted { answer: Box::new(f), calls: Cell::new(0), seen: RefCell::default() }
}

pub fn calls(v: Value) -> Result<ModelResponse> {
    ModelResponse::from_value(json!({ "toolCalls": v }))
}

pub fn text(t: &str) -> Result<ModelResponse> {
    Ok(ModelResponse { text: t.into(), ..Default::default() })
}

#[derive(Default)]
pub struct Tools {
    pub factory: bool,
    /// `lint` fails with this message when set.
    pub lint_fails: Option<String>,
    /// What the deliverable check refuses, as the validator would say it.
    pub refuse: Option<String>,
    /// The factory (or the model's answer) gives no deliverable.
    pub nothing: bool,
}

impl Host for Tools {
    fn call_tool<'a>(&'a self, name: &'a str, input: &'a Value, _id: &'a str) -> LocalBoxFuture<'a, Result<Value>> {
        let out = match (name, &self.lint_fails) {
            // As the binding gives a tool's failure: its own thrown value as the cause.
            ("lint", Some(m)) => Err(Error::new(ErrorCode::CallbackFailed, m.clone()).caused_by(Cause(std::rc::Rc::new(m.clone())))),
            ("lint", None) => Ok(json!({ "warnings": [], "checked": input["path"] })),
            _ => unreachable!("only lint is declared"),
        };
        Box::pin(async move { out })
    }
    fn has_factory(&self) -> bool {
        self.factory
    }
    fn deliver<'a>(&'a self, snapshot: &'a RunSnapshot, _status: &'a str, proposed: Option<Value>) -> LocalBoxFuture<'a, Result<Option<Value>>> {
        let out = match (&self.refuse, self.factory) {
            _ if self.nothing => Ok(None),
            (Some(m), _) => Err(Error::new(ErrorCode::InvalidArgument, m.clone())),
            (None, true) => Ok(Some(json!({ "files": snapshot.files.len() }))),
            (None, false) => Ok(proposed),
        };
        Box::pin(async move { out })
    }
}

pub fn lint_spec() -> ToolSpec {
    ToolSpec { name: "lint".into(), description: "Lint a file".into(), input_schema: json!({ "type": "object" }) }
}

pub fn review() -> Objective {
    let o = json!({
        "objective": "Review the patch in diff/ for regressions",
        "contextSections": [{ "title": "Checklist", "body": "- errors handled\n- tests updated" }],
        "hostMounts": [{ "path": "diff", "files": {
            "change.patch": "--- a/src/lib.rs\n+++ b/src/lib.rs\n-fn add(a: i32) {}\n+fn add(a: i32, b: i32) {}\n",
            "src/lib.rs": "fn add(a: i32, b: i32) {}\n",
            "tests/add.rs": "#[test] fn adds() {}\n",
        } }],
    });
    let schema = json!({ "type": "object", "required": ["verdict"] });
    Objective::from_value(&o, Some(schema)).unwrap()
}

pub fn go(o: &Objective, cfg: &Config, model: &Scripted, tools: &Tools, resume: Option<&Value>) -> (RunResult, Events) {
    observed(o, cfg, model, tools, resume, None)
}

/// [`go`], with observers.
pub fn observed(
    o: &Objective,
    cfg: &Config,
    model: &Scripted,
    tools: &Tools,
    resume: Option<&Value>,
    observers: Option<&dyn ToolObservers>,
) -> (RunResult, Events) {
    let events = Events::default();
    let env = Env {
        clock: &FixedClock(1_700_000_000_000.0),
        model,
        host: tools,
        tools: vec![lint_spec()],
        timer: None,
        abort: None,
        observers,
        events: &events,
        run_id: Some("bg-1".into()),
        run_number: 1,
    };
    let r = block_on(run(o, cfg, &env, resume)).unwrap();
    (r, events)
}

pub fn kinds(e: &Events) -> Vec<&'static str> {
    e.records.borrow().iter().map(|p| p.kind()).collect()
}
