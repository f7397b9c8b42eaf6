//! `ObserverPipeline` for JS. A call runs in three phases (record and find
//! triggered observers; run them; store the result) and no borrow of the
//! pipeline is held while a JS observer, the clock or the recorder runs.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::config::{read, JsObserver};
use super::context::ObserverContext;
use crate::core::capture::Payload;
use crate::core::host::{ShownAssessment, ToolObservers};
use crate::core::message::normalize_messages;
use crate::core::number::quoted;
use crate::core::observe::call::{call_of, RecordAssessment, SharedPipeline, CALL_KEYS};
use crate::core::observe::{Assessment, CurrentAssessment, Outcome, Pipeline, PipelineSnapshot, Placement, ToolCallInput, INJECT_OPTIONS};
use crate::core::value::Arg;
use crate::core::{Error, ErrorCode};
use crate::wasm::error::{from_callback, threw, to_js, IntoJs, JsResult};
use crate::wasm::host::JsClock;
use crate::wasm::types::{InjectOptions, ObserverPipelineOptions};
use crate::wasm::{arg, check_options, from_js, json_of, number_arg, option, options_json, to_js as value_to_js};

/// Runs observers after each tool call and keeps the latest assessment for
/// the next prompt. See the README's "Observe" section.
#[wasm_bindgen]
pub struct ObserverPipeline {
    parts: Rc<Parts>,
    handle: u32,
}

/// A pipeline and its host's parts. A run given this package's own
/// pipeline calls these directly, without going through JS and back.
pub(crate) struct Parts {
    inner: Rc<SharedPipeline>,
    js: Vec<Option<JsObserver>>,
    clock: JsClock,
    recorder: Option<(JsValue, Function)>,
    on_error: Option<Function>,
}

/// Live pipelines by handle: how a run finds the Rust pipeline behind the
/// JS object it was given (a forged handle finds nothing). A run looks its
/// pipeline up once and a pipeline leaves once: a list is enough (and
/// smaller than a map). `last` is the last handle given.
struct Registry {
    last: u32,
    live: Vec<(u32, Rc<Parts>)>,
}

thread_local! {
    static PIPELINES: RefCell<Registry> = const { RefCell::new(Registry { last: 0, live: Vec::new() }) };
}

/// The package's own pipeline behind a JS value, if it is one.
pub(crate) fn own_pipeline(value: &JsValue) -> Option<OwnPipeline> {
    let handle = js_sys::Reflect::get(value, &"__pipelineHandle".into()).ok()?.as_f64()? as u32;
    PIPELINES.with(|r| r.borrow().live.iter().find(|(h, _)| *h == handle).map(|(_, p)| OwnPipeline(p.clone())))
}

/// This package's pipeline, as a run given it uses it.
pub(crate) struct OwnPipeline(Rc<Parts>);

impl Drop for ObserverPipeline {
    fn drop(&mut self) {
        let handle = self.handle;
        PIPELINES.with(|r| r.borrow_mut().live.retain(|(h, _)| *h != handle));
    }
}

/// The checked way in: the entries' fast path sends plain calls to
/// `__recordToolCallFields`; everything else lands here, read key by key
/// (unknown keys refused, a throwing getter named), then judged by the same
/// rules.
fn read_call(value: &JsValue) -> Result<ToolCallInput, Error> {
    const PLACE: &str = "recordToolCall";
    if !value.is_object() || crate::wasm::is_array(value) {
        return Err(Error::invalid_argument(format!(
            "recordToolCall needs {{ toolName, success, params?, paramsSummary?, errorMessage? }}, got {}",
            crate::wasm::error::describe(value)
        )));
    }
    check_options(value, &CALL_KEYS, PLACE)?;
    let field = |key: &'static str| option(value, key, PLACE);
    let tool_name = field("toolName")?;
    let params = field("params")?;
    let params_json = if params.is_undefined() {
        None
    } else {
        let who = tool_name.as_string().unwrap_or_default();
        Some(json_of(&params, &format!("recordToolCall ({who}): params"))?)
    };
    call_of(arg(&tool_name), params_json, arg(&field("paramsSummary")?), arg(&field("success")?), arg(&field("errorMessage")?))
}

