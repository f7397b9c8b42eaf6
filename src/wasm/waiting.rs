//! Waiting on JS: a Promise's settlement and `setTimeout` as futures.
//!
//! `wasm_bindgen_futures::JsFuture` and gloo's `TimeoutFuture` make new
//! wasm-bindgen closures for every wait (a JS function, a finalizer entry,
//! and their teardown), and a generated turn waits several times. Here the
//! closures are made once per thread and each wait binds them to its own
//! slot (`Function.prototype.bind`), so a wait costs a bound function or
//! two and a reused slot. A run's deadlines share one JS timer
//! ([`Deadlines`]). Measured: tests/bench/generate.mjs.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(f: &Function, ms: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
    /// Every runtime the package supports has `performance.now()`.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;

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

/// A new wait.
fn open() -> Key {
    WAITS.with(|w| {
        let mut slots = w.slots.borrow_mut();
        let at = w.free.borrow_mut().pop().unwrap_or_else(|| {
            slots.push(Slot::default());
            (slots.len() - 1) as u32
        });
        let slot = &mut slots[at as usize];
        slot.generation = slot.generation.wrapping_add(1);
        slot.open = true;
        Key { at, generation: slot.generation }
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
        let key = open();
        let (on_ok, on_err) = WAITS.with(|w| (bind(w, key, true), bind(w, key, false)));
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

/// The deadlines of one run, sharing one JS timer: a model call's deadline
/// is a time and a wait, and the timer, armed for the earliest, is set
/// again only when it fires or an earlier deadline comes. A call that
/// answers in time costs a clock reading, not a `setTimeout` and a
/// `clearTimeout` (in Node, a timer list made and dropped for each call):
/// about 1 µs of a plain generated turn (two calls), measured in Node 20.
/// One per run, not per thread: in a Worker a timer belongs to the request
/// that set it, and requests share the thread.
pub struct Deadlines {
    state: Rc<DeadlineState>,
}

struct DeadlineState {
    /// Each pending deadline: when it falls due (`performance.now()` ms), and its wait.
    pending: RefCell<Vec<(f64, Key)>>,
    /// The armed JS timer: when it fires, and its handle.
    armed: RefCell<Option<(f64, JsValue)>>,
    /// What the timer calls (made once per run).
    fire: Closure<dyn FnMut()>,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines::new()
    }
}

impl Deadlines {
    pub fn new() -> Deadlines {
        let state = Rc::new_cyclic(|weak: &Weak<DeadlineState>| {
            let weak = weak.clone();
            DeadlineState {
                pending: RefCell::default(),
                armed: RefCell::default(),
                // FnMut, as the abort listener's: one closure type in the module.
                fire: Closure::<dyn FnMut()>::new(move || {
                    if let Some(state) = weak.upgrade() {
                        state.fired();
                    }
                }),
            }
        });
        Deadlines { state }
    }

    /// A future done `ms` from now (0..=2^31 - 1, as `setTimeout` takes);
    /// dropping it forgets the deadline.
    pub fn after(&self, ms: i32) -> Sleep {
        let key = open();
        let now = performance_now();
        let due = now + f64::from(ms);
        let state = &self.state;
        state.pending.borrow_mut().push((due, key));
        if state.armed.borrow().as_ref().is_none_or(|(at, _)| *at > due) {
            state.arm(now, due);
        }
        Sleep { key, deadlines: state.clone() }
    }
}

impl DeadlineState {
    /// (Re)sets the JS timer to fire at `due`.
    fn arm(&self, now: f64, due: f64) {
        if let Some((_, handle)) = self.armed.take() {
            clear_timeout(&handle);
        }
        // Whole milliseconds, rounded up: never before `due`.
        let handle = set_timeout(self.fire.as_ref().unchecked_ref(), (due - now).ceil().clamp(0.0, 2_147_483_647.0) as i32);
        *self.armed.borrow_mut() = Some((due, handle));
    }

    /// The timer fired: every deadline now due is done; the timer is armed
    /// again for the earliest left. (A host may fire a timer a little
    /// early by this clock; a deadline not yet due waits for the next.)
    fn fired(&self) {
        self.armed.take();
        let now = performance_now();
        let mut next = f64::INFINITY;
        // Settling wakes a wait's task; it runs later, never in here.
        self.pending.borrow_mut().retain(|&(at, key)| {
            if at > now {
                next = next.min(at);
            } else {
                settle(key, Ok(JsValue::UNDEFINED));
            }
            at > now
        });
        if next.is_finite() {
            self.arm(now, next);
        }
    }

    fn forget(&self, key: Key) {
        let mut pending = self.pending.borrow_mut();
        if let Some(i) = pending.iter().position(|(_, k)| k.at == key.at && k.generation == key.generation) {
            pending.swap_remove(i);
        }
    }
}

impl Drop for Deadlines {
    /// The run is over: its timer goes, so it keeps nothing alive.
    fn drop(&mut self) {
        if let Some((_, handle)) = self.state.armed.take() {
            clear_timeout(&handle);
        }
    }
}

/// A deadline of a run's [`Deadlines`] as a future; dropping it forgets it.
pub struct Sleep {
    key: Key,
    deadlines: Rc<DeadlineState>,
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        poll_slot(self.key, cx).map(drop)
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.deadlines.forget(self.key);
        close(self.key);
    }
}
