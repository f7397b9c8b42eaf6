//! The package's own records for the JS layer: the integrations build
//! `model_usage`, `model_error` and a watched loop's `run_ended` outcome
//! here, and the OpenTelemetry exporter reads `model_usage` here, so the
//! field names and the end rules stay the core's.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::core::capture::well_known::{model_error, ModelUsage};
use crate::core::capture::LoopEnd;
use crate::core::write::{json, Obj};
use crate::core::Error;
use crate::wasm::error::{IntoJs, JsResult};
use crate::wasm::{json_of, text_to_js, to_js};

/// A JS value as JSON, or `Null` when it has no JSON form (a framework's
/// usage object is read leniently: what is not a count is no count; what
/// is no outcome is refused by the caller).
fn lenient(v: &JsValue) -> Value {
    json_of(v, "value").ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null)
}

/// The `custom` `model_usage` payload for a model call's reported usage, or
/// `undefined` when it reported no count.
#[wasm_bindgen(js_name = __modelUsage, skip_typescript)]
pub fn model_usage(usage: JsValue, finish_reason: Option<String>) -> JsResult<JsValue> {
    match ModelUsage::reported(&lenient(&usage), None, finish_reason.as_deref()) {
        Some(u) => to_js(&u.payload()),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// A `model_usage` record's data, in the spelling it is written in now or
/// the one older integrations wrote (`input_tokens`, ...), as
/// `{ source?, inputTokens?, outputTokens?, totalTokens, finishReason? }`;
/// `undefined` when it holds no token count.
#[wasm_bindgen(js_name = readModelUsage, unchecked_return_type = "ModelUsageData | undefined")]
pub fn read_model_usage(#[wasm_bindgen(unchecked_param_type = "unknown")] data: JsValue) -> JsResult<JsValue> {
    match ModelUsage::read(&lenient(&data)) {
        Some(u) => to_js(&u.data()),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// The `custom` `model_error` payload.
#[wasm_bindgen(js_name = __modelError, skip_typescript)]
pub fn model_error_js(message: String) -> JsResult<JsValue> {
    to_js(&model_error(&message))
}

/// A watched loop's `run_ended` outcome: `{ finished: reason? }`,
/// `{ stoppedOn: { threshold, times, observer, severity, summary } }` or
/// `{ failed: { message, code?, harness } }`.
#[wasm_bindgen(js_name = __loopOutcome, skip_typescript)]
pub fn loop_outcome(end: JsValue) -> JsResult<JsValue> {
    let v: Value =
        serde_json::from_str(&json_of(&end, "end").js()?).map_err(|_| crate::wasm::error::to_js(Error::invalid_argument("end is not JSON")))?;
    let s = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    let end = if let Some(f) = v.get("finished") {
        LoopEnd::Finished { finish_reason: f.as_str().map(str::to_owned) }
    } else if let Some(o) = v.get("stoppedOn") {
        LoopEnd::StoppedOn {
            threshold: s(o, "threshold").unwrap_or_default(),
            times: o.get("times").and_then(Value::as_u64).unwrap_or(1),
            observer: s(o, "observer").unwrap_or_default(),
            severity: s(o, "severity").unwrap_or_default(),
            summary: s(o, "summary").unwrap_or_default(),
        }
    } else if let Some(a) = v.get("aborted") {
        LoopEnd::Aborted { message: a.as_str().unwrap_or("aborted").to_owned() }
    } else {
        let o = v.get("failed").cloned().unwrap_or(Value::Null);
        LoopEnd::Failed {
            message: s(&o, "message").unwrap_or_default(),
            code: s(&o, "code"),
            harness: o.get("harness").and_then(Value::as_bool).unwrap_or(false),
        }
    };
    to_js(&end.outcome())
}

/// The record kinds, the well-known `custom` names and the `model_usage`
/// keys (written spelling first), for code that runs without the module: the build bakes
/// them into the OpenTelemetry exporter, which reads records alone.
#[wasm_bindgen(js_name = __wellKnown, skip_typescript)]
pub fn well_known() -> JsResult<JsValue> {
    use crate::core::capture::well_known::{CUSTOM_NAMES, USAGE_KEYS};
    use crate::core::capture::KINDS;
    let k = &USAGE_KEYS;
    let usage = Obj::new()
        .raw("input", &json(&k.input))
        .raw("output", &json(&k.output))
        .raw("total", &json(&k.total))
        .raw("finishReason", &json(&k.finish_reason));
    text_to_js(&Obj::new().raw("kinds", &json(KINDS)).raw("custom", &json(&CUSTOM_NAMES)).raw("usage", &usage.end()).end())
}

/// The `custom` `budget` payload of a run's limits; `place` names the option in errors.
#[wasm_bindgen(js_name = __budgetRecord, skip_typescript)]
pub fn budget_record(limits: JsValue, place: String) -> JsResult<JsValue> {
    let v: Value = serde_json::from_str(&crate::wasm::options_json(&limits, &place).js()?).unwrap_or(Value::Null);
    to_js(&crate::core::capture::well_known::budget(&v, &place).js()?)
}

/// How a run ended, from its `run_ended` outcome (any writer, any age): the
/// status by the one rule (`completed`, `stopped`, `error`, `aborted`), the
/// verdict, and whether the run passed. What the index and the viewer show.
#[wasm_bindgen(js_name = readOutcome, unchecked_return_type = "RunEnd")]
pub fn read_outcome(#[wasm_bindgen(unchecked_param_type = "RunOutcome | string")] outcome: JsValue) -> JsResult<JsValue> {
    let v = lenient(&outcome);
    if !v.is_object() && !v.is_string() {
        return Err(crate::wasm::error::to_js(Error::invalid_argument(format!(
            "readOutcome(outcome): outcome must be a run_ended outcome ({{ status, reason?, ... }} or a label string), got {}",
            crate::wasm::error::describe(&outcome)
        ))));
    }
    to_js(&crate::core::capture::EndRead::read(&v))
}
