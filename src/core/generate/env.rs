//! What a generation run needs from its host: the agent under test, a
//! timer, an abort signal, an observer pipeline and a place to report to.
//! The core implements none of them; the binding does, over JS.

use super::state::Policy;
use super::trace::{End, StepTrace};
use crate::capture::Payload;
use crate::error::Result;
use crate::host::{Clock, LocalBoxFuture, Model, Usage};
use crate::message::ModelMessage;
use crate::observe::{Assessment, ToolCallInput};

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

/// A host timer (`setTimeout` in JS).
pub trait Timer {
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()>;
    /// Resolves once the host's event loop has had a turn (its timers and
    /// I/O ran). The run awaits it once per turn, so callbacks that all
    /// answer at once cannot starve an abort timer.
    fn yield_now(&self) -> LocalBoxFuture<'static, ()>;
}

/// A host abort signal.
pub trait Abort {
    fn aborted(&self) -> bool;
    /// Resolves once the signal fires.
    fn wait(&self) -> LocalBoxFuture<'static, ()>;
}

/// Where the run reports to: stamped records, new traces and the end marker.
pub trait RunEvents {
    fn record(&self, payload: Payload) -> Result<()>;
    /// Resolves once every record so far reached the sink, or with the
    /// sink's failure (under `onSinkError: 'fail'`).
    fn flush(&self) -> LocalBoxFuture<'_, Result<()>>;
    /// A new trace (carrying `end` only when the run stopped inside its turn).
    fn trace(&self, trace: &StepTrace);
    /// The end marker set on the last trace, when the run stopped between turns.
    fn ended(&self, end: &End);
}

/// The assessment an agent is shown: its render and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownAssessment {
    pub text: String,
    /// The tool call after which it was produced.
    pub call_index: u64,
    pub assessments: Vec<Assessment>,
}

/// The observer pipeline, as the loop uses it.
pub trait ToolObservers {
    fn tool_call(&self, call: ToolCallInput) -> Result<()>;
    /// The current assessment; `None` when there is none or it is stale.
    fn current(&self) -> Result<Option<ShownAssessment>>;
    /// Tokens a model call used, for the budget.
    fn record_tokens(&self, n: u64) -> Result<()>;
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