impl ObserverPipeline {
    fn from_parts(pipeline: Pipeline, opts: super::config::Options) -> ObserverPipeline {
        let parts = Rc::new(Parts {
            inner: Rc::new(SharedPipeline::new(pipeline)),
            js: opts.js,
            clock: opts.clock,
            recorder: opts.recorder,
            on_error: opts.on_error,
        });
        let handle = PIPELINES.with(|r| {
            let mut r = r.borrow_mut();
            r.last = r.last.wrapping_add(1);
            let handle = r.last;
            r.live.push((handle, parts.clone()));
            handle
        });
        ObserverPipeline { parts, handle }
    }
}

impl Parts {
    /// Runs a JS observer. Whatever it throws or returns that is not an
    /// assessment is isolated: reported to `onError`, or turned into an
    /// `error` observation of its own assessment.
    fn run_js(&self, obs: &JsObserver) -> Outcome {
        let ctx: JsValue = ObserverContext::new(self.inner.clone()).into();
        let attempt = || -> Result<Option<Assessment>, Error> {
            if let Some(should) = &obs.should_run {
                let go = should.call1(&obs.object, &ctx).map_err(|e| from_callback(&format!("observer {} shouldRun", quoted(&obs.name)), &e))?;
                if crate::wasm::is_thenable(&go) {
                    crate::wasm::settle_quietly(&go);
                    return Err(Error::new(
                        ErrorCode::CallbackFailed,
                        format!("observer {} shouldRun returned a Promise; it must answer true or false at once", quoted(&obs.name)),
                    ));
                }
                if !go.is_truthy() {
                    return Ok(None);
                }
            }
            let out = obs.observe.call1(&obs.object, &ctx).map_err(|e| from_callback(&format!("observer {} observe", quoted(&obs.name)), &e))?;
            if out.is_undefined() || out.is_null() {
                return Ok(None);
            }
            if crate::wasm::is_thenable(&out) {
                // Reported here; its own rejection must not surface later as an unhandled one.
                crate::wasm::settle_quietly(&out);
                return Err(Error::new(
                    ErrorCode::CallbackFailed,
                    format!(
                        "observer {} observe returned a Promise; observers run synchronously, inside recordToolCall: return the assessment itself",
                        quoted(&obs.name)
                    ),
                ));
            }
            let mut v: Value = from_js(&out, &format!("observer {} observe", quoted(&obs.name)), ErrorCode::CallbackFailed)?;
            if let Some(o) = v.as_object_mut() {
                o.entry("observerName").or_insert_with(|| Value::String(obs.name.clone()));
            }
            // What the caller's observer wrote: a key an assessment does not have is refused, not dropped.
            crate::core::read::read_written(v, "").map(Some).map_err(|e| {
                Error::new(ErrorCode::CallbackFailed, format!("observer {} returned something that is not an assessment: {e}", quoted(&obs.name)))
            })
        };
        match attempt() {
            Ok(Some(a)) => Outcome::Report(a),
            Ok(None) => Outcome::Quiet,
            Err(e) => {
                let message = e.message.clone();
                // onError throwing in turn is the host's own failure: it
                // does not get to hide the observer's.
                let reported = self.on_error.as_ref().is_some_and(|f| {
                    let line: JsValue = format!("[{}] {}", e.code.as_str(), e.message).into();
                    let err = to_js(e);
                    match f.call2(&JsValue::UNDEFINED, &err, &obs.name.clone().into()) {
                        Ok(answer) => {
                            // Handed over; a later rejection is said on the console, as a line (not the error object and its stack).
                            let said = format!("agent-trajectories: onError rejected, told that observer {} failed:", quoted(&obs.name));
                            crate::wasm::warn_if_rejected(&answer, said, line);
                            true
                        }
                        Err(_) => false,
                    }
                });
                Outcome::failed(&obs.name, message, reported)
            }
        }
    }

    /// One validated call through the core's phases; the recorder hears
    /// of every assessment produced.
    fn record_input(&self, input: ToolCallInput) -> Result<Option<CurrentAssessment>, Error> {
        let now = self.clock.try_now()?;
        let mut record = |current: &CurrentAssessment| -> Result<(), Error> {
            let Some((recorder, record)) = &self.recorder else { return Ok(()) };
            for a in &current.assessments {
                let payload = Payload::AssessmentProduced { call_index: current.call_index, assessment: a.clone(), turn_index: None };
                value_to_js(&payload).and_then(|p| record.call1(recorder, &p)).map_err(|e| from_callback("recordToolCall: the recorder", &e))?;
            }
            Ok(())
        };
        let record: Option<RecordAssessment> = self.recorder.as_ref().map(|_| &mut record as _);
        let run = |slot: usize| self.js[slot].as_ref().map_or(Outcome::Quiet, |obs| self.run_js(obs));
        self.inner.record_call(input, now, run, record)
    }

