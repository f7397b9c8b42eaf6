//! A run's state, and the snapshot made of it: JSON-safe, what a
//! `deliverableFactory` reads, what the result carries, and what a new
//! run resumes from (plan, overlay, last calls, counters).

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::config::Objective;
use super::plan::Plan;
use crate::core::error::{Error, Result};
use crate::core::vfs::{Change, Vfs, VfsLimits};

/// How many tool calls the snapshot (and the prompt) keeps.
pub const KEPT_INVOCATIONS: usize = 5;

pub const SNAPSHOT_FORMAT: &str = "agent-trajectories/background-snapshot";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastError {
    pub code: String,
    pub message: String,
}

/// A retry reflection asked for: the call to make next iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    pub tool_name: String,
    pub input: Value,
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Overlay {
    /// Files created or changed, with their text.
    pub written: BTreeMap<String, String>,
    pub deleted: Vec<String>,
    /// Each changed path: created, changed or deleted.
    #[serde(default)]
    pub changes: BTreeMap<String, Change>,
}

/// The JSON-safe snapshot of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub format: String,
    pub version: u32,
    pub objective: String,
    pub iterations: u64,
    pub failures: u64,
    pub consecutive_failures: u64,
    pub plan: Option<Plan>,
    pub tool_invocations: Vec<Invocation>,
    pub pending_reflection: Option<String>,
    #[serde(default)]
    pub retry: Option<Retry>,
    /// Every visible path, sorted.
    #[serde(default)]
    pub files: Vec<String>,
    pub overlay: Overlay,
    #[serde(default)]
    pub last_error: Option<LastError>,
    /// The observers' state, filled in by the binding (the pipeline's own snapshot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

    /// Continues from a snapshot: its counters, plan, calls and overlay.
    pub fn resume(&mut self, s: Snapshot) -> Result<()> {
        let bad = |m: String| Error::invalid_argument(format!("resumeFrom: {m}"));
        if s.format != SNAPSHOT_FORMAT || s.version != 1 {
            return Err(bad(format!("not a background run snapshot (format {:?}, version {})", s.format, s.version)));
        }
        for (path, text) in &s.overlay.written {
            self.vfs.write(path, text).map_err(|e| bad(e.message))?;
        }
        for path in &s.overlay.deleted {
            self.vfs.rm(path).map_err(|e| bad(e.message))?;
        }
        self.iteration = s.iterations;
        self.failures = s.failures;
        self.consecutive_failures = s.consecutive_failures;
        self.plan = s.plan;
        self.invocations = s.tool_invocations.into_iter().rev().take(KEPT_INVOCATIONS).rev().collect();
        self.pending_reflection = s.pending_reflection;
        self.retry = s.retry;
        self.last_error = s.last_error;
        Ok(())
    }

    pub fn push(&mut self, i: Invocation) {
        if self.invocations.len() == KEPT_INVOCATIONS {
            self.invocations.pop_front();
        }
        self.invocations.push_back(i);
    }

    pub fn snapshot(&self, objective: &str) -> Snapshot {
        let mut overlay = Overlay::default();
        for (path, change) in self.vfs.changes() {
            match change {
                Change::Deleted => overlay.deleted.push(path.clone()),
                _ => {
                    let text = self.vfs.read(&path, 0, None).unwrap_or_default();
                    overlay.written.insert(path.clone(), text);
                }
            }
            overlay.changes.insert(path, change);
        }
        Snapshot {
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
