//! The background loop for JS: translates the runner's host object (model,
//! caller tools, deliverable, harness options) into the core's traits and
//! the result back. The class `BackgroundAgentRunner` (schemas, validation,
//! busy state) is in `src/js/background.js`.

use std::rc::Rc;

use js_sys::{Array, Function, Object};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::core::background::config::{misplaced_runner_option, RUNNER_OPTIONS};
use crate::core::background::{run, Config, Env, Host, Objective, RunSnapshot};
use crate::core::host::{LocalBoxFuture, ToolSpec};
use crate::core::{Error, ErrorCode};
use crate::wasm::error::{attach_cause, cause, to_js, IntoJs, JsResult};
use crate::wasm::generate::host::{call, set, CallSignals, Mirror};
use crate::wasm::generate::model::JsModel;
use crate::wasm::generate::signal::JsTimer;
use crate::wasm::generate::{harness, Harness};
use crate::wasm::{check_options, from_js, option, options_json, property, to_js as value_to_js};

fn config_of(config: &JsValue) -> Result<Config, Error> {
    if config.is_undefined() || config.is_null() {
        return Ok(Config::default());
    }
    let text = options_json(config, "config")?;
    Config::from_value(&serde_json::from_str(&text).map_err(|e| crate::wasm::not_read(&e, "config", ErrorCode::InvalidArgument))?)
}

/// Checks the constructor's option keys and the config, so mistakes throw
/// at `new BackgroundAgentRunner(...)`, not at the first run.
#[wasm_bindgen(js_name = __checkBackground, skip_typescript)]
pub fn check_background(opts: JsValue, config: JsValue, tools: Vec<String>) -> JsResult<()> {
    // (Keys that cannot be read are check_options' to report.)
    if let Some(keys) = opts.is_object().then(|| js_sys::Reflect::own_keys(&opts).ok()).flatten() {
        let keys: Vec<String> = keys.iter().filter_map(|k| k.as_string()).collect();
        if let Some(e) = misplaced_runner_option(keys.iter().map(String::as_str)) {
            return Err(to_js(e));
        }
    }
    const PLACE: &str = "BackgroundAgentRunner options";
    check_options(&opts, RUNNER_OPTIONS, PLACE).js()?;
    // What run() reads of these, read as it reads them, when the runner is made.
    crate::core::capture::SinkPolicy::read(&crate::wasm::arg(&option(&opts, "onSinkError", PLACE).js()?)).js()?;
    crate::wasm::arg(&option(&opts, "runId", PLACE).js()?).run_id(&format!("{PLACE}.runId")).js()?;
    for name in &tools {
        crate::core::background::tools::check_tool_name(name).js()?;
    }
    config_of(&config).js().map(drop)
}

/// The caller's tools and deliverable, through the JS layer's functions.
struct JsHost {
    call_tool: Function,
    deliver: Function,
    has_factory: bool,
    signals: CallSignals,
}

fn js_of<T: serde::Serialize + ?Sized>(v: &T) -> Result<JsValue, Error> {
    value_to_js(v).map_err(|_| Error::new(ErrorCode::Internal, "could not convert a value for JS"))
}

/// What the JS layer's `callTool` / `deliver` settled with: `{ ok }`, or
/// `{ error }` (always one of this package's coded errors, the caller's own
/// thrown value as its `cause`), so its message reaches the run as written.
fn settled(v: &JsValue, what: &str) -> Result<Value, Error> {
    let error = property(v, "error");
    if error.is_undefined() {
        return value_of(&property(v, "ok"), what);
    }
    let text = |k: &'static str| property(&error, k).as_string().unwrap_or_default();
    let code = ErrorCode::parse(&text("code")).unwrap_or(ErrorCode::CallbackFailed);
    Err(Error::new(code, text("message")).caused_by(cause(&property(&error, "cause"))))
}

fn value_of(v: &JsValue, what: &str) -> Result<Value, Error> {
    if v.is_undefined() {
        return Ok(Value::Null);
    }
    from_js(v, what, ErrorCode::CallbackFailed)
}

impl Host for JsHost {
    fn call_tool<'a>(&'a self, name: &'a str, input: &'a Value, tool_call_id: &'a str) -> LocalBoxFuture<'a, Result<Value, Error>> {
        Box::pin(async move {
            let what = format!("tool {name}");
            let signal = self.signals.make();
            let options = signal.options();
            set(options.unchecked_ref(), "toolCallId", &tool_call_id.into());
            let input = js_of(input)?;
            let out = call(&self.call_tool, &JsValue::UNDEFINED, &[&name.into(), &input, &options], &what).await;
            signal.disarm();
            settled(&out?, &format!("{what}'s result"))
        })
    }

