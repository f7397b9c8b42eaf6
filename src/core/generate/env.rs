//! What a generation run needs from its host beyond [`crate::host`]'s
//! shared traits: the agent under test and a place for traces. The core
//! implements none of them; the binding does, over JS.

use super::policy::Policy;
use super::trace::{End, StepTrace};
use crate::error::Result;
use crate::host::{Abort, Clock, LocalBoxFuture, Model, Records, Timer, ToolObservers, Usage};
use crate::message::ModelMessage;

/// What `runTrajectory` reads; any other key is refused, naming the nearest.
pub const RUN_OPTIONS: &[&str] =
    &["userModel", "clock", "sink", "onSinkError", "onRecord", "observers", "policy", "signal", "runId", "resumeFrom", "callTimeoutMs"];

/// What the agent answered: its assistant and tool messages, and the tokens
/// the answer cost (zero when the agent does not say).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentAnswer {
    pub messages: Vec<ModelMessage>,
    pub usage: Usage,
}

/// The agent under test. `history` is the whole conversation so far, ending
/// with the new user message; it only ever grows by appending, so a host
/// can mirror it incrementally. `shown_last`, when set, is what the agent
/// is shown in place of that last message, for this call only: the user
/// message with the observers' assessment added (not part of the history).
pub trait Agent {
    fn respond<'a>(&'a self, history: &'a [ModelMessage], shown_last: Option<&'a ModelMessage>) -> LocalBoxFuture<'a, Result<AgentAnswer>>;
}

/// Where a generation run reports to: records (through [`Records`]), new
/// traces and the end marker.
pub trait RunEvents: Records {
    /// A new trace (carrying `end` only when the run stopped inside its turn).
    fn trace(&self, trace: &StepTrace);
    /// The end marker set on the last trace, when the run stopped between turns.
    fn ended(&self, end: &End);
}

pub struct Env<'a> {
    pub clock: &'a dyn Clock,
    pub user_model: &'a dyn Model,
    pub agent: &'a dyn Agent,
    pub policy: &'a dyn Policy,
    pub timer: Option<&'a dyn Timer>,
    pub abort: Option<&'a dyn Abort>,
    pub observers: Option<&'a dyn ToolObservers>,
    pub events: &'a dyn RunEvents,
    /// Used as the conversation id when the definition names none.
    pub run_id: Option<String>,
    /// How long a model, agent or user-model call may take (a step's
    /// `timeoutMs` overrides it for that step's agent calls); `None`: no
    /// deadline. See [`crate::host::CallTimeout`].
    pub call_timeout_ms: Option<f64>,
}
