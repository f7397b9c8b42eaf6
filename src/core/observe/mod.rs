//! Observe: after each tool call, observers whose triggers fire look at the
//! trajectory so far and produce short, evidence-backed assessments; the
//! latest set renders into the next prompt.
//!
//! Per-call work is bounded: the log keeps incremental counters, detectors
//! keep fixed-size windows, and nothing scans the whole history.

mod assessment;
mod budget;
mod builtin;
pub mod call;
mod detector;
mod escalation;
pub mod fingerprint;
mod log;
pub mod options;
mod pipeline;
mod placement;
mod saved_log;
pub mod stop_on;
mod trigger;

pub use assessment::{Assessment, CurrentAssessment, Observation, Severity};
pub use budget::Budget;
pub use builtin::resources::{format_duration, thousands};
pub use builtin::{builtin_docs, Builtin, BuiltinDoc, BUILTIN_NAMES};
pub use detector::Detector;
pub use log::{CallFacts, ToolCallInput, ToolCallRecord, ToolLog};
pub use pipeline::{Checkpoint, Observer, ObserverSnapshot, Pipeline, PipelineSnapshot, RawJson, Slot, SNAPSHOT_SCHEMA, SNAPSHOT_VERSION};
pub use placement::{place_context, with_text_part, Placement, INJECT_OPTIONS};
pub use trigger::{ObserverState, Trigger};

/// What one observer concluded when it ran.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A new assessment.
    Report(Assessment),
    /// Nothing new to say.
    Quiet,
    /// What it reported before is gone: its assessment leaves the current set.
    Resolved,
}

impl Outcome {
    /// What a host observer that threw, or returned something that is not
    /// an assessment, counts as. The failure is isolated (the other
    /// observers still run) and never silent: when the host reported it
    /// elsewhere (`onError`) the observer stays quiet, otherwise it reports
    /// an assessment of its own carrying the error as an observation.
    pub fn failed(name: &str, message: String, reported: bool) -> Outcome {
        if reported {
            return Outcome::Quiet;
        }
        let mut a = Assessment::new(name.to_owned(), format!("Observer {name} failed; its assessment is unavailable."), Severity::Info);
        a.observations.push(Observation { category: "error".into(), description: message, evidence: None });
        Outcome::Report(a)
    }
}
