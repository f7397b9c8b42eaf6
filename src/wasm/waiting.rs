//! Waiting on JS: a Promise's settlement and `setTimeout` as futures.
//!
//! `wasm_bindgen_futures::JsFuture` and gloo's `TimeoutFuture` make new
//! wasm-bindgen closures for every wait (a JS function, a finalizer entry,
//! and their teardown), and a generated turn waits several times. Here the
//! closures are made once per thread and each wait binds them to its own
//! slot (`Function.prototype.bind`), so a wait costs a bound function or
//! two and a reused slot. Measured: tests/bench/generate.mjs.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(f: &Function, ms: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);

    /// A function, for `bind`.
    type Bindable;
    #[wasm_bindgen(method, js_name = bind)]
    fn bind_to(this: &Bindable, this_arg: &JsValue, at: u32, generation: u32, fulfilled: bool) -> Function;

    /// A Promise, for `then` with plain functions (js-sys takes closures).
    type Thenable;
    #[wasm_bindgen(method, js_name = then)]
    fn then_fns(this: &Thenable, on_ok: &Function, on_err: &Function) -> JsValue;
}

/// A wait in progress: what settled it (a timer's is `Ok(undefined)`), and
/// who to wake. A slot is reused once its wait is closed; `generation` tells
/// a late settlement of the old wait from the new one.
#[derive(Default)]
struct Slot {
    generation: u32,
    open: bool,
    settled: Option<Result<JsValue, JsValue>>,
    waker: Option<Waker>,
}

/// The waits of this thread, and the callbacks every wait binds.
struct Waits {
    slots: RefCell<Vec<Slot>>,
    free: RefCell<Vec<u32>>,
    /// `(slot, generation, fulfilled, value)`.
    on_settled: Closure<dyn Fn(u32, u32, bool, JsValue)>,
}

thread_local! {
    static WAITS: Waits = Waits {
        slots: RefCell::default(),
        free: RefCell::default(),
        on_settled: Closure::new(|at, generation, fulfilled, value| settle(Key { at, generation }, if fulfilled { Ok(value) } else { Err(value) })),
    };
}

/// Which wait: its slot and that slot's generation.
#[derive(Clone, Copy)]
struct Key {
    at: u32,
    generation: u32,
}

fn with_slot<R>(key: Key, f: impl FnOnce(&mut Slot) -> R) -> Option<R> {
    WAITS.with(|w| {
        let mut slots = w.slots.borrow_mut();
        let slot = slots.get_mut(key.at as usize).filter(|s| s.open && s.generation == key.generation)?;
        Some(f(slot))
    })
}

/// Delivers a settlement to its wait, if the wait is still open (one
/// dropped first, say after its deadline, leaves nothing to deliver to).
fn settle(key: Key, outcome: Result<JsValue, JsValue>) {
    let waker = with_slot(key, |slot| {
        slot.settled = Some(outcome);
        slot.waker.take()
    });
    if let Some(waker) = waker.flatten() {
        waker.wake();
    }
}

/// A new wait, and the callback bound to it as fulfilled.
fn open() -> (Key, Function) {
    WAITS.with(|w| {
        let mut slots = w.slots.borrow_mut();
        let at = w.free.borrow_mut().pop().unwrap_or_else(|| {
            slots.push(Slot::default());
            (slots.len() - 1) as u32
        });
        let slot = &mut slots[at as usize];
        slot.generation = slot.generation.wrapping_add(1);
        slot.open = true;
        let key = Key { at, generation: slot.generation };
        (key, bind(w, key, true))
    })
}

fn bind(w: &Waits, key: Key, fulfilled: bool) -> Function {
    w.on_settled.as_ref().unchecked_ref::<Bindable>().bind_to(&JsValue::UNDEFINED, key.at, key.generation, fulfilled)
}

fn poll_slot(key: Key, cx: &Context<'_>) -> Poll<Result<JsValue, JsValue>> {
    let polled = with_slot(key, |slot| match slot.settled.take() {
        Some(outcome) => Poll::Ready(outcome),
        None => {
            slot.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    });
    // Only an open wait is polled; a closed one has nothing more to give.
    polled.unwrap_or(Poll::Ready(Ok(JsValue::UNDEFINED)))
}

fn close(key: Key) {
    let closed = with_slot(key, |slot| {
        slot.open = false;
        slot.settled = None;
        slot.waker = None;
    });
    if closed.is_some() {
        WAITS.with(|w| w.free.borrow_mut().push(key.at));
    }
}

/// A Promise's outcome: `Ok(value)` or `Err(reason)`.
pub struct Settled {
    key: Key,
}

impl Settled {
    pub fn of(promise: &Promise) -> Settled {
        let (key, on_ok) = open();
        let on_err = WAITS.with(|w| bind(w, key, false));
        // The handlers are attached at once, so a rejection is never unhandled.
        promise.unchecked_ref::<Thenable>().then_fns(&on_ok, &on_err);
        Settled { key }
    }
}

impl Future for Settled {
    type Output = Result<JsValue, JsValue>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        poll_slot(self.key, cx)
    }
}

impl Drop for Settled {
    fn drop(&mut self) {
        close(self.key);
    }
}

/// `setTimeout(ms)` as a future; dropping it clears the timer, so a pending
/// one never keeps Node alive after what it guarded has finished.
pub struct Sleep {
    key: Key,
    handle: JsValue,
}

impl Sleep {
    /// `ms` as `setTimeout` takes it (callers clamp to 0..=2^31 - 1).
    pub fn new(ms: i32) -> Sleep {
        let (key, fire) = open();
        Sleep { key, handle: set_timeout(&fire, ms) }
    }
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        poll_slot(self.key, cx).map(drop)
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        clear_timeout(&self.handle);
        close(self.key);
    }
}
