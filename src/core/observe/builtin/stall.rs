//! Stall detection over a sliding window of call fingerprints: repeats of
//! the same call and outcome, the same call failing again and again, A/B
//! alternation, hammering one target, and read/write thrash on one path.
//! Polling tools are exempt: waiting on a long job is not a stall.
//!
//! The window is small (20 by default), so detection compares entries
//! pairwise without building maps, and text is written only for problems
//! that are actually reported.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use crate::observe::assessment::{Assessment, Observation};
use crate::observe::budget::Budget;
use crate::observe::detector::{Detector, Usage, MAX_WINDOW};
use crate::observe::escalation::{with_note, Escalation, Seen};
use crate::observe::fingerprint::{mix, FileOp, FpBuild};
use crate::observe::log::CallFacts;
use crate::observe::Outcome;
use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StallConfig {
    pub name: String,
    /// Calls the detector looks back over.
    pub window: usize,
    /// Tools whose repeats are expected (status polls, waits).
    pub polling_tools: Vec<String>,
    /// Same call with the same outcome this many times in the window.
    pub repeat_threshold: usize,
    /// Same call failing this many times in the window.
    pub failing_repeat_threshold: usize,
    /// Same tool on the same target this many times in the last `target_window` calls.
    pub same_target_threshold: usize,
    pub target_window: usize,
}

/// The `'stall'` observer.
pub struct Stall;

impl Detector for Stall {
    const KIND: &'static str = "stall";
    const REPORTS: &'static str = "within the last `window` calls: the same call with the same outcome ×4, the same call failing ×3, A/B/A/B/A/B alternation, the same tool on the same target ≥ 5 times in 10 calls, read→write→read→write on one path. Evidence names the calls.";
    const LIMITS: &'static str = "`window` from 6, `window` and `targetWindow` at most 1,000, every threshold at least 2";
    type Config = StallConfig;
    type State = StallState;

    fn check_options(c: &StallConfig) -> Result<()> {
        if c.window < 6 || c.target_window == 0 || c.repeat_threshold < 2 || c.failing_repeat_threshold < 2 || c.same_target_threshold < 2 {
            return Err(Error::invalid_argument(format!(
                "window must be at least 6 and every threshold at least 2, got window {}, targetWindow {}, repeatThreshold {}, failingRepeatThreshold {}, sameTargetThreshold {}",
                c.window, c.target_window, c.repeat_threshold, c.failing_repeat_threshold, c.same_target_threshold
            )));
        }
        if c.window > MAX_WINDOW || c.target_window > MAX_WINDOW {
            return Err(Error::invalid_argument(format!("window and targetWindow must be at most {MAX_WINDOW}")));
        }
        Ok(())
    }

    fn name(c: &StallConfig) -> &str {
        &c.name
    }

    fn on_call(c: &StallConfig, s: &mut StallState, facts: &CallFacts) {
        s.on_call(c, facts)
    }

    fn check(c: &StallConfig, s: &mut StallState, _: &Budget, _: &Usage) -> Outcome {
        s.check(c)
    }
}

