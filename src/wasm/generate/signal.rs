//! Time and cancellation for a run, over JS: `setTimeout` as a future, a
//! macrotask yield per turn, and the run's `AbortSignal`.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use crate::core::host::LocalBoxFuture;
use crate::core::host::{Abort, Timer};
use crate::core::Error;
use crate::wasm::error::from_callback;
use crate::wasm::property;
use crate::wasm::waiting::{Deadlines, Settled};

/// A run's deadlines, on one JS timer (dropped with the run, it clears
/// it), and the JS layer's one-macrotask wait (`macrotask()` of
/// src/js/util.js), which the run's host object hands over.
pub struct JsTimer {
    macrotask: Option<Function>,
    deadlines: Deadlines,
}

impl JsTimer {
    /// `host.macrotask`: a function resolving after one macrotask.
    pub fn of(host: &JsValue) -> JsTimer {
        JsTimer { macrotask: property(host, "macrotask").dyn_into().ok(), deadlines: Deadlines::new() }
    }
}

impl Timer for JsTimer {
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        // The core caps step timeouts at 2^31 - 1 ms, what setTimeout takes.
        Box::pin(self.deadlines.after(ms.clamp(0.0, 2_147_483_647.0) as i32))
    }

    /// One macrotask, through the JS layer's `macrotask()` (it lets the
    /// host's due timers run, unlike a microtask); without the JS layer
    /// (the binding's own tests), no wait.
    fn yield_now(&self) -> LocalBoxFuture<'static, ()> {
        let waited = self.macrotask.as_ref().and_then(|f| f.call0(&JsValue::UNDEFINED).ok()).and_then(|p| p.dyn_into::<Promise>().ok());
        Box::pin(async move {
            if let Some(promise) = waited {
                let _ = Settled::of(&promise).await;
            }
        })
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
        let add =
            property(&signal, "addEventListener").dyn_into::<Function>().map_err(|_| Error::invalid_argument("signal must be an AbortSignal"))?;
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
    /// `signal.reason`: an `Error`'s message, a string as it is; none for
    /// `abort()` without one (a DOMException named `AbortError`).
    fn reason(&self) -> Option<String> {
        let reason = property(&self.signal, "reason");
        if reason.is_undefined() || property(&reason, "name").as_string().as_deref() == Some("AbortError") {
            return None;
        }
        Some(reason.as_string().or_else(|| crate::wasm::error::message_of(&reason)).unwrap_or_else(|| crate::wasm::error::describe(&reason)))
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
