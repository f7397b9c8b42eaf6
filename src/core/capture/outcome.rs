//! What `run_ended` says: one rule for its `status`, whoever ends the run
//! (generation, the background loop, an AI SDK or Mastra loop), and the
//! outcome of an agent loop the package only watched.

use super::record::{OutcomeStatus, RunOutcome};

impl OutcomeStatus {
    /// `completed` only when the run did what it was for; an error or an
    /// abort says so; any other end (a turn or step limit, a guard, a
    /// policy, a stop on a finding, a model cut off) is `stopped`.
    pub fn of(completed: bool, error: bool, aborted: bool) -> OutcomeStatus {
        match (completed, error, aborted) {
            (_, _, true) => OutcomeStatus::Aborted,
            (_, true, _) => OutcomeStatus::Error,
            (true, ..) => OutcomeStatus::Completed,
            _ => OutcomeStatus::Stopped,
        }
    }
}

/// How a watched agent loop (`observeAISdk`, `observeMastra`) ended.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopEnd {
    /// The framework ended the loop; `finish_reason` is its last step's
    /// (`stop`, `tool-calls`, `length`, `content-filter`, ...), or
    /// `max-steps` when the step cap the adapter set was reached.
    Finished { finish_reason: Option<String> },
    /// `stopOn` was met: `threshold` the severity it names, `times` how
    /// many findings at or above it it takes; the finding that met it.
    StoppedOn { threshold: String, times: u64, observer: String, severity: String, summary: String },
    /// The model call failed (`harness: false`), or a callback of the
    /// caller's or the recorder did (`harness: true`).
    Failed { message: String, code: Option<String>, harness: bool },
}

/// A loop's last finish reason that means it did what it was asked: the
/// model stopped on its own, or a stop condition ended it after a tool step.
const FINISHED: [&str; 3] = ["stop", "tool-calls", "finished"];

impl LoopEnd {
    pub fn outcome(&self) -> RunOutcome {
        match self {
            LoopEnd::Finished { finish_reason } => {
                let reason = finish_reason.clone().unwrap_or_else(|| "finished".to_owned());
                let completed = FINISHED.contains(&reason.as_str());
                let message = (!completed).then(|| match reason.as_str() {
                    "max-steps" => "the loop reached its step limit before the model finished".to_owned(),
                    "length" => "the model's answer was cut off at its token limit".to_owned(),
                    "content-filter" => "the provider's content filter stopped the answer".to_owned(),
                    other => format!("the model stopped with finish reason {other:?}"),
                });
                RunOutcome {
                    status: OutcomeStatus::of(completed, false, false),
                    reason: Some(reason),
                    message,
                    error_code: None,
                    verdict: Some(if completed { "pass" } else { "agent" }.to_owned()),
                }
            }
            LoopEnd::StoppedOn { threshold, times, observer, severity, summary } => {
                let count =
                    if *times == 1 { format!("a finding at or above {threshold}") } else { format!("{times} findings at or above {threshold}") };
                RunOutcome {
                    status: OutcomeStatus::Stopped,
                    reason: Some(format!("stopped-on-{threshold}")),
                    message: Some(format!("stopped on {count}; the last, a {severity} from {observer}: {summary}")),
                    error_code: None,
                    verdict: Some("agent".to_owned()),
                }
            }
            LoopEnd::Failed { message, code, harness } => RunOutcome {
                status: OutcomeStatus::Error,
                reason: Some("error".to_owned()),
                message: Some(message.clone()),
                error_code: code.clone(),
                verdict: Some(if *harness { "harness" } else { "agent" }.to_owned()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_follows_the_end() {
        assert_eq!(OutcomeStatus::of(true, false, false), OutcomeStatus::Completed);
        assert_eq!(OutcomeStatus::of(false, false, false), OutcomeStatus::Stopped);
        assert_eq!(OutcomeStatus::of(false, true, false), OutcomeStatus::Error);
        assert_eq!(OutcomeStatus::of(false, true, true), OutcomeStatus::Aborted);
    }

    #[test]
    fn a_loop_that_finished_passes_and_one_cut_short_is_stopped() {
        let o = LoopEnd::Finished { finish_reason: Some("stop".into()) }.outcome();
        assert_eq!((o.status, o.verdict.as_deref(), o.message), (OutcomeStatus::Completed, Some("pass"), None));
        let o = LoopEnd::Finished { finish_reason: Some("max-steps".into()) }.outcome();
        assert_eq!((o.status, o.reason.as_deref(), o.verdict.as_deref()), (OutcomeStatus::Stopped, Some("max-steps"), Some("agent")));
        assert_eq!(LoopEnd::Finished { finish_reason: None }.outcome().status, OutcomeStatus::Completed);
    }

    #[test]
    fn a_stop_on_findings_names_its_threshold_and_the_finding() {
        let end = LoopEnd::StoppedOn {
            threshold: "caution".into(),
            times: 2,
            observer: "stall".into(),
            severity: "warning".into(),
            summary: "same call 4 times".into(),
        };
        let o = end.outcome();
        assert_eq!(o.status, OutcomeStatus::Stopped);
        assert_eq!(o.reason.as_deref(), Some("stopped-on-caution"));
        assert_eq!(o.message.as_deref(), Some("stopped on 2 findings at or above caution; the last, a warning from stall: same call 4 times"));
    }

    #[test]
    fn failures_say_whose() {
        let o = LoopEnd::Failed { message: "boom".into(), code: Some("CALLBACK_FAILED".into()), harness: true }.outcome();
        assert_eq!((o.status, o.verdict.as_deref(), o.error_code.as_deref()), (OutcomeStatus::Error, Some("harness"), Some("CALLBACK_FAILED")));
    }
}
