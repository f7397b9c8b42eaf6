//! The generation loop's host traits over JS: the user model, the agent,
//! callbacks (preconditions, isSatisfied, policy), observers, the abort
//! signal, the timer and the run's events. Every JS call's failure becomes
//! a coded core error naming the callback.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::{Array, Function, Map, Object, Promise, Reflect, Set};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::core::capture::{Payload, Recorder};
use crate::core::generate::{
    Abort, Agent, End, Policy, PolicyContext, PolicyDecision, Predicate, PredicateContext, RunEvents, Snapshot, StepTrace, StopReason, Timer,
    ToolObservers,
};
use crate::core::host::{LocalBoxFuture, Model, ModelRequest, ModelResponse};
use crate::core::message::{normalize_messages, ModelMessage};
use crate::core::observe::ToolCallInput;
use crate::core::{Error, ErrorCode};
use crate::wasm::capture::TrajectoryRecorder;
use crate::wasm::error::from_callback;
use crate::wasm::host::JsClock;
use crate::wasm::{from_js, json_of, property, to_js};

/// Calls `f` and awaits its answer when it is a promise (or any thenable).
async fn call(f: &Function, this: &JsValue, args: &[&JsValue], what: &str) -> Result<JsValue, Error> {
    let ret = match args {
        [] => f.call0(this),
        [a] => f.call1(this, a),
        [a, b] => f.call2(this, a, b),
        _ => return Err(Error::new(ErrorCode::Internal, "call(): too many arguments")),
    }
    .map_err(|e| from_callback(what, &e))?;
    if ret.is_object() && property(&ret, "then").is_function() {
        JsFuture::from(Promise::resolve(&ret)).await.map_err(|e| from_callback(what, &e))
    } else {
        Ok(ret)
    }
}

fn conv(e: JsValue) -> Error {
    Error::new(ErrorCode::Internal, format!("could not convert a value for JS: {e:?}"))
}

/// Sets `obj[key] = value`. Setting a plain property of a fresh object
/// cannot fail, so the result is not checked.
pub fn set(obj: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &key.into(), value);
}

/// The `{ abortSignal }` handed to the agent and the user model with each
/// call. When the run stops waiting for the answer (timeoutMs expired, the
/// run's signal fired), the call's future is dropped, and dropping this
/// aborts the signal, so the host can cancel the work (a fetch, an AI SDK
/// call) instead of finishing it for nobody. An answered call disarms it.
struct CallSignal(Option<web_sys::AbortController>);

impl CallSignal {
    fn new() -> CallSignal {
        // Every supported runtime has AbortController; without one, calls go uncancelled.
        CallSignal(web_sys::AbortController::new().ok())
    }

    fn options(&self) -> JsValue {
        let obj = Object::new();
        if let Some(c) = &self.0 {
            set(&obj, "abortSignal", &c.signal());
        }
        obj.into()
    }

    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CallSignal {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            let reason = js_sys::Error::new("the trajectory run stopped waiting for this call (timeoutMs expired or the run was aborted)");
            reason.set_name("AbortError");
            c.abort_with_reason(&reason);
        }
    }
}

/// What every run callback can see: the traces so far (one live array,
/// appended to as the run goes) and the steps' states.
pub struct Mirror {
    pub traces: Array,
    pub steps: Vec<JsValue>,
    /// The last snapshot handed to JS and what it was built from: every
    /// precondition of a turn sees the same states, so it is built once.
    cached: RefCell<Option<(Snapshot, JsValue)>>,
}

impl Mirror {
    pub fn new(traces: Array, steps: Vec<JsValue>) -> Mirror {
        Mirror { traces, steps, cached: RefCell::new(None) }
    }

    fn snapshot(&self, s: &Snapshot) -> Result<JsValue, Error> {
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
            set(&obj, "stepTraces", &self.mirror.traces);
            set(&obj, "snapshot", &self.mirror.snapshot(ctx.snapshot)?);
            if let Some(step) = self.mirror.steps.get(ctx.step) {
                set(&obj, "step", step);
            }
            set(&obj, "state", &to_js(&ctx.snapshot.states[ctx.step]).map_err(conv)?);
            let v = call(&self.f, &JsValue::UNDEFINED, &[&obj.into()], &self.what).await?;
            v.as_bool().ok_or_else(|| Error::new(ErrorCode::CallbackFailed, format!("{} returned {v:?}; expected a boolean", self.what)))
        })
    }
}

/// `userModel(request, { abortSignal }) → Promise<string | { text?, toolCalls?, usage? }>`.
pub struct JsModel(pub Function);

