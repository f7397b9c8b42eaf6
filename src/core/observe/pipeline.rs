//! The pipeline: the log, the shared observer state, the budget, the
//! observers and the current assessment. Recording a call runs in phases
//! (`push_call`, `run_builtin` / the host's own observers, `conclude`) so a
//! host can run JS observers between them without holding any borrow.

use serde::Serialize;
use serde_json::Value;

use super::assessment::CurrentAssessment;
use super::budget::Budget;
use super::builtin::Builtin;
use super::detector::Usage;
use super::log::{ToolCallInput, ToolLog};
use super::placement::{place_context, Placement};
use super::saved_log::SavedLog;
use super::trigger::{ObserverState, Trigger};
use super::Outcome;
use crate::error::{Error, ErrorCode, Result};
use crate::message::ModelMessage;
use crate::number::{quoted, MAX_SAFE_INTEGER};
use crate::value::check_clock;

pub const SNAPSHOT_SCHEMA: &str = "agent-trajectories/observer-pipeline";
/// Version 2 writes the log compact (see `saved_log.rs`); version 1 snapshots
/// are still read.
pub const SNAPSHOT_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq)]
// Few slots per pipeline, so the size gap between variants costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
pub enum Observer {
    Builtin(Builtin),
    /// Run by the host (a JS observer); the core only keeps its trigger and name.
    External {
        name: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub trigger: Trigger,
    pub observer: Observer,
}

impl Slot {
    pub fn name(&self) -> &str {
        match &self.observer {
            Observer::Builtin(b) => b.name(),
            Observer::External { name } => name,
        }
    }
    fn kind(&self) -> &str {
        match &self.observer {
            Observer::Builtin(b) => b.kind(),
            Observer::External { .. } => "custom",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Pipeline {
    slots: Vec<Slot>,
    /// Per slot: calls since that observer last ran (its `everyNCalls` counts these).
    since_run: Vec<u64>,
    log: ToolLog,
    state: ObserverState,
    budget: Budget,
    current: Option<CurrentAssessment>,
    max_age_calls: u64,
    started_at: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObserverSnapshot {
    pub observer: String,
    pub name: String,
    /// The detector's own state, kept as JSON text inside the snapshot.
    pub state: RawJson,
    /// The options the state was built under; a restore must use the same.
    /// Absent in snapshots of earlier builds (then not compared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<RawJson>,
    /// Calls since this observer last ran. Absent in snapshots of earlier
    /// builds, which counted calls since any assessment instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls_since_run: Option<u64>,
}

/// A detector's state or options as JSON: it passes through a snapshot
/// without the rest of the pipeline knowing its shape. Kept as a value, not
/// as raw text: validating raw text links serde's type-mismatch messages,
/// and with them float printing (~14 KB of wasm).
#[derive(Debug, Clone, PartialEq)]
pub struct RawJson(pub Value);

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// Every slice of a pipeline, JSON-safe.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PipelineSnapshot {
    pub schema: String,
    pub version: u32,
    pub started_at: f64,
    pub max_age_calls: u64,
    pub log: SavedLog,
    pub state: ObserverState,
    pub budget: Budget,
    pub current: Option<CurrentAssessment>,
    pub observers: Vec<ObserverSnapshot>,
}

/// The snapshot versions this build restores: this one, and version 1
/// (whose log is an array of calls).
fn reads_version(v: u64) -> bool {
    (1..=u64::from(SNAPSHOT_VERSION)).contains(&v)
}

fn unsupported_version(shown: &str) -> Error {
    Error::new(
        ErrorCode::UnsupportedSchemaVersion,
        format!("observer pipeline snapshot version {shown} is not one this build reads (1 to {SNAPSHOT_VERSION})"),
    )
}

impl PipelineSnapshot {
    /// Reads a snapshot from JSON text, checking that it is one (and of a
    /// version this build reads) before its shape, so a foreign object gets
    /// a clear error.
    pub fn from_json(text: &str) -> Result<PipelineSnapshot> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| Error::invalid_argument(format!("snapshot is not JSON: {}", crate::error::plain_serde(&e))))?;
        let schema = v.get("schema").and_then(Value::as_str);
        if schema != Some(SNAPSHOT_SCHEMA) {
            return Err(Error::invalid_argument(format!(
                "not an observer pipeline snapshot (schema {}, expected {SNAPSHOT_SCHEMA})",
                schema.map_or("missing".to_owned(), quoted),
                SNAPSHOT_SCHEMA = quoted(SNAPSHOT_SCHEMA)
            )));
        }
        let version = v.get("version").and_then(Value::as_u64);
        if !version.is_some_and(reads_version) {
            return Err(unsupported_version(&v.get("version").map_or("(missing)".to_owned(), crate::write::json)));
        }
        crate::read::read(v, "snapshot").map_err(Error::invalid_argument)
    }
}

/// What a pipeline was before a call, to undo the call when its
/// assessment cannot be recorded (a retry must not count it twice).
#[derive(Debug, Clone)]
pub struct Checkpoint {
    slots: Vec<Slot>,
    since_run: Vec<u64>,
    log_len: usize,
    consecutive_failures: u64,
    state: ObserverState,
    current: Option<CurrentAssessment>,
}

impl Pipeline {
    /// The messages with the current context placed as `placement` says;
    /// unchanged when there is no context.
    pub fn inject_into(&self, messages: Vec<ModelMessage>, placement: Placement) -> Vec<ModelMessage> {
        let context = self.context();
        if context.is_empty() {
            return messages;
        }
        place_context(messages, &context, placement)
    }

