//! The steps' runtime state, eligibility, loop detection and the default
//! stop policy. All of it costs O(steps) per turn, never O(history).

use serde::Serialize;

use super::definition::{LoopDetection, StepGraph};
use super::trace::{StepTrace, StopReason};
use crate::core::error::Result;
use crate::core::host::LocalBoxFuture;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Idle,
    InProgress,
    Satisfied,
    Blocked,
    Failed,
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRuntimeState {
    pub step_id: String,
    pub status: StepStatus,
    pub attempts: u32,
    /// ISO 8601, from the injected clock.
    pub last_updated_at: String,
}

/// Every step's state, in graph order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub states: Vec<StepRuntimeState>,
}

impl Snapshot {
    pub fn new(graph: Option<&StepGraph>, now_iso: &str) -> Snapshot {
        let states = graph
            .map(|g| {
                g.steps
                    .iter()
                    .map(|s| StepRuntimeState { step_id: s.id.clone(), status: StepStatus::Idle, attempts: 0, last_updated_at: now_iso.to_owned() })
                    .collect()
            })
            .unwrap_or_default();
        Snapshot { states }
    }

    pub fn satisfied(&self, i: usize) -> bool {
        self.states[i].status == StepStatus::Satisfied
    }

    pub fn set(&mut self, i: usize, status: StepStatus, now_iso: &str) {
        let s = &mut self.states[i];
        if s.status != status {
            s.status = status;
            s.last_updated_at = now_iso.to_owned();
        }
    }

    /// Whether step `i` may still be selected: not done, not failed.
    pub fn open(&self, i: usize) -> bool {
        !matches!(self.states[i].status, StepStatus::Satisfied | StepStatus::Failed | StepStatus::Skipped)
    }

