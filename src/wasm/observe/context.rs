//! `ObserverContext`: what a JS observer reads. It borrows the pipeline only
//! for the length of each call, so an observer never sees a half-done state
//! and never blocks the pipeline.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::core::observe::call::SharedPipeline;
use crate::core::observe::Pipeline;
use crate::core::Error;
use crate::wasm::error::{to_js, IntoJs, JsResult};
use crate::wasm::to_js as value_to_js;

/// Handed to custom observers' `shouldRun(ctx)` and `observe(ctx)`.
#[wasm_bindgen]
pub struct ObserverContext {
    pipeline: Rc<SharedPipeline>,
}

impl ObserverContext {
    pub(crate) fn new(pipeline: Rc<SharedPipeline>) -> Self {
        ObserverContext { pipeline }
    }

    fn read<T>(&self, f: impl FnOnce(&Pipeline) -> T) -> JsResult<T> {
        self.pipeline.read(f).js()
    }
}

fn count(n: &JsValue, what: &str) -> JsResult<usize> {
    let n = crate::core::number::safe_count(crate::wasm::number_arg(n, what).js()?, what).js()?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

#[wasm_bindgen]
impl ObserverContext {
    /// The `n` most recent tool calls, oldest first.
    #[wasm_bindgen(js_name = recentToolCalls, unchecked_return_type = "ToolCallRecord[]")]
    pub fn recent_tool_calls(&self, #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue) -> JsResult<JsValue> {
        let n = count(&n, "recentToolCalls(n): n")?;
        self.read(|p| value_to_js(p.log().recent(n)))?
    }

    /// Tool calls at or after `sinceMs` (milliseconds since the epoch).
    #[wasm_bindgen(js_name = toolCallsSince, unchecked_return_type = "ToolCallRecord[]")]
    pub fn tool_calls_since(&self, #[wasm_bindgen(js_name = sinceMs, unchecked_param_type = "number")] since_ms: JsValue) -> JsResult<JsValue> {
        let since = crate::wasm::number_arg(&since_ms, "toolCallsSince(sinceMs): sinceMs").js()?;
        if since.is_nan() {
            return Err(to_js(Error::invalid_argument("toolCallsSince(sinceMs): sinceMs must be milliseconds since the epoch, got NaN")));
        }
        self.read(|p| value_to_js(p.log().since(since)))?
    }

    /// Failed share (0..1) of the last `window` calls.
    #[wasm_bindgen(js_name = errorRate)]
    pub fn error_rate(&self, #[wasm_bindgen(unchecked_param_type = "number")] window: JsValue) -> JsResult<f64> {
        let w = count(&window, "errorRate(window): window")?;
        self.read(|p| p.log().error_rate(w))
    }

    #[wasm_bindgen(getter, unchecked_return_type = "Budget")]
    pub fn budget(&self) -> JsResult<JsValue> {
        self.read(|p| value_to_js(p.budget()))?
    }

    #[wasm_bindgen(getter, unchecked_return_type = "ObserverState")]
    pub fn state(&self) -> JsResult<JsValue> {
        self.read(|p| value_to_js(p.state()))?
    }

    /// The index of the call just recorded (from 1).
    #[wasm_bindgen(getter, js_name = callIndex)]
    pub fn call_index(&self) -> JsResult<f64> {
        self.read(|p| p.log().len() as f64)
    }
}
