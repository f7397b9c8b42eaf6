//! The agent's answer: its messages checked (assistant and tool messages
//! only), then what each becomes: a `message_appended` record, a
//! `tool_started` / `tool_ended` pair per tool call, and each completed
//! call handed to the observers.

use super::{fault, Interrupt, Runner};
use crate::capture::Payload;
use crate::error::{Error, ErrorCode, Result};
use crate::generate::trace::Side;
use crate::message::{ModelMessage, Part, Role, ToolOutput};
use crate::observe::ToolCallInput;

impl Runner<'_, '_> {
    /// Records the agent's messages and every tool call/result pair in them,
    /// and feeds completed calls to the observers.
    pub(super) fn report_messages(&self, messages: &[ModelMessage]) -> std::result::Result<(), Interrupt> {
        let mut calls: Vec<(&str, &serde_json::Value)> = Vec::new();
        for m in messages {
            self.record(Payload::MessageAppended { message: m.clone() })?;
            for p in m.parts() {
                match p {
                    Part::ToolCall { tool_call_id, tool_name, input } => {
                        calls.push((tool_call_id, input));
                        self.record(Payload::ToolStarted { tool_call_id: tool_call_id.clone(), tool_name: tool_name.clone(), args: input.clone() })?;
                    }
                    Part::ToolResult { tool_call_id, tool_name, output } => {
                        let ToolOutput { value, failed: is_error } = ToolOutput::of(output);
                        self.record(Payload::ToolEnded {
                            tool_call_id: tool_call_id.clone(),
                            tool_name: tool_name.clone(),
                            result: value.clone(),
                            is_error,
                        })?;
                        if let Some(o) = self.env.observers {
                            let input = calls.iter().find(|(id, _)| id == tool_call_id).map(|(_, input)| crate::write::json(input));
                            let error_message = is_error.then(|| value.as_str().map(str::to_owned).unwrap_or_else(|| crate::write::json(value)));
                            let call = ToolCallInput {
                                tool_name: tool_name.clone(),
                                params_json: input,
                                params_summary: None,
                                success: !is_error,
                                error_message,
                            };
                            o.tool_call(call).map_err(fault(Side::Observer))?;
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// The agent answers with assistant and tool messages only.
pub(super) fn check_agent_messages(messages: Vec<ModelMessage>) -> Result<Vec<ModelMessage>> {
    if let Some(i) = messages.iter().position(|m| matches!(m.role, Role::User | Role::System)) {
        let role = if messages[i].role == Role::User { "user" } else { "system" };
        return Err(Error::new(
            ErrorCode::CallbackFailed,
            format!("agent.respond returned a {role} message at messages[{i}]; expected assistant and tool messages"),
        ));
    }
    Ok(messages)
}
