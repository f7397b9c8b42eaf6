//! One tool call through a pipeline: its fields' rules, and the three phases
//! (record the call and find the observers it triggers; run them; store what
//! they concluded) with no borrow of the pipeline held while a host's
//! observer or recorder runs, since either may read the pipeline (or call
//! it again) from inside. [`Pipeline::record_tool_call`], which runs them on
//! an unshared pipeline, is defined here too: this module uses `pipeline`,
//! never the other way round.

use std::cell::{Cell, RefCell};

use super::log::ToolCallInput;
use super::pipeline::{Observer, Pipeline};
use super::{CurrentAssessment, Outcome};
use crate::error::{Error, ErrorCode, Result};
use crate::value::Arg;

/// The keys of a tool call; any other is refused (a misspelt `parasm`
/// would silently lose the params).
pub const CALL_KEYS: [&str; 5] = ["toolName", "params", "paramsSummary", "success", "errorMessage"];

/// A call's fields as the caller gave them (the params already JSON text),
/// judged by one set of rules whichever way they came in.
pub fn call_of(tool_name: Arg, params_json: Option<String>, summary: Arg, success: Arg, error: Arg) -> Result<ToolCallInput> {
    let Arg::Str(tool_name) = tool_name else {
        return Err(Error::invalid_argument("recordToolCall: toolName must be a non-empty string"));
    };
    let Arg::Bool(success) = success else {
        return Err(Error::invalid_argument(format!("recordToolCall ({tool_name}): success must be a boolean")));
    };
    let optional = |v: Arg, key: &str| match v {
        Arg::Absent | Arg::Null => Ok(None),
        Arg::Str(s) => Ok(Some(s)),
        _ => Err(Error::invalid_argument(format!("recordToolCall ({tool_name}): {key} must be a string"))),
    };
    Ok(ToolCallInput {
        params_summary: optional(summary, "paramsSummary")?,
        error_message: optional(error, "errorMessage")?,
        tool_name,
        params_json,
        success,
    })
}

/// Hears of a call's new assessments (to record them); failing undoes the call.
pub type RecordAssessment<'a> = &'a mut dyn FnMut(&CurrentAssessment) -> Result<()>;

fn busy() -> Error {
    Error::new(ErrorCode::Busy, "recordToolCall is already running (called from inside an observer?)")
}

/// A pipeline shared with the host's observers: they read it through their
/// context while a call is in progress.
pub struct SharedPipeline {
    pub pipeline: RefCell<Pipeline>,
    in_call: Cell<bool>,
}

impl SharedPipeline {
    pub fn new(pipeline: Pipeline) -> SharedPipeline {
        SharedPipeline { pipeline: RefCell::new(pipeline), in_call: Cell::new(false) }
    }

    /// Runs `f` on the pipeline; `BUSY` while a call holds it.
    pub fn with<R>(&self, f: impl FnOnce(&mut Pipeline) -> R) -> Result<R> {
        Ok(f(&mut *self.borrow_mut()?))
    }

    /// Reads the pipeline; `BUSY` while a call is changing it.
    pub fn read<R>(&self, f: impl FnOnce(&Pipeline) -> R) -> Result<R> {
        Ok(f(&*self.borrow()?))
    }

    // Not generic: `with`'s and `read`'s copies for each closure share the
    // borrow and its error.
    fn borrow_mut(&self) -> Result<std::cell::RefMut<'_, Pipeline>> {
        self.pipeline.try_borrow_mut().map_err(|_| busy())
    }

    fn borrow(&self) -> Result<std::cell::Ref<'_, Pipeline>> {
        self.pipeline.try_borrow().map_err(|_| busy())
    }

    /// Records one call: `external` runs the host's observers (slot index),
    /// `record` hears of every assessment produced. A call made from inside
    /// one of them is refused (`BUSY`). A `record` that fails undoes the
    /// call, so the error is true and a retry does not count it twice.
    pub fn record_call(
        &self,
        input: ToolCallInput,
        now_ms: f64,
        external: impl FnMut(usize) -> Outcome,
        record: Option<RecordAssessment<'_>>,
    ) -> Result<Option<CurrentAssessment>> {
        if self.in_call.replace(true) {
            return Err(busy());
        }
        let result = self.phases(input, now_ms, external, record);
        self.in_call.set(false);
        result
    }

    fn phases(
        &self,
        input: ToolCallInput,
        now_ms: f64,
        mut external: impl FnMut(usize) -> Outcome,
        record: Option<RecordAssessment<'_>>,
    ) -> Result<Option<CurrentAssessment>> {
        let checkpoint = match record {
            Some(_) => Some(self.with(|p| p.checkpoint())?),
            None => None,
        };
        let fired = self.with(|p| p.push_call(input, now_ms))??;
        let mut outcomes = Vec::with_capacity(fired.len());
        for slot in fired {
            let builtin = self.with(|p| matches!(p.slots()[slot].observer, Observer::Builtin(_)))?;
            let outcome = if builtin { self.with(|p| p.run_builtin(slot, now_ms))? } else { external(slot) };
            outcomes.push((slot, outcome));
        }
        let Some(current) = self.with(|p| p.conclude(outcomes, now_ms))? else { return Ok(None) };
        if let (Some(record), Some(checkpoint)) = (record, checkpoint) {
            if let Err(mut e) = record(&current) {
                self.with(|p| p.rollback(checkpoint))?;
                e.message.push_str("; the call was undone (not counted), so it can be retried");
                return Err(e);
            }
        }
        Ok(Some(current))
    }
}

