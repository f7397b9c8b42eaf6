//! The generation loop's host traits over JS: the user model, the agent,
//! callbacks (preconditions, isSatisfied, policy), observers and the run's
//! events (the timer and the abort signal are in `signal.rs`). Every JS
//! call's failure becomes a coded core error naming the callback.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Map, Object, Promise, Reflect, Set};
use wasm_bindgen::prelude::*;

use crate::core::capture::Payload;
use crate::core::generate::{
    Agent, AgentAnswer, End, Policy, PolicyContext, PolicyDecision, Predicate, PredicateContext, RunEvents, StepStates, StepTrace,
};
use crate::core::host::{LocalBoxFuture, Records, ShownAssessment, ToolObservers};
use crate::core::message::ModelMessage;
use crate::core::observe::ToolCallInput;
use crate::core::{Error, ErrorCode};
use crate::wasm::capture::TrajectoryRecorder;
use crate::wasm::error::{describe, from_callback};
use crate::wasm::waiting::Settled;
use crate::wasm::{from_js, is_array, items, json_of, option, property, to_js, usage_from_js};

/// Calls `f` and awaits its answer when it is a promise (or any thenable).
pub(crate) async fn call(f: &Function, this: &JsValue, args: &[&JsValue], what: &str) -> Result<JsValue, Error> {
    let ret = match args {
        [] => f.call0(this),
        [a] => f.call1(this, a),
        [a, b] => f.call2(this, a, b),
        [a, b, c] => f.call3(this, a, b, c),
        _ => return Err(Error::new(ErrorCode::Internal, "call(): too many arguments")),
    }
    .map_err(|e| from_callback(what, &e))?;
    if crate::wasm::is_thenable(&ret) {
        Settled::of(&Promise::resolve(&ret)).await.map_err(|e| from_callback(what, &e))
    } else {
        Ok(ret)
    }
}

pub(super) fn conv(e: JsValue) -> Error {
    Error::new(ErrorCode::Internal, format!("could not convert a value for JS: {}", describe(&e)))
}

/// Sets `obj[key] = value`. Setting a plain property of a fresh object
/// cannot fail, so the result is not checked.
pub fn set(obj: &Object, name: &'static str, value: &JsValue) {
    let _ = Reflect::set(obj, &crate::wasm::key(name), value);
}

/// The `{ abortSignal }` handed to the agent, the user model and a tool
/// with each call: the JS layer's `callSignal()` (src/js/util.js) makes
/// `[options, stop]`, whose AbortController is made only if the callee
/// reads the signal. When the run stops waiting for the answer (timeoutMs
/// expired, the run's signal fired), the call's future is dropped, and
/// dropping this calls `stop`, so the host can cancel the work (a fetch,
/// an AI SDK call) instead of finishing it for nobody. An answered call
/// disarms it. Without the JS layer (the binding's own tests), a call's
/// options are empty.
pub(crate) struct CallSignal(JsValue, Option<Function>);

/// Where a run's calls get their signals: the host object's `callSignal`.
#[derive(Clone)]
pub struct CallSignals(Option<Function>);

impl CallSignals {
    pub fn of(host: &JsValue) -> CallSignals {
        CallSignals(property(host, "callSignal").dyn_into().ok())
    }

    pub(crate) fn make(&self) -> CallSignal {
        match self.0.as_ref().and_then(|f| f.call0(&JsValue::UNDEFINED).ok()).filter(is_array) {
            Some(pair) => {
                let pair: &Array = pair.unchecked_ref();
                CallSignal(pair.get(0), pair.get(1).dyn_into().ok())
            }
            None => CallSignal(Object::new().into(), None),
        }
    }
}

impl CallSignal {
    pub(crate) fn options(&self) -> JsValue {
        self.0.clone()
    }

    pub(crate) fn disarm(mut self) {
        self.1 = None;
    }
}

impl Drop for CallSignal {
    fn drop(&mut self) {
        if let Some(stop) = self.1.take() {
            let reason = js_sys::Error::new("the run stopped waiting for this call (a time limit expired or the run was aborted)");
            reason.set_name("AbortError");
            let _ = stop.call1(&JsValue::UNDEFINED, &reason);
        }
    }
}

