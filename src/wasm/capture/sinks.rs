//! `MemorySink` and `JsonlSink`. A recorder given one of these feeds it in
//! Rust without building a JS object per record; to find the Rust state
//! behind a JS sink object it looks up the object's handle in a registry.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::record_from_js;
use crate::core::capture::{self, Sink, TrajectoryRecord};
use crate::core::{Error, ErrorCode};
use crate::wasm::error::{from_callback, IntoJs, JsResult};
use crate::wasm::types::JsonlWriter;

/// State of a `JsonlSink`: accumulated text, or a writer that takes each line.
pub struct JsonlState {
    pub lines: RefCell<capture::JsonlSink>,
    pub writer: Option<Function>,
}

#[derive(Clone)]
pub enum NativeSink {
    Memory(Rc<RefCell<capture::MemorySink>>),
    Jsonl(Rc<JsonlState>),
}

/// What handing one record to a sink came to.
pub enum Delivery {
    Done(Result<(), Error>),
    Pending(Promise),
}

impl Delivery {
    /// Classifies what a JS callback returned: a thenable is pending.
    pub fn from_return(ret: JsValue) -> Delivery {
        if crate::wasm::is_thenable(&ret) {
            Delivery::Pending(Promise::resolve(&ret))
        } else {
            Delivery::Done(Ok(()))
        }
    }
}

/// What a sink did with a record handed over whole.
pub enum Handed {
    /// A sink that keeps records kept it (`Ok`), or refused it and gave it back.
    Kept(Result<(), Box<(Error, TrajectoryRecord)>>),
    /// A sink that writes records instead wrote it: the record back, with
    /// how the writing went.
    Written(TrajectoryRecord, Delivery),
}

impl NativeSink {
    /// A `MemorySink` keeps the record itself, not a copy; a `JsonlSink`
    /// writes its line.
    pub fn hand(&self, record: TrajectoryRecord) -> Handed {
        match self {
            NativeSink::Memory(m) => Handed::Kept(match m.try_borrow_mut() {
                Ok(mut m) => m.keep(record),
                Err(_) => Err(Box::new((busy(), record))),
            }),
            NativeSink::Jsonl(state) => {
                let delivery = state.write(&record);
                Handed::Written(record, delivery)
            }
        }
    }
}

impl JsonlState {
    /// Accumulates the record's line, or hands it to the writer.
    fn write(&self, record: &TrajectoryRecord) -> Delivery {
        match &self.writer {
            None => Delivery::Done(match self.lines.try_borrow_mut() {
                Ok(mut l) => l.accept(record),
                Err(_) => Err(busy()),
            }),
            Some(writer) => {
                if let Err(e) = self.lines.try_borrow().map_err(|_| busy()).and_then(|l| l.check_open()) {
                    return Delivery::Done(Err(e));
                }
                let mut line = String::with_capacity(256);
                capture::jsonl::write_line(&mut line, record);
                match writer.call1(&JsValue::UNDEFINED, &line.into()) {
                    Ok(ret) => Delivery::from_return(ret),
                    Err(e) => Delivery::Done(Err(from_callback("JsonlSink writer", &e))),
                }
            }
        }
    }
}

fn busy() -> Error {
    Error::new(ErrorCode::Busy, "sink is in use by a callback that is still running")
}

thread_local! {
    // An entry lives as long as its JS sink object; a recorder holds its own
    // clone of the state, so freeing the JS object never pulls it from under it.
    static REGISTRY: RefCell<(u32, HashMap<u32, NativeSink>)> = RefCell::new((0, HashMap::new()));
}

fn register(sink: NativeSink) -> u32 {
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        r.0 = r.0.wrapping_add(1);
        let id = r.0;
        r.1.insert(id, sink);
        id
    })
}

fn unregister(id: u32) {
    REGISTRY.with(|r| r.borrow_mut().1.remove(&id));
}

const HANDLE: &str = "__agentTrajectoriesSink";

/// Whether `value` is one of our sinks, freed: its handle's getter throws
/// (reading any key of null or undefined throws too: they are no sink).
pub fn freed_sink(value: &JsValue) -> bool {
    value.is_object() && Reflect::get(value, &HANDLE.into()).is_err()
}

/// The built-in sink behind a JS object, if it is one of ours.
pub fn native_sink_of(value: &JsValue) -> Option<NativeSink> {
    let id = Reflect::get(value, &HANDLE.into()).ok()?.as_f64()? as u32;
    REGISTRY.with(|r| r.borrow().1.get(&id).cloned())
}

/// Keeps every record in memory.
///
/// ```ts
/// const sink = new MemorySink();
/// const rec = new TrajectoryRecorder(sink);
/// rec.record({ kind: 'turn_started' });
/// sink.records(); // [{ schema_version: 1, seq: 0, ... }]
/// ```
#[wasm_bindgen]
pub struct MemorySink {
    id: u32,
    inner: Rc<RefCell<capture::MemorySink>>,
}

