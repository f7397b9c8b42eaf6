//! How a run ends: the end marker from what interrupted it, `run_ended`
//! recorded and the sink flushed (a failure there turns the end into an
//! error), and the marker put on the right trace.

use super::{fault, Interrupt, Runner};
use crate::capture::{well_known, OutcomeStatus, Payload, RunOutcome};
use crate::error::{Error, ErrorCode};
use crate::generate::concurrency::{race, Either};
use crate::generate::trace::{iso8601, End, EndError, Selection, SelectionMethod, Side, StepTrace, StopReason};
use crate::host::LocalBoxFuture;
use crate::message::{ModelMessage, Role};

impl Runner<'_, '_> {
    /// Records `run_ended`, waits until the sink has every record, and
    /// puts the end marker on the right trace. A sink that fails at this
    /// point ends the run in error: the caller learns of it from the result.
    pub(super) async fn finish(&mut self, why: Interrupt) -> End {
        let p = std::mem::take(&mut self.partial);
        let g = self.t.steps.as_ref();
        let partial_step = p.step.and_then(|i| g.map(|g| g.steps[i].id.clone()));
        // Only a fault or an abort inside a begun turn (its step selected)
        // leaves a trace of that turn; a stop decided before it does not.
        let inside_turn = !matches!(why, Interrupt::Stop(..)) && !p.traced && p.selection.is_some();
        let (reason, completed, summary, error) = match why {
            Interrupt::Stop(reason, completed, summary) => (reason, completed, summary, None),
            Interrupt::Aborted => {
                // The reason its owner gave, if any, is said: the run's records and result keep it.
                let summary = match self.env.abort.and_then(|a| a.reason()) {
                    Some(why) => format!("aborted by the signal: {why}"),
                    None => "aborted by the signal".to_owned(),
                };
                (StopReason::Aborted, false, Some(summary), None)
            }
            Interrupt::Fault(side, e) => {
                let summary = format!("{} failed: {}", side_name(side), e.message);
                let step_id = e.step_id.or_else(|| partial_step.clone());
                let error = EndError { code: e.code.as_str().to_owned(), message: e.message, side, step_id, cause: e.cause };
                (StopReason::Error, false, Some(summary), Some(error))
            }
        };
        let mut end = self.judge_end(End::new(reason, completed, summary, error)).await;
        let reason = end.reason;
        self.env.events.closing();
        // What the observers found that the agent was never shown (in the
        // last turn, or in a turn a fault ended before its call): recorded
        // now, in no turn, and kept on the end marker, so no finding is lost.
        let seen = p.shown.as_ref().or(self.traces.last().and_then(|t| t.assessment.as_ref()));
        let (found, unshown) = match self.env.observers.map(|o| o.current().map_err(fault(Side::Observer))) {
            Some(Ok(Some(s))) if Some(&s.text) != seen => (self.record_assessment(&s, None), Some(s.text)),
            Some(Err(i)) => (Err(i), None),
            _ => (Ok(()), None),
        };
        // Each step's final state, so a reader can tell satisfied from failed, blocked, skipped or never reached.
        let states = match self.t.steps {
            Some(_) => {
                let states = self.snapshot.states.iter().map(|s| {
                    let mut o = serde_json::Map::new();
                    o.insert("stepId".into(), s.step_id.clone().into());
                    o.insert("status".into(), s.status.as_str().into());
                    o.insert("attempts".into(), s.attempts.into());
                    o.into()
                });
                let mut data = serde_json::Map::new();
                data.insert("states".into(), serde_json::Value::Array(states.collect()));
                self.env.events.record(Payload::Custom { name: well_known::STEP_STATES.into(), data: data.into() })
            }
            None => Ok(()),
        };
        // run_ended is recorded even when the states' record failed (an
        // onRecord that threw): the sink may still take it, and a stream
        // without its end reads as a run still going. The first failure is the one said.
        let ended = self.env.events.record(Payload::RunEnded { outcome: outcome_of(&end).into(), new_messages: Vec::new() });
        let recorded = found.and(states.and(ended).map_err(super::recording(self.env.events)));
        let delivered = match recorded {
            Ok(()) => self.flush().await,
            Err(i) => Err(i),
        };
        if let (Err(Interrupt::Aborted), true) = (&delivered, end.error.is_none() && reason != StopReason::Aborted) {
            end = End::new(
                StopReason::Aborted,
                false,
                Some(format!("aborted by the signal while the sink was still taking the last records (the run had ended: {})", reason.as_str())),
                None,
            );
        }
        if let Err(Interrupt::Fault(side, e)) = delivered {
            // Said already: the recorder failed first, or with the run's own failure (a clock
            // that throws fails the run, then the record of its end, which it stamps).
            let said_already = end.error.as_ref().is_some_and(|x| x.side == Side::Recorder || x.message == e.message);
            match &mut end.error {
                Some(_) if said_already => {}
                // The first failure stays the run's error; the sink's is added, not dropped.
                Some(_) => {
                    let summary = end.summary.get_or_insert_with(String::new);
                    summary.push_str(&format!("; then the recorder failed too: {}", e.message));
                }
                None => end = fault_end(side, e, reason),
            }
        }
        end.assessment = unshown;
        if inside_turn {
            let trace = StepTrace {
                turn_index: self.traces.len() as u32,
                user_message: p.user.unwrap_or_else(|| ModelMessage::text(Role::User, "")),
                agent_messages: p.agent,
                timestamp: iso8601(self.last_ms),
                step_id: partial_step,
                selection: p.selection.unwrap_or(Selection { method: SelectionMethod::None, candidates: None, ranker_error: None }),
                assessment: p.shown,
                tokens: p.tokens.get(),
                end: Some(end.clone()),
                judgement: None,
            };
            self.traces.push(trace);
            self.env.events.trace(self.traces.last().expect("just pushed"));
        } else if let Some(last) = self.traces.last_mut() {
            last.end = Some(end.clone());
            self.env.events.ended(&end);
        }
        end
    }

