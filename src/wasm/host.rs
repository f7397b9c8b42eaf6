//! The injected clock over a JS function (`Date.now` by default). The
//! other host callbacks of a run (models, agent, timer, signal) are in
//! `generate/host.rs`.

use js_sys::Function;
use wasm_bindgen::{JsCast, JsValue};

use super::error::from_callback;
use crate::core::host::Clock;
use crate::core::{Error, ErrorCode};

/// The injected clock; `Date.now` when the host gives none.
#[derive(Clone, Default)]
pub enum JsClock {
    #[default]
    DateNow,
    Callback(Function),
}

impl JsClock {
    pub fn from_option(value: JsValue) -> Result<JsClock, Error> {
        if value.is_undefined() || value.is_null() {
            return Ok(JsClock::DateNow);
        }
        value.dyn_into::<Function>().map(JsClock::Callback).map_err(|v| {
            Error::invalid_argument(format!("clock must be a function returning milliseconds since the epoch, got {}", super::error::describe(&v)))
        })
    }

    pub fn try_now(&self) -> Result<f64, Error> {
        match self {
            JsClock::DateNow => Ok(js_sys::Date::now()),
            JsClock::Callback(f) => {
                let v = f.call0(&JsValue::UNDEFINED).map_err(|e| from_callback("clock", &e))?;
                if crate::wasm::is_thenable(&v) {
                    // An async clock: refused below; its rejection, if any, is not left unhandled.
                    crate::wasm::settle_quietly(&v);
                }
                v.as_f64().ok_or_else(|| {
                    Error::new(
                        ErrorCode::CallbackFailed,
                        format!("clock returned {}; expected a number of milliseconds since the epoch", super::error::describe(&v)),
                    )
                })
            }
        }
    }
}

impl Clock for JsClock {
    /// NaN on failure, which every consumer of the time refuses with a coded error.
    fn now_ms(&self) -> f64 {
        self.try_now().unwrap_or(f64::NAN)
    }
    fn try_now_ms(&self) -> Result<f64, Error> {
        crate::core::value::check_clock(self.try_now()?)
    }
}