    /// `record_input` for JS: the assessment a check produced, or undefined.
    fn record_for_js(&self, input: ToolCallInput) -> JsResult<JsValue> {
        match self.record_input(input).js()? {
            Some(current) => value_to_js(&current),
            None => Ok(JsValue::UNDEFINED),
        }
    }
}

/// A run given this pipeline: the same calls its JS methods make, without
/// the JS object in between. Errors read as the JS methods' would.
impl ToolObservers for OwnPipeline {
    fn tool_call(&self, call: ToolCallInput) -> Result<(), Error> {
        self.0.record_input(call).map(drop).map_err(|e| threw("observers.recordToolCall", e))
    }

    fn current(&self) -> Result<Option<ShownAssessment>, Error> {
        let shown = self.0.inner.read(|p| ShownAssessment::of(p.context(), || Ok(p.current().cloned())));
        shown.and_then(|s| s).map_err(|e| threw("observers.context", e))
    }

    fn record_tokens(&self, n: u64) -> Result<(), Error> {
        self.0.inner.with(|p| p.record_tokens(n)).and_then(|r| r).map_err(|e| threw("observers.recordTokens", e))
    }
}

#[wasm_bindgen]
impl ObserverPipeline {
    #[wasm_bindgen(constructor)]
    pub fn new(opts: ObserverPipelineOptions) -> JsResult<ObserverPipeline> {
        let opts = read(opts.as_ref()).js()?;
        let started = opts.clock.try_now().js()?;
        let pipeline = Pipeline::new(opts.slots.clone(), opts.budget.clone(), opts.max_age_calls, started).js()?;
        Ok(ObserverPipeline::from_parts(pipeline, opts))
    }

    /// Rebuilds a pipeline from `snapshot()` (the object, or its JSON text
    /// as stored), with the same observers in `opts` (their options and JS
    /// functions cannot live in a snapshot).
    pub fn restore(
        #[wasm_bindgen(unchecked_param_type = "PipelineSnapshot | string")] snapshot: JsValue,
        opts: ObserverPipelineOptions,
    ) -> JsResult<ObserverPipeline> {
        // The snapshot, or its JSON text as it was stored; a NaN put in it
        // is said as NaN, not as the null JSON would make it.
        let text = match snapshot.as_string() {
            Some(text) => text,
            None => options_json(&snapshot, "snapshot").js()?,
        };
        let snapshot = PipelineSnapshot::from_json(&text).js()?;
        let opts = read(opts.as_ref()).js()?;
        let pipeline = Pipeline::restore(snapshot, opts.slots.clone()).js()?;
        Ok(ObserverPipeline::from_parts(pipeline, opts))
    }

    /// Records one tool call, runs the observers whose triggers fire, and
    /// returns the new current assessment if any observer produced one.
    /// A rejected call (coded error) leaves the pipeline unchanged.
    #[wasm_bindgen(js_name = recordToolCall, unchecked_return_type = "CurrentAssessment | undefined")]
    pub fn record_tool_call(&self, #[wasm_bindgen(unchecked_param_type = "ToolCallInput")] call: JsValue) -> JsResult<JsValue> {
        let input = read_call(&call).js()?;
        self.parts.record_for_js(input)
    }

    /// `recordToolCall` with the fields taken apart and the params already
    /// JSON text: the package's entries route plain calls here (values cross
    /// far cheaper than an object read key by key). Judged by `call_of`.
    #[wasm_bindgen(js_name = __recordToolCallFields, skip_typescript, unchecked_return_type = "CurrentAssessment | undefined")]
    pub fn record_tool_call_fields(
        &self,
        tool_name: JsValue,
        params_json: JsValue,
        params_summary: JsValue,
        success: JsValue,
        error_message: JsValue,
    ) -> JsResult<JsValue> {
        let params_json = crate::wasm::optional_string_arg(&params_json, "recordToolCall: params (as JSON)").js()?;
        let input = call_of(arg(&tool_name), params_json, arg(&params_summary), arg(&success), arg(&error_message)).js()?;
        self.parts.record_for_js(input)
    }

