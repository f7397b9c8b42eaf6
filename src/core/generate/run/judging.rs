//! The rubric judge in a generated run (`runTrajectory`'s `judge`): after
//! each live turn, and once at the end. Each judgement is recorded (a
//! `custom` `judgement` record) and set on its trace. After a turn, a
//! `fail` ends the run (`judge-failed`, the agent's doing) and a `pass` of
//! every criterion ends it as `goal-reached`, each unless switched off;
//! `inconclusive` never ends it. At the end, a `fail` of a run that had
//! reached its goal turns it into `judge-failed`. The judge's model failing
//! (throwing, timing out) is a fault like any callback's: the run ends with
//! `error`, side `judge`. Its tokens are recorded (`model_usage`, source
//! `judge`), not counted against the agent's budget. How the conversation
//! is graded is the judge's (the judging crate's rubric); what a verdict
//! does to the run is decided here.

use super::{Interrupt, Runner};
use crate::capture::{well_known, Payload};
use crate::generate::concurrency::{race, Either};
use crate::generate::env::{JudgeAnswer, JudgeVerdict};
use crate::generate::trace::{End, Side, StopReason};
use crate::host::LocalBoxFuture;
use crate::observe::{Assessment, CurrentAssessment};

impl Runner<'_, '_> {
    /// Asks the judge about the run so far (after `turn`, or at its end),
    /// records the judgement and its tokens. Boxed: called from two places
    /// of the run's state machine, it is one function, not two copies.
    fn ask_judge(&self, turn: u32, is_final: bool) -> LocalBoxFuture<'_, std::result::Result<Option<JudgeAnswer>, Interrupt>> {
        Box::pin(async move {
            let Some(j) = self.env.judge else { return Ok(None) };
            // What the agent was shown, turn by turn, as the observers rendered it.
            let shown: Vec<(Option<u64>, Assessment)> = self
                .traces
                .iter()
                .filter_map(|t| t.assessment.as_deref().and_then(CurrentAssessment::read_rendered).map(|c| (t.turn_index, c)))
                .flat_map(|(t, c)| c.assessments.into_iter().map(move |a| (Some(u64::from(t)), a)))
                .collect();
            let asked = j.judge(&self.history, &shown, turn, is_final);
            let answer = match self.env.abort {
                Some(a) => match race(asked, a.wait()).await {
                    Either::Left(r) => r,
                    Either::Right(()) => return Err(Interrupt::Aborted),
                },
                None => asked.await,
            }
            .map_err(|e| Interrupt::Fault(Side::Judge, e))?;
            if answer.usage.total() > 0 {
                self.record(answer.usage.model_usage(Some("judge")).payload())?;
            }
            self.record(Payload::Custom { name: well_known::JUDGEMENT.into(), data: answer.judgement.clone() })?;
            Ok(Some(answer))
        })
    }

    /// After live turn `turn`: judged, set on its trace; the run ends on a
    /// `fail` or a `pass` of every criterion (unless switched off).
    pub(super) async fn judge_turn(&mut self, turn: u32) -> std::result::Result<(), Interrupt> {
        if !self.env.judge.is_some_and(|j| j.every_turn()) {
            return Ok(());
        }
        let Some(a) = self.ask_judge(turn, false).await? else { return Ok(()) };
        self.judge_tokens(turn, &a)?;
        let j = self.env.judge.expect("judged");
        let stop = match a.verdict {
            JudgeVerdict::Fail if j.end_on_fail() => {
                Some((StopReason::JudgeFailed, false, format!("the judge failed {} after turn {turn}", quoted(&a.failed))))
            }
            // Before minTurns a reached goal does not end the conversation, whoever says it was reached.
            JudgeVerdict::Pass if j.end_on_pass() && u64::from(turn) + 1 >= u64::from(self.t.min_turns) => {
                Some((StopReason::GoalReached, true, format!("the judge passed every criterion after turn {turn}")))
            }
            _ => None,
        };
        self.env.events.judged(turn, &a.judgement);
        if let Some(t) = self.traces.get_mut(turn as usize) {
            t.judgement = Some(a.judgement.clone());
        }
        match stop {
            Some((reason, completed, summary)) => {
                self.final_judgement = Some(a.judgement);
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
        match self.ask_judge(turn, true).await.and_then(|a| {
            if let Some(a) = &a {
                self.judge_tokens(turn, a)?;
            }
            Ok(a)
        }) {
            Ok(Some(a)) => {
                let failed = a.verdict == JudgeVerdict::Fail && end.reason == StopReason::GoalReached;
                let summary = format!("the judge failed {} at the end", quoted(&a.failed));
                self.final_judgement = Some(a.judgement);
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

impl Runner<'_, '_> {
    /// The judge's tokens count in the turn it judged (the last one at the
    /// end), as its `model_usage` record counts in the run's: a run's tokens
    /// read the same from its result (a batch's, `checkRun`'s) as from its
    /// records. And in the observers' budget, as every other model call's
    /// (a fork replays a kept turn's tokens into it).
    fn judge_tokens(&mut self, turn: u32, a: &JudgeAnswer) -> std::result::Result<(), Interrupt> {
        let total = a.usage.total();
        if total == 0 {
            return Ok(());
        }
        if let Some(t) = self.traces.get_mut(turn as usize) {
            t.tokens = t.tokens.saturating_add(total);
            self.env.events.tokens(turn, t.tokens);
        }
        match self.env.observers {
            Some(o) => o.record_tokens(total).map_err(|e| Interrupt::Fault(Side::Observer, e)),
            None => Ok(()),
        }
    }
}

/// Names as a message lists them, each quoted.
fn quoted(names: &[String]) -> String {
    names.iter().map(|n| crate::number::quoted(n)).collect::<Vec<_>>().join(", ")
}