#[wasm_bindgen]
impl MemorySink {
    #[wasm_bindgen(constructor)]
    pub fn new() -> MemorySink {
        let inner = Rc::new(RefCell::new(capture::MemorySink::new()));
        MemorySink { id: register(NativeSink::Memory(inner.clone())), inner }
    }

    /// Stores a record given from JS (validated; a newer schema is refused).
    pub fn record(&self, #[wasm_bindgen(unchecked_param_type = "TrajectoryRecord")] record: JsValue) -> JsResult<()> {
        let r = record_from_js(&record).js()?;
        self.inner.try_borrow_mut().map_err(|_| busy()).js()?.accept(&r).js()
    }

    /// Every record so far, in delivery order.
    #[wasm_bindgen(unchecked_return_type = "TrajectoryRecord[]")]
    pub fn records(&self) -> JsResult<JsValue> {
        crate::wasm::to_js(self.inner.try_borrow().map_err(|_| busy()).js()?.records())
    }

    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.try_borrow().map(|m| m.len()).unwrap_or(0)
    }

    /// The records as JSONL text, one `\n`-terminated line each.
    #[wasm_bindgen(js_name = toJsonl)]
    pub fn to_jsonl(&self) -> JsResult<String> {
        Ok(self.inner.try_borrow().map_err(|_| busy()).js()?.to_jsonl())
    }

    pub fn clear(&self) -> JsResult<()> {
        self.inner.try_borrow_mut().map_err(|_| busy()).js()?.clear();
        Ok(())
    }

    #[wasm_bindgen(getter = __agentTrajectoriesSink, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.id
    }
}

impl Default for MemorySink {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for MemorySink {
    fn drop(&mut self) {
        unregister(self.id);
        // A recorder holding this sink now gets SINK_FAILED, not a black hole.
        if let Ok(mut m) = self.inner.try_borrow_mut() {
            m.close();
        }
    }
}

/// Writes records as JSONL: accumulated in memory, or, given a writer,
/// handed to it one `\n`-terminated line at a time (a writer may return a
/// Promise; the recorder then waits for it before the next line).
///
/// ```ts
/// const out = fs.createWriteStream('run.jsonl');
/// const sink = new JsonlSink((line) => { out.write(line); });
/// ```
#[wasm_bindgen]
pub struct JsonlSink {
    id: u32,
    state: Rc<JsonlState>,
}

#[wasm_bindgen]
impl JsonlSink {
    #[wasm_bindgen(constructor)]
    pub fn new(writer: Option<JsonlWriter>) -> JsResult<JsonlSink> {
        let writer = match writer {
            None => None,
            Some(w) => crate::wasm::optional_function(w.into(), "JsonlSink writer").js()?,
        };
        let state = Rc::new(JsonlState { lines: RefCell::new(capture::JsonlSink::new()), writer });
        Ok(JsonlSink { id: register(NativeSink::Jsonl(state.clone())), state })
    }

    /// Writes a record given from JS (validated; a newer schema is refused).
    #[wasm_bindgen(unchecked_return_type = "void | Promise<void>")]
    pub fn record(&self, #[wasm_bindgen(unchecked_param_type = "TrajectoryRecord")] record: JsValue) -> JsResult<JsValue> {
        let r = record_from_js(&record).js()?;
        match self.state.write(&r) {
            Delivery::Done(res) => res.map(|_| JsValue::UNDEFINED).js(),
            // The writer's rejection, as this package's error with it as the cause.
            Delivery::Pending(p) => Ok(wasm_bindgen_futures::future_to_promise(async move {
                crate::wasm::waiting::Settled::of(&p).await.map(|_| JsValue::UNDEFINED).map_err(|e| {
                    let mut err = crate::wasm::error::from_callback("JsonlSink writer", &e);
                    if err.code == ErrorCode::CallbackFailed {
                        err.code = ErrorCode::SinkFailed;
                    }
                    crate::wasm::error::to_js(err)
                })
            })
            .into()),
        }
    }

    /// The accumulated text (empty when a writer takes the lines).
    pub fn text(&self) -> JsResult<String> {
        Ok(self.state.lines.try_borrow().map_err(|_| busy()).js()?.text().to_owned())
    }

    /// The accumulated lines, without their newlines.
    pub fn lines(&self) -> JsResult<Vec<String>> {
        Ok(self.state.lines.try_borrow().map_err(|_| busy()).js()?.text().lines().map(str::to_owned).collect())
    }

    /// Hands over the accumulated text and starts empty.
    pub fn take(&self) -> JsResult<String> {
        Ok(self.state.lines.try_borrow_mut().map_err(|_| busy()).js()?.take())
    }

    /// Lines accumulated and not yet taken.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.state.lines.try_borrow().map(|l| l.len()).unwrap_or(0)
    }

    #[wasm_bindgen(getter = __agentTrajectoriesSink, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.id
    }
}

impl Drop for JsonlSink {
    fn drop(&mut self) {
        unregister(self.id);
        if let Ok(mut l) = self.state.lines.try_borrow_mut() {
            l.close();
        }
    }
}
