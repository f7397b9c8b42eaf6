//! Payloads: what happened, tagged by `kind`.
//!
//! Written as `{"kind": "tool_started", ...fields}`. serde's derive for such
//! internally tagged enums buffers every value into an intermediate
//! `Content` tree, which measured ~80 KB of the wasm module. So `Payload`
//! derives only `Serialize` with the tag; reading goes through an
//! externally tagged twin (`{"tool_started": {...}}`) that serde reads
//! directly. One macro writes both from the same variant list, so they
//! cannot drift apart.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::record::{EndedOutcome, GateAllow, RunIdentity};
use crate::core::message::ModelMessage;
use crate::core::observe::Assessment;

macro_rules! payloads {
    ($(
        $(#[$vmeta:meta])*
        $variant:ident = $kind:literal { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    )*) => {
        /// What happened. New kinds are added as capabilities land; a reader
        /// of an older build refuses a kind it does not know with a coded
        /// error naming it.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "kind")]
        #[non_exhaustive]
        pub enum Payload {
            $( $(#[$vmeta])* #[serde(rename = $kind)] $variant { $( $(#[$fmeta])* $field: $ty ),* }, )*
        }

        /// The externally tagged twin that reading goes through.
        #[derive(Deserialize)]
        enum ByKind {
            $( #[serde(rename = $kind)] $variant { $( $(#[$fmeta])* $field: $ty ),* }, )*
        }

        impl From<ByKind> for Payload {
            fn from(p: ByKind) -> Payload {
                match p {
                    $( ByKind::$variant { $($field),* } => Payload::$variant { $($field),* }, )*
                }
            }
        }

        impl Payload {
            pub fn kind(&self) -> &'static str {
                match self {
                    $( Payload::$variant { .. } => $kind, )*
                }
            }
        }
    };
}

payloads! {
    RunStarted = "run_started" {
        identity: RunIdentity,
    }
    RunEnded = "run_ended" {
        outcome: EndedOutcome,
        #[serde(default)]
        new_messages: Vec<ModelMessage>,
    }
    TurnStarted = "turn_started" {
        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "crate::core::number::safe_u64_opt")]
        turn_index: Option<u64>,
    }
    TurnEnded = "turn_ended" {
        assistant: ModelMessage,
        /// The tool messages answering the assistant's tool calls, in order.
        #[serde(default)]
        tool_results: Vec<ModelMessage>,
        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "crate::core::number::safe_u64_opt")]
        turn_index: Option<u64>,
        /// The step a generated turn worked on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step_id: Option<String>,
    }
    /// Which step a generated turn works on, and how it was chosen
    /// (`method`: start, preconditions-ordered, llm-ranked or none;
    /// `candidates`: `[{ stepId, score, reasons? }]`). Kept as JSON data:
    /// typed readers for them cost more module size than they are worth.
    StepSelected = "step_selected" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        turn_index: u64,
        step_id: Option<String>,
        method: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        candidates: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ranker_error: Option<String>,
    }
    MessageAppended = "message_appended" {
        message: ModelMessage,
    }
    ToolStarted = "tool_started" {
        tool_call_id: String,
        tool_name: String,
        #[serde(default)]
        args: Value,
    }
    ToolEnded = "tool_ended" {
        tool_call_id: String,
        tool_name: String,
        #[serde(default)]
        result: Value,
        is_error: bool,
    }
    ProviderRequestPrepared = "provider_request_prepared" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        iteration: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model_id: Option<String>,
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        system_prompt_chars: u64,
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        message_count: u64,
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        tool_count: u64,
        #[serde(default)]
        tools: Vec<String>,
    }
    ContextTransformApplied = "context_transform_applied" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        iteration: u64,
        plugin: String,
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        before_count: u64,
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        after_count: u64,
    }
    ToolGateApplied = "tool_gate_applied" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        iteration: u64,
        plugin: String,
        /// A yes/no, or the tool names let through; absent when the gate
        /// left the set unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        allow: Option<GateAllow>,
    }
    ToolGateConflictResolved = "tool_gate_conflict_resolved" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        iteration: u64,
        plugins: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        chosen_plugin: Option<String>,
        allow: GateAllow,
        reason: String,
    }
    OutputTokensEscalation = "output_tokens_escalation" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        attempt: u64,
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        prev_cap: u64,
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        new_cap: u64,
    }
    /// An observer's assessment after tool call `call_index`, evidence
    /// included; `turn_index` when a generated run injected it into a turn.
    AssessmentProduced = "assessment_produced" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        call_index: u64,
        assessment: Assessment,
        /// The generated turn whose agent call was shown this assessment.
        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "crate::core::number::safe_u64_opt")]
        turn_index: Option<u64>,
    }
    /// A background run began iteration `iteration` (from 0).
    IterationStarted = "iteration_started" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        iteration: u64,
    }
    /// A background iteration ended: what the model decided (`tools`,
    /// `text`, `retry` or `error`), the tools it called, whether it failed.
    IterationCompleted = "iteration_completed" {
        #[serde(deserialize_with = "crate::core::number::safe_u64")]
        iteration: u64,
        decision: String,
        #[serde(default)]
        tools: Vec<String>,
        failed: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    }
    /// How a background run ended: `completed`, `abandoned` or `failed`, and why.
    RunTerminated = "run_terminated" {
        status: String,
        reason: String,
    }
    /// A harness's own event: a name and any JSON data.
    Custom = "custom" {
        name: String,
        #[serde(default)]
        data: Value,
    }
}

impl<'de> Deserialize<'de> for Payload {
    /// Reads `{"kind": K, ...}` as `{K: {"kind": K, ...}}` through [`ByKind`]
    /// (the extra `kind` field is ignored there). Needs a serde_json
    /// deserializer, which every reader in this crate is.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Kind {
            kind: String,
        }
        let raw = Box::<RawValue>::deserialize(d)?;
        let Kind { kind } = serde_json::from_str(raw.get()).map_err(D::Error::custom)?;
        let tagged = format!("{{{}:{}}}", Value::String(kind), raw.get());
        serde_json::from_str::<ByKind>(&tagged).map(Payload::from).map_err(D::Error::custom)
    }
}
