//! What the host injects. The core never reads a clock or calls a model by
//! itself: it asks these traits, which JS callbacks implement in the binding
//! and plain Rust fakes implement in tests. Single-threaded: no `Send`.
//!
//! Above capture and observe, whose types its traits carry (a record's
//! payload, a tool call, an assessment); generation and the objective loop
//! use it. The values a host hands over (a caller's argument, a clock
//! reading) are read in [`crate::value`], below them all.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capture::well_known::ModelUsage;
use super::error::{Error, ErrorCode, Result};
use super::message::{kind_of, ModelMessage, Part};
use super::value::check_clock;
use crate::number::quoted;

mod env;
pub use env::{yields_before, Abort, Records, ShownAssessment, Timer, ToolObservers, YIELD_AFTER_PARTS, YIELD_EVERY};

/// Milliseconds since the Unix epoch, as the host sees them.
pub trait Clock {
    fn now_ms(&self) -> f64;
    /// The reading, or why there is none (a host clock that threw says so
    /// here, instead of reading as NaN).
    fn try_now_ms(&self) -> Result<f64> {
        check_clock(self.now_ms())
    }
}

/// A clock that always answers the same time; useful for exact replays.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub f64);

impl Clock for FixedClock {
    fn now_ms(&self) -> f64 {
        self.0
    }
}

pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// An async language model callback (the AI-as-user, the ranker, the planner).
pub trait Model {
    fn complete(&self, request: ModelRequest) -> LocalBoxFuture<'_, Result<ModelResponse>>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    UserMessage,
    RankSteps,
    Decide,
    Reflect,
    Summarize,
    Judge,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseFormat {
    Text,
    Json,
}

/// What the core asks a model. `responseFormat: 'json'` means the prompt asks
/// for JSON and the core parses and validates the answer itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRequest {
    pub purpose: Purpose,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    pub messages: Vec<ModelMessage>,
    /// Shared, not copied, by every request of a run that offers the same
    /// tools (a background run's are the same in every request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<std::rc::Rc<[ToolSpec]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRequest {
    pub tool_call_id: Option<String>,
    pub tool_name: String,
    pub input: Value,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// As the model reported it (absent from a recorded answer that had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

impl Usage {
    /// Reads `{ inputTokens?, outputTokens?, totalTokens? }`: each a whole
    /// number of tokens, or the AI SDK 7 form `{ total }`; anything else is
    /// refused, naming `what`.
    pub fn from_value(v: &Value, what: &str) -> Result<Usage> {
        let Value::Object(obj) = v else {
            return Err(Error::new(
                ErrorCode::CallbackFailed,
                format!("{what}.usage must be an object {{ inputTokens?, outputTokens? }}, got {}", kind_of(v)),
            ));
        };
        // A slip of a count (`outputTokns`, `input_tokens`) would leave it
        // unread (tokens 0 for a turn that spent them): refused, naming ours.
        // The AI SDK's other keys (`inputTokenDetails`, `raw`, ...) pass.
        const KNOWN: [&str; 3] = ["inputTokens", "outputTokens", "totalTokens"];
        const AI_SDK: [&str; 5] = ["reasoningTokens", "cachedInputTokens", "inputTokenDetails", "outputTokenDetails", "raw"];
        // Other libraries' names for the two counts (OpenAI's, the AI SDK's
        // before version 5) are near none of ours, and would pass unread.
        const THEIRS: [(&str, &str); 4] = [
            ("prompt_tokens", "inputTokens"),
            ("promptTokens", "inputTokens"),
            ("completion_tokens", "outputTokens"),
            ("completionTokens", "outputTokens"),
        ];
        if let Some((key, ours)) = THEIRS.iter().find(|(key, ours)| obj.contains_key(*key) && !obj.contains_key(*ours)) {
            return Err(Error::new(
                ErrorCode::CallbackFailed,
                format!("{what}.usage: unknown field {key}; did you mean {ours}?", key = quoted(key), ours = quoted(ours)),
            ));
        }
        crate::options::refuse_slips(obj, &KNOWN, &AI_SDK, "")
            .map_err(|e| Error::new(ErrorCode::CallbackFailed, format!("{what}.usage{}", e.message)))?;
        let count = |key: &str| -> Result<Option<u64>> {
            let n = match obj.get(key) {
                None | Some(Value::Null) => return Ok(None),
                Some(Value::Object(o)) => match o.get("total") {
                    None | Some(Value::Null) => return Ok(None),
                    Some(t) => t,
                },
                Some(n) => n,
            };
            match n.as_f64() {
                Some(f) => super::number::safe_count(f, &format!("{what}.usage.{key}"))
                    .map(Some)
                    .map_err(|e| Error::new(ErrorCode::CallbackFailed, e.message)),
                None => Err(Error::new(
                    ErrorCode::CallbackFailed,
                    format!("{what}.usage.{key} must be a number of tokens, got {}", super::number::show_value(n)),
                )),
            }
        };
        Ok(Usage { input_tokens: count("inputTokens")?, output_tokens: count("outputTokens")?, total_tokens: count("totalTokens")? })
    }

