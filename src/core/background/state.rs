//! A run's state, and the snapshot made of it: JSON-safe, what a
//! `deliverableFactory` reads, what the result carries, and what a new
//! run resumes from (plan, overlay, last calls, counters).

use std::collections::VecDeque;

use serde::Serialize;
use serde_json::{Map, Value};

use super::config::Objective;
use super::config::{list, text};
use super::plan::{Plan, PlanStep, StepStatus};
use crate::error::{Cause, Error, Result};
use crate::number::quoted;
use crate::vfs::{Change, Vfs, VfsLimits};

/// How many tool calls the snapshot (and the prompt) keeps.
pub const KEPT_INVOCATIONS: usize = 5;

pub const SNAPSHOT_FORMAT: &str = "agent-trajectories/background-snapshot";

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    /// The iteration it ran in (from 0).
    pub iteration: u64,
    pub tool_call_id: String,
    pub tool_name: String,
    pub input: Value,
    pub ok: bool,
    /// The result, or the error message of a failed call.
    pub result: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LastError {
    pub code: String,
    pub message: String,
    /// What the callback threw, for the result's `error.cause`; not part
    /// of a snapshot (a resumed run has only the code and message).
    #[serde(skip)]
    pub cause: Option<Cause>,
}

/// A retry reflection asked for: the call to make next iteration.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    pub tool_name: String,
    pub input: Value,
}

/// Reads snapshot fields, refusing what is missing or of the wrong kind
/// (strings and arrays through the objective's readers in `config.rs`).
struct Reader(&'static str);

impl Reader {
    fn bad(&self, m: &str) -> Error {
        Error::invalid_argument(format!("{}: {m}", self.0))
    }
    fn get<'v>(&self, v: &'v Value, key: &str) -> Result<&'v Value> {
        v.get(key).ok_or_else(|| self.bad(&format!("{key} is missing")))
    }
    fn count(&self, v: &Value, key: &str) -> Result<u64> {
        self.get(v, key)?.as_u64().filter(|n| *n <= crate::number::MAX_SAFE_INTEGER).ok_or_else(|| self.bad(&format!("{key} must be a whole number")))
    }
}

/// The live state of a run.
pub struct State {
    /// Iterations done.
    pub iteration: u64,
    /// Failed iterations in all, and in a row.
    pub failures: u64,
    pub consecutive_failures: u64,
    pub plan: Option<Plan>,
    pub invocations: VecDeque<Invocation>,
    pub pending_reflection: Option<String>,
    pub retry: Option<Retry>,
    /// Said to the model next iteration (its last answer did nothing).
    pub nudge: Option<String>,
    pub vfs: Vfs,
    pub last_error: Option<LastError>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Overlay {
    /// Files created or changed, with their text. (JSON maps: their code
    /// is in the module already, a BTreeMap's would be added.)
    pub written: Map<String, Value>,
    pub deleted: Vec<String>,
    /// Each changed path: `created`, `changed` or `deleted`.
    pub changes: Map<String, Value>,
}

/// The JSON-safe snapshot of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSnapshot {
    pub format: String,
    pub version: u32,
    pub objective: String,
    pub iterations: u64,
    pub failures: u64,
    pub consecutive_failures: u64,
    pub plan: Option<Plan>,
    pub tool_invocations: Vec<Invocation>,
    pub pending_reflection: Option<String>,
    pub retry: Option<Retry>,
    /// Every visible path, sorted.
    pub files: Vec<String>,
    pub overlay: Overlay,
    pub last_error: Option<LastError>,
    /// The observers' state, filled in by the binding (the pipeline's own snapshot).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observers: Option<Value>,
}

impl State {
    /// A fresh state over the objective's mounts.
    pub fn new(o: &Objective, limits: VfsLimits) -> Result<State> {
        let mut vfs = Vfs::new(limits);
        for (i, m) in o.mounts.iter().enumerate() {
            vfs.mount(&m.path, &m.files).map_err(|e| e.within(&format!("objective.hostMounts[{i}]")))?;
        }
        Ok(State {
            iteration: 0,
            failures: 0,
            consecutive_failures: 0,
            plan: None,
            invocations: VecDeque::new(),
            pending_reflection: None,
            retry: None,
            nudge: None,
            vfs,
            last_error: None,
        })
    }