/// Pending traces past this many bytes of JSON cross at once (see [`Mirror::pending`]).
const PENDING_LIMIT: usize = 32 << 20;

/// What every run callback can see: the traces so far (one live array,
/// appended to as the run goes) and the steps' states.
pub struct Mirror {
    traces: Array,
    /// Traces JS has not been shown yet, as JSON text (`[a,b,...`). They
    /// cross together when JS is next shown the array ([`Mirror::traces`]):
    /// in a run with no policy or precondition in JS, once, at its end.
    /// Measured against a crossing per turn: a plain turn 0.4-1.9 us
    /// faster, a turn with tools, a sink and observers 2-4 us.
    pending: RefCell<String>,
    pub steps: Vec<JsValue>,
    /// The last snapshot handed to JS and what it was built from: every
    /// precondition of a turn sees the same states, so it is built once.
    cached: RefCell<Option<(StepStates, JsValue)>>,
}

impl Mirror {
    pub fn new(traces: Array, steps: Vec<JsValue>) -> Mirror {
        Mirror { traces, pending: RefCell::default(), steps, cached: RefCell::new(None) }
    }

    /// The traces, every one the run has made.
    #[inline(never)]
    pub fn traces(&self) -> &Array {
        let mut text = self.pending.take();
        if !text.is_empty() {
            text.push(']');
            // Plain data always parses, if JS can hold it as one string
            // (PENDING_LIMIT keeps text under that but for a turn larger
            // than a JS string): a turn that cannot be shown is said, never dropped quietly.
            match js_sys::JSON::parse(&text) {
                Ok(more) => {
                    let more: &Array = more.unchecked_ref();
                    for i in 0..more.length() {
                        self.traces.push(&more.get(i));
                    }
                }
                Err(_) => web_sys::console::warn_2(
                    &"agent-trajectories: step traces more than a JS string holds (bytes below); the run's result lacks them, its records keep them:"
                        .into(),
                    &(text.len() as f64).into(),
                ),
            }
        }
        &self.traces
    }

    fn snapshot(&self, s: &StepStates) -> Result<JsValue, Error> {
        if let Some((seen, js)) = &*self.cached.borrow() {
            if seen == s {
                return Ok(js.clone());
            }
        }
        let satisfied = Set::new(&JsValue::UNDEFINED);
        let attempts = Map::new();
        for st in &s.states {
            if st.status == crate::core::generate::StepStatus::Satisfied {
                satisfied.add(&st.step_id.as_str().into());
            }
            attempts.set(&st.step_id.as_str().into(), &st.attempts.into());
        }
        let obj = Object::new();
        set(&obj, "satisfied", &satisfied);
        set(&obj, "attemptsByStep", &attempts);
        set(&obj, "states", &to_js(&s.states).map_err(conv)?);
        let js: JsValue = obj.into();
        *self.cached.borrow_mut() = Some((s.clone(), js.clone()));
        Ok(js)
    }
}

/// A custom precondition's `evaluate(ctx)` or a step's `isSatisfied(ctx)`.
pub struct JsPredicate {
    pub f: Function,
    pub what: String,
    pub mirror: Rc<Mirror>,
}

impl Predicate for JsPredicate {
    fn evaluate<'a>(&'a self, ctx: &'a PredicateContext<'a>) -> LocalBoxFuture<'a, Result<bool, Error>> {
        Box::pin(async move {
            let obj = Object::new();
            set(&obj, "stepTraces", self.mirror.traces());
            set(&obj, "snapshot", &self.mirror.snapshot(ctx.snapshot)?);
            if let Some(step) = self.mirror.steps.get(ctx.step) {
                set(&obj, "step", step);
            }
            set(&obj, "state", &to_js(&ctx.snapshot.states[ctx.step]).map_err(conv)?);
            let v = call(&self.f, &JsValue::UNDEFINED, &[&obj.into()], &self.what).await?;
            v.as_bool().ok_or_else(|| Error::new(ErrorCode::CallbackFailed, format!("{} returned {}; expected a boolean", self.what, describe(&v))))
        })
    }
}