impl Pipeline {
    /// All phases at once (through [`SharedPipeline::record_call`], the one
    /// place they are sequenced); `external` runs the host's own observers.
    pub fn record_tool_call(
        &mut self,
        input: ToolCallInput,
        now_ms: f64,
        mut external: impl FnMut(usize, &Pipeline) -> Outcome,
    ) -> Result<Option<CurrentAssessment>> {
        let shared = SharedPipeline::new(self.take());
        let result = shared.record_call(input, now_ms, |slot| external(slot, &shared.pipeline.borrow()), None);
        *self = shared.pipeline.into_inner();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::{Assessment, Budget, Severity, Slot, Trigger};

    fn pipeline() -> SharedPipeline {
        let trigger = Trigger::from_value(&serde_json::json!({ "everyNCalls": 1 }), "t").unwrap();
        let slot = Slot { trigger, observer: Observer::External { name: "mine".into() } };
        SharedPipeline::new(Pipeline::new(vec![slot], Budget::default(), 20, 0.0).unwrap())
    }

    fn call(name: &str) -> ToolCallInput {
        call_of(Arg::Str(name.into()), None, Arg::Absent, Arg::Bool(true), Arg::Null).unwrap()
    }

    fn report(_: usize) -> Outcome {
        Outcome::Report(Assessment::new("mine", "m", Severity::Info))
    }

    #[test]
    fn a_calls_fields_have_one_set_of_rules() {
        let e = call_of(Arg::Number(1.0), None, Arg::Absent, Arg::Bool(true), Arg::Absent).unwrap_err();
        assert_eq!(e.message, "recordToolCall: toolName must be a non-empty string");
        let e = call_of(Arg::Str("ls".into()), None, Arg::Absent, Arg::Str("yes".into()), Arg::Absent).unwrap_err();
        assert_eq!(e.message, "recordToolCall (ls): success must be a boolean");
        let e = call_of(Arg::Str("ls".into()), None, Arg::Number(2.0), Arg::Bool(false), Arg::Absent).unwrap_err();
        assert_eq!(e.message, "recordToolCall (ls): paramsSummary must be a string");
        let ok = call_of(Arg::Str("ls".into()), Some("{}".into()), Arg::Str("s".into()), Arg::Bool(false), Arg::Str("boom".into())).unwrap();
        assert_eq!((ok.params_summary.as_deref(), ok.error_message.as_deref(), ok.success), (Some("s"), Some("boom"), false));
    }

    #[test]
    fn a_recorder_that_refuses_undoes_the_call() {
        let p = pipeline();
        let mut refuse = |_: &CurrentAssessment| Err(Error::new(ErrorCode::CallbackFailed, "no"));
        let e = p.record_call(call("ls"), 1.0, report, Some(&mut refuse)).unwrap_err();
        assert_eq!(e.message, "no; the call was undone (not counted), so it can be retried");
        assert_eq!(p.with(|p| p.log().len()).unwrap(), 0);
        assert!(p.with(|p| p.current().is_none()).unwrap());
        let mut accept = |_: &CurrentAssessment| Ok(());
        assert!(p.record_call(call("ls"), 2.0, report, Some(&mut accept)).unwrap().is_some());
        assert_eq!(p.with(|p| p.log().len()).unwrap(), 1);
    }

    #[test]
    fn a_call_from_inside_an_observer_is_busy_and_reads_are_not() {
        let p = pipeline();
        let mut inner = None;
        let mut reads = None;
        p.record_call(
            call("ls"),
            1.0,
            |_| {
                inner = Some(p.record_call(call("cat"), 1.0, |_| Outcome::Quiet, None).unwrap_err().code);
                reads = Some(p.pipeline.try_borrow().map(|p| p.log().len()).ok());
                Outcome::Quiet
            },
            None,
        )
        .unwrap();
        assert_eq!(inner, Some(ErrorCode::Busy));
        assert_eq!(reads, Some(Some(1)));
    }
}