    /// The `model_usage` record's data for this call (`source`: who asked).
    pub fn model_usage(&self, source: Option<&str>) -> ModelUsage {
        ModelUsage {
            source: source.map(str::to_owned),
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            total_tokens: self.total_tokens,
            finish_reason: None,
        }
    }

    /// The tokens the call used, as its `model_usage` record counts them:
    /// the reported total, else input + output ([`ModelUsage::total`]).
    pub fn total(&self) -> u64 {
        self.model_usage(None).total()
    }
}

/// A model's answer, normalised from `string | { text?, toolCalls?, usage? }`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelResponse {
    pub text: String,
    pub tool_calls: Vec<ToolCallRequest>,
    pub usage: Usage,
}

impl ModelResponse {
    /// Accepts what a host callback may resolve to; anything else is a coded
    /// `CALLBACK_FAILED` naming what came back.
    /// Takes the value: its text and tool inputs move into the response.
    pub fn from_value(v: Value) -> Result<ModelResponse> {
        let garbage = |what: String| {
            Error::new(ErrorCode::CallbackFailed, format!("model returned {what}; expected a string or {{ text?, toolCalls?, usage? }}"))
        };
        match v {
            Value::String(text) => Ok(ModelResponse { text, ..Default::default() }),
            Value::Object(mut obj) => {
                // A slip first: `{ txt }` is said as `text` misspelt, not as an answer without one.
                crate::options::refuse_slips(&obj, &["text", "toolCalls", "usage"], &[], "model answer")
                    .map_err(|e| Error { code: ErrorCode::CallbackFailed, ..e })?;
                if !obj.contains_key("text") && !obj.contains_key("toolCalls") {
                    let keys: Vec<&str> = obj.keys().map(String::as_str).take(8).collect();
                    return Err(garbage(format!(
                        "an object without `text` or `toolCalls` (its keys: {})",
                        if keys.is_empty() { "none".to_owned() } else { keys.join(", ") }
                    )));
                }
                let text = match obj.get_mut("text") {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => std::mem::take(s),
                    Some(other) => return Err(garbage(format!("`text` as {}", kind_of(other)))),
                };
                let mut tool_calls = Vec::new();
                if let Some(calls) = obj.get_mut("toolCalls").filter(|c| !c.is_null()) {
                    let calls = calls.as_array_mut().ok_or_else(|| garbage("`toolCalls` that is not an array".into()))?;
                    for (i, c) in calls.iter_mut().enumerate() {
                        let name = c.get("toolName").and_then(Value::as_str);
                        let name = name.ok_or_else(|| garbage(format!("toolCalls[{i}] without a string `toolName`")))?.to_owned();
                        let tool_call_id = c.get("toolCallId").and_then(Value::as_str).map(str::to_owned);
                        // `input`, or the older `args` when there is no `input` key at all.
                        let input = match c.get_mut("input") {
                            Some(input) => input.take(),
                            None => c.get_mut("args").map_or(Value::Null, Value::take),
                        };
                        tool_calls.push(ToolCallRequest { tool_call_id, tool_name: name, input });
                    }
                }
                let usage = match obj.get("usage") {
                    None | Some(Value::Null) => Usage::default(),
                    Some(u) => Usage::from_value(u, "model answer")?,
                };
                Ok(ModelResponse { text, tool_calls, usage })
            }
            other => Err(garbage(kind_of(&other).to_owned())),
        }
    }

