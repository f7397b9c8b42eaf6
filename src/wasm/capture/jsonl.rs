//! JSONL reading and writing for JS callers.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::core::capture::{jsonl, BadLine, TrajectoryRecord, TRAJECTORY_SCHEMA_VERSION};
use crate::core::{Error, ErrorCode};
use crate::wasm::error::{describe, to_js, IntoJs, JsResult};
use crate::wasm::{check_options, option};

#[derive(Serialize)]
struct Lenient<'a> {
    records: &'a [TrajectoryRecord],
    errors: &'a [BadLine],
}

/// Parses JSONL back into records. Tolerates CRLF, blank lines and a
/// trailing newline. Strict by default: throws `JSONL_PARSE`,
/// `INVALID_RECORD`, `UNSUPPORTED_SCHEMA_VERSION` or `SEQ_GAP` with `line`
/// set. With `{ lenient: true }` returns `{ records, errors }` instead.
/// `text` may also be UTF-8 bytes (a `Uint8Array`).
#[wasm_bindgen(js_name = parseTrajectoryJsonl, skip_typescript)]
pub fn parse_trajectory_jsonl(text: JsValue, opts: JsValue) -> JsResult<JsValue> {
    check_options(&opts, &["lenient"], "parseTrajectoryJsonl options").js()?;
    let lenient = option(&opts, "lenient", "parseTrajectoryJsonl options").js()?;
    let lenient = match lenient.as_bool() {
        Some(b) => b,
        None if lenient.is_undefined() => false,
        None => {
            return Err(to_js(Error::invalid_argument(format!("parseTrajectoryJsonl options.lenient must be a boolean, got {}", describe(&lenient)))))
        }
    };
    // Bytes may hold a line that is not UTF-8, which is a bad line like any other.
    let text = jsonl::text_of(crate::wasm::text::jsonl_bytes(&text, "parseTrajectoryJsonl(text): text").js()?);
    if lenient {
        let (records, errors) = jsonl::parse_lenient(&text);
        crate::wasm::to_js(&Lenient { records: &records, errors: &errors })
    } else {
        crate::wasm::to_js(&jsonl::parse(&text).js()?)
    }
}

/// Serialises records (validated, index named on error) to JSONL text.
#[wasm_bindgen(js_name = serializeTrajectoryJsonl)]
pub fn serialize_trajectory_jsonl(#[wasm_bindgen(unchecked_param_type = "readonly TrajectoryRecord[]")] records: JsValue) -> JsResult<String> {
    if !crate::wasm::is_array(&records) {
        return Err(to_js(Error::invalid_argument("records must be an array")));
    }
    // Each record's own JSON text: reading the whole array as typed raw
    // values would link serde's type-mismatch messages (float printing).
    let parsed = crate::wasm::items(&records, "records")
        .and_then(|items| items.iter().enumerate().map(|(i, r)| super::record_at(r, &format!("records[{i}]"))).collect::<Result<Vec<_>, _>>())
        .js()?;
    Ok(jsonl::serialize(&parsed))
}

/// The record schema version this build writes (and the newest it reads).
#[wasm_bindgen(js_name = trajectorySchemaVersion)]
pub fn trajectory_schema_version() -> u32 {
    TRAJECTORY_SCHEMA_VERSION
}

/// Record JSONL from a generated run's step export (`toJSONL` lines parsed,
/// or `stepTraces.json`), so `TrajectoryIndex.fromJsonl` and the viewer read
/// it as they read records: turns, steps, tool calls and how it ended.
#[wasm_bindgen(js_name = stepsToJsonl)]
pub fn steps_to_jsonl(#[wasm_bindgen(unchecked_param_type = "unknown[]")] steps: JsValue) -> JsResult<String> {
    if !crate::wasm::is_array(&steps) {
        return Err(to_js(Error::invalid_argument(format!("stepsToJsonl(steps): steps must be an array, got {}", describe(&steps)))));
    }
    let v: serde_json::Value = crate::wasm::from_js(&steps, "stepsToJsonl(steps)", ErrorCode::InvalidArgument).js()?;
    Ok(crate::judge::steps::steps_to_jsonl(v.as_array().map(Vec::as_slice).unwrap_or_default(), None))
}