impl Model for JsModel {
    fn complete(&self, request: ModelRequest) -> LocalBoxFuture<'_, Result<ModelResponse, Error>> {
        Box::pin(async move {
            let what = format!("userModel ({})", serde_json::to_value(request.purpose).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default());
            let req = to_js(&request).map_err(conv)?;
            let signal = CallSignal::new();
            let v = call(&self.0, &JsValue::UNDEFINED, &[&req, &signal.options()], &what).await;
            signal.disarm();
            let v = v?;
            let value: serde_json::Value = if v.is_string() {
                serde_json::Value::String(v.as_string().unwrap_or_default())
            } else {
                from_js(&v, &what, ErrorCode::CallbackFailed)?
            };
            ModelResponse::from_value(&value).map_err(|e| e.within(&what))
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
    pub history: Array,
    synced: Cell<usize>,
    returned: RefCell<Vec<JsValue>>,
}

impl JsAgent {
    pub fn new(object: JsValue, respond: Function) -> JsAgent {
        JsAgent { object, respond, history: Array::new(), synced: Cell::new(0), returned: RefCell::default() }
    }
}

impl Agent for JsAgent {
    fn respond<'a>(&'a self, history: &'a [ModelMessage], context: Option<&'a ModelMessage>) -> LocalBoxFuture<'a, Result<Vec<ModelMessage>, Error>> {
        Box::pin(async move {
            let returned = std::mem::take(&mut *self.returned.borrow_mut());
            let mut synced = self.synced.get();
            for v in &returned {
                self.history.push(v);
            }
            synced += returned.len();
            for m in history.get(synced..).unwrap_or_default() {
                self.history.push(&to_js(m).map_err(conv)?);
            }
            self.synced.set(history.len());
            // The assessment goes just before the new user message, for this call only.
            let injected = match context {
                Some(c) => {
                    let at = self.history.length() - 1;
                    self.history.splice(at, 0, &to_js(c).map_err(conv)?);
                    Some(at)
                }
                None => None,
            };
            let signal = CallSignal::new();
            let answer = call(&self.respond, &self.object, &[&self.history.clone().into(), &signal.options()], "agent.respond").await;
            signal.disarm();
            if injected.is_some() {
                // The injected message sits just before the user message: take it out.
                let user = self.history.pop();
                self.history.pop();
                self.history.push(&user);
            }
            let answer = answer?;
            let list = if Array::is_array(&answer) { answer } else { property(&answer, "messages") };
            if !Array::is_array(&list) {
                return Err(Error::new(ErrorCode::CallbackFailed, "agent.respond returned no messages; expected { messages: ModelMessage[] } or an array"));
            }
            let text = json_of(&list, "agent.respond messages")?;
            let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::new(ErrorCode::CallbackFailed, e.to_string()))?;
            let messages = normalize_messages(&value).map_err(|e| e.within("agent.respond returned"))?;
            *self.returned.borrow_mut() = Array::from(&list).iter().collect();
            Ok(messages)
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
            let set = |k: &str, v: &JsValue| set(&obj, k, v);
            set("turnIndex", &ctx.turn_index.into());
            set("maxTurns", &ctx.max_turns.into());
            set("stepTraces", &self.mirror.traces);
            set("snapshot", &self.mirror.snapshot(ctx.snapshot)?);
            let g = ctx.graph;
            let id = |i: usize| g.map(|g| JsValue::from(g.steps[i].id.as_str())).unwrap_or(JsValue::NULL);
            set("selectedStepId", &ctx.selected.map(id).unwrap_or(JsValue::NULL));
            let terminals: Array = g.map(|g| g.terminals.iter().map(|&t| id(t)).collect()).unwrap_or_default();
            set("terminals", &terminals);
            set("exhausted", &ctx.exhausted.into());
            set("defaultDecision", &decision_to_js(&default));
            let v = call(&self.f, &self.object, &[&obj.into()], "policy.evaluate").await?;
            decision_from_js(&v)
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

fn decision_from_js(v: &JsValue) -> Result<PolicyDecision, Error> {
    let garbage = |why: &str| Error::new(ErrorCode::CallbackFailed, format!("policy.evaluate returned {why}; expected {{ stop: false }} or {{ stop: true, reason, completed?, summary? }}"));
    if v.is_undefined() || v.is_null() {
        return Ok(PolicyDecision::CONTINUE);
    }
    if !v.is_object() {
        return Err(garbage(&format!("{v:?}")));
    }
    let stop = property(v, "stop");
    let stop = if stop.is_undefined() { property(v, "shouldStop") } else { stop };
    match stop.as_bool() {
        Some(false) => Ok(PolicyDecision::CONTINUE),
        Some(true) => {
            let reason = property(v, "reason").as_string().and_then(|r| StopReason::parse(&r)).ok_or_else(|| garbage("a stop without a known reason"))?;
            let completed = property(v, "completed").as_bool().unwrap_or(reason == StopReason::GoalReached);
            Ok(PolicyDecision { stop: Some((reason, completed, property(v, "summary").as_string())) })
        }
        None => Err(garbage("an object without a boolean `stop`")),
    }
}

/// An `ObserverPipeline` (or any `{ recordToolCall(call), context() }`).
pub struct JsObservers {
    pub object: JsValue,
    pub record: Function,
    pub context: Function,
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

    fn context(&self) -> Result<Option<String>, Error> {
        let v = self.context.call0(&self.object).map_err(|e| from_callback("observers.context", &e))?;
        Ok(v.as_string().filter(|s| !s.is_empty()))
    }
}

/// `setTimeout` as a future; dropping it clears the timer.
pub struct JsTimer;

impl Timer for JsTimer {
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        Box::pin(gloo_timers::future::TimeoutFuture::new(ms.clamp(0.0, u32::MAX as f64) as u32))
    }
}

/// An `AbortSignal`, listened to once per run. Waiting futures register
/// wakers that they remove when dropped, so a long run does not pile up
/// listeners or promise reactions.
pub struct JsAbort {
    signal: JsValue,
    state: Rc<AbortState>,
    listener: Closure<dyn FnMut()>,
}

#[derive(Default)]
struct AbortState {
    fired: Cell<bool>,
    next: Cell<u64>,
    wakers: RefCell<Vec<(u64, Waker)>>,
}

impl JsAbort {
    pub fn new(signal: JsValue) -> Result<JsAbort, Error> {
        let add = property(&signal, "addEventListener").dyn_into::<Function>().map_err(|_| Error::invalid_argument("signal must be an AbortSignal"))?;
        let state = Rc::new(AbortState::default());
        let s = state.clone();
        let listener = Closure::<dyn FnMut()>::new(move || {
            s.fired.set(true);
            for (_, w) in s.wakers.borrow_mut().drain(..) {
                w.wake();
            }
        });
        add.call2(&signal, &"abort".into(), listener.as_ref()).map_err(|e| from_callback("signal.addEventListener", &e))?;
        Ok(JsAbort { signal, state, listener })
    }
}

impl Drop for JsAbort {
    fn drop(&mut self) {
        if let Ok(remove) = property(&self.signal, "removeEventListener").dyn_into::<Function>() {
            let _ = remove.call2(&self.signal, &"abort".into(), self.listener.as_ref());
        }
    }
}

struct AbortWait {
    state: Rc<AbortState>,
    id: u64,
}

impl Future for AbortWait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.state.fired.get() {
            return Poll::Ready(());
        }
        let mut wakers = self.state.wakers.borrow_mut();
        match wakers.iter_mut().find(|(id, _)| *id == self.id) {
            Some(slot) => slot.1 = cx.waker().clone(),
            None => wakers.push((self.id, cx.waker().clone())),
        }
        Poll::Pending
    }
}

