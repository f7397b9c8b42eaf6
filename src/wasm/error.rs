//! Core errors become real JS `Error`s with a stable `name` and `code`
//! (and `line` where the input was line-oriented).

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};

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
    err.into()
}

/// A value a JS callback threw or rejected with, as a core error that
/// names the callback. An `Error`'s own message is kept verbatim, and so is
/// the code of one of this library's errors passing through (a replayed
/// model's `REPLAY_MISS`, say).
pub fn from_callback(what: &str, thrown: &JsValue) -> Error {
    let detail = match thrown.dyn_ref::<js_sys::Error>() {
        Some(e) => String::from(e.message()),
        None => thrown.as_string().unwrap_or_else(|| format!("{thrown:?}")),
    };
    let ours = thrown.dyn_ref::<js_sys::Error>().filter(|e| String::from(e.name()) == ERROR_NAME);
    let code = ours
        .and_then(|e| Reflect::get(e, &"code".into()).ok())
        .and_then(|c| c.as_string())
        .and_then(|c| ErrorCode::parse(&c))
        .unwrap_or(ErrorCode::CallbackFailed);
    Error::new(code, format!("{what} threw: {detail}"))
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
