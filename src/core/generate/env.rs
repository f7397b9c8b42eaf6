//! What a generation run needs from its host beyond [`crate::host`]'s
//! shared traits: the agent under test and a place for traces. The core
//! implements none of them; the binding does, over JS.

use super::policy::Policy;
use super::trace::{End, StepTrace};
use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::host::{Abort, Clock, LocalBoxFuture, Model, Records, Timer, ToolObservers, Usage};
use crate::message::{normalize_messages, ModelMessage};
use crate::number::quoted;
use crate::observe::Assessment;

/// What `runTrajectory` reads; any other key is refused, naming the nearest.
pub const RUN_OPTIONS: &[&str] =
    &["userModel", "clock", "sink", "onSinkError", "onRecord", "observers", "policy", "signal", "runId", "resumeFrom", "callTimeoutMs", "judge"];

/// Refuses a `runTrajectory` option key it does not read: one of a
/// trajectory's own (`minTurns`, `simulator`) is said to belong to the
/// definition `createTrajectory` takes; any other names the nearest option.
pub fn check_run_options(keys: &[String]) -> Result<()> {
    const PLACE: &str = "runTrajectory options";
    match keys.iter().find(|k| !RUN_OPTIONS.contains(&k.as_str())) {
        Some(key) if super::definition::TRAJECTORY_KEYS.contains(&key.as_str()) => Err(Error::invalid_argument(format!(
            "{PLACE}: {key} is not an option of runTrajectory but of the trajectory: give it in createTrajectory's definition",
            key = quoted(key)
        ))),
        _ => crate::options::check_keys(keys.iter().map(String::as_str), RUN_OPTIONS, PLACE),
    }
}

/// What the agent answered: its assistant and tool messages, and the tokens
/// the answer cost (zero when the agent does not say).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentAnswer {
    pub messages: Vec<ModelMessage>,
    pub usage: Usage,
}

impl AgentAnswer {
    /// An agent's answer from its parts: `messages` (the bare array it
    /// returned, or its `messages`) and `usage`, read after the messages
    /// (absent or null: none). A malformed answer is the agent's fault:
    /// `CALLBACK_FAILED`.
    pub fn from_parts(messages: Value, usage: impl FnOnce() -> Result<Option<Value>>) -> Result<AgentAnswer> {
        let messages = normalize_messages(messages).map_err(|e| e.within("agent.respond returned"))?;
        let usage = match usage()? {
            None | Some(Value::Null) => Usage::default(),
            Some(u) => Usage::from_value(&u, "agent.respond")?,
        };
        Ok(AgentAnswer { messages, usage })
    }

    /// An answer object's own keys: a slip of `usage` (`useage`) would
    /// leave its tokens uncounted, and is refused naming it.
    pub fn check_keys(keys: &[String]) -> Result<()> {
        const KNOWN: [&str; 2] = ["messages", "usage"];
        if keys.iter().all(|k| KNOWN.contains(&k.as_str())) {
            return Ok(());
        }
        let obj: serde_json::Map<String, Value> = keys.iter().map(|k| (k.clone(), Value::Null)).collect();
        crate::options::refuse_slips(&obj, &KNOWN, &[], "agent.respond's answer { messages, usage? }")
            .map_err(|e| Error { code: ErrorCode::CallbackFailed, ..e })
    }

    /// The answer was neither `{ messages, usage? }` nor an array; `got`
    /// shows it, `keys` are its own keys: one that is `messages` misspelt
    /// is named, with the word it is near.
    pub fn not_an_answer(got: &str, keys: &[String]) -> Error {
        let mut message = format!("agent.respond returned {got}; expected {{ messages: ModelMessage[], usage? }} or an array of messages");
        if let Some(key) = keys.iter().find(|k| *k != "messages" && crate::options::nearest(k, &["messages"]).is_some()) {
            message.push_str(&format!("; its key {key}: did you mean \"messages\"?", key = quoted(key)));
        }
        Error::new(ErrorCode::CallbackFailed, message)
    }
}

/// The agent under test. `history` is the whole conversation so far, ending
/// with the new user message; it only ever grows by appending, so a host
/// can mirror it incrementally. `shown_last`, when set, is what the agent
/// is shown in place of that last message, for this call only: the user
/// message with the observers' assessment added (not part of the history).
pub trait Agent {
    fn respond<'a>(&'a self, history: &'a [ModelMessage], shown_last: Option<&'a ModelMessage>) -> LocalBoxFuture<'a, Result<AgentAnswer>>;
}

/// Where a generation run reports to: records (through [`Records`]), new
/// traces and the end marker.
pub trait RunEvents: Records {
    /// A new trace (carrying `end` only when the run stopped inside its turn).
    fn trace(&self, trace: &StepTrace);
    /// The end marker set on the last trace, when the run stopped between turns.
    fn ended(&self, end: &End);
    /// The rubric judge's judgement after turn `turn`, for its trace.
    fn judged(&self, turn: u32, judgement: &Value);
    /// Trace `turn`'s tokens, changed after it was out (the judge's call
    /// after it counts in it).
    fn tokens(&self, turn: u32, tokens: u64);
}

/// A judge's verdict on a criterion, or on all of them: `pass` (the
/// conversation shows it holds), `fail` (shows it does not), `inconclusive`
/// (shows neither). A run acts on it (see `run::judging`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JudgeVerdict {
    Pass,
    Fail,
    Inconclusive,
}

