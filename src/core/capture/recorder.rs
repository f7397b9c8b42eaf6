//! Stamping and delivery. A [`Recorder`] turns payloads into records of one
//! run (seq, identity, time); a [`Dispatcher`] hands records to one sink in
//! order, even when the sink answers asynchronously, and applies the
//! failure policy. Parent and child recorders share one dispatcher, so a
//! sink sees the interleaved stream in the order it was recorded.

use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::rc::Rc;

use super::payload::Payload;
use super::record::{TrajectoryRecord, TRAJECTORY_SCHEMA_VERSION};
use crate::error::{Error, ErrorCode, Result};
use crate::number::quoted;
use crate::value::{check_clock, Arg};

#[derive(Debug, Clone, Default)]
pub struct Recorder {
    next_seq: u64,
    run_id: Option<String>,
    parent_run_id: Option<String>,
    depth: u32,
    started: bool,
    ended: bool,
    /// The time of the last record stamped.
    last_ms: Option<f64>,
    /// The run is recording its end (see [`Recorder::time_for`]).
    closing: bool,
    /// The last record was refused for the clock's failure ([`Recorder::time_for`]).
    clock_failed: bool,
    /// The run ids of this recorder's tree (the top-level run and its child
    /// runs at any depth), shared by them all: they write to one sink, and
    /// a reader tells their records apart by run id alone.
    ids: Rc<RefCell<HashSet<String>>>,
}

impl Recorder {
    /// A top-level recorder; the run id becomes known from `run_started`
    /// unless given here.
    pub fn new(run_id: Option<String>) -> Self {
        let r = Recorder { run_id, ..Default::default() };
        r.ids.borrow_mut().extend(r.run_id.clone());
        r
    }

    /// Takes `id` for a run of this tree, unless another run of it has it.
    fn claim(&self, id: &str, place: &str) -> Result<()> {
        if !self.ids.borrow_mut().insert(id.to_owned()) {
            return Err(Error::invalid_argument(format!(
                "{place}: run id {id} is already used by another run of this recorder (itself, its parent or another child); give each run its own id, so its records can be told apart",
                id = quoted(id)
            )));
        }
        Ok(())
    }

