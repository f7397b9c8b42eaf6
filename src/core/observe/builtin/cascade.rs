//! Error cascades: a run of consecutive failures, with similar errors
//! grouped by their normalised message. Work per call is O(1) (bounded
//! groups, bounded index lists).

use std::collections::VecDeque;

use serde::Serialize;

use crate::observe::assessment::{Assessment, Observation};
use crate::observe::budget::Budget;
use crate::observe::detector::{Detector, Usage};
use crate::observe::escalation::{with_note, Escalation, Seen};
use crate::observe::log::{CallFacts, Fp};
use crate::observe::Outcome;
use crate::error::{Error, Result};
use crate::number::MAX_SAFE_INTEGER;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CascadeConfig {
    pub name: String,
    /// Consecutive failures that make a cascade.
    pub threshold: u64,
}

/// The `'error-cascade'` observer.
pub struct ErrorCascade;

impl Detector for ErrorCascade {
    const KIND: &'static str = "error-cascade";
    const REPORTS: &'static str =
        "≥ `threshold` consecutive failures, similar errors grouped (paths, numbers and ids normalised away) with counts and call numbers";
    const LIMITS: &'static str = "`threshold` at least 1";
    type Config = CascadeConfig;
    type State = CascadeState;

    fn check_options(c: &CascadeConfig) -> Result<()> {
        if c.threshold == 0 {
            return Err(Error::invalid_argument("threshold must be a positive integer"));
        }
        Ok(())
    }

    fn name(c: &CascadeConfig) -> &str {
        &c.name
    }

    fn on_call(_: &CascadeConfig, s: &mut CascadeState, facts: &CallFacts) {
        s.on_call(facts)
    }

    fn check(c: &CascadeConfig, s: &mut CascadeState, _: &Budget, _: &Usage) -> Outcome {
        s.check(c)
    }
}

impl Default for CascadeConfig {
    fn default() -> Self {
        CascadeConfig { name: "Error Cascade".into(), threshold: 3 }
    }
}

const MAX_GROUPS: usize = 8;
const MAX_INDEXES: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize)]
struct Group {
    key: Fp,
    message: String,
    count: u64,
    /// The newest few call indexes.
    calls: VecDeque<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CascadeState {
    run_start: u64,
    run_len: u64,
    last: u64,
    groups: Vec<Group>,
    escalation: Escalation,
}

impl CascadeState {
    pub fn on_call(&mut self, facts: &CallFacts) {
        if facts.success {
            self.run_len = 0;
            self.groups.clear();
            return;
        }
        if self.run_len == 0 {
            self.run_start = facts.call_index;
        }
        // Saturates: a snapshot holds only integers a JS number keeps exact.
        self.run_len = (self.run_len + 1).min(MAX_SAFE_INTEGER);
        self.last = facts.call_index;
        let pos = match self.groups.iter().position(|g| g.key == facts.outcome_fp) {
            Some(p) => p,
            None if self.groups.len() < MAX_GROUPS => {
                let message = facts.error.as_deref().unwrap_or_default().to_owned();
                self.groups.push(Group { key: facts.outcome_fp, message, count: 0, calls: VecDeque::new() });
                self.groups.len() - 1
            }
            // Past the cap, further kinds of error count in the last group.
            None => self.groups.len() - 1,
        };
        let g = &mut self.groups[pos];
        g.count = (g.count + 1).min(MAX_SAFE_INTEGER);
        if g.calls.len() == MAX_INDEXES {
            g.calls.pop_front();
        }
        g.calls.push_back(facts.call_index);
    }

    pub fn check(&mut self, cfg: &CascadeConfig) -> Outcome {
        let seen: Vec<Seen> = if self.run_len >= cfg.threshold { vec![Seen { key: self.run_start, latest: self.last }] } else { vec![] };
        self.escalation.update(&seen).into_outcome(|reported, severity| {
            let summary = format!(
                "{} consecutive tool calls have failed (since call #{}), with {} distinct error{}.",
                self.run_len,
                self.run_start,
                self.groups.len(),
                if self.groups.len() == 1 { "" } else { "s" }
            );
            let mut a = Assessment::new(cfg.name.clone(), with_note(summary, reported[0].1), severity);
            // Most frequent first; equal counts keep their order. At most
            // MAX_GROUPS: an insertion sort (no sort routine of its own in the module).
            let mut groups: Vec<&Group> = self.groups.iter().collect();
            for i in 1..groups.len() {
                let mut j = i;
                while j > 0 && groups[j - 1].count < groups[j].count {
                    groups.swap(j - 1, j);
                    j -= 1;
                }
            }
            for g in groups {
                let calls = g.calls.iter().map(|i| format!("#{i}")).collect::<Vec<_>>().join(", ");
                let shown =
                    if (g.calls.len() as u64) < g.count { format!("calls {calls} (newest {})", g.calls.len()) } else { format!("calls {calls}") };
                a.observations.push(Observation {
                    category: "error_cascade".into(),
                    description: format!("{} x the same error ({shown}).", g.count),
                    evidence: Some(if g.message.is_empty() { "(no error message)".into() } else { g.message.clone() }),
                });
            }
            a.suggestions = vec![
                "Stop and reassess: the current approach keeps failing.".into(),
                "Read the error messages and check your assumptions (inputs, paths, permissions) before trying again.".into(),
            ];
            a
        })
    }
}

from_json_struct!(Group { key: "key", message: "message", count: "count", calls: "calls" });
from_json_struct!(CascadeState { run_start: "run_start", run_len: "run_len", last: "last", groups: "groups", escalation: "escalation" });

from_json_options!(CascadeConfig { name: "name", threshold: "threshold" });