    pub fn new(slots: Vec<Slot>, budget: Budget, max_age_calls: u64, started_at: f64) -> Result<Pipeline> {
        budget.validate()?;
        check_clock(started_at)?;
        check_max_age(max_age_calls)?;
        let since_run = vec![0; slots.len()];
        Ok(Pipeline { slots, since_run, log: ToolLog::default(), state: ObserverState::default(), budget, current: None, max_age_calls, started_at })
    }

    /// The state a call can change; cheap (detector windows are bounded).
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            slots: self.slots.clone(),
            since_run: self.since_run.clone(),
            log_len: self.log.records().len(),
            consecutive_failures: self.log.consecutive_failures(),
            state: self.state.clone(),
            current: self.current.clone(),
        }
    }

    /// Back to `c`, as if the calls since had never been recorded.
    pub fn rollback(&mut self, c: Checkpoint) {
        self.slots = c.slots;
        self.since_run = c.since_run;
        self.log.truncate(c.log_len, c.consecutive_failures);
        self.state = c.state;
        self.current = c.current;
    }

    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }
    pub fn log(&self) -> &ToolLog {
        &self.log
    }
    pub fn state(&self) -> &ObserverState {
        &self.state
    }
    pub fn budget(&self) -> &Budget {
        &self.budget
    }
    pub fn current(&self) -> Option<&CurrentAssessment> {
        self.current.as_ref()
    }

    /// Phase 1: validates and appends the call, feeds the detectors, and
    /// returns the slots whose triggers fire. A refused call changes nothing.
    pub fn push_call(&mut self, input: ToolCallInput, now_ms: f64) -> Result<Vec<usize>> {
        ToolLog::validate(&input, now_ms)?;
        let facts = self.log.push(input, now_ms);
        self.state.tool_calls_since_assessment = (self.state.tool_calls_since_assessment + 1).min(MAX_SAFE_INTEGER);
        for slot in &mut self.slots {
            if let Observer::Builtin(b) = &mut slot.observer {
                b.on_call(&facts);
            }
        }
        let since = (now_ms - self.state.last_assessment_time.unwrap_or(self.started_at)) / 1000.0;
        let failures = self.log.consecutive_failures();
        let mut fired = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            // Saturating: a restored snapshot may carry any count up to 2^53 - 1.
            self.since_run[i] = (self.since_run[i] + 1).min(MAX_SAFE_INTEGER);
            if slot.trigger.fires(self.since_run[i], failures, since) {
                self.since_run[i] = 0;
                fired.push(i);
            }
        }
        Ok(fired)
    }

    /// Phase 2 for a built-in slot (an external slot is the host's to run).
    pub fn run_builtin(&mut self, slot: usize, now_ms: f64) -> Outcome {
        let usage = Usage { now_ms, started_at_ms: self.started_at, tool_calls: self.log.len() };
        match self.slots.get_mut(slot).map(|s| &mut s.observer) {
            Some(Observer::Builtin(b)) => b.check(&self.budget, &usage),
            _ => Outcome::Quiet,
        }
    }

    /// Phase 3: stores what the observers produced. New assessments replace
    /// the current set and reset the shared state; a resolved observer's
    /// old assessment leaves the set. Returns the new current set, if any.
    pub fn conclude(&mut self, outcomes: Vec<(usize, Outcome)>, now_ms: f64) -> Option<CurrentAssessment> {
        let mut produced = Vec::new();
        let mut resolved = Vec::new();
        for (slot, outcome) in outcomes {
            match outcome {
                Outcome::Report(mut a) => {
                    a.timestamp.get_or_insert(now_ms);
                    produced.push(a);
                }
                Outcome::Resolved => resolved.push(self.slots[slot].name().to_owned()),
                Outcome::Quiet => {}
            }
        }
        if produced.is_empty() {
            if let Some(current) = &mut self.current {
                current.assessments.retain(|a| !resolved.contains(&a.observer_name));
                if current.assessments.is_empty() {
                    self.current = None;
                }
            }
            return None;
        }
        let call_index = self.log.len();
        self.state = ObserverState {
            tool_calls_since_assessment: 0,
            last_assessment_time: Some(now_ms),
            last_assessment_call_index: call_index,
            total_assessments: (self.state.total_assessments + 1).min(MAX_SAFE_INTEGER),
        };
        let current = CurrentAssessment { assessments: produced, generated_at: now_ms, call_index };
        self.current = Some(current.clone());
        Some(current)
    }

    /// Moves the pipeline out, leaving an empty one with the same settings
    /// in its place (for [`Pipeline::record_tool_call`] to share it).
    pub(super) fn take(&mut self) -> Pipeline {
        let placeholder = Pipeline {
            slots: Vec::new(),
            since_run: Vec::new(),
            log: ToolLog::default(),
            state: ObserverState::default(),
            budget: Budget::default(),
            current: None,
            max_age_calls: self.max_age_calls,
            started_at: self.started_at,
        };
        std::mem::replace(self, placeholder)
    }

    /// The render for the next prompt; '' when there is none or it is
    /// stale (more than `maxAgeCalls` calls since it was generated).
    pub fn context(&self) -> String {
        match &self.current {
            Some(c) if !c.is_stale(self.log.len(), self.max_age_calls) => c.render(),
            _ => String::new(),
        }
    }

    /// Adds `n` tokens to the budget; refused (budget unchanged) past 2^53 − 1.
    pub fn record_tokens(&mut self, n: u64) -> Result<()> {
        let used = crate::number::checked_add(self.budget.tokens_used.unwrap_or(0), n, "recordTokens: tokensUsed")?;
        self.budget.tokens_used = Some(used);
        Ok(())
    }

    pub fn set_budget(&mut self, budget: Budget) -> Result<()> {
        budget.validate()?;
        self.budget = budget;
        Ok(())
    }

    pub fn snapshot(&self) -> PipelineSnapshot {
        PipelineSnapshot {
            schema: SNAPSHOT_SCHEMA.into(),
            version: SNAPSHOT_VERSION,
            started_at: self.started_at,
            max_age_calls: self.max_age_calls,
            log: SavedLog(self.log.records().to_vec()),
            state: self.state.clone(),
            budget: self.budget.clone(),
            current: self.current.clone(),
            observers: self
                .slots
                .iter()
                .zip(&self.since_run)
                .map(|(s, &since)| ObserverSnapshot {
                    observer: s.kind().to_owned(),
                    name: s.name().to_owned(),
                    state: RawJson(match &s.observer {
                        Observer::Builtin(b) => b.state(),
                        Observer::External { .. } => Value::Null,
                    }),
                    options: match &s.observer {
                        Observer::Builtin(b) => Some(RawJson(b.options())),
                        Observer::External { .. } => None,
                    },
                    calls_since_run: Some(since),
                })
                .collect(),
        }
    }

    /// Rebuilds a pipeline from a snapshot and the same observer list (the
    /// options come from `slots`; the state from the snapshot).
    pub fn restore(snapshot: PipelineSnapshot, mut slots: Vec<Slot>) -> Result<Pipeline> {
        if snapshot.schema != SNAPSHOT_SCHEMA {
            return Err(Error::invalid_argument(format!(
                "not an observer pipeline snapshot (schema {}, expected {SNAPSHOT_SCHEMA})",
                quoted(&snapshot.schema),
                SNAPSHOT_SCHEMA = quoted(SNAPSHOT_SCHEMA)
            )));
        }
        if !reads_version(u64::from(snapshot.version)) {
            return Err(unsupported_version(&snapshot.version.to_string()));
        }
        if snapshot.observers.len() != slots.len() {
            return Err(Error::invalid_argument(format!(
                "restore: the snapshot has {} observers but the options configure {}",
                snapshot.observers.len(),
                slots.len()
            )));
        }
        check_max_age(snapshot.max_age_calls)?;
        let mut since_run = Vec::with_capacity(slots.len());
        for (i, (saved, slot)) in snapshot.observers.into_iter().zip(&mut slots).enumerate() {
            let who = format!("observers[{i}] ({})", slot.name());
            if saved.observer != slot.kind() || saved.name != slot.name() {
                return Err(Error::invalid_argument(format!(
                    "restore: {who} does not match the snapshot's {} observer {}",
                    saved.observer,
                    quoted(&saved.name)
                )));
            }
            if let Observer::Builtin(b) = &mut slot.observer {
                if let Some(saved) = &saved.options {
                    if !b.same_options(&saved.0) {
                        let now = b.options();
                        return Err(Error::invalid_argument(format!(
                            "restore: {who} was snapshotted with options {} but is configured with {now}; \
                             its state only fits the options it was built under, so restore with the same options",
                            saved.0
                        )));
                    }
                }
                b.restore_state(saved.state.0, &who)?;
            }
            since_run.push(saved.calls_since_run.unwrap_or(snapshot.state.tool_calls_since_assessment));
        }
        snapshot.budget.validate()?;
        Ok(Pipeline {
            since_run,
            slots,
            log: ToolLog::from_records(snapshot.log.0)?,
            state: snapshot.state,
            budget: snapshot.budget,
            current: snapshot.current,
            max_age_calls: snapshot.max_age_calls,
            started_at: snapshot.started_at,
        })
    }
}

/// `maxAgeCalls` is compared with call counts: it must be an exact JS integer.
fn check_max_age(n: u64) -> Result<()> {
    if n > crate::number::MAX_SAFE_INTEGER {
        return Err(Error::invalid_argument(format!("maxAgeCalls must be at most {}, got {n}", crate::number::MAX_SAFE_INTEGER)));
    }
    Ok(())
}

from_json_struct!(PipelineSnapshot {
    schema: "schema",
    version: "version",
    started_at: "startedAt",
    max_age_calls: "maxAgeCalls",
    log: "log",
    state: "state",
    budget: "budget",
    current: "current",
    observers: "observers",
});
from_json_struct!(ObserverSnapshot { observer: "observer", name: "name", state: "state", options: "options", calls_since_run: "callsSinceRun" });

impl crate::read::FromJson for RawJson {
    fn from_json(v: Option<Value>, at: &crate::read::At) -> std::result::Result<Self, String> {
        Ok(RawJson(crate::read::present(v, at)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_that_is_not_json_is_said_so_in_the_words_every_json_input_gets() {
        // No parser position of a text the caller never saw, no parser word ("ident").
        let e = PipelineSnapshot::from_json("nope").unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidArgument, "snapshot is not JSON: expected value"));
    }
}