    /// A child run: its own seq space from 0, `parent_run_id` set to this
    /// run's id and `depth` one deeper.
    pub fn child(&self, run_id: Option<String>) -> Result<Recorder> {
        let parent = self
            .run_id
            .clone()
            .ok_or_else(|| Error::invalid_argument("child(): this run has no run id yet; record run_started first or give the recorder a runId"))?;
        if self.ended {
            // A child run is one of its parent's tool calls: it starts inside the parent's run.
            return Err(Error::invalid_argument(format!("child(): run {parent} already ended; a child run starts inside its parent's")));
        }
        if let Some(id) = &run_id {
            self.claim(id, "child()")?;
        }
        Ok(Recorder { run_id, parent_run_id: Some(parent), depth: self.depth + 1, ids: self.ids.clone(), ..Default::default() })
    }

    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }
    pub fn parent_run_id(&self) -> Option<&str> {
        self.parent_run_id.as_deref()
    }
    pub fn depth(&self) -> u32 {
        self.depth
    }
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }
    pub fn ended(&self) -> bool {
        self.ended
    }
    pub fn started(&self) -> bool {
        self.started
    }

    /// The run is recording its end: its closing records (a generated
    /// run's step states and `run_ended`; a background run's
    /// `run_terminated` and `run_ended`).
    pub fn close(&mut self) {
        self.closing = true;
    }

    /// The time to stamp `payload` at, given the clock's `reading`: a run's
    /// end is still recorded when the clock fails, at the last time it gave
    /// (the stream keeps its end, and its times never go back). Any other
    /// record is refused with the clock's error.
    pub fn time_for(&mut self, payload: &Payload, reading: Result<f64>) -> Result<f64> {
        let time = match (reading, self.last_ms) {
            (Err(_), Some(last)) if self.closing || matches!(payload, Payload::RunEnded { .. }) => Ok(last),
            (reading, _) => reading,
        };
        self.clock_failed = time.is_err();
        time
    }

    /// Whether the last record was refused because the clock failed: a run
    /// says so as the clock's fault, not the recorder's.
    pub fn clock_failed(&self) -> bool {
        self.clock_failed
    }

    /// Stamps a payload. Refuses (state unchanged) a second `run_started`,
    /// an identity that contradicts the recorder's, anything after `run_ended`
    /// and a time that is not a finite non-negative number.
    pub fn stamp(&mut self, payload: Payload, now_ms: f64) -> Result<TrajectoryRecord> {
        if self.ended {
            return Err(Error::invalid_argument(format!(
                "run {} already ended; {} cannot follow run_ended",
                self.run_id.as_deref().unwrap_or("(unnamed)"),
                payload.kind()
            )));
        }
        // Sibling child runs share a sink: one without an id yet could not be
        // told apart from another, so it names itself first.
        if self.parent_run_id.is_some() && self.run_id.is_none() && !matches!(payload, Payload::RunStarted { .. }) {
            return Err(Error::invalid_argument(format!(
                "this child run has no run id yet: record run_started first, or name it with child(runId); {} cannot come first",
                payload.kind()
            )));
        }
        check_clock(now_ms)?;
        if let Payload::RunStarted { identity } = &payload {
            // As a recorder's runId: an empty id names no run.
            if identity.run_id.is_empty() {
                return Err(Error::invalid_argument("run_started: identity.run_id must not be empty"));
            }
            if self.started {
                return Err(Error::invalid_argument("run_started recorded twice for one run"));
            }
            if let Some(id) = &self.run_id {
                if *id != identity.run_id {
                    return Err(Error::invalid_argument(format!(
                        "run_started names run {} but this recorder records run {id}",
                        quoted(&identity.run_id),
                        id = quoted(id)
                    )));
                }
            }
            if let (Some(mine), Some(theirs)) = (&self.parent_run_id, &identity.parent_run_id) {
                if mine != theirs {
                    return Err(Error::invalid_argument(format!(
                        "run_started names parent {theirs} but this recorder is a child of {mine}",
                        theirs = quoted(theirs),
                        mine = quoted(mine)
                    )));
                }
            }
            if self.run_id.is_none() {
                self.claim(&identity.run_id, "run_started")?;
            }
            self.run_id = Some(identity.run_id.clone());
            if self.parent_run_id.is_none() {
                self.parent_run_id = identity.parent_run_id.clone();
            }
            self.started = true;
        }
        if matches!(payload, Payload::RunEnded { .. }) {
            self.ended = true;
        }
        let record = TrajectoryRecord {
            schema_version: TRAJECTORY_SCHEMA_VERSION,
            seq: self.next_seq,
            run_id: self.run_id.clone(),
            parent_run_id: self.parent_run_id.clone(),
            depth: self.depth,
            // Whole milliseconds: hosts with sub-ms clocks would otherwise write floats.
            recorded_at_unix_ms: now_ms.floor() as u64,
            payload,
        };
        self.next_seq += 1;
        self.last_ms = Some(now_ms);
        Ok(record)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SinkPolicy {
    /// Report the failure (the binding calls `onError`) and keep going.
    #[default]
    Drop,
    /// Stop at the first failure: it surfaces to the caller as `SINK_FAILED`
    /// and the records not yet delivered stay available.
    Fail,
}

impl SinkPolicy {
    pub fn parse(s: &str) -> Result<SinkPolicy> {
        match s {
            "drop" => Ok(SinkPolicy::Drop),
            "fail" => Ok(SinkPolicy::Fail),
            other => Err(Error::invalid_argument(format!("onSinkError must be 'drop' or 'fail', got {other}", other = quoted(other)))),
        }
    }

    /// The `onSinkError` option: `'drop'` (the default) or `'fail'`.
    pub fn read(arg: &Arg) -> Result<SinkPolicy> {
        match arg {
            Arg::Absent => Ok(SinkPolicy::default()),
            Arg::Str(s) => SinkPolicy::parse(s),
            other => Err(Error::invalid_argument(format!("onSinkError must be 'drop' or 'fail', got {}", other.shown()))),
        }
    }
}

/// A run's id when its caller gave none: `{prefix}-{now}` in whole
/// milliseconds of the run's own clock (the injected one, so a replayed run
/// gets the same id). Generation's prefix is `trajectory`; a watched loop's
/// is its agent's name.
pub fn default_run_id(prefix: &str, now_ms: f64) -> String {
    format!("{prefix}-{}", now_ms.max(0.0).floor() as u64)
}

/// The keys of `TrajectoryRecorder` options.
pub const RECORDER_OPTIONS: [&str; 4] = ["clock", "onSinkError", "onError", "runId"];

/// `TrajectoryRecorder`'s first argument is no sink; `keys` are its own
/// keys. Options given first (`{ sink, runId }`) are said to go second.
pub fn not_a_sink(keys: &[String]) -> Error {
    let options_first = keys.iter().any(|k| k == "sink" || RECORDER_OPTIONS.contains(&k.as_str()));
    Error::invalid_argument(if options_first {
        "sink must be a MemorySink, a JsonlSink or an object with a record(r) method, got the options (they go second: new TrajectoryRecorder(sink, { runId, clock, ... }))"
    } else {
        "sink must be a MemorySink, a JsonlSink or an object with a record(r) method"
    })
}

/// What follows a settled delivery.
#[derive(Debug)]
pub struct Settled<R> {
    /// Under [`SinkPolicy::Drop`], a failure to report; the record is dropped.
    pub report: Option<Error>,
    /// The next record to deliver now, if any.
    pub next: Option<R>,
}

/// Ordering and failure policy for one sink: at most one delivery in flight,
/// the rest queued in submission order. Generic over the delivered item so
/// the binding can queue whatever it hands to JS.
#[derive(Debug)]
pub struct Dispatcher<R> {
    queue: VecDeque<R>,
    in_flight: bool,
    policy: SinkPolicy,
    failure: Option<Error>,
    delivered: u64,
    dropped: u64,
}

impl<R> Dispatcher<R> {
    pub fn new(policy: SinkPolicy) -> Self {
        Dispatcher { queue: VecDeque::new(), in_flight: false, policy, failure: None, delivered: 0, dropped: 0 }
    }

    /// Queues a record. Returns it back when the caller should deliver it
    /// right away (nothing in flight). Under `Fail`, after a failure, every
    /// submission is refused with that failure.
    pub fn submit(&mut self, item: R) -> Result<Option<R>> {
        if let Some(f) = &self.failure {
            return Err(f.clone());
        }
        if self.in_flight {
            self.queue.push_back(item);
            Ok(None)
        } else {
            self.in_flight = true;
            Ok(Some(item))
        }
    }

    /// The delivery of `item` (the one in flight) finished with `outcome`.
    /// Under `Fail` a failed item goes back to the head of the queue, so
    /// [`Dispatcher::undelivered`] starts with it.
    pub fn settle(&mut self, item: R, outcome: Result<()>) -> Settled<R> {
        match outcome {
            Ok(()) => self.settle_kept(),
            Err(e) => self.settle_failed(item, e),
        }
    }

    /// [`Dispatcher::settle`] of a delivery that succeeded and kept the
    /// item itself (so there is none to hand back).
    pub fn settle_kept(&mut self) -> Settled<R> {
        self.delivered += 1;
        self.next(None)
    }

    fn settle_failed(&mut self, item: R, e: Error) -> Settled<R> {
        let e = if e.code == ErrorCode::SinkFailed { e } else { Error::new(ErrorCode::SinkFailed, e.message) };
        match self.policy {
            SinkPolicy::Drop => {
                self.dropped += 1;
                self.next(Some(e))
            }
            SinkPolicy::Fail => {
                self.in_flight = false;
                self.failure = Some(e);
                self.queue.push_front(item);
                Settled { report: None, next: None }
            }
        }
    }

    /// The delivery in flight is over: the next queued item, if any, goes now.
    fn next(&mut self, report: Option<Error>) -> Settled<R> {
        let next = self.queue.pop_front();
        self.in_flight = next.is_some();
        Settled { report, next }
    }

    pub fn is_idle(&self) -> bool {
        !self.in_flight && (self.queue.is_empty() || self.failure.is_some())
    }
    pub fn failure(&self) -> Option<&Error> {
        self.failure.as_ref()
    }
    pub fn pending(&self) -> usize {
        self.queue.len() + usize::from(self.in_flight)
    }
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
    /// Records stamped but never delivered because the sink failed under
    /// `Fail`; empty otherwise. Nothing stamped is silently lost.
    pub fn undelivered(&self) -> impl Iterator<Item = &R> {
        self.queue.iter().filter(move |_| self.failure.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_run_id_is_the_prefix_and_the_clock() {
        assert_eq!(default_run_id("trajectory", 1_700_000_000_123.9), "trajectory-1700000000123");
        assert_eq!(default_run_id("support-bot", -5.0), "support-bot-0");
    }

    #[test]
    fn options_given_for_the_sink_are_said_to_go_second() {
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        assert_eq!(
            not_a_sink(&keys(&["sink", "runId"])).message,
            "sink must be a MemorySink, a JsonlSink or an object with a record(r) method, got the options (they go second: new TrajectoryRecorder(sink, { runId, clock, ... }))"
        );
        assert_eq!(not_a_sink(&keys(&["write"])).message, "sink must be a MemorySink, a JsonlSink or an object with a record(r) method");
    }

    #[test]
    fn on_sink_error_defaults_to_drop_and_names_its_values() {
        assert_eq!(SinkPolicy::read(&Arg::Absent).unwrap(), SinkPolicy::Drop);
        assert_eq!(SinkPolicy::read(&Arg::Str("fail".into())).unwrap(), SinkPolicy::Fail);
        assert_eq!(SinkPolicy::read(&Arg::Null).unwrap_err().message, "onSinkError must be 'drop' or 'fail', got null");
        assert_eq!(SinkPolicy::read(&Arg::Str("stop".into())).unwrap_err().message, "onSinkError must be 'drop' or 'fail', got \"stop\"");
    }
}