    /// Waits for the sink, but not past the abort signal: an aborted run
    /// ends even when its sink never answers, and says it was aborted
    /// (its last records may not have arrived).
    async fn flush(&self) -> std::result::Result<(), Interrupt> {
        // A sink that never settles must not hang the run either: it gets the
        // run's call deadline to take the last records.
        let flushed: LocalBoxFuture<'_, crate::error::Result<()>> = match (self.env.call_timeout_ms, self.env.timer) {
            (Some(ms), Some(timer)) => Box::pin(async move {
                match race(self.env.events.flush(), timer.sleep(ms)).await {
                    Either::Left(r) => r,
                    Either::Right(()) => Err(Error::new(
                        ErrorCode::Timeout,
                        format!("the sink did not take the run's last records within callTimeoutMs ({} ms)", crate::number::show(ms)),
                    )),
                }
            }),
            _ => self.env.events.flush(),
        };
        match self.env.abort {
            Some(a) => match race(flushed, a.wait()).await {
                Either::Left(r) => r.map_err(fault(Side::Recorder)),
                Either::Right(()) => Err(Interrupt::Aborted),
            },
            None => flushed.await.map_err(fault(Side::Recorder)),
        }
    }
}

/// The `run_ended` outcome of an end marker.
fn outcome_of(end: &End) -> RunOutcome {
    RunOutcome {
        status: OutcomeStatus::of(end.completed, end.reason == StopReason::Error, end.reason == StopReason::Aborted),
        reason: Some(end.reason.as_str().to_owned()),
        message: end.summary.clone(),
        error_code: end.error.as_ref().map(|e| e.code.clone()),
        verdict: Some(end.verdict.as_str().to_owned()),
    }
}

/// The end a fault makes of a run that had ended with `reason`.
pub(super) fn fault_end(side: Side, e: Error, reason: StopReason) -> End {
    End::new(
        StopReason::Error,
        false,
        Some(format!("{} failed: {} (the run had ended: {})", side_name(side), e.message, reason.as_str())),
        Some(EndError { code: e.code.as_str().to_owned(), message: e.message, side, step_id: None, cause: e.cause }),
    )
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::UserSimulator => "user simulator",
        Side::Agent => "agent",
        Side::Ranker => "step ranker",
        Side::Precondition => "precondition",
        Side::Satisfaction => "satisfaction check",
        Side::Policy => "policy",
        Side::Observer => "observer",
        Side::Recorder => "recorder",
        Side::Clock => "clock",
        Side::Judge => "judge",
    }
}
