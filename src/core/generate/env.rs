//! What a generation run needs from its host: the agent under test, a
//! timer, an abort signal, an observer pipeline and a place to report to.
//! The core implements none of them; the binding does, over JS.

use super::state::Policy;
use super::trace::{End, StepTrace};
use crate::core::capture::Payload;
use crate::core::error::Result;
use crate::core::host::{Clock, LocalBoxFuture, Model};
use crate::core::message::ModelMessage;
use crate::core::observe::ToolCallInput;

/// The agent under test. `history` is the whole conversation so far, ending
/// with the new user message; it only ever grows by appending, so a host
/// can mirror it incrementally. `context` is the observers' assessment for
/// this turn only (not part of the history).
pub trait Agent {
    fn respond<'a>(&'a self, history: &'a [ModelMessage], context: Option<&'a ModelMessage>) -> LocalBoxFuture<'a, Result<Vec<ModelMessage>>>;
}

/// A host timer (`setTimeout` in JS).
pub trait Timer {
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()>;
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
    /// A new trace (carrying `end` only when the run stopped inside its turn).
    fn trace(&self, trace: &StepTrace);
    /// The end marker set on the last trace, when the run stopped between turns.
    fn ended(&self, end: &End);
}

/// The observer pipeline, as the loop uses it.
pub trait ToolObservers {
    fn tool_call(&self, call: ToolCallInput) -> Result<()>;
    /// The current assessment's render; `None` when there is none.
    fn context(&self) -> Result<Option<String>>;
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
}