    /// The response as an assistant message (text part first, then tool calls),
    /// with `make_id(i)` naming tool calls the model left unnamed.
    pub fn to_assistant_message(&self, mut make_id: impl FnMut(usize) -> String) -> ModelMessage {
        use super::message::{Content, Role};
        if self.tool_calls.is_empty() {
            return ModelMessage::text(Role::Assistant, self.text.clone());
        }
        let mut parts = Vec::with_capacity(self.tool_calls.len() + 1);
        if !self.text.is_empty() {
            parts.push(Part::Text { text: self.text.clone() });
        }
        for (i, c) in self.tool_calls.iter().enumerate() {
            parts.push(Part::ToolCall {
                tool_call_id: c.tool_call_id.clone().unwrap_or_else(|| make_id(i)),
                tool_name: c.tool_name.clone(),
                input: c.input.clone(),
            });
        }
        ModelMessage { role: Role::Assistant, content: Content::Parts(parts), provider_options: None }
    }
}

/// The longest timeout a host timer takes (setTimeout's limit, 2^31 - 1 ms: 24.8 days).
pub const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

/// A model call's deadline, for generated runs (`callTimeoutMs`) and
/// background runs (`iterationTimeoutMs`): without a signal, a model that
/// never answers would hang the run silently, so every call has one by default.
pub struct CallTimeout;

impl CallTimeout {
    /// Two minutes: longer than any reasonable model answer, short enough
    /// that a call that will never answer is reported while someone waits.
    pub const DEFAULT_MS: f64 = 120_000.0;

    /// Reads `callTimeoutMs`: absent is the default, `false` no deadline,
    /// else a positive number of milliseconds (at most 2^31 - 1, setTimeout's limit).
    pub fn read(v: Option<&serde_json::Value>) -> Result<Option<f64>> {
        Self::read_as(v, "callTimeoutMs")
    }

