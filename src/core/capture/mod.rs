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
pub use outcome::{
    is_stop_reason, EndRead, EndedOutcome, LoopEnd, OutcomeStatus, RunOutcome, LOOP_FINISHED, MODEL_COMPLETED, OBJECTIVE_MET, PLAN_COMPLETED,
    STOP_PREFIXES, STOP_REASONS,
};
pub use payload::{unknown_kind_message, GateAllow, KindDoc, Payload, RunIdentity, KINDS, KIND_DOCS};
pub use record::{check_version, newer_version, TrajectoryRecord, TRAJECTORY_SCHEMA_VERSION};
pub use recorder::{default_run_id, not_a_sink, Dispatcher, Recorder, Settled, SinkPolicy, RECORDER_OPTIONS};
pub use seq::SeqCheck;
pub use sink::{closed, JsonlSink, MemorySink, Sink};
pub use well_known::ModelUsage;
