//! The message model: AI SDK `ModelMessage` (role + string content or typed
//! parts). Inputs in the older AI SDK shape (`args` / `result` / `isError`)
//! and the shorthand `{type:'tool-call', id, name, args}` are accepted and
//! normalised, so everything downstream sees one shape.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::error::{Error, ErrorCode, Result};
use crate::number::quoted;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }
}

/// One message of a conversation, in the AI SDK `ModelMessage` shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelMessage {
    pub role: Role,
    pub content: Content,
    /// Carried through untouched (AI SDK provider hints).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_options: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<Part>),
}

/// A content part. Parts the library does not interpret (images, files,
/// provider-specific ones) are kept verbatim in [`Part::Other`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Part {
    Text {
        text: String,
    },
    Reasoning {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    ToolCall {
        tool_call_id: String,
        tool_name: String,
        input: Value,
    },
    #[serde(rename_all = "camelCase")]
    ToolResult {
        tool_call_id: String,
        tool_name: String,
        /// AI SDK tool output: `{ type: 'text' | 'json' | 'error-text' | 'error-json' | 'content', value }`.
        output: Value,
    },
    #[serde(untagged)]
    Other(Value),
}

/// A tool result as records, prompts and judges read it: the tool's own
/// value (an AI SDK output's `value`; an output of another shape, whole)
/// and whether the call failed (`error-text` / `error-json`). The one rule
/// for every reader of a tool-result part: a generated run's and a step
/// export's `tool_ended` hold this `value`, as the AI SDK and Mastra
/// captures' hold the tool's output.
pub struct ToolOutput<'a> {
    pub value: &'a Value,
    pub failed: bool,
}

impl ToolOutput<'_> {
    pub fn of(output: &Value) -> ToolOutput<'_> {
        ToolOutput {
            value: output.get("value").unwrap_or(output),
            failed: output.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("error")),
        }
    }
}

impl ModelMessage {
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        ModelMessage { role, content: Content::Text(text.into()), provider_options: None }
    }

    pub fn parts(&self) -> &[Part] {
        match &self.content {
            Content::Parts(p) => p,
            Content::Text(_) => &[],
        }
    }

    /// The plain text of the message: string content, or its text parts joined.
    pub fn text_content(&self) -> String {
        match &self.content {
            Content::Text(t) => t.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(""),
        }
    }

    /// Normalises one message from any accepted shape; errors name the field.
    pub fn from_value(v: &Value) -> Result<ModelMessage> {
        ModelMessage::from_owned(v.clone())
    }

    /// [`ModelMessage::from_value`] of a value the caller gives up: its
    /// strings and tool inputs and outputs are moved into the message, not
    /// copied (a parsed line's or an agent's answer's messages).
    pub fn from_owned(v: Value) -> Result<ModelMessage> {
        let mut obj = match v {
            Value::Object(obj) => obj,
            other => return Err(invalid(format!("expected an object, got {}", kind_of(&other)))),
        };
        let role_str = obj.get("role").and_then(Value::as_str).ok_or_else(|| invalid("`role` must be one of system, user, assistant, tool"))?;
        let role = Role::parse(role_str)
            .ok_or_else(|| invalid(format!("unknown role {role_str}; expected system, user, assistant or tool", role_str = quoted(role_str))))?;
        let content = match obj.remove("content") {
            Some(Value::String(s)) => Content::Text(s),
            Some(Value::Array(items)) => {
                let mut parts = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    let part = normalise_part(item).map_err(|e| e.within(&format!("content[{i}]")))?;
                    parts.push(part);
                }
                Content::Parts(parts)
            }
            Some(other) => return Err(invalid(format!("`content` must be a string or an array of parts, got {}", kind_of(&other)))),
            None => return Err(invalid("`content` is missing")),
        };
        if role == Role::System && !matches!(content, Content::Text(_)) {
            return Err(invalid("a system message's `content` must be a string"));
        }
        if role == Role::Tool {
            if let Content::Parts(parts) = &content {
                if let Some(i) = parts.iter().position(|p| !matches!(p, Part::ToolResult { .. })) {
                    return Err(invalid(format!("content[{i}]: a tool message holds only tool-result parts")));
                }
            }
        }
        let provider_options = obj.remove("providerOptions");
        Ok(ModelMessage { role, content, provider_options })
    }
}

