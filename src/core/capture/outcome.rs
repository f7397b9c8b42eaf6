//! What `run_ended` says: its outcome as written (structured, or a bare
//! label), one rule for its `status`, whoever ends the run (generation,
//! the background loop, an AI SDK or Mastra loop), and the outcome of an
//! agent loop the package only watched.

use crate::number::quoted;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeStatus {
    /// The run did what it was for (see [`OutcomeStatus::of`]).
    Completed,
    /// It ended before that: a limit, a guard, a policy, a stop on a finding.
    Stopped,
    Error,
    Aborted,
}

impl OutcomeStatus {
    pub const ALL: [OutcomeStatus; 4] = [OutcomeStatus::Completed, OutcomeStatus::Stopped, OutcomeStatus::Error, OutcomeStatus::Aborted];
}

from_json_enum!(OutcomeStatus, "completed, stopped, error or aborted" { "completed" => Completed, "stopped" => Stopped, "error" => Error, "aborted" => Aborted });
from_json_struct!(checked RunOutcome { status: "status", reason: "reason", message: "message", error_code: "error_code", verdict: "verdict" });

/// How a run ended: a status, an optional machine reason (`goal-reached`,
/// `max-turns`, ...) and, for errors, the message and code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub status: OutcomeStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// A generated run's verdict: `pass`, `agent`, `simulator`, `harness` or `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
}

/// `run_ended.outcome` as written: this package's structured outcome, or
/// the bare label (`"ended"`) that the Rust agent runtime the record format
/// comes from writes. A label is kept as written through a round trip.
#[derive(Debug, Clone, PartialEq)]
pub enum EndedOutcome {
    Structured(RunOutcome),
    Label(String),
}

impl From<RunOutcome> for EndedOutcome {
    fn from(o: RunOutcome) -> Self {
        EndedOutcome::Structured(o)
    }
}

impl Serialize for EndedOutcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            EndedOutcome::Structured(o) => o.serialize(s),
            EndedOutcome::Label(l) => s.serialize_str(l),
        }
    }
}

impl EndedOutcome {
    /// A string is a label; an object, the structured outcome.
    pub fn from_value(v: Value) -> std::result::Result<Self, String> {
        match v {
            Value::String(l) => Ok(EndedOutcome::Label(l)),
            v @ Value::Object(_) => crate::read::read(v, "").map(EndedOutcome::Structured),
            other => Err(format!(
                "outcome must be an object {{ status, reason?, message?, error_code? }} or a string label, got {}",
                crate::message::kind_of(&other)
            )),
        }
    }
}

impl<'de> Deserialize<'de> for EndedOutcome {
    // Through `Value`, not `#[serde(untagged)]`: untagged enums instantiate
    // serde's buffering machinery, which costs far more module size.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        EndedOutcome::from_value(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A watched loop's finish reasons that mean the model ended it itself
/// (`stop`; `finished` when the framework gave none). A loop whose last
/// step still asked for tools (`tool-calls`) was ended by a step limit or a
/// stop condition before the model answered: that is no finish.
pub const LOOP_FINISHED: [&str; 2] = ["stop", "finished"];

/// The reasons this package writes for a run that ended before its goal,
/// and the prefixes of those that carry detail. Streams written before
/// `stopped` existed say `completed` with one of them; any other reason
/// beside `completed` (the caller's own, such as `done`) is a finish.
pub const STOP_REASONS: [&str; 11] = [
    "max-turns",
    "judge-failed",
    "agent-loop",
    "policy-violation",
    "no-step-match",
    "max-steps",
    "tool-calls",
    "length",
    "content-filter",
    "max-iterations",
    "model-abandoned",
];
pub const STOP_PREFIXES: [&str; 4] = ["stopped-on-", "max-failures", "deliverable-failed", "reflection-abandoned"];

/// The reasons a background run gives when its objective is met (a
/// generated run's is `goal-reached`): every plan step done and confirmed,
/// or the model said so.
pub const PLAN_COMPLETED: &str = "plan-completed";
pub const MODEL_COMPLETED: &str = "model-completed";
pub const OBJECTIVE_MET: [&str; 2] = [PLAN_COMPLETED, MODEL_COMPLETED];

/// Whether `reason` says the run ended before its goal.
pub fn is_stop_reason(reason: &str) -> bool {
    STOP_REASONS.contains(&reason) || STOP_PREFIXES.iter().any(|p| reason.starts_with(p))
}

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
    /// Only `stop` (or none given) is a finish.
    Finished { finish_reason: Option<String> },
    /// `stopOn` was met: `threshold` the severity it names, `times` how
    /// many findings at or above it it takes; the finding that met it.
    StoppedOn { threshold: String, times: u64, observer: String, severity: String, summary: String },
    /// The model call failed (`harness: false`), or a callback of the
    /// caller's or the recorder did (`harness: true`).
    Failed { message: String, code: Option<String>, harness: bool },
    /// The caller's signal aborted the loop (a deadline passing is a model
    /// that did not answer in time: [`LoopEnd::Failed`]); `message` its reason.
    Aborted { message: String },
}

