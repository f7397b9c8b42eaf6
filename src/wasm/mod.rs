//! The wasm-bindgen binding: JS values in, core types, JS values out. It
//! translates and never decides; every rule lives in `crate::core`.

pub mod capture;
pub mod error;
mod host;
pub mod message;
pub mod types;

use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::core::{Error, ErrorCode};

/// One serializer for every value handed to JS: maps become plain objects,
/// missing options become `undefined`-free JSON-compatible values.
const SERIALIZER: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::json_compatible();

pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&SERIALIZER)
        .map_err(|e| error::to_js(Error::new(ErrorCode::Internal, format!("could not convert a value for JS: {e}"))))
}

/// Reads any JS value as JSON data (functions and symbols are refused).
pub(crate) fn from_js(value: JsValue, what: &str) -> Result<serde_json::Value, Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| Error::invalid_argument(format!("{what}: {e}")))
}
