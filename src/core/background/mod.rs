//! Run an objective: the background loop. One objective; each iteration
//! assesses the run's state, asks the model to decide, acts through the
//! plan tools, the virtual filesystem and the caller's tools, reflects on
//! failures, and checks whether to stop. Every decision is the core's and
//! depends only on the objective, the configuration, the clock and the
//! model's answers, so a recorded run replays byte for byte.

pub mod config;
pub mod plan;
pub mod prompt;
mod run;
pub mod state;
pub mod tools;

use serde::Serialize;
use serde_json::Value;

pub use config::{Config, Mount, Objective, Section};
pub use run::run;
pub use state::{Invocation, LastError, RunSnapshot, State};

use crate::error::Result;
use crate::host::{Abort, Records, Timer, ToolObservers};
use crate::host::{Clock, LocalBoxFuture, Model, ToolSpec};

/// What the run needs from its host besides the model: the caller's tools
/// and the deliverable.
pub trait Host {
    /// Runs the caller's tool `name` with `input` (the host checks the
    /// input against the tool's schema first; a refusal is an error here).
    fn call_tool<'a>(&'a self, name: &'a str, input: &'a Value, tool_call_id: &'a str) -> LocalBoxFuture<'a, Result<Value>>;
    /// The deliverable: the caller's factory's, else `proposed` (the
    /// model's); validated against the objective's schema when it has one.
    /// Whether the caller gave a `deliverableFactory` (then the model is
    /// not asked for the deliverable).
    fn has_factory(&self) -> bool;
    fn deliver<'a>(&'a self, snapshot: &'a RunSnapshot, status: &'a str, proposed: Option<Value>) -> LocalBoxFuture<'a, Result<Option<Value>>>;
}

pub struct Env<'a> {
    pub clock: &'a dyn Clock,
    pub model: &'a dyn Model,
    pub host: &'a dyn Host,
    /// The caller's tools' specs (names already checked against the built-ins).
    pub tools: Vec<ToolSpec>,
    pub timer: Option<&'a dyn Timer>,
    pub abort: Option<&'a dyn Abort>,
    pub observers: Option<&'a dyn ToolObservers>,
    pub events: &'a dyn Records,
    pub run_id: Option<String>,
    /// Which run of its runner this is (from 1). Runs after the first add
    /// `-N` to the run id, so a runner's runs never share one in a sink
    /// (a fixed clock would otherwise give them the same default id).
    pub run_number: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Completed,
    Abandoned,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Completed => "completed",
            Status::Abandoned => "abandoned",
            Status::Failed => "failed",
        }
    }
}

/// `AgentRunResult`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    pub run_id: String,
    pub status: Status,
    /// A stable label (`model-completed`, `max-failures`, ...), then, for
    /// some, `: ` and the detail (the last error, the validator's message).
    pub reason: String,
    pub iterations: u64,
    pub failures: u64,
    pub final_summary: String,
    pub deliverable: Option<Value>,
    pub snapshot: RunSnapshot,
    /// The last error of the run, when one mattered to its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<LastError>,
}