    /// `recordToolCall` with every field already of its type (the entries
    /// route a plain call here once they have seen each field's type; the
    /// strings then cross without Rust asking JS what each value is).
    /// Judged by `call_of`, like the others.
    #[wasm_bindgen(js_name = __recordToolCallTyped, skip_typescript, unchecked_return_type = "CurrentAssessment | undefined")]
    pub fn record_tool_call_typed(
        &self,
        tool_name: String,
        params_json: Option<String>,
        params_summary: Option<String>,
        success: bool,
        error_message: Option<String>,
    ) -> JsResult<JsValue> {
        let given = |s: Option<String>| s.map_or(Arg::Absent, Arg::Str);
        let input = call_of(Arg::Str(tool_name), params_json, given(params_summary), Arg::Bool(success), given(error_message)).js()?;
        self.parts.record_for_js(input)
    }

    /// Adds tokens used by an LLM call to the budget.
    #[wasm_bindgen(js_name = recordTokens)]
    pub fn record_tokens(&self, #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue) -> JsResult<()> {
        let n = crate::core::number::safe_count(number_arg(&n, "recordTokens(n): n").js()?, "recordTokens(n): n").js()?;
        self.parts.inner.with(|p| p.record_tokens(n)).js()?.js()
    }

    /// Replaces the budget.
    #[wasm_bindgen(js_name = setBudget)]
    pub fn set_budget(&self, #[wasm_bindgen(unchecked_param_type = "Budget")] budget: JsValue) -> JsResult<()> {
        let b = crate::wasm::read_options(&budget, "budget").js()?;
        self.parts.inner.with(|p| p.set_budget(b)).js()?.js()
    }

    /// The rendered current assessment, or '' when there is none or it is
    /// stale (more than `maxAgeCalls` calls old).
    pub fn context(&self) -> JsResult<String> {
        self.parts.inner.read(|p| p.context()).js()
    }

    /// `messages` (normalised) with the context added as a system message:
    /// after all of them by default, or with `{ position: 'after-system' }`
    /// right after the leading system messages. Unchanged when the context is ''.
    #[wasm_bindgen(js_name = injectInto, unchecked_return_type = "ModelMessage[]")]
    pub fn inject_into(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly ModelMessageInput[]")] messages: JsValue,
        opts: Option<InjectOptions>,
    ) -> JsResult<JsValue> {
        let value: Value = from_js(&messages, "messages", ErrorCode::InvalidMessage).js()?;
        let messages = normalize_messages(value).js()?;
        let opts: JsValue = opts.map(Into::into).unwrap_or(JsValue::UNDEFINED);
        check_options(&opts, &INJECT_OPTIONS, "injectInto options").js()?;
        let placement = Placement::read(&arg(&option(&opts, "position", "injectInto options").js()?)).js()?;
        value_to_js(&self.parts.inner.read(|p| p.inject_into(messages, placement)).js()?)
    }

    /// Every slice (log, state, current assessment, budget, detector state), JSON-safe.
    #[wasm_bindgen(unchecked_return_type = "PipelineSnapshot")]
    pub fn snapshot(&self) -> JsResult<JsValue> {
        value_to_js(&self.parts.inner.read(|p| p.snapshot()).js()?)
    }

    /// The current assessment, stale or not (see `context()` for the prompt).
    #[wasm_bindgen(unchecked_return_type = "CurrentAssessment | undefined")]
    pub fn current(&self) -> JsResult<JsValue> {
        match self.parts.inner.read(|p| p.current().cloned()).js()? {
            Some(c) => value_to_js(&c),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The `n` most recent tool calls, oldest first.
    #[wasm_bindgen(js_name = recentToolCalls, unchecked_return_type = "ToolCallRecord[]")]
    pub fn recent_tool_calls(&self, #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue) -> JsResult<JsValue> {
        ObserverContext::new(self.parts.inner.clone()).recent_tool_calls(n)
    }

    #[wasm_bindgen(getter, unchecked_return_type = "Budget")]
    pub fn budget(&self) -> JsResult<JsValue> {
        self.parts.inner.read(|p| value_to_js(p.budget())).js()?
    }

    #[wasm_bindgen(getter, unchecked_return_type = "ObserverState")]
    pub fn state(&self) -> JsResult<JsValue> {
        self.parts.inner.read(|p| value_to_js(p.state())).js()?
    }

    /// Finds this pipeline's Rust side for a run given it (`own_pipeline`).
    #[wasm_bindgen(getter = __pipelineHandle, skip_typescript)]
    pub fn pipeline_handle(&self) -> u32 {
        self.handle
    }

    /// Tool calls recorded so far.
    #[wasm_bindgen(getter, js_name = callCount)]
    pub fn call_count(&self) -> JsResult<f64> {
        self.parts.inner.read(|p| p.log().len() as f64).js()
    }
}
