//! The user model, the judge's and the objective loop's, as the core
//! calls them: a JS function given the request and `{ abortSignal }`.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::host::{call, conv, set, CallSignals};
use crate::core::host::{LocalBoxFuture, Model, ModelRequest, ModelResponse, ToolSpec};
use crate::core::{Error, ErrorCode};
use crate::wasm::{from_js, property, to_js, usage_from_js};

/// `model(request, { abortSignal }) → Promise<string | { text?, toolCalls?, usage? }>`,
/// named in errors as the caller's option is (`userModel`, `model`).
pub struct JsModel {
    pub f: Function,
    pub what: &'static str,
    pub signals: CallSignals,
    /// The tools of the last request and their JS array: a run offers the
    /// same tools (one `Rc`) in every request, and they cross once. Made
    /// anew, they were most of what a background iteration's request cost
    /// to make in JS (many small schema objects).
    tools: RefCell<Option<(Rc<[ToolSpec]>, JsValue)>>,
}

impl JsModel {
    pub fn new(f: Function, what: &'static str, signals: CallSignals) -> JsModel {
        JsModel { f, what, signals, tools: RefCell::default() }
    }

    /// `request` for JS: its tools the array the last request had, when they are the same tools.
    fn request_to_js(&self, mut request: ModelRequest) -> Result<JsValue, Error> {
        let Some(tools) = request.tools.take() else { return to_js(&request).map_err(conv) };
        // An empty list where the tools go, so that `tools` keeps its place among the keys.
        request.tools = Some(Rc::from([]));
        let req = to_js(&request).map_err(conv)?;
        let mut cached = self.tools.borrow_mut();
        let shown = match &*cached {
            Some((same, js)) if Rc::ptr_eq(same, &tools) => js.clone(),
            _ => {
                let js = to_js(&*tools).map_err(conv)?;
                *cached = Some((tools, js.clone()));
                js
            }
        };
        set(req.unchecked_ref(), "tools", &shown);
        Ok(req)
    }
}

impl Model for JsModel {
    fn complete(&self, request: ModelRequest) -> LocalBoxFuture<'_, Result<ModelResponse, Error>> {
        Box::pin(async move {
            // The purpose as the request spells it (its JSON, unquoted).
            let what = format!("{} ({})", self.what, crate::core::write::json(&request.purpose).trim_matches('"'));
            let req = self.request_to_js(request)?;
            let signal = self.signals.make();
            let v = call(&self.f, &JsValue::UNDEFINED, &[&req, &signal.options()], &what).await;
            signal.disarm();
            let v = v?;
            if v.is_undefined() {
                return Err(Error::new(
                    ErrorCode::CallbackFailed,
                    format!("{what} returned undefined; expected a string or {{ text?, toolCalls?, usage? }}"),
                ));
            }
            let value: serde_json::Value = if v.is_string() {
                serde_json::Value::String(v.as_string().unwrap_or_default())
            } else {
                let mut value: serde_json::Value = from_js(&v, &what, ErrorCode::CallbackFailed)?;
                let usage = property(&v, "usage");
                if let (Some(obj), false) = (value.as_object_mut(), usage.is_undefined()) {
                    obj.insert("usage".into(), usage_from_js(&usage, &what)?);
                }
                value
            };
            ModelResponse::from_value(value).map_err(|e| e.within(&what))
        })
    }
}
