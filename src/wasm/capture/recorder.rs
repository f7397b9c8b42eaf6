//! `TrajectoryRecorder` for JS. Holds no borrow while it calls into JS (the
//! clock, a sink, `onError`), so a sink that records again from inside its
//! own `record()` is queued behind the current record instead of failing.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

use super::sinks::{freed_sink, native_sink_of, Delivery, Handed, NativeSink};
use crate::core::capture::{Dispatcher, Payload, Recorder, SinkPolicy, TrajectoryRecord, RECORDER_OPTIONS};
use crate::core::{Error, ErrorCode};
use crate::wasm::error::describe;
use crate::wasm::error::{from_callback, to_js, IntoJs, JsResult};
use crate::wasm::host::JsClock;
use crate::wasm::types::RecorderOptions;
use crate::wasm::{arg, check_options, option, property};

/// Where records go: a built-in sink, a JS object with `record(r)`, or
/// nowhere (a run that only wants stamped records for `onRecord`).
enum Target {
    Native(NativeSink),
    Js { object: JsValue, record: Function },
    Nowhere,
}

/// One sink and its delivery queue, shared by a recorder and its children.
struct Channel {
    target: Target,
    dispatcher: RefCell<Dispatcher<TrajectoryRecord>>,
    on_error: Option<Function>,
    /// `flush()` promises waiting for the queue to drain: (resolve, reject).
    waiters: RefCell<Vec<(Function, Function)>>,
}

impl Channel {
    /// Hands `record` to the sink: a `MemorySink` keeps it whole; any other
    /// sink writes it, or is given it as a JS object, and it comes back.
    fn hand(&self, record: TrajectoryRecord) -> Handed {
        match &self.target {
            Target::Native(sink) => sink.hand(record),
            Target::Js { object, record: f } => {
                let delivery = match crate::wasm::to_js(&record) {
                    Ok(value) => match f.call1(object, &value) {
                        Ok(ret) => Delivery::from_return(ret),
                        Err(e) => Delivery::Done(Err(from_callback("sink.record", &e))),
                    },
                    Err(_) => Delivery::Done(Err(Error::new(ErrorCode::Internal, "record could not be converted for JS"))),
                };
                Handed::Written(record, delivery)
            }
            Target::Nowhere => Handed::Written(record, Delivery::Done(Ok(()))),
        }
    }

    /// Settles the delivery in flight and reports a dropped record's failure.
    fn settle(&self, record: TrajectoryRecord, outcome: Result<(), Error>) -> Option<TrajectoryRecord> {
        let outcome = outcome.map_err(|e| {
            let run = record.run_id.as_deref().unwrap_or("(unnamed)");
            // The sink's own error stays the cause.
            let cause = e.cause.clone();
            let mut err = Error::new(ErrorCode::SinkFailed, format!("sink failed on seq {} of run {run}: {}", record.seq, e.message));
            err.cause = cause;
            err
        });
        let failed = outcome.is_err().then(|| record.copy());
        let settled = self.dispatcher.borrow_mut().settle(record, outcome);
        if let (Some(err), Some(record)) = (settled.report, failed) {
            self.report(err, &record);
        }
        settled.next
    }

    fn report(&self, err: Error, record: &TrajectoryRecord) {
        // Without onError: one line per dropped record, not the error object
        // (a console prints its stack, a screen of the module's frames).
        let Some(f) = &self.on_error else {
            let said = format!("agent-trajectories: record dropped ({}):", err.code.as_str());
            return web_sys::console::warn_2(&said.into(), &err.message.into());
        };
        // What the console says of it, if onError fails: a line, not the error object (its stack and its cause's).
        let dropped: JsValue = format!("[{}] {}", err.code.as_str(), err.message).into();
        let js_err = to_js(err);
        let rec = crate::wasm::to_js(record).unwrap_or(JsValue::UNDEFINED);
        // An onError that throws (or rejects) has nowhere further to report
        // to but the console: said there, not swallowed.
        match f.call2(&JsValue::UNDEFINED, &js_err, &rec) {
            Err(thrown) => {
                let said = format!("agent-trajectories: onError threw ({}) while told of a dropped record:", describe(&thrown));
                web_sys::console::warn_2(&said.into(), &dropped);
            }
            Ok(answer) => crate::wasm::warn_if_rejected(&answer, "agent-trajectories: onError rejected, told of a dropped record:".into(), dropped),
        }
    }