    /// Marks `skipped` every open step that waits (directly or through
    /// others) for a failed or skipped step: it can never run.
    pub fn propagate_skips(&mut self, g: &StepGraph, now_iso: &str) {
        loop {
            let mut changed = false;
            for (i, s) in g.steps.iter().enumerate() {
                if !self.open(i) {
                    continue;
                }
                let dead = s.requires().any(|d| {
                    let j = g.position(d).expect("validated ids");
                    matches!(self.states[j].status, StepStatus::Failed | StepStatus::Skipped)
                });
                if dead {
                    self.set(i, StepStatus::Skipped, now_iso);
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }
}

/// A loop found in the selected step ids.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopFound {
    SameStep { step: usize, times: usize },
    Cycle { steps: Vec<usize>, repetitions: usize },
}

/// Looks at the tail of `selected` (the newest selection last): the same
/// step more than `maxConsecutiveSameStep` times in a row, or a cycle of
/// 2..=`maxCycleLength` distinct steps repeated more than
/// `maxCycleRepetitions` times. Turns without a step break both.
pub fn detect_loop(selected: &[Option<usize>], cfg: &LoopDetection) -> Option<LoopFound> {
    let last = (*selected.last()?)?;
    let run = selected.iter().rev().take_while(|s| **s == Some(last)).count();
    if run > cfg.max_consecutive_same_step as usize {
        return Some(LoopFound::SameStep { step: last, times: run });
    }
    let reps = cfg.max_cycle_repetitions as usize + 1;
    for len in 2..=cfg.max_cycle_length as usize {
        let need = len * reps;
        if selected.len() < need {
            break;
        }
        let tail = &selected[selected.len() - need..];
        let block = &tail[..len];
        let distinct = block.iter().enumerate().all(|(i, s)| s.is_some() && !block[..i].contains(s));
        if distinct && tail.chunks(len).all(|c| c == block) {
            return Some(LoopFound::Cycle { steps: block.iter().map(|s| s.expect("checked")).collect(), repetitions: reps });
        }
    }
    None
}

/// What a policy sees before each turn.
pub struct PolicyContext<'a> {
    pub turn_index: u32,
    pub max_turns: u32,
    pub graph: Option<&'a StepGraph>,
    pub snapshot: &'a Snapshot,
    pub traces: &'a [StepTrace],
    /// The step chosen for this turn, if any.
    pub selected: Option<usize>,
    /// True when a graph exists, no step is eligible now, and no open step
    /// can ever become eligible (all remaining ones failed or wait on failures).
    pub exhausted: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PolicyDecision {
    pub stop: Option<(StopReason, bool, Option<String>)>,
}

impl PolicyDecision {
    pub const CONTINUE: PolicyDecision = PolicyDecision { stop: None };
    pub fn stop(reason: StopReason, completed: bool, summary: impl Into<String>) -> PolicyDecision {
        PolicyDecision { stop: Some((reason, completed, Some(summary.into()))) }
    }
}

/// Decides before each turn whether the run goes on. The default is
/// [`DefaultPolicy`]; the host may replace it.
pub trait Policy {
    fn evaluate<'a>(&'a self, ctx: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>>;
}

/// A terminal step satisfied (or, without terminals, every step
/// satisfied) → `goal-reached`; `maxTurns` turns done → `max-turns`;
/// nothing left that can run → `no-step-match`.
pub struct DefaultPolicy;

impl DefaultPolicy {
    pub fn decide(ctx: &PolicyContext<'_>) -> PolicyDecision {
        if let Some(g) = ctx.graph {
            if let Some(&t) = g.terminals.iter().find(|&&t| ctx.snapshot.satisfied(t)) {
                return PolicyDecision::stop(StopReason::GoalReached, true, format!("terminal step {:?} satisfied", g.steps[t].id));
            }
            if g.terminals.is_empty() && (0..g.steps.len()).all(|i| ctx.snapshot.satisfied(i)) {
                return PolicyDecision::stop(StopReason::GoalReached, true, "every step satisfied");
            }
        }
        if ctx.turn_index >= ctx.max_turns {
            return PolicyDecision::stop(StopReason::MaxTurns, false, format!("reached maxTurns ({})", ctx.max_turns));
        }
        if ctx.exhausted {
            return PolicyDecision::stop(StopReason::NoStepMatch, false, "no remaining step can run: the open ones failed or wait on failed steps");
        }
        PolicyDecision::CONTINUE
    }
}

impl Policy for DefaultPolicy {
    fn evaluate<'a>(&'a self, ctx: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>> {
        let d = DefaultPolicy::decide(ctx);
        Box::pin(async move { Ok(d) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &str) -> Vec<Option<usize>> {
        s.chars().map(|c| if c == '-' { None } else { Some(c as usize - 'a' as usize) }).collect()
    }

    #[test]
    fn same_step_more_than_the_limit() {
        let cfg = LoopDetection::default();
        assert_eq!(detect_loop(&ids("aaa"), &cfg), None);
        assert_eq!(detect_loop(&ids("baaaa"), &cfg), Some(LoopFound::SameStep { step: 0, times: 4 }));
        assert_eq!(detect_loop(&ids("aa-aa"), &cfg), None);
        assert_eq!(detect_loop(&ids("aaa-"), &cfg), None);
    }

    #[test]
    fn cycles_repeated_more_than_the_limit() {
        let cfg = LoopDetection::default();
        assert_eq!(detect_loop(&ids("abab"), &cfg), None);
        assert_eq!(detect_loop(&ids("ababab"), &cfg), Some(LoopFound::Cycle { steps: vec![0, 1], repetitions: 3 }));
        assert_eq!(detect_loop(&ids("abcabc"), &cfg), None);
        assert_eq!(detect_loop(&ids("xabcabcabc"), &cfg), Some(LoopFound::Cycle { steps: vec![0, 1, 2], repetitions: 3 }));
        // Length 4 exceeds maxCycleLength 3.
        assert_eq!(detect_loop(&ids("abcdabcdabcd"), &cfg), None);
        // A block with a repeated step is not a cycle of distinct steps.
        assert_eq!(detect_loop(&ids("abaabaaba"), &cfg), None);
        let wide = LoopDetection { max_cycle_length: 4, max_cycle_repetitions: 1, ..cfg };
        assert_eq!(detect_loop(&ids("abcdabcd"), &wide), Some(LoopFound::Cycle { steps: vec![0, 1, 2, 3], repetitions: 2 }));
    }
}