impl Drop for AbortWait {
    fn drop(&mut self) {
        self.state.wakers.borrow_mut().retain(|(id, _)| *id != self.id);
    }
}

impl Abort for JsAbort {
    fn aborted(&self) -> bool {
        self.state.fired.get() || property(&self.signal, "aborted").as_bool().unwrap_or(false)
    }
    fn wait(&self) -> LocalBoxFuture<'static, ()> {
        if self.aborted() {
            self.state.fired.set(true);
        }
        let id = self.state.next.get();
        self.state.next.set(id + 1);
        Box::pin(AbortWait { state: self.state.clone(), id })
    }
}

/// Records go to the sink (through a recorder) and to `onRecord`; traces
/// go to the shared mirror array.
pub struct JsEvents {
    pub recorder: Option<TrajectoryRecorder>,
    pub stamper: RefCell<Recorder>,
    pub clock: JsClock,
    pub on_record: Option<Function>,
    pub mirror: Rc<Mirror>,
}

impl RunEvents for JsEvents {
    fn record(&self, payload: Payload) -> Result<(), Error> {
        let keep = self.on_record.is_some();
        let record = match &self.recorder {
            Some(r) => r.record_payload(payload, keep)?.1,
            None if keep => Some(self.stamper.borrow_mut().stamp(payload, self.clock.try_now()?)?),
            None => None,
        };
        if let (Some(f), Some(record)) = (&self.on_record, record) {
            let v = to_js(&record).map_err(conv)?;
            f.call1(&JsValue::UNDEFINED, &v).map_err(|e| from_callback("onRecord", &e))?;
        }
        Ok(())
    }

    fn trace(&self, trace: &StepTrace) {
        // Plain data always converts; a failure here would be a bug, reported by an absent trace.
        if let Ok(v) = to_js(trace) {
            self.mirror.traces.push(&v);
        }
    }

    fn ended(&self, end: &End) {
        let last = self.mirror.traces.get(self.mirror.traces.length().wrapping_sub(1));
        if let (true, Ok(v)) = (last.is_object(), to_js(end)) {
            set(last.unchecked_ref(), "end", &v);
        }
    }
}