    fn has_factory(&self) -> bool {
        self.has_factory
    }

    fn deliver<'a>(
        &'a self,
        snapshot: &'a RunSnapshot,
        status: &'a str,
        proposed: Option<Value>,
    ) -> LocalBoxFuture<'a, Result<Option<Value>, Error>> {
        Box::pin(async move {
            let args = Object::new();
            set(&args, "snapshot", &js_of(snapshot)?);
            set(&args, "status", &status.into());
            set(&args, "proposed", &js_of(&proposed)?);
            let out = call(&self.deliver, &JsValue::UNDEFINED, &[&args.into()], "deliverableFactory").await?;
            Ok(Some(settled(&out, "the deliverable")?).filter(|v| !v.is_null()))
        })
    }
}

/// Runs one objective. `host` is what the JS layer built from the
/// runner's options: `{ model, callTool, deliver, hasFactory, tools, ...harness }`.
#[wasm_bindgen(js_name = __runBackground, skip_typescript)]
pub async fn run_background(host: JsValue, objective: JsValue, schema: JsValue, config: JsValue, resume: JsValue) -> JsResult<JsValue> {
    let place = "BackgroundAgentRunner options";
    let get = |key: &'static str| option(&host, key, place).js();
    let model = get("model")?
        .dyn_into::<Function>()
        .map_err(|_| to_js(Error::invalid_argument(format!("{place}.model must be a Model function or an AI SDK language model"))))?;
    let signals = CallSignals::of(&host);
    let model = JsModel::new(model, "model", signals.clone());
    let function = |key: &'static str| {
        property(&host, key).dyn_into::<Function>().map_err(|_| to_js(Error::new(ErrorCode::Internal, format!("runner host without {key}"))))
    };
    let js_host =
        JsHost { call_tool: function("callTool")?, deliver: function("deliver")?, has_factory: property(&host, "hasFactory").is_truthy(), signals };
    // The JS layer made these specs; read by hand (a derived reader costs module size).
    let specs: Value = from_js(&property(&host, "tools"), "tools", ErrorCode::InvalidArgument).js()?;
    let tools: Vec<ToolSpec> = specs
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|t| {
            let text = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            ToolSpec { name: text("name"), description: text("description"), input_schema: t.get("inputSchema").cloned().unwrap_or(Value::Null) }
        })
        .collect();
    let cfg = config_of(&config).js()?;
    let schema: Option<Value> =
        if schema.is_undefined() { None } else { Some(from_js(&schema, "objective.deliverableSchema", ErrorCode::InvalidArgument).js()?) };
    let objective_json = if objective.is_string() {
        Value::String(objective.as_string().unwrap_or_default())
    } else {
        let text = options_json(&objective, "objective").js()?;
        serde_json::from_str(&text).map_err(|e| to_js(crate::wasm::not_read(&e, "objective", ErrorCode::InvalidArgument)))?
    };
    let objective = Objective::from_value(&objective_json, schema).js()?;
    let resume: Option<Value> =
        if resume.is_undefined() || resume.is_null() { None } else { Some(from_js(&resume, "resumeFrom", ErrorCode::InvalidArgument).js()?) };
    let Harness { clock, observers, abort, events, run_id } = harness(&host, place, Rc::new(Mirror::new(Array::new(), Vec::new())))?;
    let timer = JsTimer::of(&host);
    let env = Env {
        clock: &clock,
        model: &model,
        host: &js_host,
        tools,
        timer: Some(&timer),
        abort: abort.as_ref().map(|a| a as _),
        observers: observers.as_deref(),
        events: &events,
        run_id,
        // The JS layer counts its runner's runs (a whole number from 1).
        run_number: property(&host, "runNumber").as_f64().filter(|n| n.is_finite() && *n >= 1.0).map_or(1, |n| n as u64),
    };
    let result = run(&objective, &cfg, &env, resume.as_ref()).await.js()?;
    let out = value_to_js(&result)?;
    // What the callback threw, as `error.cause` (as a generated run's end has it).
    attach_cause(&property(&out, "error"), result.error.as_ref().and_then(|e| e.cause.as_ref()));
    // Records the sink refused under onSinkError 'drop', counted as a generated run's result counts them.
    let dropped = events.recorder.as_ref().map_or(0.0, crate::wasm::capture::TrajectoryRecorder::dropped);
    crate::wasm::generate::host::set(out.unchecked_ref(), "droppedRecords", &dropped.into());
    Ok(out)
}