impl JudgeVerdict {
    pub const ALL: [JudgeVerdict; 3] = [JudgeVerdict::Pass, JudgeVerdict::Fail, JudgeVerdict::Inconclusive];

    pub fn as_str(self) -> &'static str {
        match self {
            JudgeVerdict::Pass => "pass",
            JudgeVerdict::Fail => "fail",
            JudgeVerdict::Inconclusive => "inconclusive",
        }
    }

    pub fn parse(s: &str) -> Option<JudgeVerdict> {
        JudgeVerdict::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// What the rubric judge answered about the run so far.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeAnswer {
    pub verdict: JudgeVerdict,
    /// The criteria that failed, by name.
    pub failed: Vec<String>,
    /// The judgement as recorded and shown on the trace.
    pub judgement: Value,
    /// What its model calls cost.
    pub usage: Usage,
}

/// The rubric judge of a run (the judging crate's; the host hands it over
/// with its model). The run decides what a verdict does; the judge, how
/// the conversation is graded.
pub trait RunJudge {
    /// Asked after every live turn (else only at the end).
    fn every_turn(&self) -> bool;
    /// A `fail` after a turn ends the run.
    fn end_on_fail(&self) -> bool;
    /// A `pass` of every criterion after a turn ends the run.
    fn end_on_pass(&self) -> bool;
    /// Grades the conversation so far (`findings`: what the observers
    /// showed, with the turn), after `turn`, or at the end (`is_final`).
    fn judge<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        findings: &'a [(Option<u64>, Assessment)],
        turn: u32,
        is_final: bool,
    ) -> LocalBoxFuture<'a, Result<JudgeAnswer>>;
}

pub struct Env<'a> {
    pub clock: &'a dyn Clock,
    pub user_model: &'a dyn Model,
    pub agent: &'a dyn Agent,
    pub policy: &'a dyn Policy,
    pub timer: Option<&'a dyn Timer>,
    pub abort: Option<&'a dyn Abort>,
    pub observers: Option<&'a dyn ToolObservers>,
    pub events: &'a dyn RunEvents,
    /// Used as the conversation id when the definition names none.
    pub run_id: Option<String>,
    /// How long a model, agent or user-model call may take (a step's
    /// `timeoutMs` overrides it for that step's agent calls); `None`: no
    /// deadline. See [`crate::host::CallTimeout`].
    pub call_timeout_ms: Option<f64>,
    /// The rubric judge (`judge`), if any.
    pub judge: Option<&'a dyn RunJudge>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_trajectorys_own_option_given_to_run_trajectory_says_where_it_goes() {
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        assert!(check_run_options(&keys(&["userModel", "clock"])).is_ok());
        for key in ["minTurns", "simulator", "maxTurns"] {
            assert_eq!(
                check_run_options(&keys(&["userModel", key])).unwrap_err().message,
                format!("runTrajectory options: {key:?} is not an option of runTrajectory but of the trajectory: give it in createTrajectory's definition")
            );
        }
        let e = check_run_options(&keys(&["observer"])).unwrap_err().message;
        assert!(e.starts_with("runTrajectory options: unknown option \"observer\"; did you mean \"observers\"?"), "{e}");
    }

    #[test]
    fn a_slip_of_an_answers_key_is_refused_naming_it() {
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        assert!(AgentAnswer::check_keys(&keys(&["messages", "usage", "response"])).is_ok());
        let e = AgentAnswer::check_keys(&keys(&["messages", "useage"])).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::CallbackFailed, "agent.respond's answer { messages, usage? }: unknown field \"useage\"; did you mean \"usage\"?")
        );
    }

    #[test]
    fn an_answer_is_its_messages_and_usage_and_a_bad_one_is_the_agents_fault() {
        let hello = json!([{ "role": "assistant", "content": "hi" }]);
        let a = AgentAnswer::from_parts(hello.clone(), || Ok(Some(json!({ "inputTokens": 3, "outputTokens": 4 })))).unwrap();
        assert_eq!((a.messages.len(), a.usage.input_tokens, a.usage.output_tokens), (1, Some(3), Some(4)));
        assert_eq!(AgentAnswer::from_parts(hello.clone(), || Ok(Some(Value::Null))).unwrap().usage, Usage::default());
        // The messages are read first: their fault is named even when the usage is bad too.
        let e = AgentAnswer::from_parts(json!([{ "role": "nobody" }]), || Ok(Some(json!("x")))).unwrap_err();
        assert!(e.message.starts_with("agent.respond returned"), "{}", e.message);
        let e = AgentAnswer::from_parts(hello.clone(), || Ok(Some(json!("x")))).unwrap_err();
        assert_eq!(e.code, ErrorCode::CallbackFailed);
        let e = AgentAnswer::not_an_answer("a number (3)", &[]);
        assert_eq!(e.code, ErrorCode::CallbackFailed);
        assert_eq!(e.message, "agent.respond returned a number (3); expected { messages: ModelMessage[], usage? } or an array of messages");
        // A misspelt `messages` is named; keys far from it are not.
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let e = AgentAnswer::not_an_answer(r#"{"mesages":[]}"#, &keys(&["usage", "mesages"]));
        assert!(e.message.ends_with(r#"or an array of messages; its key "mesages": did you mean "messages"?"#), "{}", e.message);
        for far in [&["text"][..], &["usage"], &["messages"], &[]] {
            assert!(AgentAnswer::not_an_answer("{}", &keys(far)).message.ends_with("or an array of messages"), "{far:?}");
        }
    }
}
