//! The steps' runtime state: each step's status and attempts, and which
//! steps are still open. All of it costs O(steps) per turn, never O(history).

use serde::Serialize;

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

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Idle => "idle",
            StepStatus::InProgress => "in_progress",
            StepStatus::Satisfied => "satisfied",
            StepStatus::Blocked => "blocked",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
        }
    }
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
pub struct StepStates {
    pub states: Vec<StepRuntimeState>,
}

impl StepStates {
    /// Every step idle, given the steps' ids in graph order (none: a run
    /// without a step graph).
    pub fn new<'a>(step_ids: impl IntoIterator<Item = &'a str>, now_iso: &str) -> StepStates {
        let states = step_ids
            .into_iter()
            .map(|id| StepRuntimeState { step_id: id.to_owned(), status: StepStatus::Idle, attempts: 0, last_updated_at: now_iso.to_owned() })
            .collect();
        StepStates { states }
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
    /// others) for a failed or skipped step: it can never run. One pass
    /// over the edges from the dead steps; `dependents[i]`: the steps that
    /// wait for step `i` (the step graph's).
    pub fn propagate_skips(&mut self, dependents: &[Vec<usize>], now_iso: &str) {
        let mut dead: Vec<usize> =
            (0..dependents.len()).filter(|&i| matches!(self.states[i].status, StepStatus::Failed | StepStatus::Skipped)).collect();
        while let Some(i) = dead.pop() {
            for &d in &dependents[i] {
                if self.open(d) {
                    self.set(d, StepStatus::Skipped, now_iso);
                    dead.push(d);
                }
            }
        }
    }
}
