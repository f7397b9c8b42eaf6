//! Generation for JS: `createTrajectory`, the run (wrapped by the entries'
//! `runTrajectory`, which adapts models and observers in `src/js`) and the
//! exporters. Model record/replay is JS only (`src/js/generate.js`).

pub(crate) mod batch;
pub(crate) mod host;
pub(crate) mod model;
pub(crate) mod replay;
pub(crate) mod signal;

use std::rc::Rc;

use js_sys::{Array, Function, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use self::host::{set, CallSignals, JsAgent, JsEvents, JsObservers, JsPolicy, JsPredicate, Mirror};
use self::model::JsModel;
use self::signal::{JsAbort, JsTimer};
use crate::core::generate::{run, DefaultPolicy, Env, Fork, Policy, Precondition, Trajectory};
use crate::core::host::ToolObservers;
use crate::core::number::quoted;
use crate::core::{Error, ErrorCode};
use crate::judge::export::{summarize as summary_of, to_conversation, to_jsonl};
use crate::judge::run_judge::Rubric;
use crate::wasm::capture::TrajectoryRecorder;
use crate::wasm::error::{attach_cause, cause, describe, to_js, IntoJs, JsResult};
use crate::wasm::host::JsClock;
use crate::wasm::observe::own_pipeline;
use crate::wasm::{
    from_js, is_array, items, option, optional_function, optional_string_arg, options_from_js, options_json, property, to_js as value_to_js,
};

/// A shallow copy of a definition without the `skip` keys, read key by
/// key: a getter that throws is named (with its cause) instead of escaping.
fn shallow_copy(def: &JsValue, skip: &[&str]) -> Result<Object, Error> {
    if !def.is_object() || crate::wasm::is_package_object(def) {
        return Err(Error::new(ErrorCode::InvalidTrajectory, format!("a trajectory definition must be an object, got {}", describe(def))));
    }
    let copy = Object::new();
    let keys = Reflect::own_keys(def)
        .map_err(|e| Error::new(ErrorCode::InvalidTrajectory, format!("trajectory: its keys could not be read: {}", describe(&e))))?;
    for name in keys.iter() {
        // Symbol keys are not a definition's.
        let Some(key) = name.as_string().filter(|k| !skip.contains(&k.as_str())) else { continue };
        let v = Reflect::get(def, &name).map_err(|e| {
            Error::new(ErrorCode::InvalidTrajectory, format!("trajectory.{key}: reading it threw: {}", describe(&e))).caused_by(cause(&e))
        })?;
        if key == "__proto__" {
            // An own key of that name (JSON.parse makes one) stays a key, refused as unknown; set, it would become the copy's prototype.
            // Object.defineProperty cannot fail here: `copy` is a fresh plain object.
            Object::define_property(&copy, &name, &crate::wasm::data_property(&v, true));
        } else {
            let _ = Reflect::set(&copy, &name, &v);
        }
    }
    Ok(copy)
}

/// The definition's data, without the agent and the user model: live
/// objects that have no JSON form (an AI SDK agent may hold cycles).
/// Functions (and symbols) are written as `"[function]"` (`"[symbol]"`),
/// not dropped, so the core sees every key it must check (a misspelt
/// `isSatisfide` is refused, not lost); the callbacks are attached afterwards.
fn definition_json(def: &JsValue) -> Result<Value, Error> {
    let copy = shallow_copy(def, &["agent", "userModel"])?;
    let text = options_json(&copy.into(), "trajectory").map_err(|e| Error { code: ErrorCode::InvalidTrajectory, ..e })?;
    serde_json::from_str(&text).map_err(|e| crate::wasm::not_read(&e, "trajectory", ErrorCode::InvalidTrajectory))
}

/// Reads and validates a definition, attaching its JS callbacks.
fn read_definition(def: &JsValue, mirror: &Rc<Mirror>) -> Result<Trajectory, Error> {
    let mut t = Trajectory::from_value(&definition_json(def)?)?;
    if let Some(g) = t.steps.as_mut() {
        let steps_js = property(&property(def, "steps"), "steps");
        for (i, step) in g.steps.iter_mut().enumerate() {
            let js = Reflect::get_u32(&steps_js, i as u32).unwrap_or(JsValue::UNDEFINED);
            let id = step.id.clone();
            let callback = |v: JsValue, what: String| {
                optional_function(v, &what)
                    .map_err(|e| Error::new(ErrorCode::InvalidTrajectory, e.message).at_step(&id))
                    .map(|f| f.map(|f| Rc::new(JsPredicate { f, what, mirror: mirror.clone() }) as Rc<dyn crate::core::generate::Predicate>))
            };
            step.is_satisfied = callback(property(&js, "isSatisfied"), format!("step {id}: isSatisfied", id = quoted(&id)))?;
            let pre_js = property(&js, "preconditions");
            for (j, p) in step.preconditions.iter_mut().enumerate() {
                let p_js = Reflect::get_u32(&pre_js, j as u32).unwrap_or(JsValue::UNDEFINED);
                if let Precondition::Custom { name, evaluate } = p {
                    let what = format!("step {id}: precondition {}", name.as_deref().unwrap_or("custom"), id = quoted(&id));
                    *evaluate = callback(property(&p_js, "evaluate"), what)?;
                }
            }
        }
    }
    t.validate()?;
    Ok(t)
}

fn agent_of(agent: &JsValue) -> Result<Function, Error> {
    property(agent, "respond").dyn_into::<Function>().map_err(|_| {
        Error::invalid_argument("agent must have respond(history) → Promise<{ messages }>; wrap one with withAISdkAgent or withMastraAgent")
    })
}

/// Validates a definition (coded `INVALID_TRAJECTORY` errors naming the
/// culprit) and returns it bound to the agent. Declared, with its
/// overloads, in src/js/generate-types.d.ts.
#[wasm_bindgen(js_name = createTrajectory, skip_typescript)]
pub fn create_trajectory(def: JsValue, agent: JsValue) -> JsResult<JsValue> {
    let mirror = Rc::new(Mirror::new(Array::new(), Vec::new()));
    read_definition(&def, &mirror).js()?;
    agent_of(&agent).js()?;
    let bound = shallow_copy(&def, &[]).js()?;
    set(&bound, "agent", &agent);
    Ok(bound.into())
}

/// The run itself; the entries' `runTrajectory` normalises its options
/// first. `host` is the JS layer's `{ macrotask, callSignal }`.
#[wasm_bindgen(js_name = __runTrajectory, skip_typescript)]
pub async fn run_trajectory(t: JsValue, opts: JsValue, host: JsValue) -> JsResult<JsValue> {
    crate::core::generate::env::check_run_options(&crate::wasm::option_keys(&opts, "runTrajectory options").js()?).js()?;
    let opt = |key: &'static str| option(&opts, key, "runTrajectory options").js();
    let agent_js = option(&t, "agent", "trajectory").js()?;
    if agent_js.is_undefined() {
        // A bare definition (or no trajectory at all): it is bound to its agent by createTrajectory.
        let what = if t.is_object() { "the trajectory has no agent".to_owned() } else { format!("got {} for the trajectory", describe(&t)) };
        return Err(to_js(Error::invalid_argument(format!(
            "runTrajectory(trajectory): {what}; bind a definition to its agent with createTrajectory(definition, agent)"
        ))));
    }
    let respond = agent_of(&agent_js).js()?;
    let user_model = opt("userModel")?.dyn_into::<Function>().map_err(|_| {
        to_js(Error::invalid_argument("runTrajectory needs opts.userModel or trajectory.userModel: (request) => Promise<string | { text }>"))
    })?;
    let steps_js = property(&property(&t, "steps"), "steps");
    let steps = if is_array(&steps_js) {
        items(&steps_js, "trajectory.steps.steps").map_err(|e| Error { code: ErrorCode::InvalidTrajectory, ..e }).js()?
    } else {
        Vec::new()
    };
    let mirror = Rc::new(Mirror::new(Array::new(), steps));
    let def = read_definition(&t, &mirror).js()?;
    let resume = opt("resumeFrom")?;
    let fork = if resume.is_undefined() || resume.is_null() {
        None
    } else {
        let data = options_from_js(&resume, "runTrajectory options.resumeFrom").js()?;
        Some(Fork::from_value(&data, &def).js()?)
    };
    let policy_js = opt("policy")?;
    let policy: Option<JsPolicy> = if policy_js.is_undefined() || policy_js.is_null() {
        None
    } else if let Some(f) = policy_js.dyn_ref::<Function>() {
        Some(JsPolicy { object: JsValue::UNDEFINED, f: f.clone(), mirror: mirror.clone() })
    } else {
        let f = property(&policy_js, "evaluate")
            .dyn_into::<Function>()
            .map_err(|_| to_js(Error::invalid_argument("policy must be a function or { evaluate(ctx) }")))?;
        Some(JsPolicy { object: policy_js.clone(), f, mirror: mirror.clone() })
    };
    let Harness { clock, observers, abort, events, run_id } = harness(&opts, "runTrajectory options", mirror.clone())?;
    let call_timeout = opt("callTimeoutMs")?;
    let call_timeout: Option<serde_json::Value> =
        if call_timeout.is_undefined() { None } else { Some(options_from_js(&call_timeout, "runTrajectory options.callTimeoutMs").js()?) };
    let call_timeout_ms = crate::core::host::CallTimeout::read(call_timeout.as_ref()).map_err(|e| e.within("runTrajectory options")).js()?;
    let signals = CallSignals::of(&host);
    let agent = JsAgent::new(agent_js, respond, signals.clone());
    let timer = JsTimer::of(&host);
    let judge_js = opt("judge")?;
    let judge = if judge_js.is_undefined() || judge_js.is_null() {
        None
    } else {
        let place = "runTrajectory options.judge";
        let settings =
            crate::judge::run_judge::JudgeSettings::read(&serde_json::from_str(&options_json(&judge_js, place).js()?).unwrap_or(Value::Null), place)
                .js()?;
        let f = property(&judge_js, "model")
            .dyn_into::<Function>()
            .map_err(|_| to_js(Error::invalid_argument(format!("{place}.model must be a Model function or an AI SDK language model"))))?;
        Some((JsModel::new(f, "judge.model", signals.clone()), settings))
    };
    let rubric =
        judge.as_ref().map(|(model, settings)| Rubric { model, settings: settings.clone(), timer: Some(&timer), deadline_ms: call_timeout_ms });
    let model = JsModel::new(user_model, "userModel", signals);
    let env = Env {
        clock: &clock,
        user_model: &model,
        agent: &agent,
        policy: policy.as_ref().map(|p| p as &dyn Policy).unwrap_or(&DefaultPolicy),
        timer: Some(&timer),
        abort: abort.as_ref().map(|a| a as _),
        observers: observers.as_deref(),
        events: &events,
        run_id,
        call_timeout_ms,
        judge: rubric.as_ref().map(|r| r as _),
    };
    let result = run(&def, &env, fork.as_ref()).await;
    let out = Object::new();
    set(&out, "conversationId", &result.conversation_id.as_str().into());
    let traces = mirror.traces();
    set(&out, "steps", traces);
    let end = value_to_js(&result.end)?;
    // The failing callback's own error, as `end.error.cause` (on the last
    // trace's end too): not enumerable, so exports and JSON leave it out.
    if let Some(thrown) = result.end.as_ref().and_then(|e| e.error.as_ref()).and_then(|e| e.cause.as_ref()) {
        let last = traces.get(traces.length().wrapping_sub(1));
        for holder in [end.clone(), property(&last, "end")] {
            attach_cause(&property(&holder, "error"), Some(thrown));
        }
    }
    set(&out, "end", &end);
    set(&out, "stepStates", &value_to_js(&result.step_states)?);
    if let Some(j) = &result.judgement {
        set(&out, "judgement", &value_to_js(j)?);
    }
    // For batches, which count every run's records without asking for them
    // one by one; under a symbol, so no export or JSON of a result has it.
    let made = events.recorder.as_ref().map_or(0.0, TrajectoryRecorder::next_seq);
    Reflect::set(&out, &js_sys::Symbol::for_("agent-trajectories.records"), &made.into()).ok();
    // Records the sink refused under onSinkError 'drop' (each said when it
    // was dropped): counted on the result, so a run that lost some does not
    // read as whole.
    set(&out, "droppedRecords", &events.recorder.as_ref().map_or(0.0, TrajectoryRecorder::dropped).into());
    Ok(out.into())
}

/// What every run takes from its options: the clock, the observers, the
/// abort signal, and where records go (sink, `onRecord`), with the run id.
pub(crate) struct Harness {
    pub clock: JsClock,
    pub observers: Option<Box<dyn ToolObservers>>,
    pub abort: Option<JsAbort>,
    pub events: JsEvents,
    pub run_id: Option<String>,
}

/// Reads a run's harness options (`place` names the options in errors).
pub(crate) fn harness(opts: &JsValue, place: &str, mirror: Rc<Mirror>) -> JsResult<Harness> {
    let opt = |key: &'static str| option(opts, key, place).js();
    let clock_js = opt("clock")?;
    let clock = JsClock::from_option(clock_js.clone()).js()?;

    let observers_js = opt("observers")?;
    let observers: Option<Box<dyn ToolObservers>> = if observers_js.is_undefined() || observers_js.is_null() {
        None
    } else if let Some(own) = own_pipeline(&observers_js) {
        Some(Box::new(own))
    } else {
        let method = |name: &'static str| property(&observers_js, name).dyn_into::<Function>();
        match (method("recordToolCall"), method("context"), method("current"), method("recordTokens")) {
            (Ok(record), Ok(context), Ok(current), Ok(tokens)) => {
                Some(Box::new(JsObservers { object: observers_js.clone(), record, context, current, tokens }))
            }
            _ => return Err(to_js(Error::invalid_argument("observers must be an ObserverPipeline or its options"))),
        }
    };
    let signal = opt("signal")?;
    let abort = if signal.is_undefined() || signal.is_null() { None } else { Some(JsAbort::new(signal).js()?) };
    let sink = opt("sink")?;
    // Checked even without a sink: a misspelt policy must not pass unnoticed.
    let on_sink_error = opt("onSinkError")?;
    // The recorder's reading (a value that is no word is said as itself, not quoted).
    crate::core::capture::SinkPolicy::read(&crate::wasm::arg(&on_sink_error)).js()?;
    let on_record = optional_function(opt("onRecord")?, "onRecord").js()?;
    // One stamper per run: the recorder's. Without a sink, `onRecord` still
    // gets stamped records from a recorder that delivers nowhere else.
    let recorder = if sink.is_undefined() || sink.is_null() {
        on_record.as_ref().map(|_| TrajectoryRecorder::without_sink(clock.clone()))
    } else {
        let ropts = Object::new();
        set(&ropts, "clock", &clock_js);
        if !on_sink_error.is_undefined() {
            set(&ropts, "onSinkError", &on_sink_error);
        }
        Some(TrajectoryRecorder::new(sink, Some(ropts.unchecked_into()))?)
    };
    // The recorder's rule for a run id (a non-empty string), whoever names the run.
    let run_id = crate::wasm::arg(&opt("runId")?).run_id(&format!("{place}.runId")).js()?;
    let on_record_failed = Rc::default();
    let on_record_catch = host::on_record_catch(Rc::clone(&on_record_failed));
    // The JS layer names an onRecord it installed for a callback of the caller's (Symbol.for('agent-trajectories.name')).
    let on_record_name = on_record
        .as_ref()
        .and_then(|f| js_sys::Reflect::get(f, &js_sys::Symbol::for_("agent-trajectories.name").into()).ok())
        .and_then(|n| n.as_string())
        .unwrap_or_else(|| "onRecord".into());
    let events = JsEvents {
        recorder,
        on_record,
        on_record_name,
        mirror: mirror.clone(),
        on_record_failed,
        on_record_catch,
        on_record_broken: Default::default(),
    };
    Ok(Harness { clock, observers, abort, events, run_id })
}

fn result_of(r: &JsValue) -> Result<Value, Error> {
    from_js(r, "result", ErrorCode::InvalidArgument)
}

/// One JSON line per turn: `{ conversationId, stepIndex, input, output, timestamp, metadata }`.
#[wasm_bindgen(js_name = toJSONL)]
pub fn to_jsonl_js(#[wasm_bindgen(unchecked_param_type = "TrajectoryResult")] result: JsValue) -> JsResult<Vec<String>> {
    to_jsonl(&result_of(&result).js()?).js()
}

/// Tally's `Conversation`: `{ id, steps: [{ stepIndex, input, output, timestamp, metadata }] }`.
#[wasm_bindgen(js_name = toConversation, unchecked_return_type = "Conversation")]
pub fn to_conversation_js(
    #[wasm_bindgen(unchecked_param_type = "TrajectoryResult")] result: JsValue,
    #[wasm_bindgen(js_name = conversationId, unchecked_param_type = "string | null")] conversation_id: JsValue,
) -> JsResult<JsValue> {
    let conversation_id = optional_string_arg(&conversation_id, "toConversation(result, conversationId): conversationId").js()?;
    value_to_js(&to_conversation(&result_of(&result).js()?, conversation_id.as_deref()).js()?)
}

/// A short human-readable summary: turns, steps satisfied, stop reason.
#[wasm_bindgen]
pub fn summarize(#[wasm_bindgen(unchecked_param_type = "TrajectoryResult")] result: JsValue) -> JsResult<String> {
    summary_of(&result_of(&result).js()?).js()
}
