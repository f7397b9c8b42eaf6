//! Core errors become real JS `Error`s with a stable `name` and `code`
//! (and `line` where the input was line-oriented).

use std::rc::Rc;

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::error::Cause;
use crate::core::{Error, ErrorCode};

pub const ERROR_NAME: &str = "AgentTrajectoriesError";

pub fn to_js(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    err.set_name(ERROR_NAME);
    let _ = Reflect::set(&err, &"code".into(), &e.code.as_str().into());
    if let Some(line) = e.line {
        let _ = Reflect::set(&err, &"line".into(), &(line as f64).into());
    }
    if let Some(step) = &e.step_id {
        let _ = Reflect::set(&err, &"stepId".into(), &step.into());
    }
    if let Some(cause) = e.cause.as_ref().and_then(|c| c.0.downcast_ref::<JsValue>()) {
        let _ = Reflect::set(&err, &"cause".into(), cause);
    }
    err.into()
}

/// A JS value kept as an error's cause.
pub fn cause(value: &JsValue) -> Cause {
    Cause(Rc::new(value.clone()))
}

/// A JS value as a person would write it in a message: strings quoted,
/// numbers and keywords as JS prints them, objects as (short) JSON, never
/// a Rust debug form.
pub fn describe(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        let quoted = serde_json::to_string(&s).unwrap_or_default();
        return shorten(quoted);
    }
    if v.is_undefined() {
        return "undefined".into();
    }
    if v.is_function() {
        return "a function".into();
    }
    if v.is_null() {
        return "null".into();
    }
    if let Some(b) = v.as_bool() {
        return b.to_string();
    }
    if let Some(n) = v.as_f64() {
        return js_sys::Number::from(n).to_string_with_radix(10).map(String::from).unwrap_or_default();
    }
    if let Some(b) = v.dyn_ref::<js_sys::BigInt>() {
        return format!("{}n", b.to_string(10).map(String::from).unwrap_or_default());
    }
    if let Some(s) = v.dyn_ref::<js_sys::Symbol>() {
        return String::from(s.to_js_string());
    }
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return format!("{}: {}", String::from(e.name()), String::from(e.message()));
    }
    match js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()) {
        Some(json) => shorten(json),
        None if js_sys::Array::is_array(v) => "an array".into(),
        None => "an object".into(),
    }
}

fn shorten(mut s: String) -> String {
    if s.chars().count() > 120 {
        s = s.chars().take(120).collect::<String>() + "…";
    }
    s
}

/// A value a JS callback threw or rejected with, as a core error that
/// names the callback. An `Error`'s own message is kept verbatim, and so is
/// the code of one of this library's errors passing through (a replayed
/// model's `REPLAY_MISS`, say).
pub fn from_callback(what: &str, thrown: &JsValue) -> Error {
    let detail = match thrown.dyn_ref::<js_sys::Error>() {
        Some(e) => String::from(e.message()),
        None => thrown.as_string().unwrap_or_else(|| describe(thrown)),
    };
    let ours = thrown.dyn_ref::<js_sys::Error>().filter(|e| e.name() == ERROR_NAME);
    let code = ours
        .and_then(|e| Reflect::get(e, &"code".into()).ok())
        .and_then(|c| c.as_string())
        .and_then(|c| ErrorCode::parse(&c))
        .unwrap_or(ErrorCode::CallbackFailed);
    Error::new(code, format!("{what} threw: {detail}")).caused_by(cause(thrown))
}

pub type JsResult<T> = Result<T, JsValue>;

/// `?`-friendly conversion from core results.
pub trait IntoJs<T> {
    fn js(self) -> JsResult<T>;
}

impl<T> IntoJs<T> for Result<T, Error> {
    fn js(self) -> JsResult<T> {
        self.map_err(to_js)
    }
}