/// The agent under test, `{ respond(history, { abortSignal }) → Promise<{ messages } | messages> }`.
/// The history it is handed is one JS array this adapter appends to, so
/// each turn converts only the new messages, and the agent's own messages
/// go back in as the very objects it returned.
pub struct JsAgent {
    pub object: JsValue,
    pub respond: Function,
    history: RefCell<Array>,
    /// The history's messages, kept apart from the array: an agent that
    /// added to or took from the array it was handed (pushed its own
    /// messages onto it, say) is handed a new one next turn, the run's
    /// history as it is, filled from these without converting any again.
    kept: RefCell<Vec<JsValue>>,
    returned: RefCell<Vec<JsValue>>,
    signals: CallSignals,
}

impl JsAgent {
    pub fn new(object: JsValue, respond: Function, signals: CallSignals) -> JsAgent {
        JsAgent { object, respond, history: RefCell::new(Array::new()), kept: RefCell::default(), returned: RefCell::default(), signals }
    }

    /// The array to hand the agent. The core may choose what it sees last
    /// for this call (the user message with the assessment), while the
    /// history keeps the original: whether it did is returned.
    fn handed(&self, history: &[ModelMessage], shown_last: Option<&ModelMessage>) -> Result<(Array, bool), Error> {
        let array = self.history.borrow().clone();
        let mut kept = self.kept.borrow_mut();
        kept.append(&mut self.returned.borrow_mut());
        for m in history.get(kept.len()..).unwrap_or_default() {
            kept.push(to_js(m).map_err(conv)?);
        }
        for v in kept.get(array.length() as usize..).unwrap_or_default() {
            array.push(v);
        }
        if let Some(m) = shown_last {
            array.pop();
            array.push(&to_js(m).map_err(conv)?);
        }
        Ok((array, shown_last.is_some()))
    }

    /// After the call: the array as it was before it, or, when the agent
    /// changed its length, a new one for the next turn.
    fn restore(&self, array: &Array, shown: bool) {
        let kept = self.kept.borrow();
        if array.length() as usize != kept.len() {
            *self.history.borrow_mut() = Array::new();
        } else if let Some(original) = kept.last().filter(|_| shown) {
            array.pop();
            array.push(original);
        }
    }
}

impl Agent for JsAgent {
    fn respond<'a>(&'a self, history: &'a [ModelMessage], shown_last: Option<&'a ModelMessage>) -> LocalBoxFuture<'a, Result<AgentAnswer, Error>> {
        Box::pin(async move {
            let (array, shown) = self.handed(history, shown_last)?;
            let signal = self.signals.make();
            let answer = call(&self.respond, &self.object, &[&array.clone().into(), &signal.options()], "agent.respond").await;
            signal.disarm();
            self.restore(&array, shown);
            let answer = answer?;
            let listed = is_array(&answer);
            let list = if listed {
                answer.clone()
            } else {
                option(&answer, "messages", "agent.respond's answer").map_err(|e| Error { code: ErrorCode::CallbackFailed, ..e })?
            };
            if !is_array(&list) {
                // Only for a hint: keys that cannot be read (a Proxy's throwing trap) give none.
                return Err(AgentAnswer::not_an_answer(&describe(&answer), &crate::wasm::hint_keys(&answer)));
            }
            // Only an answer with a key beside `messages` is looked at
            // further (its keys cross as strings).
            if let Some(keys) = Reflect::own_keys(&answer).ok().filter(|k| !listed && k.length() > 1) {
                AgentAnswer::check_keys(&crate::wasm::string_keys(&keys))?;
            }
            let text = json_of(&list, "agent.respond messages").map_err(|e| Error { code: ErrorCode::CallbackFailed, ..e })?;
            let messages: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| crate::wasm::not_read(&e, "agent.respond messages", ErrorCode::CallbackFailed))?;
            let answer = AgentAnswer::from_parts(messages, || {
                let usage = if listed { JsValue::UNDEFINED } else { property(&answer, "usage") };
                Ok(if usage.is_undefined() { None } else { Some(usage_from_js(&usage, "agent.respond usage")?) })
            })?;
            *self.returned.borrow_mut() = items(&list, "agent.respond messages").map_err(|e| Error { code: ErrorCode::CallbackFailed, ..e })?;
            Ok(answer)
        })
    }
}

/// A JS policy: `{ evaluate(ctx) }` or a function, answering
/// `{ stop: false }` or `{ stop: true, reason, completed?, summary? }`.
pub struct JsPolicy {
    pub object: JsValue,
    pub f: Function,
    pub mirror: Rc<Mirror>,
}

