//! Payloads: what happened, tagged by `kind`; with them the types of two
//! of their fields (a run's identity, a tool gate's `allow`).
//!
//! Written as `{"kind": "tool_started", ...fields}` by serde's derive.
//! Read by hand, field by field, from a `serde_json::Value` (see
//! [`crate::read`]): serde's derive for internally tagged enums
//! buffers every value into an intermediate tree (~80 KB of the wasm
//! module), and even an externally tagged twin derived per variant cost
//! ~9 KB gzip. One macro writes the enum and its reader from the same
//! variant list, so they cannot drift apart.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::outcome::EndedOutcome;
use crate::message::ModelMessage;
use crate::number::quoted;
use crate::observe::Assessment;
use crate::read::{field, object, present, At, FromJson};

macro_rules! payloads {
    ($(
        $(#[doc = $doc:literal])+
        $variant:ident = $kind:literal { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    )*) => {
        /// What happened. New kinds are added as capabilities land; a reader
        /// of an older build refuses a kind it does not know with a coded
        /// error naming it.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "kind")]
        #[non_exhaustive]
        pub enum Payload {
            $( $(#[doc = $doc])+ #[serde(rename = $kind)] $variant { $( $(#[$fmeta])* $field: $ty ),* }, )*
        }

        /// Every payload kind this build writes and reads.
        pub const KINDS: &[&str] = &[$( $kind ),*];

        /// Every kind's field names (without the docs' text, which only
        /// the docs need).
        const FIELDS: &[(&str, &[&str])] = &[$( ($kind, &[$( stringify!($field) ),*]) ),*];

        /// Every kind with its fields (name, Rust type) and its doc comment:
        /// the docs' table of kinds is generated from this.
        pub const KIND_DOCS: &[KindDoc] = &[$( KindDoc {
            kind: $kind,
            fields: &[$( (stringify!($field), stringify!($ty)) ),*],
            about: &[$( $doc ),+],
        } ),*];

        impl Payload {
            pub fn kind(&self) -> &'static str {
                match self {
                    $( Payload::$variant { .. } => $kind, )*
                }
            }

            /// Reads `{"kind": K, ...fields}`. Keys it does not know are
            /// ignored (a newer writer's extra fields), or refused in what a
            /// caller wrote (see [`crate::read::known_fields`]); an error names the field.
            fn from_object(mut obj: Map<String, Value>, at: &At) -> Result<Payload, String> {
                let kind: String = field(&mut obj, "kind", at)?;
                if let (true, Some((_, known))) = (at.written(), FIELDS.iter().find(|(k, _)| *k == kind)) {
                    crate::read::known_fields(&obj, known, at)?;
                }
                match kind.as_str() {
                    $( $kind => Ok(Payload::$variant {
                        $( $field: field(&mut obj, stringify!($field), at)?, )*
                    }), )*
                    other => Err(unknown_kind_message(other, &At::Key(at, "kind").to_string())),
                }
            }
        }
    };
}

payloads! {
    /// A run began: who runs it (`run_id`, `parent_run_id` for a child run,
    /// `agent`, `model_id`). The first record of every run.
    RunStarted = "run_started" {
        identity: RunIdentity,
    }
    /// A run ended. `outcome` is `{ status, reason?, message?, error_code?,
    /// verdict? }`, or a bare label such as `"ended"` as the Rust agent
    /// runtime this format comes from writes it; `new_messages`: the messages
    /// the run added, as that runtime writes them (this package's runs and
    /// integrations leave it empty: their messages are in the run's
    /// `message_appended` and `turn_ended` records). The last record of every run.
    RunEnded = "run_ended" {
        outcome: EndedOutcome,
        new_messages: Vec<ModelMessage>,
    }
    /// A turn of the agent began (a generated run's turns are numbered).
    TurnStarted = "turn_started" {
        #[serde(skip_serializing_if = "Option::is_none")]
        turn_index: Option<u64>,
    }
    /// A turn ended: the assistant's message and the tool results that
    /// answered its calls.
    TurnEnded = "turn_ended" {
        assistant: ModelMessage,
        /// The tool messages answering the assistant's tool calls, in order.
        tool_results: Vec<ModelMessage>,
        #[serde(skip_serializing_if = "Option::is_none")]
        turn_index: Option<u64>,
        /// The step a generated turn worked on.
        #[serde(skip_serializing_if = "Option::is_none")]
        step_id: Option<String>,
    }
    /// Which step a generated turn works on, and how it was chosen
    /// (`method`: start, preconditions-ordered, llm-ranked or none;
    /// `candidates`: `[{ stepId, score, reasons? }]`).
    StepSelected = "step_selected" {
        turn_index: u64,
        step_id: Option<String>,
        method: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        candidates: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ranker_error: Option<String>,
    }
    /// A message joined the conversation (a simulated user's, say).
    MessageAppended = "message_appended" {
        message: ModelMessage,
    }
    /// A tool call began, with its arguments.
    ToolStarted = "tool_started" {
        tool_call_id: String,
        tool_name: String,
        args: Value,
    }
    /// A tool call ended, with its result and whether it failed. `result`
    /// is the tool's own value: of an AI SDK tool output `{ type, value }`
    /// (a generated run's), the `value`.
    ToolEnded = "tool_ended" {
        tool_call_id: String,
        tool_name: String,
        result: Value,
        is_error: bool,
    }
    /// A request to the model is ready: its size in messages, tools and
    /// system prompt characters (the agent runtime this format comes from).
    ProviderRequestPrepared = "provider_request_prepared" {
        iteration: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        model_id: Option<String>,
        system_prompt_chars: u64,
        message_count: u64,
        tool_count: u64,
        tools: Vec<String>,
    }
    /// A plugin changed the context before a request (message counts before
    /// and after).
    ContextTransformApplied = "context_transform_applied" {
        iteration: u64,
        plugin: String,
        before_count: u64,
        after_count: u64,
    }
    /// A plugin limited which tools the model may call.
    ToolGateApplied = "tool_gate_applied" {
        iteration: u64,
        plugin: String,
        /// A yes/no, or the tool names let through; absent when the gate
        /// left the set unchanged.
        #[serde(skip_serializing_if = "Option::is_none")]
        allow: Option<GateAllow>,
    }
    /// Two tool gates disagreed and one was chosen; `allow` is a boolean, or
    /// the tool names let through, as that runtime writes it.
    ToolGateConflictResolved = "tool_gate_conflict_resolved" {
        iteration: u64,
        plugins: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        chosen_plugin: Option<String>,
        allow: GateAllow,
        reason: String,
    }
    /// The output token cap was raised after a cut-off answer.
    OutputTokensEscalation = "output_tokens_escalation" {
        attempt: u64,
        prev_cap: u64,
        new_cap: u64,
    }
    /// An observer's assessment after tool call `call_index`, evidence
    /// included: written by an `ObserverPipeline` given a `recorder`, and by
    /// a generated run for each assessment its agent was shown, with the turn.
    AssessmentProduced = "assessment_produced" {
        call_index: u64,
        assessment: Assessment,
        /// The generated turn whose agent call was shown this assessment.
        #[serde(skip_serializing_if = "Option::is_none")]
        turn_index: Option<u64>,
    }
    /// A background run began iteration `iteration` (from 0).
    IterationStarted = "iteration_started" {
        iteration: u64,
    }
    /// A background iteration ended: what the model decided (`tools`,
    /// `text`, `retry` or `error`), the tools it called, whether it failed.
    IterationCompleted = "iteration_completed" {
        iteration: u64,
        decision: String,
        tools: Vec<String>,
        failed: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    }
    /// How a background run ended: `completed`, `abandoned` or `failed`, and why.
    RunTerminated = "run_terminated" {
        status: String,
        reason: String,
    }
    /// A generated run's simulated user answered with something that is not
    /// the user speaking (`issue`: `empty`, `reasoning`, `role`, `repeat`);
    /// `retried`: it was asked again; `text`: the reply, cut at 500 characters.
    SimulatorIssue = "simulator_issue" {
        turn_index: u64,
        issue: String,
        attempt: u64,
        retried: bool,
        text: String,
    }
    /// A harness's own event: a name and any JSON data.
    Custom = "custom" {
        name: String,
        data: Value,
    }
}

/// A payload kind as the docs describe it (see [`KIND_DOCS`]).
pub struct KindDoc {
    pub kind: &'static str,
    /// `(name, Rust type)`; a field of an `Option` type may be absent.
    pub fields: &'static [(&'static str, &'static str)],
    /// The kind's doc comment, a line per entry.
    pub about: &'static [&'static str],
}

/// `place: kind "x" is not a record kind (did you mean "y"?)`, or with
/// every kind when none is near: what the parser, the index and the
/// index's filter say of a kind this build does not know.
pub fn unknown_kind_message(kind: &str, place: &str) -> String {
    match crate::options::nearest(kind, KINDS) {
        Some(near) => format!("{place}: kind {kind} is not a record kind (did you mean {near}?)", kind = quoted(kind), near = quoted(near)),
        None => format!("{place}: kind {kind} is not a record kind (the kinds: {})", KINDS.join(", "), kind = quoted(kind)),
    }
}

impl FromJson for Payload {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        Payload::from_object(object(v, at)?, at)
    }
}

impl FromJson for ModelMessage {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        ModelMessage::from_owned(present(v, at)?).map_err(|e| format!("{at}: {}", e.message))
    }
}