    /// The same rule for another option, `what` naming it in the error.
    pub fn read_as(v: Option<&serde_json::Value>, what: &str) -> Result<Option<f64>> {
        use serde_json::Value;
        match v {
            None | Some(Value::Null) => Ok(Some(Self::DEFAULT_MS)),
            Some(Value::Bool(false)) => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n > 0.0 && n <= MAX_TIMEOUT_MS => Ok(Some(n)),
                _ => Err(crate::Error::invalid_argument(format!(
                    "{what} must be a positive number of milliseconds (at most 2147483647), or false for no deadline, got {}",
                    crate::number::show_value(v)
                ))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_deadline_by_default_off_by_false_and_refused_out_of_range() {
        assert_eq!(CallTimeout::read(None).unwrap(), Some(120_000.0));
        assert_eq!(CallTimeout::read(Some(&json!(false))).unwrap(), None);
        assert_eq!(CallTimeout::read(Some(&json!(250))).unwrap(), Some(250.0));
        for bad in [json!(0), json!(-1), json!(true), json!("NaN"), json!(3_000_000_000u64)] {
            let e = CallTimeout::read(Some(&bad)).unwrap_err();
            assert!(e.message.starts_with("callTimeoutMs must be a positive number of milliseconds"), "{bad}: {}", e.message);
        }
    }
    use serde_json::json;

    #[test]
    fn a_slip_in_a_usage_is_refused_naming_the_count_read() {
        let said = ModelResponse::from_value(json!({ "text": "t", "usag": {} })).unwrap_err();
        assert_eq!((said.code, said.message.as_str()), (ErrorCode::CallbackFailed, "model answer: unknown field \"usag\"; did you mean \"usage\"?"));
        // An answer whose only key is a slip of `text` is said as that slip.
        let said = ModelResponse::from_value(json!({ "txt": "hi" })).unwrap_err();
        assert_eq!(said.message, "model answer: unknown field \"txt\"; did you mean \"text\"?");
        for (usage, key, near) in [
            (json!({ "inputTokens": 50, "outputTokns": 5 }), "outputTokns", "outputTokens"),
            (json!({ "input_tokens": 50, "output_tokens": 5 }), "input_tokens", "inputTokens"),
            (json!({ "prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55 }), "prompt_tokens", "inputTokens"),
            (json!({ "inputTokens": 50, "completionTokens": 5 }), "completionTokens", "outputTokens"),
        ] {
            let e = Usage::from_value(&usage, "agent.respond").unwrap_err();
            assert_eq!(e.message, format!("agent.respond.usage: unknown field {key:?}; did you mean {near:?}?"));
        }
        // The AI SDK's other keys are its own.
        let ai = json!({ "inputTokens": 5, "outputTokens": 7, "totalTokens": 12, "reasoningTokens": 2, "cachedInputTokens": 1,
            "inputTokenDetails": { "noCacheTokens": 4 }, "outputTokenDetails": { "textTokens": 5 }, "raw": {} });
        assert_eq!(Usage::from_value(&ai, "x").unwrap(), Usage { input_tokens: Some(5), output_tokens: Some(7), total_tokens: Some(12) });
    }

    #[test]
    fn a_reported_total_is_the_calls_count_as_its_record_counts_it() {
        let only = Usage::from_value(&json!({ "totalTokens": 10 }), "x").unwrap();
        assert_eq!((only.total(), only.model_usage(Some("agent")).data()), (10, json!({ "source": "agent", "totalTokens": 10 })));
        // A total that is not the sum (reasoning, cached tokens) is the count.
        let more = Usage::from_value(&json!({ "inputTokens": 3, "outputTokens": 2, "totalTokens": 10 }), "x").unwrap();
        assert_eq!(more.total(), 10);
        assert_eq!(Usage::from_value(&json!({ "inputTokens": 3, "outputTokens": { "total": 2 } }), "x").unwrap().total(), 5);
        let e = Usage::from_value(&json!({ "totalTokens": -1 }), "agent.respond").unwrap_err();
        assert!(e.message.starts_with("agent.respond.usage.totalTokens"), "{}", e.message);
    }

    #[test]
    fn response_shapes() {
        assert_eq!(ModelResponse::from_value(json!("hi")).unwrap().text, "hi");
        let r = ModelResponse::from_value(json!({
            "text": "ok", "toolCalls": [{ "toolName": "ls", "input": { "p": 1 } }],
            "usage": { "inputTokens": 5, "outputTokens": 7 }
        }))
        .unwrap();
        assert_eq!(r.tool_calls[0].tool_name, "ls");
        assert_eq!(r.usage.output_tokens, Some(7));
        let m = r.to_assistant_message(|i| format!("call-{i}"));
        assert_eq!(serde_json::to_value(&m).unwrap()["content"][1]["toolCallId"], "call-0");
        let e = ModelResponse::from_value(json!(42)).unwrap_err();
        assert_eq!(e.code, ErrorCode::CallbackFailed);
        assert!(e.message.contains("a number"));
        let e = ModelResponse::from_value(json!({ "toolCalls": [{}] })).unwrap_err();
        assert!(e.message.contains("toolCalls[0]"));
    }

    #[test]
    fn request_serialises_in_js_shape() {
        let req =
            ModelRequest { purpose: Purpose::RankSteps, system: None, messages: vec![], tools: None, response_format: Some(ResponseFormat::Json) };
        assert_eq!(serde_json::to_value(&req).unwrap(), json!({ "purpose": "rank-steps", "messages": [], "responseFormat": "json" }));
    }
}
