//! Model record/replay for JS: requests and answers cross as JSON text
//! (the JS layer made them plain), `core::generate::replay` decides.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::core::generate::replay::{self, Answer, Replay};
use crate::core::write::{self, Obj};
use crate::core::{Error, ErrorCode};
use crate::wasm::error::{IntoJs, JsResult};
use crate::wasm::{text_to_js, to_js};

/// The JS layer's JSON text (`JSON.stringify` of a plain copy), read as any JS value is ([`crate::wasm::whole`]).
fn parse(text: &str, what: &str) -> Result<Value, Error> {
    serde_json::from_str(&crate::wasm::whole(text.to_owned()))
        .map_err(|e| Error::invalid_argument(format!("{what} is not JSON: {}", crate::core::error::plain_serde(&e))))
}

fn answer_to_js(a: &Answer) -> JsResult<JsValue> {
    match a {
        Answer::Response(r) => js_sys::JSON::parse(&Obj::new().raw("response", &write::json(r)).end()),
        Answer::Failed { message, code } => {
            js_sys::JSON::parse(&Obj::new().raw("error", &Obj::new().text("message", message).raw("code", &write::json(code)).end()).end())
        }
    }
}

/// A request's key (`modelRequestKey`); `path` names it in errors.
#[wasm_bindgen(js_name = __modelRequestKey, skip_typescript)]
pub fn request_key(request: &str, path: &str) -> JsResult<String> {
    replay::keyed(&parse(request, path).js()?, path).map(|(_, key)| key).js()
}

/// A recording's entry for `request` and how the model answered
/// (`{ response }` or `{ error: { message, code? } }`).
#[wasm_bindgen(js_name = __recordingEntry, skip_typescript)]
pub fn recording_entry(request: &str, answer: &str) -> JsResult<JsValue> {
    let request = parse(request, "recordingModel: request").js()?;
    let answer = parse(answer, "recordingModel: answer").js()?;
    let answer = match answer.get("error") {
        Some(e) => Answer::Failed {
            message: e.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
            code: e.get("code").and_then(Value::as_str).map(str::to_owned),
        },
        None => Answer::Response(answer.get("response").cloned().unwrap_or(Value::Null)),
    };
    to_js(&replay::entry(&request, &answer).js()?)
}

/// The recording format's name and version, for `recordingModel`'s `recording`.
#[wasm_bindgen(js_name = __recordingFormat, skip_typescript)]
pub fn recording_format() -> JsResult<JsValue> {
    text_to_js(&Obj::new().text("format", replay::FORMAT).int("version", replay::VERSION.into()).end())
}

/// A recording ready to answer (`replayModel`).
#[wasm_bindgen(js_name = __ModelReplay, skip_typescript)]
pub struct ModelReplay(Replay);

#[wasm_bindgen(js_class = __ModelReplay)]
impl ModelReplay {
    /// `recording`: the recording as JSON text.
    #[wasm_bindgen(constructor)]
    pub fn new(recording: &str) -> JsResult<ModelReplay> {
        let v = parse(recording, "replayModel(recording)").js()?;
        Replay::read(&v).map(ModelReplay).js()
    }

    /// The next recorded answer to `request` (JSON text): `{ response }` or
    /// `{ error: { message, code? } }`; throws `REPLAY_MISS` otherwise.
    pub fn answer(&mut self, request: &str) -> JsResult<JsValue> {
        let request = parse(request, "replayModel: request").map_err(|e| Error::new(ErrorCode::InvalidArgument, e.message)).js()?;
        answer_to_js(&self.0.answer(&request).js()?)
    }
}