impl Default for StallConfig {
    fn default() -> Self {
        StallConfig {
            name: "Stall".into(),
            window: 20,
            polling_tools: Vec::new(),
            repeat_threshold: 4,
            failing_repeat_threshold: 3,
            same_target_threshold: 5,
            target_window: 10,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StallState {
    window: VecDeque<CallFacts>,
    escalation: Escalation,
    /// Derived from `window`; rebuilt on restore rather than stored.
    #[serde(skip)]
    tally: Tally,
}

/// Counts kept up to date as calls enter and leave the window, so a check
/// that finds nothing costs O(1) instead of a pairwise scan. They only say
/// whether a pattern *may* be present (never missing one); the scan decides.
#[derive(Debug, Clone, Default, PartialEq)]
struct Tally {
    /// call fingerprint -> failing calls in the window
    failing: HashMap<u64, usize, FpBuild>,
    /// (call, outcome) -> calls in the window
    same: HashMap<u64, usize, FpBuild>,
    /// target -> calls among the last `target_window`
    target: HashMap<u64, usize, FpBuild>,
    /// Keys at or over their threshold, per map.
    hot: usize,
    /// path -> (last op, alternating run length, call index of its last entry)
    runs: HashMap<u64, (FileOp, usize, u64), FpBuild>,
    /// Newest call that extended an alternating read/write run to 4 or more.
    last_thrash: u64,
    built: bool,
}

fn bump(map: &mut HashMap<u64, usize, FpBuild>, key: u64, up: bool, threshold: usize, hot: &mut usize) {
    let n = map.entry(key).or_insert(0);
    if up {
        *n += 1;
        if *n == threshold {
            *hot += 1;
        }
    } else {
        if *n == threshold {
            *hot -= 1;
        }
        *n -= 1;
        if *n == 0 {
            map.remove(&key);
        }
    }
}

impl Tally {
    fn count(&mut self, cfg: &StallConfig, c: &CallFacts, up: bool) {
        if !c.success {
            bump(&mut self.failing, c.call_fp.0, up, cfg.failing_repeat_threshold, &mut self.hot);
        }
        bump(&mut self.same, mix(c.call_fp.0, c.outcome_fp.0), up, cfg.repeat_threshold, &mut self.hot);
    }

    fn target(&mut self, cfg: &StallConfig, c: &CallFacts, up: bool) {
        bump(&mut self.target, c.target_fp.0, up, cfg.same_target_threshold, &mut self.hot);
    }

    fn run(&mut self, c: &CallFacts) {
        if !matches!(c.op, FileOp::Read | FileOp::Write) || c.path_fp.0 == 0 {
            return;
        }
        let entry = self.runs.entry(c.path_fp.0).or_insert((c.op, 0, 0));
        entry.1 = if entry.1 > 0 && entry.0 == c.op { 1 } else { entry.1 + 1 };
        entry.0 = c.op;
        entry.2 = c.call_index;
        if entry.1 >= 4 {
            self.last_thrash = c.call_index;
        }
    }

    fn rebuild(&mut self, cfg: &StallConfig, window: &VecDeque<CallFacts>) {
        *self = Tally { built: true, ..Tally::default() };
        let start = window.len().saturating_sub(cfg.target_window);
        for (i, c) in window.iter().enumerate() {
            self.count(cfg, c, true);
            if i >= start {
                self.target(cfg, c, true);
            }
            self.run(c);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    RepeatedFailure,
    Loop,
    Alternation,
    SameTarget,
    Thrash,
}

/// A pattern found in the window: positions in the window, oldest first.
struct Problem {
    key: u64,
    kind: Kind,
    at: Vec<usize>,
}

impl StallState {
    pub fn on_call(&mut self, cfg: &StallConfig, facts: &CallFacts) {
        if cfg.polling_tools.iter().any(|t| **t == *facts.tool_name) {
            return;
        }
        if !self.tally.built {
            self.tally.rebuild(cfg, &self.window);
        }
        if self.window.len() == cfg.window {
            if let Some(old) = self.window.pop_front() {
                self.tally.count(cfg, &old, false);
                // Forget a path's run once its last call has left the window.
                if self.tally.runs.get(&old.path_fp.0).is_some_and(|r| r.2 == old.call_index) {
                    self.tally.runs.remove(&old.path_fp.0);
                }
            }
        }
        // The same-target count covers only the last `target_window` calls.
        if self.window.len() >= cfg.target_window {
            let leaving = &self.window[self.window.len() - cfg.target_window];
            self.tally.target(cfg, leaving, false);
        }
        self.tally.count(cfg, facts, true);
        self.tally.target(cfg, facts, true);
        self.tally.run(facts);
        self.window.push_back(facts.clone());
    }

    /// Whether the scan could find anything: an exact pre-filter.
    fn may_have_problems(&mut self, cfg: &StallConfig) -> bool {
        if !self.tally.built {
            self.tally.rebuild(cfg, &self.window);
        }
        let n = self.window.len();
        let alternating =
            n >= 6 && self.window[n - 1].call_fp == self.window[n - 3].call_fp && self.window[n - 2].call_fp == self.window[n - 4].call_fp;
        let thrash = self.window.front().is_some_and(|f| self.tally.last_thrash >= f.call_index);
        self.tally.hot > 0 || alternating || thrash
    }

    fn problems(&self, cfg: &StallConfig) -> Vec<Problem> {
        let w = &self.window;
        let n = w.len();
        let mut out = Vec::new();
        // Calls already reported as failing or looping, so a same-target report does not repeat them.
        let mut covered: Vec<u64> = Vec::new();
        // Positions from `from` on that match; counted first, collected only on a hit.
        let positions = |from: usize, hit: &dyn Fn(&CallFacts) -> bool, at_least: usize| -> Option<Vec<usize>> {
            let count = (from..n).filter(|&j| hit(&w[j])).count();
            (count >= at_least).then(|| (from..n).filter(|&j| hit(&w[j])).collect())
        };

        for i in 0..n {
            let fp = w[i].call_fp;
            if (0..i).any(|j| w[j].call_fp == fp) {
                continue; // counted at its first occurrence
            }
            if let Some(at) = positions(i, &|c| c.call_fp == fp && !c.success, cfg.failing_repeat_threshold) {
                out.push(Problem { key: mix(1, fp.0), kind: Kind::RepeatedFailure, at });
                covered.push(fp.0);
                continue;
            }
            for k in i..n {
                let outcome = w[k].outcome_fp;
                if w[k].call_fp != fp || (i..k).any(|j| w[j].call_fp == fp && w[j].outcome_fp == outcome) {
                    continue;
                }
                if let Some(at) = positions(k, &|c| c.call_fp == fp && c.outcome_fp == outcome, cfg.repeat_threshold) {
                    out.push(Problem { key: mix(2, fp.0), kind: Kind::Loop, at });
                    covered.push(fp.0);
                    break;
                }
            }
        }

        if n >= 6 {
            let (a, b) = (w[n - 6].call_fp, w[n - 5].call_fp);
            if a != b && (n - 6..n).all(|j| w[j].call_fp == if (j - (n - 6)) % 2 == 0 { a } else { b }) {
                out.push(Problem { key: mix(3, mix(a.0.min(b.0), a.0.max(b.0))), kind: Kind::Alternation, at: (n - 6..n).collect() });
            }
        }

        let start = n.saturating_sub(cfg.target_window);
        for i in start..n {
            let t = w[i].target_fp;
            if (start..i).any(|j| w[j].target_fp == t) {
                continue;
            }
            if let Some(at) = positions(i, &|c| c.target_fp == t, cfg.same_target_threshold) {
                if !at.iter().all(|&j| covered.contains(&w[j].call_fp.0)) {
                    out.push(Problem { key: mix(4, t.0), kind: Kind::SameTarget, at });
                }
            }
        }

        let touches = |c: &CallFacts| matches!(c.op, FileOp::Read | FileOp::Write) && c.path_fp.0 != 0;
        for i in 0..n {
            let path = w[i].path_fp;
            if !touches(&w[i]) || (0..i).any(|j| touches(&w[j]) && w[j].path_fp == path) {
                continue;
            }
            // Longest run of alternating reads and writes on this path.
            let (mut best, mut run, mut last_op) = ((0, 0), (i, 0), None);
            for j in (i..n).filter(|&j| touches(&w[j]) && w[j].path_fp == path) {
                if last_op == Some(w[j].op) {
                    run = (j, 0);
                }
                run.1 += 1;
                last_op = Some(w[j].op);
                if run.1 > best.1 {
                    best = run;
                }
            }
            if best.1 >= 4 {
                let at: Vec<usize> = (best.0..n).filter(|&j| touches(&w[j]) && w[j].path_fp == path).take(best.1).collect();
                out.push(Problem { key: mix(5, path.0), kind: Kind::Thrash, at });
            }
        }
        out
    }

    fn describe(&self, p: &Problem, cfg: &StallConfig) -> Observation {
        let calls: Vec<&CallFacts> = p.at.iter().map(|&j| &self.window[j]).collect();
        let list = calls.iter().map(|c| format!("#{}", c.call_index)).collect::<Vec<_>>().join(", ");
        let first = calls[0];
        let (category, description) = match p.kind {
            Kind::RepeatedFailure => {
                ("repeated_failure", format!("`{}` failed {} times with the same arguments (calls {list}).", first.label(), calls.len()))
            }
            Kind::Loop => {
                ("loop", format!("`{}` was called {} times with the same arguments and the same result (calls {list}).", first.label(), calls.len()))
            }
            Kind::Alternation => {
                ("alternation", format!("Alternating between `{}` and `{}` without progress (calls {list}).", first.label(), calls[1].label()))
            }
            Kind::SameTarget => {
                let target = first.path.as_deref().map_or_else(|| first.label(), str::to_owned);
                let recent = self.window.len().min(cfg.target_window);
                ("stall", format!("`{}` worked on `{target}` {} times in the last {recent} calls (calls {list}).", first.tool_name, calls.len()))
            }
            Kind::Thrash => (
                "thrash",
                format!(
                    "Reading and writing `{}` back and forth ({} alternations, calls {list}).",
                    first.path.as_deref().unwrap_or_default(),
                    calls.len()
                ),
            ),
        };
        let evidence = calls
            .iter()
            .map(|c| match &c.error {
                Some(e) => format!("#{} {} -> error: {e}", c.call_index, c.label()),
                None => format!("#{} {} -> ok", c.call_index, c.label()),
            })
            .collect::<Vec<_>>()
            .join("\n");
        Observation { category: category.into(), description, evidence: Some(evidence) }
    }

    pub fn check(&mut self, cfg: &StallConfig) -> Outcome {
        let problems = if self.may_have_problems(cfg) { self.problems(cfg) } else { Vec::new() };
        let seen: Vec<Seen> =
            problems.iter().map(|p| Seen { key: p.key, latest: p.at.iter().map(|&j| self.window[j].call_index).max().unwrap_or(0) }).collect();
        self.escalation.update(&seen).into_outcome(|reported, severity| {
            let most = reported.iter().map(|(_, n)| *n).max().unwrap_or(1);
            let summary = format!(
                "Possible stall: {} repeating pattern{} in the last {} calls.",
                reported.len(),
                if reported.len() == 1 { "" } else { "s" },
                self.window.len()
            );
            let mut a = Assessment::new(cfg.name.clone(), with_note(summary, most), severity);
            a.observations = reported.iter().map(|(i, _)| self.describe(&problems[*i], cfg)).collect();
            a.suggestions = vec![
                "Stop repeating the same calls; they are not producing new information.".into(),
                "Re-read the last results and change the approach (different arguments, a different tool, or ask for help).".into(),
            ];
            a
        })
    }
}

impl crate::read::FromJson for StallState {
    /// The tally is derived from the window: rebuilt at the next call.
    fn from_json(v: Option<serde_json::Value>, at: &crate::read::At) -> std::result::Result<Self, String> {
        use crate::read::{field, object};
        let mut obj = object(v, at)?;
        Ok(StallState { window: field(&mut obj, "window", at)?, escalation: field(&mut obj, "escalation", at)?, tally: Tally::default() })
    }
}

from_json_options!(StallConfig {
    name: "name",
    window: "window",
    polling_tools: "pollingTools",
    repeat_threshold: "repeatThreshold",
    failing_repeat_threshold: "failingRepeatThreshold",
    same_target_threshold: "sameTargetThreshold",
    target_window: "targetWindow",
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::{ToolCallInput, ToolLog};

    /// Random calls over a tiny alphabet, so every pattern occurs often.
    fn calls(seed: u64, n: usize) -> Vec<CallFacts> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut log = ToolLog::default();
        (0..n)
            .map(|i| {
                let tool = ["read_file", "write_file", "ls", "poll"][next(4) as usize];
                let path = ["a", "b", "c"][next(3) as usize];
                let ok = next(3) != 0;
                let input = ToolCallInput {
                    tool_name: tool.into(),
                    params_json: Some(format!("{{\"path\":\"{path}\"}}")),
                    params_summary: None,
                    success: ok,
                    error_message: (!ok).then(|| ["boom", "nope"][next(2) as usize].to_owned()),
                };
                log.push(input, i as f64)
            })
            .collect()
    }

    #[test]
    fn the_pre_filter_never_misses_what_the_scan_finds() {
        let cfgs = [StallConfig::default(), StallConfig { window: 8, target_window: 6, polling_tools: vec!["poll".into()], ..Default::default() }];
        let (mut scans, mut found) = (0, 0);
        for cfg in &cfgs {
            for seed in 0..300 {
                let mut s = StallState::default();
                for c in calls(seed, 60) {
                    s.on_call(cfg, &c);
                    let problems = s.problems(cfg);
                    let may = s.may_have_problems(cfg);
                    assert!(problems.is_empty() || may, "seed {seed}: the scan found a pattern the pre-filter missed");
                    scans += 1;
                    found += usize::from(!problems.is_empty());
                }
            }
        }
        assert!(found > scans / 10, "the alphabet is small enough that patterns are common ({found} of {scans})");
    }

    #[test]
    fn tallies_rebuild_after_restore() {
        let cfg = StallConfig::default();
        let mut live = StallState::default();
        let all = calls(7, 90);
        for c in &all[..30] {
            live.on_call(&cfg, c);
        }
        let mut restored: StallState = crate::read::read(serde_json::to_value(&live).unwrap(), "state").unwrap();
        assert!(!restored.tally.built);
        let keys = |s: &StallState| s.problems(&cfg).iter().map(|p| p.key).collect::<Vec<_>>();
        for c in &all[30..] {
            live.on_call(&cfg, c);
            restored.on_call(&cfg, c);
            // Counts are exact either way; run lengths may differ (history vs window) but stay sound.
            assert_eq!(
                (&restored.tally.failing, &restored.tally.same, &restored.tally.target, restored.tally.hot),
                (&live.tally.failing, &live.tally.same, &live.tally.target, live.tally.hot)
            );
            assert_eq!(keys(&restored), keys(&live));
            assert!(keys(&restored).is_empty() || restored.may_have_problems(&cfg));
        }
    }
}