    /// Resolves (or, after a failure under 'fail', rejects) `flush()` waiters once idle.
    fn wake_if_idle(&self) {
        let (idle, failure) = {
            let d = self.dispatcher.borrow();
            (d.is_idle(), d.failure().cloned())
        };
        if !idle {
            return;
        }
        let waiters = std::mem::take(&mut *self.waiters.borrow_mut());
        for (resolve, reject) in waiters {
            let _ = match &failure {
                Some(e) => reject.call1(&JsValue::UNDEFINED, &to_js(e.clone())),
                None => resolve.call0(&JsValue::UNDEFINED),
            };
        }
    }
}

/// Delivers `record` and whatever queued behind it, until the queue drains
/// or a sink answers with a Promise (the rest continues when it settles).
fn pump(chan: &Rc<Channel>, first: TrajectoryRecord) {
    let mut next = Some(first);
    while let Some(record) = next.take() {
        match chan.hand(record) {
            // A MemorySink kept the record itself (no copy), settled at once.
            Handed::Kept(Ok(())) => next = chan.dispatcher.borrow_mut().settle_kept().next,
            Handed::Kept(Err(refused)) => {
                let (e, record) = *refused;
                next = chan.settle(record, Err(e));
            }
            Handed::Written(record, Delivery::Done(outcome)) => next = chan.settle(record, outcome),
            Handed::Written(record, Delivery::Pending(promise)) => {
                // A built-in sink's pending delivery is a JsonlSink's writer.
                let what = if matches!(chan.target, Target::Native(_)) { "JsonlSink writer" } else { "sink.record" };
                let chan = chan.clone();
                spawn_local(async move {
                    let outcome = crate::wasm::waiting::Settled::of(&promise).await.map(drop).map_err(|e| from_callback(what, &e));
                    if let Some(n) = chan.settle(record, outcome) {
                        pump(&chan, n);
                    }
                    chan.wake_if_idle();
                });
                return;
            }
        }
    }
    chan.wake_if_idle();
}

/// Stamps payloads into ordered, versioned records of one run and hands them
/// to a sink. See the README's "Capture" section.
#[wasm_bindgen]
pub struct TrajectoryRecorder {
    state: Rc<RefCell<Recorder>>,
    chan: Rc<Channel>,
    clock: JsClock,
}

impl TrajectoryRecorder {
    /// A recorder that stamps records and delivers them nowhere.
    pub(crate) fn without_sink(clock: JsClock) -> TrajectoryRecorder {
        let chan = Channel {
            target: Target::Nowhere,
            dispatcher: RefCell::new(Dispatcher::new(SinkPolicy::Fail)),
            on_error: None,
            waiters: RefCell::default(),
        };
        TrajectoryRecorder { state: Rc::new(RefCell::new(Recorder::new(None))), chan: Rc::new(chan), clock }
    }

    /// The last record was refused because the clock failed (`Recorder::clock_failed`).
    pub(crate) fn clock_failed(&self) -> bool {
        self.state.try_borrow().is_ok_and(|s| s.clock_failed())
    }