impl FromJson for EndedOutcome {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        let v = present(v, at)?;
        // What a caller wrote holds only the outcome's fields, as a payload holds only its kind's.
        if let Value::Object(obj) = &v {
            crate::read::known_fields(obj, super::outcome::RunOutcome::KEYS, at)?;
        }
        EndedOutcome::from_value(v).map_err(|e| format!("{at}: {e}"))
    }
}

impl FromJson for GateAllow {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        GateAllow::from_value(present(v, at)?).map_err(|e| format!("{at}: {e}"))
    }
}

/// Who a run is. `run_id` is the key every later record carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunIdentity {
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// A human name for the agent or harness that runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
}

/// A tool gate's `allow`: this package's yes/no, or the list of tool names
/// the gate let through, as the Rust agent runtime writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum GateAllow {
    Decision(bool),
    Tools(Vec<String>),
}

impl Serialize for GateAllow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            GateAllow::Decision(b) => s.serialize_bool(*b),
            GateAllow::Tools(t) => t.serialize(s),
        }
    }
}

impl GateAllow {
    /// A boolean is a decision; a list, the tool names let through.
    pub fn from_value(v: Value) -> std::result::Result<Self, String> {
        match v {
            Value::Bool(b) => Ok(GateAllow::Decision(b)),
            Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s),
                    other => Err(format!("allow[{i}] must be a tool name (a string), got {}", crate::message::kind_of(&other))),
                })
                .collect::<std::result::Result<_, _>>()
                .map(GateAllow::Tools),
            other => Err(format!("allow must be a boolean or a list of tool names, got {}", crate::message::kind_of(&other))),
        }
    }
}

