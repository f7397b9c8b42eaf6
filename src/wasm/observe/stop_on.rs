//! `stopOn` for the watched-loop adapters: read and counted by the core.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::core::observe::stop_on::StopOn as Rule;
use crate::core::observe::Severity;
use crate::wasm::error::{IntoJs, JsResult};

#[wasm_bindgen(js_name = __StopOn, skip_typescript)]
pub struct StopOn(Rule);

#[wasm_bindgen(js_class = __StopOn)]
impl StopOn {
    /// `undefined` when the option is not given; `place` names the adapter's options.
    pub fn read(option: JsValue, place: &str) -> JsResult<Option<StopOn>> {
        if option.is_undefined() {
            return Ok(None);
        }
        let v: Value = crate::wasm::options_from_js(&option, &format!("{place}.stopOn")).js()?;
        Ok(Rule::read(Some(&v), place).js()?.map(StopOn))
    }

    /// Counts an assessment of `severity`; true once the loop should stop.
    pub fn hit(&mut self, severity: &str) -> bool {
        Severity::parse(severity).is_some_and(|s| self.0.hit(s))
    }

    #[wasm_bindgen(getter)]
    pub fn severity(&self) -> String {
        self.0.severity.as_str().to_owned()
    }

    #[wasm_bindgen(getter)]
    pub fn times(&self) -> f64 {
        self.0.times as f64
    }
}
