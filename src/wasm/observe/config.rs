//! Reading `ObserverPipeline` options from JS: observers (built-in names or
//! JS objects), triggers, budget, clock, recorder, onError.

use js_sys::Function;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::observe::options::{self, ObserverKind};
use crate::core::observe::{Budget, Builtin, Observer, Slot, Trigger};
use crate::core::Error;
use crate::wasm::error::describe;
use crate::wasm::host::JsClock;
use crate::wasm::{arg, check_options, option, optional_function, options_from_js, property};

/// A JS observer: `{ name, shouldRun?(ctx), observe(ctx) }`.
#[derive(Clone)]
pub struct JsObserver {
    pub object: JsValue,
    pub name: String,
    pub should_run: Option<Function>,
    pub observe: Function,
}

pub struct Options {
    pub slots: Vec<Slot>,
    /// Per slot: the JS observer, for custom slots.
    pub js: Vec<Option<JsObserver>>,
    pub clock: JsClock,
    pub budget: Budget,
    pub max_age_calls: u64,
    pub recorder: Option<(JsValue, Function)>,
    pub on_error: Option<Function>,
}

fn observer(entry: &JsValue, i: usize) -> Result<(Slot, Option<JsObserver>), Error> {
    let at = format!("observers[{i}]");
    let which = option(entry, "observer", &at)?;
    let not_object = (!entry.is_object()).then(|| describe(entry));
    let kind = options::entry(&at, not_object.as_deref(), &arg(&which), &arg(&property(entry, "observe")))?;
    check_options(entry, &options::ENTRY_OPTIONS, &at)?;
    let (name, builtin, js) = match kind {
        ObserverKind::Builtin(kind) => {
            let who = format!("{at} ({kind})");
            let opts: Option<Value> = match option(entry, "options", &at)? {
                v if v.is_undefined() => None,
                v => Some(options_from_js(&v, &format!("{who}: options"))?),
            };
            let b = Builtin::from_config(&kind, opts.as_ref(), &who)?;
            (b.name().to_owned(), Some(b), None)
        }
        ObserverKind::Custom => {
            let (observe, should_run) = (property(&which, "observe"), property(&which, "shouldRun"));
            let (name, has_should_run) = options::custom(&at, &arg(&property(&which, "name")), &arg(&observe), &arg(&should_run))?;
            let should_run = has_should_run.then(|| should_run.unchecked_into());
            let js = JsObserver { object: which.clone(), name: name.clone(), should_run, observe: observe.unchecked_into() };
            (name, None, Some(js))
        }
    };
    let who = format!("{at} ({name})");
    let trigger_js = option(entry, "trigger", &at)?;
    options::trigger_given(&who, &arg(&trigger_js))?;
    let trigger: Value = options_from_js(&trigger_js, &format!("{who}: trigger"))?;
    let trigger = Trigger::from_value(&trigger, &who)?;
    let observer = match builtin {
        Some(b) => Observer::Builtin(b),
        None => Observer::External { name },
    };
    Ok((Slot { trigger, observer }, js))
}

/// Reads the observers and host callbacks; errors name the entry at fault.
pub fn read(opts: &JsValue) -> Result<Options, Error> {
    if !opts.is_object() {
        // Worded from "ObserverPipeline options", which an entry taking
        // observers as its own option replaces by that option's place.
        return Err(Error::invalid_argument(format!("ObserverPipeline options must be an object {{ observers: [...] }}, got {}", describe(opts))));
    }
    const PLACE: &str = "ObserverPipeline options";
    check_options(opts, &options::PIPELINE_OPTIONS, PLACE)?;
    let opt = |key: &'static str| option(opts, key, PLACE);
    let list = opt("observers")?;
    if !crate::wasm::is_array(&list) {
        return Err(Error::invalid_argument(format!("ObserverPipeline options.observers must be an array, got {}", describe(&list))));
    }
    let (mut slots, mut js) = (Vec::new(), Vec::new());
    for (i, entry) in crate::wasm::items(&list, "observers")?.into_iter().enumerate() {
        let (slot, j) = observer(&entry, i)?;
        slots.push(slot);
        js.push(j);
    }
    let budget = match opt("budget")? {
        v if v.is_undefined() || v.is_null() => Budget::default(),
        v => crate::wasm::read_options(&v, "budget")?,
    };
    let max_age_calls = options::max_age_calls(&arg(&opt("maxAgeCalls")?))?;
    let recorder = match opt("recorder")? {
        v if v.is_undefined() || v.is_null() => None,
        // A sink takes whole records, not payloads: every assessment would fail in it.
        v if crate::wasm::capture::is_sink(&v) => {
            return Err(Error::invalid_argument("recorder must be a TrajectoryRecorder, got a sink (wrap it: new TrajectoryRecorder(sink))"))
        }
        v => {
            let f = optional_function(property(&v, "record"), "recorder.record")?
                .ok_or_else(|| Error::invalid_argument("recorder must be a TrajectoryRecorder (an object with record(payload))"))?;
            Some((v, f))
        }
    };
    Ok(Options {
        slots,
        js,
        clock: JsClock::from_option(opt("clock")?)?,
        budget,
        max_age_calls,
        recorder,
        on_error: optional_function(opt("onError")?, "onError")?,
    })
}