    /// The run is recording its end (`Recorder::close`).
    pub(crate) fn close(&self) {
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.close();
        }
    }

    /// Stamps and submits a payload from Rust: its seq, and with `keep` the
    /// stamped record's JSON text (written from the record before the sink
    /// takes it: a deep copy of the record, to write later, measured
    /// slower).
    pub(crate) fn record_payload(&self, payload: Payload, keep: bool) -> Result<(u64, Option<String>), Error> {
        if let Some(f) = self.chan.dispatcher.borrow().failure() {
            return Err(f.clone());
        }
        let reading = self.clock.try_now();
        let mut state = self.state.try_borrow_mut().map_err(|_| Error::new(ErrorCode::Busy, "recorder is in use"))?;
        let now = state.time_for(&payload, reading)?;
        let record = state.stamp(payload, now)?;
        drop(state);
        let (seq, copy) = (record.seq, keep.then(|| crate::core::write::json(&record)));
        let submitted = self.chan.dispatcher.borrow_mut().submit(record)?;
        if let Some(now) = submitted {
            pump(&self.chan, now);
        }
        match self.chan.dispatcher.borrow().failure() {
            Some(f) => Err(f.clone()),
            None => Ok((seq, copy)),
        }
    }
}

#[wasm_bindgen]
impl TrajectoryRecorder {
    /// `sink`: a `MemorySink`, a `JsonlSink`, or any object with
    /// `record(r): void | Promise<void>`.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "Sink")] sink: JsValue, opts: Option<RecorderOptions>) -> JsResult<TrajectoryRecorder> {
        let opts: JsValue = opts.map(Into::into).unwrap_or(JsValue::UNDEFINED);
        check_options(&opts, &RECORDER_OPTIONS, "TrajectoryRecorder options").js()?;
        let opt = |key: &'static str| option(&opts, key, "TrajectoryRecorder options").js();
        let target = match native_sink_of(&sink) {
            Some(native) => Target::Native(native),
            // Freed, its record() would refuse every record, one warning each.
            None if freed_sink(&sink) => return Err(to_js(crate::core::capture::closed("sink"))),
            // A recorder has record() too, but it takes payloads, not records:
            // every record would fail in it.
            None if property(&sink, "nextSeq").as_f64().is_some() && property(&sink, "child").is_function() => {
                return Err(to_js(Error::invalid_argument(
                    "sink is a TrajectoryRecorder, which takes payloads, not records: give the recorder a sink (new TrajectoryRecorder(new MemorySink())), or record into the recorder you have",
                )))
            }
            None => {
                let record = property(&sink, "record").dyn_into::<Function>().map_err(|_| {
                    to_js(crate::core::capture::not_a_sink(&crate::wasm::hint_keys(&sink)))
                })?;
                Target::Js { object: sink, record }
            }
        };
        let policy = SinkPolicy::read(&arg(&opt("onSinkError")?)).js()?;
        let on_error = opt("onError")?;
        let on_error = arg(&on_error).callback("onError").js()?.then(|| on_error.unchecked_into::<Function>());
        let run_id = arg(&opt("runId")?).run_id("runId").js()?;
        let clock = JsClock::from_option(opt("clock")?).js()?;
        let chan = Channel { target, dispatcher: RefCell::new(Dispatcher::new(policy)), on_error, waiters: RefCell::default() };
        Ok(TrajectoryRecorder { state: Rc::new(RefCell::new(Recorder::new(run_id))), chan: Rc::new(chan), clock })
    }

    /// Records one payload and returns its `seq`. Throws a coded error for a
    /// bad payload (nothing recorded), and under `onSinkError: 'fail'` once
    /// the sink has failed.
    pub fn record(&self, #[wasm_bindgen(unchecked_param_type = "TrajectoryPayloadInput")] payload: JsValue) -> JsResult<f64> {
        if let Some(f) = self.chan.dispatcher.borrow().failure() {
            return Err(to_js(f.clone()));
        }
        if !payload.is_object() || crate::wasm::is_array(&payload) {
            return Err(to_js(Error::new(
                ErrorCode::InvalidRecord,
                format!("payload must be an object {{ kind, ... }}, got {}", describe(&payload)),
            )));
        }
        let read: serde_json::Value = crate::wasm::from_js(&payload, "payload", ErrorCode::InvalidRecord).js()?;
        // JSON has no NaN or Infinity: JSON.stringify wrote null, which would read as "not given".
        for (key, _) in read.as_object().into_iter().flatten().filter(|(_, v)| v.is_null()) {
            if let Some(n) = js_sys::Reflect::get(&payload, &key.into()).ok().and_then(|v| v.as_f64()) {
                return Err(to_js(Error::new(
                    ErrorCode::InvalidRecord,
                    format!("payload.{key}: invalid value: the number {}, which JSON cannot hold", crate::core::number::show(n)),
                )));
            }
        }
        // What a caller writes: a field no reader knows is refused, not dropped.
        let payload: Payload = crate::core::read::read_written(read, "payload").map_err(|e| to_js(Error::new(ErrorCode::InvalidRecord, e)))?;
        self.record_payload(payload, false).map(|(seq, _)| seq as f64).js()
    }

    /// A recorder for a child run: same sink and clock, its own seq space
    /// from 0, `parentRunId` set to this run and `depth` one deeper.
    pub fn child(
        &self,
        #[wasm_bindgen(js_name = runId, unchecked_optional_param_type = "string")] run_id: Option<JsValue>,
    ) -> JsResult<TrajectoryRecorder> {
        let run_id = arg(&run_id.unwrap_or(JsValue::UNDEFINED)).run_id("runId").js()?;
        let child = self.state.borrow().child(run_id).js()?;
        Ok(TrajectoryRecorder { state: Rc::new(RefCell::new(child)), chan: self.chan.clone(), clock: self.clock.clone() })
    }

    /// Resolves when every record so far has reached the sink; rejects with
    /// `SINK_FAILED` if the sink failed under `onSinkError: 'fail'`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn flush(&self) -> Promise {
        let chan = self.chan.clone();
        Promise::new(&mut |resolve, reject| {
            chan.waiters.borrow_mut().push((resolve, reject));
            chan.wake_if_idle();
        })
    }

    /// Records stamped but not delivered because the sink failed under
    /// `onSinkError: 'fail'`, starting with the one that failed.
    #[wasm_bindgen(unchecked_return_type = "TrajectoryRecord[]")]
    pub fn undelivered(&self) -> JsResult<JsValue> {
        let d = self.chan.dispatcher.borrow();
        crate::wasm::to_js(&d.undelivered().collect::<Vec<_>>())
    }

    /// This run's id, or the default one (`{prefix}-{now}` by this
    /// recorder's clock) for a run started without one.
    #[wasm_bindgen(js_name = __runIdOr, skip_typescript)]
    pub fn run_id_or(&self, prefix: &str) -> JsResult<String> {
        match self.run_id() {
            Some(id) => Ok(id),
            None => Ok(crate::core::capture::default_run_id(prefix, self.clock.try_now().js()?)),
        }
    }

    #[wasm_bindgen(getter = runId)]
    pub fn run_id(&self) -> Option<String> {
        self.state.borrow().run_id().map(str::to_owned)
    }

    #[wasm_bindgen(getter = parentRunId)]
    pub fn parent_run_id(&self) -> Option<String> {
        self.state.borrow().parent_run_id().map(str::to_owned)
    }

    #[wasm_bindgen(getter)]
    pub fn depth(&self) -> u32 {
        self.state.borrow().depth()
    }

    /// The seq the next record of this run will carry.
    #[wasm_bindgen(getter = nextSeq)]
    pub fn next_seq(&self) -> f64 {
        self.state.borrow().next_seq() as f64
    }

    /// Whether this run's `run_started` has been recorded.
    #[wasm_bindgen(getter)]
    pub fn started(&self) -> bool {
        self.state.borrow().started()
    }

    /// Whether this run's `run_ended` has been recorded (nothing may follow it).
    #[wasm_bindgen(getter)]
    pub fn ended(&self) -> bool {
        self.state.borrow().ended()
    }

    /// Records stamped and not yet accepted by the sink (shared with children).
    #[wasm_bindgen(getter)]
    pub fn pending(&self) -> usize {
        self.chan.dispatcher.borrow().pending()
    }

    /// Records the sink failed to store under `onSinkError: 'drop'`.
    #[wasm_bindgen(getter)]
    pub fn dropped(&self) -> f64 {
        self.chan.dispatcher.borrow().dropped() as f64
    }
}
