//! Stall detection over a sliding window of call fingerprints: repeats of
//! the same call and outcome, the same call failing again and again, A/B
//! alternation, hammering one target, and read/write thrash on one path.
//! Polling tools are exempt: waiting on a long job is not a stall.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use super::assessment::{Assessment, Observation};
use super::escalation::{note, Escalation, Seen, Verdict};
use super::fingerprint::FileOp;
use super::log::{CallFacts, Fp};
use super::Outcome;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StallState {
    window: VecDeque<CallFacts>,
    escalation: Escalation,
}

struct Problem {
    key: String,
    category: &'static str,
    description: String,
    calls: Vec<u64>,
    evidence: String,
}

fn indexes(calls: &[&CallFacts]) -> Vec<u64> {
    calls.iter().map(|c| c.call_index).collect()
}

fn list(idx: &[u64]) -> String {
    idx.iter().map(|i| format!("#{i}")).collect::<Vec<_>>().join(", ")
}

fn evidence(calls: &[&CallFacts]) -> String {
    calls
        .iter()
        .map(|c| match &c.error {
            Some(e) => format!("#{} {} -> error: {}", c.call_index, c.label, e),
            None => format!("#{} {} -> ok", c.call_index, c.label),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl StallState {
    pub fn on_call(&mut self, cfg: &StallConfig, facts: &CallFacts) {
        if cfg.polling_tools.iter().any(|t| **t == *facts.tool_name) {
            return;
        }
        if self.window.len() == cfg.window {
            self.window.pop_front();
        }
        self.window.push_back(facts.clone());
    }

    fn problems(&self, cfg: &StallConfig) -> Vec<Problem> {
        let calls: Vec<&CallFacts> = self.window.iter().collect();
        let mut out = Vec::new();
        let mut reported_calls: Vec<Fp> = Vec::new();

        // Same call failing again and again (any error text), then same call + same outcome.
        let mut by_call: BTreeMap<Fp, Vec<&CallFacts>> = BTreeMap::new();
        for c in &calls {
            by_call.entry(c.call_fp).or_default().push(c);
        }
        for (fp, group) in &by_call {
            let failing: Vec<&CallFacts> = group.iter().copied().filter(|c| !c.success).collect();
            if failing.len() >= cfg.failing_repeat_threshold {
                let idx = indexes(&failing);
                out.push(Problem {
                    key: format!("failing:{:016x}", fp.0),
                    category: "repeated_failure",
                    description: format!("`{}` failed {} times with the same arguments (calls {}).", failing[0].label, failing.len(), list(&idx)),
                    calls: idx,
                    evidence: evidence(&failing),
                });
                reported_calls.push(*fp);
                continue;
            }
            let mut by_outcome: BTreeMap<Fp, Vec<&CallFacts>> = BTreeMap::new();
            for c in group {
                by_outcome.entry(c.outcome_fp).or_default().push(c);
            }
            if let Some(same) = by_outcome.values().find(|g| g.len() >= cfg.repeat_threshold) {
                let idx = indexes(same);
                out.push(Problem {
                    key: format!("repeat:{:016x}", fp.0),
                    category: "loop",
                    description: format!("`{}` was called {} times with the same arguments and the same result (calls {}).", same[0].label, same.len(), list(&idx)),
                    calls: idx,
                    evidence: evidence(same),
                });
                reported_calls.push(*fp);
            }
        }

        // A, B, A, B, A, B at the end of the window.
        if calls.len() >= 6 {
            let tail = &calls[calls.len() - 6..];
            let (a, b) = (tail[0].call_fp, tail[1].call_fp);
            if a != b && tail.iter().enumerate().all(|(i, c)| c.call_fp == if i % 2 == 0 { a } else { b }) {
                let idx = indexes(tail);
                out.push(Problem {
                    key: format!("alternating:{:016x}:{:016x}", a.0.min(b.0), a.0.max(b.0)),
                    category: "alternation",
                    description: format!("Alternating between `{}` and `{}` without progress (calls {}).", tail[0].label, tail[1].label, list(&idx)),
                    calls: idx,
                    evidence: evidence(tail),
                });
            }
        }

        // The same tool on the same target, many times in the last few calls.
        let recent = &calls[calls.len().saturating_sub(cfg.target_window)..];
        let mut by_target: BTreeMap<Fp, Vec<&CallFacts>> = BTreeMap::new();
        for c in recent {
            by_target.entry(c.target_fp).or_default().push(c);
        }
        for (fp, group) in by_target {
            let already = group.iter().all(|c| reported_calls.contains(&c.call_fp));
            if group.len() >= cfg.same_target_threshold && !already {
                let idx = indexes(&group);
                let target = group[0].path.clone().unwrap_or_else(|| group[0].label.clone());
                out.push(Problem {
                    key: format!("target:{:016x}", fp.0),
                    category: "stall",
                    description: format!("`{}` worked on `{}` {} times in the last {} calls (calls {}).", group[0].tool_name, target, group.len(), recent.len(), list(&idx)),
                    calls: idx,
                    evidence: evidence(&group),
                });
            }
        }

        // read -> write -> read -> write on one path.
        let mut by_path: BTreeMap<&str, Vec<&CallFacts>> = BTreeMap::new();
        for c in &calls {
            if let (Some(p), FileOp::Read | FileOp::Write) = (c.path.as_deref(), c.op) {
                by_path.entry(p).or_default().push(c);
            }
        }
        for (path, ops) in by_path {
            // Longest run of alternating read/write on this path.
            let mut best: Vec<&CallFacts> = Vec::new();
            let mut run: Vec<&CallFacts> = Vec::new();
            for c in ops {
                if run.last().is_some_and(|l| l.op == c.op) {
                    run = vec![c];
                } else {
                    run.push(c);
                }
                if run.len() > best.len() {
                    best = run.clone();
                }
            }
            if best.len() >= 4 {
                let idx = indexes(&best);
                out.push(Problem {
                    key: format!("thrash:{path}"),
                    category: "thrash",
                    description: format!("Reading and writing `{path}` back and forth ({} alternations, calls {}).", best.len(), list(&idx)),
                    calls: idx,
                    evidence: evidence(&best),
                });
            }
        }
        out
    }

    pub fn check(&mut self, cfg: &StallConfig) -> Outcome {
        let problems = self.problems(cfg);
        let seen: Vec<Seen> = problems.iter().map(|p| Seen { key: p.key.clone(), latest: p.calls.iter().copied().max().unwrap_or(0) }).collect();
        match self.escalation.update(&seen) {
            Verdict::Report { reported, severity } => {
                let most = reported.iter().map(|(_, n)| *n).max().unwrap_or(1);
                let mut summary = format!(
                    "Possible stall: {} repeating pattern{} in the last {} calls.",
                    reported.len(),
                    if reported.len() == 1 { "" } else { "s" },
                    self.window.len()
                );
                if let Some(n) = note(most) {
                    summary.push(' ');
                    summary.push_str(&n);
                }
                let mut a = Assessment::new(cfg.name.clone(), summary, severity);
                for (i, _) in &reported {
                    let p = &problems[*i];
                    a.observations.push(Observation { category: p.category.into(), description: p.description.clone(), evidence: Some(p.evidence.clone()) });
                }
                a.suggestions = vec![
                    "Stop repeating the same calls; they are not producing new information.".into(),
                    "Re-read the last results and change the approach (different arguments, a different tool, or ask for help).".into(),
                ];
                Outcome::Report(a)
            }
            Verdict::Quiet | Verdict::Clear => Outcome::Quiet,
            Verdict::Resolved => Outcome::Resolved,
        }
    }
}
