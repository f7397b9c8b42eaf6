//! The rubric judge of a generated run (`runTrajectory`'s `judge`): what
//! the option reads, and [`Rubric`], the core's `RunJudge` over a model,
//! which grades the conversation so far with the rubric's prompt and answer.

use serde_json::Value;

use crate::rubric::{assess, read_criteria, request, transcript, Criterion};
use agent_trajectories_core::error::Result;
use agent_trajectories_core::generate::concurrency::with_deadline;
use agent_trajectories_core::generate::env::{JudgeAnswer, RunJudge};
use agent_trajectories_core::host::{LocalBoxFuture, Model, ModelRequest, Timer};
use agent_trajectories_core::message::ModelMessage;
use agent_trajectories_core::observe::Assessment;
use agent_trajectories_core::value::Opts;

/// The judge's options as `runTrajectory` reads them (`model` is the
/// binding's): `{ model, criteria, everyTurn?, endOnFail?, endOnPass? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSettings {
    pub criteria: Vec<Criterion>,
    /// Judge after every turn (default), not only at the end.
    pub every_turn: bool,
    /// A `fail` after a turn ends the run (`judge-failed`); default true.
    pub end_on_fail: bool,
    /// A `pass` of every criterion after a turn ends the run (`goal-reached`); default true.
    pub end_on_pass: bool,
}

pub const JUDGE_OPTIONS: [&str; 5] = ["model", "criteria", "everyTurn", "endOnFail", "endOnPass"];

impl JudgeSettings {
    pub fn read(v: &Value, place: &str) -> Result<JudgeSettings> {
        let o = Opts::new(v, &JUDGE_OPTIONS, place, "{ model, criteria, ... }")?;
        Ok(JudgeSettings {
            criteria: read_criteria(o.get("criteria").unwrap_or(&Value::Null), &format!("{place}.criteria"))?,
            every_turn: o.flag("everyTurn", true)?,
            end_on_fail: o.flag("endOnFail", true)?,
            end_on_pass: o.flag("endOnPass", true)?,
        })
    }
}

/// The rubric judge of a generated run: its model, what it grades and how
/// it acts, and each call's deadline (the run's `callTimeoutMs`).
pub struct Rubric<'a> {
    pub model: &'a dyn Model,
    pub settings: JudgeSettings,
    pub timer: Option<&'a dyn Timer>,
    pub deadline_ms: Option<f64>,
}

impl RunJudge for Rubric<'_> {
    fn every_turn(&self) -> bool {
        self.settings.every_turn
    }
    fn end_on_fail(&self) -> bool {
        self.settings.end_on_fail
    }
    fn end_on_pass(&self) -> bool {
        self.settings.end_on_pass
    }
    fn judge<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        findings: &'a [(Option<u64>, Assessment)],
        turn: u32,
        is_final: bool,
    ) -> LocalBoxFuture<'a, Result<JudgeAnswer>> {
        Box::pin(async move {
            let shown: Vec<(Option<u64>, &Assessment)> = findings.iter().map(|(t, a)| (*t, a)).collect();
            let criteria = &self.settings.criteria;
            let req = request(criteria, &transcript(messages, &shown), Some(turn.into()), is_final);
            let ask = |r: ModelRequest| with_deadline(self.model.complete(r), self.timer, self.deadline_ms.map(|ms| (ms, "callTimeoutMs")));
            let (j, usage) = assess(&ask, criteria, req, Some(turn.into()), is_final).await?;
            let failed = j.failed().map(str::to_owned).collect();
            Ok(JudgeAnswer { verdict: j.verdict, failed, judgement: agent_trajectories_core::write::value(&j), usage })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings() {
        let s = JudgeSettings::read(&json!({ "model": "[function]", "criteria": ["a"], "endOnPass": false }), "judge").unwrap();
        assert_eq!((s.every_turn, s.end_on_fail, s.end_on_pass), (true, true, false));
        assert!(JudgeSettings::read(&json!({ "criteria": ["a"], "everyturn": true }), "judge")
            .unwrap_err()
            .message
            .contains("did you mean \"everyTurn\""));
        assert!(JudgeSettings::read(&json!({ "criteria": ["a"], "endOnFail": 1 }), "judge").unwrap_err().message.contains("must be true or false"));
    }
}
