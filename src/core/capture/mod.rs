//! Capture: ordered, versioned, failable trajectory records.

pub mod jsonl;
mod payload;
mod record;
mod recorder;
mod sink;

pub use jsonl::BadLine;
pub use payload::{Payload, KINDS};
pub use record::{check_version, EndedOutcome, GateAllow, OutcomeStatus, RunIdentity, RunOutcome, TrajectoryRecord, TRAJECTORY_SCHEMA_VERSION};
pub use recorder::{Dispatcher, Recorder, Settled, SinkPolicy};
pub use sink::{JsonlSink, MemorySink, Sink};