impl LoopEnd {
    pub fn outcome(&self) -> RunOutcome {
        match self {
            LoopEnd::Finished { finish_reason } => {
                let reason = finish_reason.clone().unwrap_or_else(|| "finished".to_owned());
                let completed = LOOP_FINISHED.contains(&reason.as_str());
                let message = (!completed).then(|| match reason.as_str() {
                    "max-steps" => "the loop reached its step limit before the model finished".to_owned(),
                    "tool-calls" => {
                        "the loop ended while the model still asked for tools (a step limit or a stop condition ended it before the model answered)"
                            .to_owned()
                    }
                    "length" => "the model's answer was cut off at its token limit".to_owned(),
                    "content-filter" => "the provider's content filter stopped the answer".to_owned(),
                    other => format!("the model stopped with finish reason {other}", other = quoted(other)),
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
            LoopEnd::Aborted { message } => RunOutcome {
                status: OutcomeStatus::Aborted,
                reason: Some("aborted".to_owned()),
                message: Some(message.clone()),
                error_code: None,
                verdict: Some("aborted".to_owned()),
            },
        }
    }
}

/// A `run_ended` outcome as every reader shows it: `status` by the rule
/// of [`OutcomeStatus::of`], a `verdict`, and whether the run `passed`.
/// Streams from before `stopped` and verdicts (`completed` for a max-turns
/// end, no verdict) read by their reason; a bare label (`"ended"`, as the
/// original agent runtime writes it) is a finished run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndRead {
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    pub verdict: String,
    pub passed: bool,
}

impl EndRead {
    pub fn read(outcome: &Value) -> EndRead {
        let text = |k: &str| outcome.get(k).and_then(Value::as_str).map(str::to_owned);
        let (status, reason) = match outcome {
            Value::String(label) => (label.clone(), None),
            Value::Object(_) => (text("status").unwrap_or_default(), text("reason")),
            _ => (String::new(), None),
        };
        let done = matches!(status.as_str(), "completed" | "ended");
        let finished = done && !reason.as_deref().is_some_and(|r| is_stop_reason(r) || r == "error" || r == "aborted");
        let verdict = text("verdict").unwrap_or_else(|| {
            match status.as_str() {
                _ if finished => "pass",
                "aborted" => "aborted",
                _ => "agent",
            }
            .to_owned()
        });
        // A pass needs a finished status too: a contradictory outcome (an error with verdict pass) is no pass.
        let passed = verdict == "pass" && done;
        // An older stream's "completed" for a run a limit or a guard ended.
        let status = if status == "completed" && !passed {
            "stopped".to_owned()
        } else if status.is_empty() {
            "unknown".to_owned()
        } else {
            status
        };
        EndRead { status, reason, message: text("message"), error_code: text("error_code"), verdict, passed }
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
        // stepCountIs(n) or any stop condition that cut the loop after a tool step.
        let o = LoopEnd::Finished { finish_reason: Some("tool-calls".into()) }.outcome();
        assert_eq!((o.status, o.verdict.as_deref()), (OutcomeStatus::Stopped, Some("agent")));
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
    fn every_end_reads_the_same_way_old_or_new() {
        use serde_json::json;
        let read = |v: Value| {
            let r = EndRead::read(&v);
            (r.status, r.verdict, r.passed)
        };
        let s = |a: &str, b: &str, p: bool| (a.to_owned(), b.to_owned(), p);
        assert_eq!(read(json!({ "status": "stopped", "reason": "max-turns", "verdict": "agent" })), s("stopped", "agent", false));
        assert_eq!(read(json!({ "status": "completed", "reason": "max-turns" })), s("stopped", "agent", false), "an old max-turns end");
        assert_eq!(read(json!({ "status": "completed", "reason": "stopped-on-warning" })), s("stopped", "agent", false));
        assert_eq!(read(json!({ "status": "completed", "reason": "stop" })), s("completed", "pass", true), "an old AI SDK end");
        assert_eq!(read(json!({ "status": "completed", "reason": "goal-reached", "verdict": "pass" })), s("completed", "pass", true));
        assert_eq!(read(json!({ "status": "error", "reason": "error", "verdict": "harness" })), s("error", "harness", false));
        assert_eq!(read(json!({ "status": "aborted" })), s("aborted", "aborted", false));
        assert_eq!(read(json!("ended")), s("ended", "pass", true));
        assert_eq!(read(json!(7)), s("unknown", "agent", false));
        assert_eq!(read(json!({ "status": "completed", "reason": "done" })), s("completed", "pass", true), "a caller's own reason");
        assert_eq!(read(json!({ "status": "error", "verdict": "pass" })), s("error", "pass", false), "contradictory: no pass");
        assert_eq!(read(json!({ "status": "stopped", "verdict": "pass" })), s("stopped", "pass", false));
        assert_eq!(read(json!({ "status": "completed", "reason": "error" })), s("stopped", "agent", false));
        assert_eq!(read(json!({ "status": "completed", "reason": "max-failures: last error: x" })), s("stopped", "agent", false));
        // What a writer says, the reader gives back.
        for end in [LoopEnd::Finished { finish_reason: Some("length".into()) }, LoopEnd::Finished { finish_reason: None }] {
            let o = end.outcome();
            let r = EndRead::read(&serde_json::to_value(&o).unwrap());
            assert_eq!((r.verdict.as_str(), r.passed), (o.verdict.as_deref().unwrap(), o.status == OutcomeStatus::Completed));
        }
    }

    #[test]
    fn failures_say_whose() {
        let o = LoopEnd::Failed { message: "boom".into(), code: Some("CALLBACK_FAILED".into()), harness: true }.outcome();
        assert_eq!((o.status, o.verdict.as_deref(), o.error_code.as_deref()), (OutcomeStatus::Error, Some("harness"), Some("CALLBACK_FAILED")));
        // The caller's abort is neither the agent's nor the harness's, and reads back so.
        let o = LoopEnd::Aborted { message: "stop now".into() }.outcome();
        assert_eq!((o.status, o.reason.as_deref(), o.verdict.as_deref()), (OutcomeStatus::Aborted, Some("aborted"), Some("aborted")));
        let r = EndRead::read(&crate::write::value(&o));
        assert_eq!((r.verdict.as_str(), r.passed), ("aborted", false));
    }
}
