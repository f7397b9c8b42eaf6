//! `normalizeMessages`: the message model for JS callers.

use wasm_bindgen::prelude::*;

use super::error::{IntoJs, JsResult};
use crate::core::message::normalize_messages;
use crate::core::ErrorCode;

/// Normalises messages in any accepted shape (AI SDK 5+, AI SDK 4 `args` /
/// `result` / `isError`, shorthand `{ type: 'tool-call', id, name, args }`)
/// to AI SDK `ModelMessage`s. Throws `INVALID_MESSAGE` naming the index.
#[wasm_bindgen(js_name = normalizeMessages, unchecked_return_type = "ModelMessage[]")]
pub fn normalize_messages_js(#[wasm_bindgen(unchecked_param_type = "readonly ModelMessageInput[]")] messages: JsValue) -> JsResult<JsValue> {
    let value: serde_json::Value = super::from_js(&messages, "messages", ErrorCode::InvalidMessage).js()?;
    super::to_js(&normalize_messages(value).js()?)
}
