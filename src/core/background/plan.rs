//! The run's plan: the steps the model keeps through the plan tools, with
//! a status each and the notes (findings) it records on them.

use serde::Serialize;

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    InProgress,
    Done,
}

impl StepStatus {
    pub fn parse(s: &str) -> Option<StepStatus> {
        match s {
            "pending" => Some(StepStatus::Pending),
            "in_progress" => Some(StepStatus::InProgress),
            "done" => Some(StepStatus::Done),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::InProgress => "in_progress",
            StepStatus::Done => "done",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanStep {
    pub title: String,
    pub status: StepStatus,
    pub notes: Vec<String>,
}

/// Steps are numbered from 1 in the tools and the prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Plan {
    pub steps: Vec<PlanStep>,
}

/// Most steps a plan holds (a prompt must stay bounded).
pub const MAX_STEPS: usize = 64;
/// Most notes one step keeps; older ones are dropped first, and the prompt says so.
pub const MAX_NOTES: usize = 16;

fn step_title(title: &str) -> Result<String> {
    let t = super::config::to_ascii(title);
    if t.is_empty() {
        return Err(Error::invalid_argument("a step needs a title"));
    }
    Ok(t)
}

impl Plan {
    pub fn new(titles: &[String]) -> Result<Plan> {
        if titles.is_empty() || titles.len() > MAX_STEPS {
            return Err(Error::invalid_argument(format!("a plan needs 1 to {MAX_STEPS} steps, got {}", titles.len())));
        }
        let steps =
            titles.iter().map(|t| Ok(PlanStep { title: step_title(t)?, status: StepStatus::Pending, notes: Vec::new() })).collect::<Result<_>>()?;
        Ok(Plan { steps })
    }

    pub fn add(&mut self, title: &str) -> Result<usize> {
        if self.steps.len() >= MAX_STEPS {
            return Err(Error::invalid_argument(format!("the plan already has {MAX_STEPS} steps")));
        }
        self.steps.push(PlanStep { title: step_title(title)?, status: StepStatus::Pending, notes: Vec::new() });
        Ok(self.steps.len())
    }

    /// Sets step `n` (1-based) and adds a note when given.
    pub fn update(&mut self, n: u64, status: Option<StepStatus>, note: Option<&str>) -> Result<()> {
        let len = self.steps.len();
        let step = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.steps.get_mut(i))
            .ok_or_else(|| Error::invalid_argument(format!("no step {n}: the plan has steps 1 to {len}")))?;
        if let Some(s) = status {
            step.status = s;
        }
        if let Some(note) = note.map(str::trim).filter(|n| !n.is_empty()) {
            if step.notes.len() == MAX_NOTES {
                step.notes.remove(0);
            }
            step.notes.push(note.to_owned());
        }
        Ok(())
    }

    pub fn all_done(&self) -> bool {
        !self.steps.is_empty() && self.steps.iter().all(|s| s.status == StepStatus::Done)
    }

    /// The plan as the prompt shows it: `1. [done] title` and its notes.
    pub fn render(&self, out: &mut String) {
        for (i, s) in self.steps.iter().enumerate() {
            crate::write::put_int(out, i as u64 + 1);
            crate::write::put(out, &[". [", s.status.as_str(), "] ", &s.title, "\n"]);
            for n in &s.notes {
                crate::write::put(out, &["   - ", n, "\n"]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_by_number() {
        let mut p = Plan::new(&["map".into(), "check".into()]).unwrap();
        p.update(1, Some(StepStatus::Done), Some("two files")).unwrap();
        assert!(!p.all_done());
        assert!(p.update(3, None, None).unwrap_err().message.contains("steps 1 to 2"));
        assert!(p.update(0, None, None).is_err());
        p.update(2, StepStatus::parse("done"), None).unwrap();
        assert!(p.all_done());
        let mut s = String::new();
        p.render(&mut s);
        assert_eq!(s, "1. [done] map\n   - two files\n2. [done] check\n");
        assert!(Plan::new(&[]).is_err());
    }
}