impl<'de> Deserialize<'de> for ModelMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        ModelMessage::from_owned(Value::deserialize(d)?).map_err(|e| serde::de::Error::custom(e.message))
    }
}

/// Normalises a list of messages; an error names the index (`messages[3].content[0]: ...`).
pub fn normalize_messages(v: Value) -> Result<Vec<ModelMessage>> {
    let items = match v {
        Value::Array(items) => items,
        other => return Err(invalid(format!("messages must be an array, got {}", kind_of(&other)))),
    };
    items.into_iter().enumerate().map(|(i, m)| ModelMessage::from_owned(m).map_err(|e| e.within(&format!("messages[{i}]")))).collect()
}

/// What a part's `type` says it is (read before its fields are taken out).
enum PartKind {
    Text,
    Reasoning,
    ToolCall,
    ToolResult,
    Other,
}

fn normalise_part(v: Value) -> Result<Part> {
    let mut obj = match v {
        Value::Object(obj) => obj,
        other => return Err(invalid(format!("a part must be an object, got {}", kind_of(&other)))),
    };
    let kind = match obj.get("type").and_then(Value::as_str).ok_or_else(|| invalid("a part needs a string `type`"))? {
        "text" => PartKind::Text,
        "reasoning" => PartKind::Reasoning,
        "tool-call" => PartKind::ToolCall,
        "tool-result" => PartKind::ToolResult,
        // Images, files, provider parts: kept as they are. A slip of a part
        // this library reads (`txt`, `tool_call`) would be kept too, and
        // never read: refused, naming it. (A type that extends one, such as
        // `reasoning-file`, is another part, not a slip.)
        ty => match crate::options::nearest(ty, &PARTS).filter(|p| !ty.starts_with(*p)) {
            Some(near) => {
                return Err(invalid(format!(
                    "part type {ty} is not one this library reads; did you mean {near}? ({})",
                    PARTS.join(", "),
                    ty = quoted(ty),
                    near = quoted(near)
                )))
            }
            None => PartKind::Other,
        },
    };
    // A slip of a key read below with a default (`inptu`, `isEror`) would
    // be kept unread and the part read without it: refused, naming it.
    // Other keys (a provider's) pass. `known` lists every key read, so a
    // part of only those costs a look at its keys, and the AI SDK's own
    // keys are not weighed as slips at all.
    const AI_SDK: [&str; 5] = ["providerOptions", "providerMetadata", "providerExecuted", "dynamic", "title"];
    let known: &[&'static str] = match kind {
        PartKind::ToolCall => &["type", "toolCallId", "toolName", "input", "id", "name", "args"],
        PartKind::ToolResult => &["type", "toolCallId", "toolName", "output", "id", "name", "result", "isError"],
        // No default to lose: a text part without `text` is refused below.
        _ => &[],
    };
    // Only tool parts have defaults to lose (no search per key on every text part).
    let slip = if known.is_empty() { Ok(()) } else { crate::options::refuse_slips(&obj, known, &AI_SDK, "") };
    if let Err(e) = slip {
        let ty = obj.get("type").and_then(Value::as_str).unwrap_or_default();
        return Err(invalid(format!("a {ty} part{}", e.message)));
    }
    match kind {
        PartKind::Text => Ok(Part::Text { text: take_str(&mut obj, &["text"]).ok_or_else(|| invalid("a text part needs a string `text`"))? }),
        PartKind::Reasoning => {
            Ok(Part::Reasoning { text: take_str(&mut obj, &["text"]).ok_or_else(|| invalid("a reasoning part needs a string `text`"))? })
        }
        PartKind::ToolCall => {
            let tool_call_id = take_str(&mut obj, &["toolCallId", "id"]).ok_or_else(|| invalid("a tool-call part needs `toolCallId` (or `id`)"))?;
            let tool_name = take_str(&mut obj, &["toolName", "name"]).ok_or_else(|| invalid("a tool-call part needs `toolName` (or `name`)"))?;
            // `input` (AI SDK 5+) wins over `args` (AI SDK 4, shorthand).
            let input = match obj.remove("input") {
                Some(input) => input,
                None => obj.remove("args").unwrap_or(Value::Object(Map::new())),
            };
            Ok(Part::ToolCall { tool_call_id, tool_name, input })
        }
        PartKind::ToolResult => {
            let tool_call_id = take_str(&mut obj, &["toolCallId", "id"]).ok_or_else(|| invalid("a tool-result part needs `toolCallId` (or `id`)"))?;
            let tool_name = take_str(&mut obj, &["toolName", "name"]).ok_or_else(|| invalid("a tool-result part needs `toolName` (or `name`)"))?;
            let output = match obj.remove("output") {
                Some(out) => {
                    if out.get("type").and_then(Value::as_str).is_none() {
                        return Err(invalid("a tool-result `output` needs a `type` (text, json, error-text, error-json, content)"));
                    }
                    out
                }
                // AI SDK 4: `result` + optional `isError`.
                None => {
                    let is_error = obj.get("isError").and_then(Value::as_bool).unwrap_or(false);
                    legacy_output(obj.remove("result").unwrap_or(Value::Null), is_error)
                }
            };
            Ok(Part::ToolResult { tool_call_id, tool_name, output })
        }
        PartKind::Other => Ok(Part::Other(Value::Object(obj))),
    }
}

