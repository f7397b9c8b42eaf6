//! The rubric judge in a generated run (`runTrajectory`'s `judge`): after
//! each live turn, and once at the end. Each judgement is recorded (a
//! `custom` `judgement` record) and set on its trace. After a turn, a
//! `fail` ends the run (`judge-failed`, the agent's doing) and a `pass` of
//! every criterion ends it as `goal-reached`, each unless switched off;
//! `inconclusive` never ends it. At the end, a `fail` of a run that had
//! reached its goal turns it into `judge-failed`. The judge's model failing
//! (throwing, timing out) is a fault like any callback's: the run ends with
//! `error`, side `judge`. Its tokens are recorded (`model_usage`, source
//! `judge`), not counted against the agent's budget.

use super::{Interrupt, Runner};
use crate::capture::ModelUsage;
use crate::generate::concurrency::{race, with_deadline, Either};
use crate::generate::trace::{End, Side, StopReason};
use crate::host::{LocalBoxFuture, ModelRequest, ModelResponse};
use crate::observe::{Assessment, CurrentAssessment};
use crate::rubric::{assess, request, transcript, JudgeVerdict, Judgement};

impl Runner<'_, '_> {
    /// Asks the judge about the run so far (after `turn`, or at its end),
    /// records the judgement and its tokens. Boxed: called from two places
    /// of the run's state machine, it is one function, not two copies.
    fn ask_judge(&self, turn: u32, is_final: bool) -> LocalBoxFuture<'_, std::result::Result<Option<Judgement>, Interrupt>> {
        Box::pin(self.ask_judge_inner(turn, is_final))
    }

    async fn ask_judge_inner(&self, turn: u32, is_final: bool) -> std::result::Result<Option<Judgement>, Interrupt> {
        let Some(j) = self.env.judge.as_ref() else { return Ok(None) };
        // What the agent was shown, turn by turn, as the observers rendered it.
        let shown: Vec<(Option<u64>, Assessment)> = self
            .traces
            .iter()
            .filter_map(|t| t.assessment.as_deref().and_then(CurrentAssessment::read_rendered).map(|c| (t.turn_index, c)))
            .flat_map(|(t, c)| c.assessments.into_iter().map(move |a| (Some(u64::from(t)), a)))
            .collect();
        let findings: Vec<(Option<u64>, &Assessment)> = shown.iter().map(|(t, a)| (*t, a)).collect();
        let req = request(&j.settings.criteria, &transcript(&self.history, &findings), Some(turn.into()), is_final);
        let deadline = self.deadline(None);
        let ask = |r: ModelRequest| -> LocalBoxFuture<'_, crate::error::Result<ModelResponse>> { with_deadline(j.model.complete(r), self.env.timer, deadline) };
        let asked = assess(&ask, &j.settings.criteria, req, Some(turn.into()), is_final);
        let (judgement, usage) = match self.env.abort {
            Some(a) => match race(asked, a.wait()).await {
                Either::Left(r) => r,
                Either::Right(()) => return Err(Interrupt::Aborted),
            },
            None => asked.await,
        }
        .map_err(|e| Interrupt::Fault(Side::Judge, e))?;
        if usage.total() > 0 {
            let u = ModelUsage { source: Some("judge".into()), input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, ..Default::default() };
            self.record(u.payload())?;
        }
        self.record(judgement.payload())?;
        Ok(Some(judgement))
    }

    /// After live turn `turn`: judged, set on its trace; the run ends on a
    /// `fail` or a `pass` of every criterion (unless switched off).
    pub(super) async fn judge_turn(&mut self, turn: u32) -> std::result::Result<(), Interrupt> {
        if !self.env.judge.as_ref().is_some_and(|j| j.settings.every_turn) {
            return Ok(());
        }
        let Some(j) = self.ask_judge(turn, false).await? else { return Ok(()) };
        let settings = &self.env.judge.as_ref().expect("judged").settings;
        let stop = match j.verdict {
            JudgeVerdict::Fail if settings.end_on_fail => {
                Some((StopReason::JudgeFailed, false, format!("the judge failed {} after turn {turn}", quoted(j.failed()))))
            }
            JudgeVerdict::Pass if settings.end_on_pass => Some((StopReason::GoalReached, true, format!("the judge passed every criterion after turn {turn}"))),
            _ => None,
        };
        self.env.events.judged(turn, &j);
        if let Some(t) = self.traces.get_mut(turn as usize) {
            t.judgement = Some(j.clone());
        }
        match stop {
            Some((reason, completed, summary)) => {
                self.final_judgement = Some(j);
                Err(Interrupt::Stop(reason, completed, Some(summary)))
            }
            None => Ok(()),
        }
    }

    /// At the end: judged once more (unless the judge itself ended the run,
    /// whose judgement stands, or the run was aborted or the judge failed);
    /// a `fail` turns a reached goal into `judge-failed`, a fault of the
    /// judge's model into an `error`.
    pub(super) async fn judge_end(&mut self, end: End) -> End {
        let skip = self.final_judgement.is_some()
            || self.traces.is_empty()
            || end.reason == StopReason::Aborted
            || end.error.as_ref().is_some_and(|e| e.side == Side::Judge);
        if self.env.judge.is_none() || skip {
            return end;
        }
        let turn = self.traces.len().saturating_sub(1) as u32;
        match self.ask_judge(turn, true).await {
            Ok(Some(j)) => {
                let failed = j.verdict == JudgeVerdict::Fail && end.reason == StopReason::GoalReached;
                let summary = format!("the judge failed {} at the end", quoted(j.failed()));
                self.final_judgement = Some(j);
                if failed {
                    End::new(StopReason::JudgeFailed, false, Some(summary), None)
                } else {
                    end
                }
            }
            Ok(None) => end,
            Err(Interrupt::Fault(side, e)) if end.error.is_none() => super::ending::fault_end(side, e, end.reason),
            // A run that already failed keeps its first error; an abort now leaves the end as it was.
            Err(_) => end,
        }
    }
}

fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}
