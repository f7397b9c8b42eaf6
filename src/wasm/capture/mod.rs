//! Capture for JS: the recorder, the two built-in sinks and JSONL helpers.

mod jsonl;
mod recorder;
mod sinks;
mod well_known;

pub use jsonl::{parse_trajectory_jsonl, serialize_trajectory_jsonl, trajectory_schema_version};
pub use recorder::TrajectoryRecorder;
pub use sinks::{JsonlSink, MemorySink};

use wasm_bindgen::JsValue;

use crate::core::capture::TrajectoryRecord;
use crate::core::Error;

/// Whether `v` is one of the package's sinks (a MemorySink or a JsonlSink).
pub fn is_sink(v: &JsValue) -> bool {
    sinks::native_sink_of(v).is_some()
}

/// Reads a JS record object, checking its schema version first.
fn record_from_js(value: &JsValue) -> Result<TrajectoryRecord, Error> {
    record_at(value, "record")
}

/// A JS record, `at` naming it in errors. JSON writes a NaN or an
/// Infinity as null: a record refused is read again as it was given (NaN
/// said as NaN), so that its error says what is there, not "null".
fn record_at(value: &JsValue, at: &str) -> Result<TrajectoryRecord, Error> {
    TrajectoryRecord::from_json(&super::json_of(value, at)?).map_err(|e| {
        match super::options_json(value, at).map(|given| TrajectoryRecord::from_json(&given)) {
            Ok(Err(said)) => said,
            _ => e,
        }
        .within(at)
    })
}
