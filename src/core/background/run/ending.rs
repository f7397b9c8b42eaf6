//! How a background run ends: the final summary (or a report naming the
//! last error when the model cannot give one), the deliverable (the
//! factory's or the model's, validated), `run_terminated`, `run_ended` and
//! the flush. A failure in any of them is the run's, never lost.

use serde_json::Value;

use super::{failure, Runner, Terminal};
use crate::background::prompt;
use crate::background::{RunResult, Status};
use crate::capture::{OutcomeStatus, Payload, RunOutcome};
use crate::error::{Error, ErrorCode, Result};

impl Runner<'_, '_> {
    /// The final summary, the deliverable, `run_terminated`, `run_ended`
    /// and the flush. A failure in any of them is the run's, never lost.
    pub(super) async fn finish(&mut self, t: Terminal, run_id: String) -> RunResult {
        let Terminal { mut status, mut reason, summary, proposed } = t;
        let mut error = self.s.last_error.clone().filter(|_| status == Status::Failed);
        let aborted = reason == "aborted";
        let schema = self.o.deliverable_schema.as_ref();
        let ask_deliverable = schema.filter(|_| status == Status::Completed && proposed.is_none() && !self.env.host.has_factory());
        let mut proposed = proposed;
        let written = if aborted {
            None
        } else {
            let request = prompt::summarize(self.o, self.cfg, &self.s, status.as_str(), &reason, ask_deliverable);
            let deadline = self.deadline();
            match self.ask(request, deadline.as_ref(), "the model (summarize)").await {
                Ok(Ok(answer)) => {
                    let _ = self.spend(&answer.usage, "summarize");
                    match (ask_deliverable, prompt::json_object(&answer.text)) {
                        (Some(_), Some(mut o)) => {
                            proposed = o.remove("deliverable");
                            o.get("summary").and_then(Value::as_str).map(str::to_owned)
                        }
                        _ => Some(answer.text.trim().to_owned()),
                    }
                    .filter(|s| !s.trim().is_empty())
                    .map(Ok)
                }
                Ok(Err(e)) => Some(Err(e)),
                Err(_) => None,
            }
        };
        let counts = format!("after {} iterations ({} failed)", self.s.iteration, self.s.failures);
        let last = self.s.last_error.as_ref().map(|e| format!("; last error: {}: {}", e.code, e.message)).unwrap_or_default();
        let final_summary = match written {
            Some(Ok(text)) => text,
            Some(Err(e)) => format!("{} ({reason}) {counts}; the summary could not be written: {}{last}", status.as_str(), e.message),
            None => summary.clone().unwrap_or_else(|| format!("{} ({reason}) {counts}{last}", status.as_str())),
        };
        let mut snapshot = self.s.snapshot(&self.o.objective);
        let deadline = self.deadline();
        let delivered = self.bounded(self.env.host.deliver(&snapshot, status.as_str(), proposed), deadline.as_ref(), "deliverableFactory").await;
        let delivered = delivered.map(|d| d.and_then(|d| self.required_deliverable(d, status)));
        let mut factory_failed = false;
        let deliverable = match delivered {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => {
                status = Status::Failed;
                // The factory is the caller's code; a deliverable that fails its schema is the agent's.
                factory_failed = e.code == crate::ErrorCode::CallbackFailed;
                reason = format!("deliverable-failed: {}", e.message);
                error = Some(failure(&e));
                None
            }
            Err(_) => None,
        };
        let outcome = RunOutcome {
            // A limit, an abandoned objective or a deliverable that failed its
            // schema stopped the run; only a failing part of the host is an error.
            status: OutcomeStatus::of(status == Status::Completed, reason.starts_with("error:") || factory_failed, aborted),
            // The record's reason is the machine part (`max-failures`), so
            // runs group by it; its detail, when there is one, is the message.
            reason: Some(reason.split(':').next().unwrap_or_default().to_owned()),
            message: Some(reason.split_once(": ").map_or_else(|| final_summary.clone(), |(_, detail)| detail.to_owned())),
            error_code: error.as_ref().map(|e| e.code.clone()),
            verdict: Some(verdict(status, aborted, &reason, factory_failed).to_owned()),
        };
        self.env.events.closing();
        let recorded = self
            .env
            .events
            .record(Payload::RunTerminated { status: status.as_str().into(), reason: reason.clone() })
            .and_then(|_| self.env.events.record(Payload::RunEnded { outcome: outcome.into(), new_messages: Vec::new() }));
        let flushed = match recorded {
            // A sink that never takes the last records gets the call deadline too.
            Ok(()) => match self.bounded(self.env.events.flush(), self.deadline().as_ref(), "the sink").await {
                Ok(r) => r,
                Err(_) => Ok(()),
            },
            Err(e) => Err(e),
        };
        if let Err(e) = flushed {
            if !reason.starts_with("error: recorder") {
                reason = format!("error: recorder failed: {} (the run had ended: {} ({reason}))", e.message, status.as_str());
                status = Status::Failed;
                error = Some(failure(&e));
            }
        }
        snapshot.last_error = self.s.last_error.clone();
        RunResult { run_id, status, reason, iterations: self.s.iteration, failures: self.s.failures, final_summary, deliverable, snapshot, error }
    }

    /// A completed run of an objective with a deliverable schema must
    /// deliver: no deliverable is the factory's fault when there is one (the
    /// caller's code), else the model's answer lacked it.
    fn required_deliverable(&self, delivered: Option<Value>, status: Status) -> Result<Option<Value>> {
        if delivered.is_some() || status != Status::Completed || self.o.deliverable_schema.is_none() {
            return Ok(delivered);
        }
        Err(if self.env.host.has_factory() {
            Error::invalid_argument("deliverableFactory returned no deliverable")
        } else {
            Error::new(
                ErrorCode::CallbackFailed,
                "the model gave no deliverable (neither in finish nor as \"deliverable\" in its {\"summary\", \"deliverable\"} summary answer)",
            )
        })
    }
}

/// Whose doing a background run's end is, in the words a generated run's
/// verdict uses: the objective met is a pass; a limit, an abandoned
/// objective or a deliverable that failed its schema is the agent's; a part
/// of the host failing (`error: <part> failed`) is the harness's.
fn verdict(status: Status, aborted: bool, reason: &str, factory_failed: bool) -> &'static str {
    match (status, aborted) {
        (_, true) => "aborted",
        (Status::Completed, _) => "pass",
        _ if reason.starts_with("error:") || factory_failed => "harness",
        _ => "agent",
    }
}
