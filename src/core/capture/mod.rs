//! Capture: ordered, versioned, failable trajectory records.

pub mod jsonl;
mod outcome;
mod payload;
mod record;
mod recorder;
mod seq;
mod sink;
pub mod well_known;

pub use jsonl::BadLine;
pub use outcome::{is_stop_reason, EndRead, LoopEnd};
pub use payload::{unknown_kind_message, Payload, KINDS};
pub use record::{check_version, EndedOutcome, GateAllow, OutcomeStatus, RunIdentity, RunOutcome, TrajectoryRecord, TRAJECTORY_SCHEMA_VERSION};
pub use recorder::{default_run_id, Dispatcher, Recorder, Settled, SinkPolicy, RECORDER_OPTIONS};
pub use seq::SeqCheck;
pub use sink::{JsonlSink, MemorySink, Sink};
pub use well_known::ModelUsage;