impl<'de> Deserialize<'de> for GateAllow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        GateAllow::from_value(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

from_json_struct!(checked RunIdentity { run_id: "run_id", parent_run_id: "parent_run_id", agent: "agent", model_id: "model_id" });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{read, read_written};
    use serde_json::json;

    #[test]
    fn a_written_payload_holds_only_its_kinds_fields() {
        let ended = json!({ "kind": "tool_ended", "tool_call_id": "c", "tool_name": "x", "result": 1, "is_error": false, "is_eror": true });
        // A file's record: the extra key is a newer writer's, ignored.
        assert_eq!(read::<Payload>(ended.clone(), "payload").unwrap().kind(), "tool_ended");
        // A caller's payload: refused, naming the field meant.
        let e = read_written::<Payload>(ended, "payload").unwrap_err();
        assert!(e.starts_with("payload: unknown field \"is_eror\"; did you mean \"is_error\"? (valid: tool_call_id, tool_name, "), "{e}");
        // And inside the kind's typed parts (a run's identity), not inside free-form data.
        let e = read_written::<Payload>(json!({ "kind": "run_started", "identity": { "run_id": "r", "agnet": "a" } }), "payload").unwrap_err();
        assert!(e.starts_with("payload.identity: unknown field \"agnet\"; did you mean \"agent\"?"), "{e}");
        assert!(read_written::<Payload>(json!({ "kind": "custom", "name": "n", "data": { "anything": 1 } }), "payload").is_ok());
        // A run's outcome too: a misspelt reason or verdict is not dropped.
        let ended = json!({ "kind": "run_ended", "outcome": { "status": "completed", "reson": "x" }, "new_messages": [] });
        let e = read_written::<Payload>(ended.clone(), "payload").unwrap_err();
        assert!(e.starts_with("payload.outcome: unknown field \"reson\"; did you mean \"reason\"?"), "{e}");
        assert!(read::<Payload>(ended, "payload").is_ok(), "a file's record: a newer writer's key");
        let label = json!({ "kind": "run_ended", "outcome": "ended", "new_messages": [] });
        assert!(read_written::<Payload>(label, "payload").is_ok(), "a label has no keys");
    }
}