impl Policy for JsPolicy {
    fn evaluate<'a>(&'a self, ctx: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision, Error>> {
        Box::pin(async move {
            let default = crate::core::generate::DefaultPolicy::decide(ctx);
            let obj = Object::new();
            let set = |k: &'static str, v: &JsValue| set(&obj, k, v);
            set("turnIndex", &ctx.turn_index.into());
            set("maxTurns", &ctx.max_turns.into());
            set("stepTraces", self.mirror.traces());
            set("snapshot", &self.mirror.snapshot(ctx.snapshot)?);
            let g = ctx.graph;
            let id = |i: usize| g.map(|g| JsValue::from(g.steps[i].id.as_str())).unwrap_or(JsValue::NULL);
            set("lastStepId", &ctx.last_step.map(id).unwrap_or(JsValue::NULL));
            let terminals: Array = g.map(|g| g.terminals.iter().map(|&t| id(t)).collect()).unwrap_or_default();
            set("terminals", &terminals);
            set("exhausted", &ctx.exhausted.into());
            set("defaultDecision", &decision_to_js(&default));
            let v = call(&self.f, &self.object, &[&obj.into()], "policy.evaluate").await?;
            let answer = if v.is_undefined() { serde_json::Value::Null } else { from_js(&v, "policy.evaluate's answer", ErrorCode::CallbackFailed)? };
            PolicyDecision::from_value(&answer)
        })
    }
}

pub fn decision_to_js(d: &PolicyDecision) -> JsValue {
    let obj = Object::new();
    set(&obj, "stop", &d.stop.is_some().into());
    if let Some((reason, completed, summary)) = &d.stop {
        set(&obj, "reason", &reason.as_str().into());
        set(&obj, "completed", &(*completed).into());
        if let Some(s) = summary {
            set(&obj, "summary", &s.as_str().into());
        }
    }
    obj.into()
}

/// Any object with an `ObserverPipeline`'s `recordToolCall(call)`,
/// `context()`, `current()` and `recordTokens(n)`. (The package's own
/// pipeline is called directly: see `harness`.)
pub struct JsObservers {
    pub object: JsValue,
    pub record: Function,
    pub context: Function,
    pub current: Function,
    pub tokens: Function,
}

impl ToolObservers for JsObservers {
    fn tool_call(&self, call: ToolCallInput) -> Result<(), Error> {
        let obj = Object::new();
        set(&obj, "toolName", &call.tool_name.as_str().into());
        if let Some(p) = &call.params_json {
            set(&obj, "params", &js_sys::JSON::parse(p).map_err(conv)?);
        }
        set(&obj, "success", &call.success.into());
        if let Some(m) = &call.error_message {
            set(&obj, "errorMessage", &m.as_str().into());
        }
        self.record.call1(&self.object, &obj).map(drop).map_err(|e| from_callback("observers.recordToolCall", &e))
    }

    fn current(&self) -> Result<Option<ShownAssessment>, Error> {
        let text = self.context.call0(&self.object).map_err(|e| from_callback("observers.context", &e))?;
        ShownAssessment::of(text.as_string().unwrap_or_default(), || {
            let current = self.current.call0(&self.object).map_err(|e| from_callback("observers.current", &e))?;
            let current: serde_json::Value = from_js(&current, "observers.current()", ErrorCode::CallbackFailed)?;
            crate::core::read::read(current, "observers.current()").map(Some).map_err(|e| Error::new(ErrorCode::CallbackFailed, e))
        })
    }

    fn record_tokens(&self, n: u64) -> Result<(), Error> {
        self.tokens.call1(&self.object, &(n as f64).into()).map(drop).map_err(|e| from_callback("observers.recordTokens", &e))
    }
}