    /// Continues from a snapshot (as JSON): its counters, plan, calls and
    /// overlay. Read by hand, not by a derived `Deserialize`: that cost
    /// ~14 KB gzip of module for this one use.
    pub fn resume(&mut self, v: &Value, objective: &str) -> Result<()> {
        let r = Reader("resumeFrom");
        if v.get("format").and_then(Value::as_str) != Some(SNAPSHOT_FORMAT) || v.get("version").and_then(Value::as_u64) != Some(1) {
            return Err(r.bad("is not a background run snapshot (result.snapshot, format agent-trajectories/background-snapshot, version 1)"));
        }
        let was = text(v.get("objective"), "resumeFrom.objective")?;
        if was != objective {
            return Err(r.bad(&format!(
                "is a snapshot of the objective {was}, not of {objective}; resume with the same objective",
                was = quoted(was),
                objective = quoted(objective)
            )));
        }
        let overlay = r.get(v, "overlay")?;
        if let Some(written) = r.get(overlay, "written")?.as_object() {
            for (path, text) in written {
                let text = text.as_str().ok_or_else(|| r.bad(&format!("overlay.written[{path}] must be a string", path = quoted(path))))?;
                self.vfs.write(path, text).map_err(|e| r.bad(&e.message))?;
            }
        }
        for path in list(overlay.get("deleted"), "resumeFrom.overlay.deleted")? {
            self.vfs.rm(text(Some(path), "resumeFrom.overlay.deleted[]")?).map_err(|e| r.bad(&e.message))?;
        }
        self.iteration = r.count(v, "iterations")?;
        self.failures = r.count(v, "failures")?;
        self.consecutive_failures = r.count(v, "consecutiveFailures")?;
        self.plan = match v.get("plan") {
            None | Some(Value::Null) => None,
            Some(p) => {
                let mut steps = Vec::new();
                for st in list(p.get("steps"), "resumeFrom.plan.steps")? {
                    let status = StepStatus::parse(text(st.get("status"), "resumeFrom.plan.steps[].status")?)
                        .ok_or_else(|| r.bad("plan.steps[].status must be pending, in_progress or done"))?;
                    let notes = list(st.get("notes"), "resumeFrom.plan.steps[].notes")?
                        .iter()
                        .map(|n| text(Some(n), "resumeFrom.plan.steps[].notes[]").map(str::to_owned))
                        .collect::<Result<_>>()?;
                    steps.push(PlanStep { title: text(st.get("title"), "resumeFrom.plan.steps[].title")?.to_owned(), status, notes });
                }
                Some(Plan { steps })
            }
        };
        self.invocations.clear();
        for i in list(v.get("toolInvocations"), "resumeFrom.toolInvocations")? {
            self.push(Invocation {
                iteration: r.count(i, "iteration")?,
                tool_call_id: text(i.get("toolCallId"), "resumeFrom.toolInvocations[].toolCallId")?.to_owned(),
                tool_name: text(i.get("toolName"), "resumeFrom.toolInvocations[].toolName")?.to_owned(),
                input: i.get("input").cloned().unwrap_or(Value::Null),
                ok: i.get("ok").and_then(Value::as_bool).unwrap_or(false),
                result: i.get("result").cloned().unwrap_or(Value::Null),
            });
        }
        self.pending_reflection = v.get("pendingReflection").and_then(Value::as_str).map(str::to_owned);
        self.retry = match v.get("retry").filter(|r| !r.is_null()) {
            Some(x) => Some(Retry {
                tool_name: text(x.get("toolName"), "resumeFrom.retry.toolName")?.to_owned(),
                input: x.get("input").cloned().unwrap_or(Value::Null),
            }),
            None => None,
        };
        self.last_error = v.get("lastError").filter(|e| !e.is_null()).map(|e| LastError {
            code: e.get("code").and_then(Value::as_str).unwrap_or("").to_owned(),
            message: e.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
            cause: None,
        });
        Ok(())
    }

    pub fn push(&mut self, i: Invocation) {
        if self.invocations.len() == KEPT_INVOCATIONS {
            self.invocations.pop_front();
        }
        self.invocations.push_back(i);
    }

    pub fn snapshot(&self, objective: &str) -> RunSnapshot {
        let mut overlay = Overlay::default();
        for (path, change) in self.vfs.changes() {
            match change {
                Change::Deleted => overlay.deleted.push(path.clone()),
                _ => {
                    let text = self.vfs.read(&path, 0, None).unwrap_or_default();
                    overlay.written.insert(path.clone(), text.into());
                }
            }
            let change = match change {
                Change::Created => "created",
                Change::Changed => "changed",
                Change::Deleted => "deleted",
            };
            overlay.changes.insert(path, change.into());
        }
        RunSnapshot {
            format: SNAPSHOT_FORMAT.into(),
            version: 1,
            objective: objective.to_owned(),
            iterations: self.iteration,
            failures: self.failures,
            consecutive_failures: self.consecutive_failures,
            plan: self.plan.clone(),
            tool_invocations: self.invocations.iter().cloned().collect(),
            pending_reflection: self.pending_reflection.clone(),
            retry: self.retry.clone(),
            files: self.vfs.files().map(|(p, _)| p.to_owned()).collect(),
            overlay,
            last_error: self.last_error.clone(),
            observers: None,
        }
    }
}
