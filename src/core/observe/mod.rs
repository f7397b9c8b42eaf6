//! Observe: after each tool call, observers whose triggers fire look at the
//! trajectory so far and produce short, evidence-backed assessments; the
//! latest set renders into the next prompt.
//!
//! Per-call work is bounded: the log keeps incremental counters, detectors
//! keep fixed-size windows, and nothing scans the whole history.

mod assessment;
mod budget;
mod builtin;
mod cascade;
mod drift;
mod escalation;
pub mod fingerprint;
mod log;
mod pipeline;
mod resources;
mod stall;
mod trigger;

pub use assessment::{Assessment, CurrentAssessment, Observation, Severity};
pub use budget::Budget;
pub use builtin::{Builtin, BUILTIN_NAMES};
pub use log::{CallFacts, ToolCallInput, ToolCallRecord, ToolLog};
pub use pipeline::{Observer, ObserverSnapshot, Pipeline, PipelineSnapshot, Placement, RawJson, Slot, SNAPSHOT_SCHEMA, SNAPSHOT_VERSION};
pub use resources::{format_duration, thousands};
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
