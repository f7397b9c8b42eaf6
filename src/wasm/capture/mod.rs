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
    TrajectoryRecord::from_json(&super::json_of(value, "record")?).map_err(|e| e.within("record"))
}
