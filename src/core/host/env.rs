//! What generation and the objective loop both need from their host, beside
//! the clock and the models: a timer, an abort signal, the observer
//! pipeline and a place for records. The binding implements them over JS;
//! tests over plain Rust.

use crate::capture::Payload;
use crate::error::Result;
use crate::host::LocalBoxFuture;
use crate::observe::{Assessment, CurrentAssessment, ToolCallInput};

/// A host timer (`setTimeout` in JS).
pub trait Timer {
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()>;
    /// Resolves once the host's event loop has had a turn (its timers and
    /// I/O ran). A loop awaits it before every [`YIELD_EVERY`]th step, so
    /// callbacks that all answer at once cannot starve an abort timer.
    fn yield_now(&self) -> LocalBoxFuture<'static, ()>;
}

/// A generated run yields to the host's event loop before its first turn
/// and every 8th after it; the objective loop, before every 8th iteration.
/// Yielding costs a macrotask (about 1.5 µs of a plain turn of about 22,
/// measured in Node 20); a plain turn whose callbacks answer at once takes
/// about 20 µs, so 8 of them keep a due timer (an abort, a deadline)
/// waiting well under a millisecond, the granularity of the host's timers.
/// A step whose callbacks wait on I/O lets the event loop run anyway.
pub const YIELD_EVERY: u32 = 8;

/// Whether a loop yields before its step `step` (0-based).
pub fn yields_before(step: u64) -> bool {
    step % u64::from(YIELD_EVERY) == 0
}

/// A generated run also yields before a turn once its agent's answers since
/// the last yield held this many message parts: a turn of 50,000 parts
/// takes about 300 ms, and an abort timer must not wait for seven more.
pub const YIELD_AFTER_PARTS: usize = 4096;

/// A host abort signal.
pub trait Abort {
    fn aborted(&self) -> bool;
    /// Resolves once the signal fires.
    fn wait(&self) -> LocalBoxFuture<'static, ()>;
    /// Why it fired, in its owner's words (`abort(reason)`); `None` when
    /// no reason was given.
    fn reason(&self) -> Option<String> {
        None
    }
}

/// The assessment an agent is shown: its render and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownAssessment {
    pub text: String,
    /// The tool call after which it was produced.
    pub call_index: u64,
    pub assessments: Vec<Assessment>,
}

impl ShownAssessment {
    /// What a pipeline shows: nothing while its rendered context is empty
    /// (no assessment, or a stale one), else the context and the current
    /// assessment (`current` is asked only then).
    pub fn of(text: String, current: impl FnOnce() -> Result<Option<CurrentAssessment>>) -> Result<Option<ShownAssessment>> {
        if text.is_empty() {
            return Ok(None);
        }
        Ok(current()?.map(|c| ShownAssessment { text, call_index: c.call_index, assessments: c.assessments }))
    }
}

/// The observer pipeline, as a run uses it.
pub trait ToolObservers {
    fn tool_call(&self, call: ToolCallInput) -> Result<()>;
    /// The current assessment; `None` when there is none or it is stale.
    fn current(&self) -> Result<Option<ShownAssessment>>;
    /// Tokens a model call used, for the budget.
    fn record_tokens(&self, n: u64) -> Result<()>;
}

/// Where a run's records go: stamped and handed to the sink.
pub trait Records {
    fn record(&self, payload: Payload) -> Result<()>;
    /// Whether the last record refused was refused because the clock it is
    /// stamped with failed: the clock's fault then, not the recorder's.
    fn clock_failed(&self) -> bool {
        false
    }
    /// What follows are the run's closing records: stamped even when the
    /// clock has failed (see `Recorder::close`).
    fn closing(&self) {}
    /// Resolves once every record so far reached the sink, or with the
    /// sink's failure (under `onSinkError: 'fail'`).
    fn flush(&self) -> LocalBoxFuture<'_, Result<()>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_context_shows_nothing_and_does_not_ask_for_the_assessment() {
        let current = || CurrentAssessment { assessments: Vec::new(), generated_at: 0.0, call_index: 3 };
        let asked = std::cell::Cell::new(false);
        let none = ShownAssessment::of(String::new(), || {
            asked.set(true);
            Ok(Some(current()))
        });
        assert_eq!(none.unwrap(), None);
        assert!(!asked.get());
        let shown = ShownAssessment::of("## Trajectory Assessment".into(), || Ok(Some(current()))).unwrap().unwrap();
        assert_eq!((shown.text.as_str(), shown.call_index), ("## Trajectory Assessment", 3));
        assert_eq!(ShownAssessment::of("text".into(), || Ok(None)).unwrap(), None);
    }
}
