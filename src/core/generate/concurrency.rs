//! The two combinators the loop needs, written out so the core depends on
//! no async runtime: wait for many futures at once (custom preconditions
//! run in parallel) and race one future against another (an answer against
//! its timeout or the abort signal). Single-threaded; nothing here spawns.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::host::LocalBoxFuture;

/// `call`, or a `TIMEOUT` error naming `what` once `deadline` ms pass on
/// `timer` (no deadline without either).
pub fn with_deadline<'a, T: 'a>(
    call: LocalBoxFuture<'a, crate::error::Result<T>>,
    timer: Option<&'a dyn crate::host::Timer>,
    deadline: Option<(f64, &'a str)>,
) -> LocalBoxFuture<'a, crate::error::Result<T>> {
    match (timer, deadline) {
        (Some(t), Some((ms, what))) => Box::pin(async move {
            match race(call, t.sleep(ms)).await {
                Either::Left(r) => r,
                Either::Right(()) => Err(crate::error::Error::new(
                    crate::error::ErrorCode::Timeout,
                    format!("no answer within {what} ({} ms)", crate::number::show(ms)),
                )),
            }
        }),
        _ => call,
    }
}

/// All futures polled together; resolves with their outputs in order.
pub fn join_all<'a, T: 'a>(futures: Vec<LocalBoxFuture<'a, T>>) -> JoinAll<'a, T> {
    let slots = futures.into_iter().map(Slot::Pending).collect();
    JoinAll { slots }
}

enum Slot<'a, T> {
    Pending(LocalBoxFuture<'a, T>),
    Done(Option<T>),
}

pub struct JoinAll<'a, T> {
    slots: Vec<Slot<'a, T>>,
}

impl<T> Unpin for JoinAll<'_, T> {}

impl<T> Future for JoinAll<'_, T> {
    type Output = Vec<T>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        let mut pending = false;
        for slot in self.slots.iter_mut() {
            if let Slot::Pending(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Slot::Done(Some(v)),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        let out = self
            .slots
            .iter_mut()
            .map(|s| match s {
                Slot::Done(v) => v.take().expect("join_all output taken once"),
                Slot::Pending(_) => unreachable!("every slot is done"),
            })
            .collect();
        Poll::Ready(out)
    }
}

pub enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Whichever future finishes first; the other is dropped. `first` is polled
/// first, so an answer that is already there wins over an expired timer.
pub fn race<'a, A: 'a, B: 'a>(first: LocalBoxFuture<'a, A>, second: LocalBoxFuture<'a, B>) -> Race<'a, A, B> {
    Race { first, second }
}

pub struct Race<'a, A, B> {
    first: LocalBoxFuture<'a, A>,
    second: LocalBoxFuture<'a, B>,
}

impl<A, B> Future for Race<'_, A, B> {
    type Output = Either<A, B>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Either<A, B>> {
        if let Poll::Ready(a) = self.first.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(a));
        }
        if let Poll::Ready(b) = self.second.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(b));
        }
        Poll::Pending
    }
}

/// Drives a future to completion on the current thread, for native tests
/// and tools whose host futures are ready or become ready when polled again.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_keeps_order_and_race_prefers_the_ready_answer() {
        let futs: Vec<LocalBoxFuture<'_, u32>> = vec![Box::pin(async { 1 }), Box::pin(async { 2 })];
        assert_eq!(block_on(join_all(futs)), vec![1, 2]);
        let r = block_on(race(Box::pin(async { "answer" }), Box::pin(async { "timer" })));
        assert!(matches!(r, Either::Left("answer")));
        let r = block_on(race(Box::pin(std::future::pending::<()>()), Box::pin(async { 7 })));
        assert!(matches!(r, Either::Right(7)));
    }
}
