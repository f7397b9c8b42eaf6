//! Stall detection over a sliding window of call fingerprints: repeats of
//! the same call and outcome, the same call failing again and again, A/B
//! alternation, hammering one target, and read/write thrash on one path.
//! Polling tools are exempt: waiting on a long job is not a stall.
//!
//! The window is small (20 by default), so detection compares entries
//! pairwise without building maps, and text is written only for problems
//! that are actually reported.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::assessment::{Assessment, Observation};
use super::escalation::{note, Escalation, Seen, Verdict};
use super::fingerprint::{mix, FileOp};
use super::log::CallFacts;
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
        if self.window.len() == cfg.window {
            self.window.pop_front();
        }
        self.window.push_back(facts.clone());
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
            Kind::RepeatedFailure => ("repeated_failure", format!("`{}` failed {} times with the same arguments (calls {list}).", first.label(), calls.len())),
            Kind::Loop => ("loop", format!("`{}` was called {} times with the same arguments and the same result (calls {list}).", first.label(), calls.len())),
            Kind::Alternation => ("alternation", format!("Alternating between `{}` and `{}` without progress (calls {list}).", first.label(), calls[1].label())),
            Kind::SameTarget => {
                let target = first.path.as_deref().map_or_else(|| first.label(), str::to_owned);
                let recent = self.window.len().min(cfg.target_window);
                ("stall", format!("`{}` worked on `{target}` {} times in the last {recent} calls (calls {list}).", first.tool_name, calls.len()))
            }
            Kind::Thrash => ("thrash", format!("Reading and writing `{}` back and forth ({} alternations, calls {list}).", first.path.as_deref().unwrap_or_default(), calls.len())),
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
        let problems = self.problems(cfg);
        let seen: Vec<Seen> = problems
            .iter()
            .map(|p| Seen { key: p.key, latest: p.at.iter().map(|&j| self.window[j].call_index).max().unwrap_or(0) })
            .collect();
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
                a.observations = reported.iter().map(|(i, _)| self.describe(&problems[*i], cfg)).collect();
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
