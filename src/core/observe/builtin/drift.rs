//! Drift: the share of recent path-bearing calls that fall outside the
//! task's scope (paths or path prefixes, matched on whole path segments).

use std::collections::VecDeque;
use std::rc::Rc;

use serde::Serialize;

use crate::observe::assessment::{Assessment, Observation};
use crate::observe::budget::Budget;
use crate::observe::detector::{Detector, Usage, MAX_WINDOW};
use crate::observe::escalation::{with_note, Escalation, Seen};
use crate::observe::log::CallFacts;
use crate::observe::Outcome;
use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftConfig {
    pub name: String,
    /// The task's paths or path prefixes. Required.
    pub scope: Vec<String>,
    /// Path-bearing calls looked at.
    pub window: usize,
    /// Share outside the scope that counts as drift.
    pub threshold: f64,
}

/// The `'drift'` observer.
pub struct Drift;

impl Detector for Drift {
    const KIND: &'static str = "drift";
    const REPORTS: &'static str = "≥ 70 % of the last 10 path-bearing calls outside the task's scope (paths or prefixes, matched on whole segments)";
    const LIMITS: &'static str = "`scope` is required; `threshold` in (0, 1]; `window` from 1 to 1,000";
    type Config = DriftConfig;
    type State = DriftState;

    fn check_options(c: &DriftConfig) -> Result<()> {
        c.validate()?;
        if c.window > MAX_WINDOW {
            return Err(Error::invalid_argument(format!("window must be at most {MAX_WINDOW}")));
        }
        Ok(())
    }

    fn name(c: &DriftConfig) -> &str {
        &c.name
    }

    fn on_call(c: &DriftConfig, s: &mut DriftState, facts: &CallFacts) {
        s.on_call(c, facts)
    }

    fn check(c: &DriftConfig, s: &mut DriftState, _: &Budget, _: &Usage) -> Outcome {
        s.check(c)
    }
}

impl Default for DriftConfig {
    fn default() -> Self {
        DriftConfig { name: "Drift".into(), scope: Vec::new(), window: 10, threshold: 0.7 }
    }
}

fn clean(p: &str) -> &str {
    let p = p.strip_prefix("./").unwrap_or(p);
    p.strip_suffix('/').filter(|s| !s.is_empty()).unwrap_or(p)
}

impl DriftConfig {
    pub fn validate(&self) -> Result<()> {
        if self.scope.iter().all(|s| s.trim().is_empty()) {
            return Err(Error::invalid_argument("drift needs options.scope: the task's paths or path prefixes"));
        }
        if !(self.threshold > 0.0 && self.threshold <= 1.0) || self.window == 0 {
            return Err(Error::invalid_argument("drift: threshold must be in (0, 1] and window positive"));
        }
        Ok(())
    }

    pub fn in_scope(&self, path: &str) -> bool {
        let path = clean(path);
        self.scope.iter().map(|s| clean(s)).any(|s| path == s || (path.starts_with(s) && (s.ends_with('/') || path[s.len()..].starts_with('/'))))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DriftState {
    /// (call index, path, outside the scope)
    recent: VecDeque<(u64, Rc<str>, bool)>,
    outside: usize,
    escalation: Escalation,
}

impl DriftState {
    pub fn on_call(&mut self, cfg: &DriftConfig, facts: &CallFacts) {
        let Some(path) = &facts.path else { return };
        if self.recent.len() == cfg.window {
            if let Some((_, _, true)) = self.recent.pop_front() {
                self.outside -= 1;
            }
        }
        let outside = !cfg.in_scope(path);
        self.outside += usize::from(outside);
        self.recent.push_back((facts.call_index, path.clone(), outside));
    }

    pub fn check(&mut self, cfg: &DriftConfig) -> Outcome {
        let full = self.recent.len() == cfg.window;
        let drifting = full && self.outside as f64 >= cfg.threshold * cfg.window as f64;
        let latest_outside = self.recent.iter().rev().find(|r| r.2).map_or(0, |r| r.0);
        let seen = if drifting { vec![Seen { key: 0, latest: latest_outside }] } else { vec![] };
        self.escalation.update(&seen).into_outcome(|reported, severity| {
            let summary = format!(
                "{} of the last {} file operations were outside the task's scope ({}).",
                self.outside,
                self.recent.len(),
                cfg.scope.join(", ")
            );
            let mut a = Assessment::new(cfg.name.clone(), with_note(summary, reported[0].1), severity);
            let evidence = self.recent.iter().filter(|r| r.2).map(|(i, p, _)| format!("#{i} {p}")).collect::<Vec<_>>().join("\n");
            a.observations.push(Observation {
                category: "drift".into(),
                description: "Recent work is on files unrelated to the task.".into(),
                evidence: Some(evidence),
            });
            a.suggestions = vec!["Return to the task's files, or say why the work outside them is needed.".into()];
            a
        })
    }
}

from_json_struct!(DriftState { recent: "recent", outside: "outside", escalation: "escalation" });

from_json_options!(DriftConfig { name: "name", scope: "scope", window: "window", threshold: "threshold" });