/// Records go to the sink (through a recorder) and to `onRecord`; traces
/// go to the shared mirror array.
pub struct JsEvents {
    /// Stamps every record (present whenever a sink or `onRecord` wants them).
    pub recorder: Option<TrajectoryRecorder>,
    pub on_record: Option<Function>,
    /// What `onRecord` is called in messages: the caller's own name for it
    /// when the JS layer installed it for them (a batch's `onProgress`).
    pub on_record_name: String,
    pub mirror: Rc<Mirror>,
    /// What a Promise `onRecord` returned rejected with, reported as the
    /// run's failure at the next record or at the end, never dropped.
    pub on_record_failed: Rc<RefCell<Option<JsValue>>>,
    /// The one rejection handler of the run, given to every such Promise.
    pub on_record_catch: Function,
    /// `onRecord` failed: the run ends with that error, and its last records
    /// (step_states, run_ended) still reach the sink without calling it again.
    pub on_record_broken: std::cell::Cell<bool>,
}

/// The rejection handler a run gives the Promises `onRecord` returns: it
/// keeps the first rejection. Made once per run and left to the JS garbage
/// collector (`forget`): a Promise may settle after the run resolved, and a
/// dropped handler would then throw from inside it.
pub fn on_record_catch(slot: Rc<RefCell<Option<JsValue>>>) -> Function {
    let keep = Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
        slot.borrow_mut().get_or_insert(e);
    });
    let f: Function = keep.as_ref().clone().unchecked_into();
    keep.forget();
    f
}

impl JsEvents {
    fn late_failure(&self) -> Result<(), Error> {
        match self.on_record_failed.borrow_mut().take() {
            Some(e) => Err(from_callback(&self.on_record_name, &e)),
            None => Ok(()),
        }
    }
}

impl Records for JsEvents {
    fn clock_failed(&self) -> bool {
        self.recorder.as_ref().is_some_and(TrajectoryRecorder::clock_failed)
    }

    fn closing(&self) {
        if let Some(r) = &self.recorder {
            r.close();
        }
    }

    fn record(&self, payload: Payload) -> Result<(), Error> {
        // The record reaches the sink first; a failure of onRecord (thrown
        // now, or a rejection kept from before) is the run's error after it.
        let Some(r) = &self.recorder else { return self.late_failure() };
        let on_record = self.on_record.as_ref().filter(|_| !self.on_record_broken.get());
        let (_, record) = r.record_payload(payload, on_record.is_some())?;
        let mut outcome = self.late_failure();
        if let (Some(f), Some(record), true) = (on_record, record, outcome.is_ok()) {
            let v = js_sys::JSON::parse(&record).map_err(conv)?;
            match f.call1(&JsValue::UNDEFINED, &v) {
                Ok(ret) if crate::wasm::is_thenable(&ret) => crate::wasm::catch_with(&ret, &self.on_record_catch),
                Ok(_) => {}
                Err(e) => outcome = Err(from_callback(&self.on_record_name, &e)),
            }
        }
        if outcome.is_err() {
            self.on_record_broken.set(true);
        }
        outcome
    }

    fn flush(&self) -> LocalBoxFuture<'_, Result<(), Error>> {
        Box::pin(async move {
            if let Some(r) = &self.recorder {
                Settled::of(&r.flush()).await.map_err(|e| from_callback("the sink", &e))?;
            }
            self.late_failure()
        })
    }
}

impl RunEvents for JsEvents {
    fn trace(&self, trace: &StepTrace) {
        let full = {
            let mut text = self.mirror.pending.borrow_mut();
            let sep = if text.is_empty() { '[' } else { ',' };
            text.push(sep);
            crate::core::write::json_into(&mut text, trace);
            text.len() >= PENDING_LIMIT
        };
        // Large turns cross at once: a JS string holds at most 2^29 - 24
        // characters, and the text held here is memory the module keeps.
        if full {
            self.mirror.traces();
        }
    }

    fn ended(&self, end: &End) {
        let traces = self.mirror.traces();
        let last = traces.get(traces.length().wrapping_sub(1));
        if let (true, Ok(v)) = (last.is_object(), to_js(end)) {
            set(last.unchecked_ref(), "end", &v);
        }
    }

    fn tokens(&self, turn: u32, tokens: u64) {
        let trace = self.mirror.traces().get(turn);
        if trace.is_object() {
            set(trace.unchecked_ref(), "tokens", &(tokens as f64).into());
        }
    }

    fn judged(&self, turn: u32, judgement: &serde_json::Value) {
        let trace = self.mirror.traces().get(turn);
        if let (true, Ok(v)) = (trace.is_object(), to_js(judgement)) {
            set(trace.unchecked_ref(), "judgement", &v);
        }
    }
}
