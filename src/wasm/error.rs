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
    // Enumerable, so JSON.stringify keeps it (a saved batch's run.error), as it keeps the code.
    define(&err, "message", &e.message.as_str().into(), true);
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

/// Sets `holder.cause` (a run result's plain `error` object) to what the
/// callback threw: not enumerable, so exports and JSON of the result leave
/// it out, as they leave out a thrown value's stack.
pub fn attach_cause(holder: &JsValue, cause: Option<&Cause>) {
    let Some(thrown) = cause.and_then(|c| c.0.downcast_ref::<JsValue>()) else { return };
    if holder.is_object() {
        define(holder, "cause", thrown, false);
    }
}

/// `obj[key] = value`, writable and configurable, enumerable or not.
fn define(obj: &JsValue, key: &'static str, value: &JsValue, enumerable: bool) {
    let descriptor = crate::wasm::data_property(value, enumerable);
    js_sys::Object::define_property(obj.unchecked_ref::<js_sys::Object>(), &crate::wasm::key(key), &descriptor);
}

/// A JS value as a person would write it in a message: strings quoted,
/// numbers and keywords as JS prints them, objects as (short) JSON, never
/// a Rust debug form.
pub fn describe(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        let quoted = crate::core::write::json(&s);
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
    if v.dyn_ref::<js_sys::Error>().is_some() {
        let name = text_property(v, "name").unwrap_or_else(|| "Error".into());
        return format!("{name}: {}", message_of(v).unwrap_or_default());
    }
    if super::is_package_object(v) {
        return super::PACKAGE_OBJECT.into();
    }
    match js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()) {
        Some(json) => shorten(json),
        None if super::is_array(v) => "an array".into(),
        None => "an object".into(),
    }
}

/// `v[key]` when it is a string; `None` when absent, not a string, or
/// when reading it threw (an error's own `message` getter may).
fn text_property(v: &JsValue, key: &str) -> Option<String> {
    Reflect::get(v, &key.into()).ok().and_then(|m| m.as_string())
}

/// An `Error`'s message, read without letting its getter throw through.
pub fn message_of(v: &JsValue) -> Option<String> {
    v.dyn_ref::<js_sys::Error>().and_then(|_| text_property(v, "message"))
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
    let detail = match message_of(thrown) {
        Some(m) => m,
        None => thrown.as_string().unwrap_or_else(|| describe(thrown)),
    };
    let ours = thrown.dyn_ref::<js_sys::Error>().is_some() && text_property(thrown, "name").as_deref() == Some(ERROR_NAME);
    let code = ours.then(|| text_property(thrown, "code")).flatten().and_then(|c| ErrorCode::parse(&c)).unwrap_or(ErrorCode::CallbackFailed);
    // One of this package's errors standing for a callback of the caller's
    // (an adapter's `withAISdkAgent: generateText threw: ...`, a recording
    // model's, a batch's onProgress) has the caller's own error as its
    // cause: that is the cause kept, not one level down.
    let theirs = Reflect::get(thrown, &"cause".into()).unwrap_or(JsValue::UNDEFINED);
    let kept = if ours && code == ErrorCode::CallbackFailed && !theirs.is_undefined() { &theirs } else { thrown };
    threw(what, Error::new(code, detail).caused_by(cause(kept)))
}

/// `e`, said as thrown by `what` (`"observers.recordToolCall threw: ..."`):
/// how a callback's failure reads, whether it came from JS or, for this
/// package's own objects called directly, from Rust.
pub fn threw(what: &str, mut e: Error) -> Error {
    e.message = format!("{what} threw: {}", e.message);
    e
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