/// The part types read (any other is kept as it is).
const PARTS: [&str; 4] = ["text", "reasoning", "tool-call", "tool-result"];

/// Maps an AI SDK 4 tool result onto the AI SDK 5 `output` union.
fn legacy_output(result: Value, is_error: bool) -> Value {
    let kind = match (&result, is_error) {
        (Value::String(_), false) => "text",
        (Value::String(_), true) => "error-text",
        (_, false) => "json",
        (_, true) => "error-json",
    };
    // Built as a map, not with json!: that serialises `result` into a new
    // Value, a second copy of Value's serializer in the module.
    Value::Object(Map::from_iter([("type".to_owned(), Value::from(kind)), ("value".to_owned(), result)]))
}

/// The first of `names` whose value is a string, taken out of `obj`.
fn take_str(obj: &mut Map<String, Value>, names: &[&str]) -> Option<String> {
    let name = names.iter().find(|n| obj.get(**n).is_some_and(Value::is_string))?;
    match obj.remove(*name) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidMessage, message)
}

pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalises_legacy_and_shorthand_tool_parts() {
        let msgs = normalize_messages(json!([
            { "role": "user", "content": "hi" },
            { "role": "assistant", "content": [
                { "type": "text", "text": "let me look" },
                { "type": "tool-call", "id": "c1", "name": "read_file", "args": { "path": "a.txt" } },
                { "type": "tool-call", "toolCallId": "c2", "toolName": "ls", "args": {} }
            ]},
            { "role": "tool", "content": [
                { "type": "tool-result", "toolCallId": "c1", "toolName": "read_file", "result": "hello" },
                { "type": "tool-result", "toolCallId": "c2", "toolName": "ls", "result": { "code": 2 }, "isError": true }
            ]}
        ]))
        .unwrap();
        let out = serde_json::to_value(&msgs).unwrap();
        assert_eq!(out[1]["content"][1], json!({ "type": "tool-call", "toolCallId": "c1", "toolName": "read_file", "input": { "path": "a.txt" } }));
        assert_eq!(out[2]["content"][0]["output"], json!({ "type": "text", "value": "hello" }));
        assert_eq!(out[2]["content"][1]["output"], json!({ "type": "error-json", "value": { "code": 2 } }));
        let Part::ToolResult { output, .. } = &msgs[2].parts()[1] else { panic!("a tool result") };
        let read = ToolOutput::of(output);
        assert_eq!((read.value, read.failed), (&json!({ "code": 2 }), true));
        let Part::ToolResult { output, .. } = &msgs[2].parts()[0] else { panic!("a tool result") };
        assert_eq!((ToolOutput::of(output).value, ToolOutput::of(output).failed), (&json!("hello"), false));
        // An output of another shape is the value, whole.
        assert_eq!(ToolOutput::of(&json!([1, 2])).value, &json!([1, 2]));
        assert_eq!(msgs[1].text_content(), "let me look");
        // Normalising the normalised form changes nothing.
        assert_eq!(normalize_messages(out.clone()).unwrap(), msgs);
    }

    #[test]
    fn keeps_unknown_parts_verbatim() {
        let img = json!({ "type": "image", "image": "data:...", "mediaType": "image/png" });
        let m = ModelMessage::from_value(&json!({ "role": "user", "content": [img.clone()] })).unwrap();
        assert_eq!(serde_json::to_value(&m).unwrap()["content"][0], img);
        // Parts of other kinds, a newer one extending a read one among them, are kept.
        for ty in ["file", "source", "reasoning-file", "tool-approval-request", "tool-error"] {
            assert!(ModelMessage::from_value(&json!({ "role": "assistant", "content": [{ "type": ty }] })).is_ok(), "{ty}");
        }
        // A slip of a field of a tool part is refused, naming it.
        for (part, said) in [
            (
                json!({ "type": "tool-call", "toolCallId": "c", "toolName": "t", "inptu": { "a": 1 } }),
                "a tool-call part: unknown field \"inptu\"; did you mean \"input\"?",
            ),
            (
                json!({ "type": "tool-result", "toolCallId": "c", "toolName": "t", "outptu": { "type": "text", "value": "v" } }),
                "a tool-result part: unknown field \"outptu\"; did you mean \"output\"?",
            ),
            (
                json!({ "type": "tool-result", "toolCallId": "c", "toolName": "t", "result": "v", "isEror": true }),
                "a tool-result part: unknown field \"isEror\"; did you mean \"isError\"?",
            ),
        ] {
            let e = normalise_part(part).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidMessage, said));
        }
        // A provider's own keys are not slips of ours.
        let part = json!({ "type": "tool-call", "toolCallId": "c", "toolName": "t", "input": {}, "providerExecuted": true, "dynamic": true, "providerOptions": {}, "title": "T" });
        assert!(normalise_part(part).is_ok());
        // A slip of a part type this library reads is refused, naming it.
        for (ty, near) in [("txt", "text"), ("Text", "text"), ("tool_call", "tool-call"), ("tool-reslt", "tool-result")] {
            let e = ModelMessage::from_value(&json!({ "role": "assistant", "content": [{ "type": ty, "text": "x" }] })).unwrap_err();
            assert!(e.message.contains(&format!("part type {ty:?} is not one this library reads; did you mean {near:?}?")), "{}", e.message);
        }
    }

    #[test]
    fn errors_say_where() {
        let e = normalize_messages(json!([
            { "role": "user", "content": "ok" },
            { "role": "assistant", "content": [{ "type": "tool-call", "id": "x" }] }
        ]))
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidMessage);
        assert_eq!(e.message, "messages[1]: content[0]: a tool-call part needs `toolName` (or `name`)");
        let e = ModelMessage::from_value(&json!({ "role": "robot", "content": "x" })).unwrap_err();
        assert!(e.message.contains("unknown role \"robot\""), "{}", e.message);
        let e = ModelMessage::from_value(&json!({ "role": "tool", "content": [{ "type": "text", "text": "x" }] })).unwrap_err();
        assert!(e.message.contains("only tool-result parts"));
        let e = ModelMessage::from_value(&json!({ "role": "system", "content": [] })).unwrap_err();
        assert!(e.message.contains("must be a string"));
    }
}
