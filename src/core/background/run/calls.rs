//! One tool call of a background iteration: `finish` read into the run's
//! end, any other tool run (the built-ins in the VFS, the caller's through
//! the host), recorded, fed to the observers and kept for the prompt.

use serde_json::Value;

use super::{Deadline, Fatal, Runner, Terminal};
use crate::background::state::Invocation;
use crate::background::tools::{self, Workspace, FINISH};
use crate::background::Status;
use crate::capture::{Payload, MODEL_COMPLETED};
use crate::error::{Cause, Error, Result};
use crate::number::quoted;
use crate::observe::ToolCallInput;

/// Whether a caller tool's result counts as finding nothing.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

impl Runner<'_, '_> {
    /// Reads `finish`'s arguments into the end of the run.
    pub(super) fn finish_call(&self, id: &str, input: &Value) -> Result<Terminal> {
        let a = tools::Args::new(FINISH, input, &["status", "summary", "deliverable"])?;
        let (status, reason) = match a.str("status")? {
            "completed" => (Status::Completed, MODEL_COMPLETED),
            "abandoned" => (Status::Abandoned, "model-abandoned"),
            other => {
                return Err(Error::invalid_argument(format!(
                    "finish: status must be \"completed\" or \"abandoned\", got {other}",
                    other = quoted(other)
                )))
            }
        };
        let summary = a.opt_str("summary")?.map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        let proposed = a.get("deliverable").filter(|d| !d.is_null()).cloned();
        let args = input.clone();
        let started = Payload::ToolStarted { tool_call_id: id.into(), tool_name: FINISH.into(), args };
        let ended = Payload::ToolEnded {
            tool_call_id: id.into(),
            tool_name: FINISH.into(),
            result: Value::String(format!("run ends: {}", status.as_str())),
            is_error: false,
        };
        // A recorder failure here surfaces at the next record (run_terminated).
        let _ = self.env.events.record(started).and_then(|_| self.env.events.record(ended));
        Ok(Terminal { status, reason: reason.into(), summary, proposed })
    }

    /// Runs one tool call: recorded, fed to the observers, kept for the
    /// prompt. Returns (ok, found nothing, what [`Runner::ended`] returns).
    pub(super) async fn act(
        &mut self,
        name: &str,
        input: &Value,
        id: &str,
        d: Option<&Deadline>,
    ) -> std::result::Result<(bool, bool, (Value, Option<Cause>)), Fatal> {
        self.record(Payload::ToolStarted { tool_call_id: id.into(), tool_name: name.into(), args: input.clone() })?;
        // Some models send arguments as JSON text.
        let parsed;
        let input = match input {
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(e) => {
                    let e = Error::invalid_argument(format!("{name}: the arguments are not valid JSON: {e}"));
                    return self.ended(self.s.iteration, id, name, input, Err(e)).map(|r| (false, false, r));
                }
            },
            other => other,
        };
        let mut ws = Workspace { plan: &mut self.s.plan, vfs: &mut self.s.vfs, allow_reset: self.cfg.allow_plan_reset };
        let outcome = match tools::call(name, input, &mut ws) {
            Some(r) => r.map(|done| (done.result, done.empty)),
            None if self.env.tools.iter().any(|t| t.name == name) => {
                let what = format!("tool {name}");
                self.bounded(self.env.host.call_tool(name, input, id), d, &what).await?.map(|v| {
                    let empty = is_empty(&v);
                    (v, empty)
                })
            }
            None => {
                let known: Vec<&str> = self.specs.iter().map(|t| t.name.as_str()).collect();
                let near = crate::options::nearest(name, &known).map(|n| format!("; did you mean {n}?", n = quoted(n))).unwrap_or_default();
                Err(Error::invalid_argument(format!("there is no tool {name}{near} (tools: {})", known.join(", "), name = quoted(name))))
            }
        };
        let empty = outcome.as_ref().is_ok_and(|o| o.1);
        let ok = outcome.is_ok();
        let ended = self.ended(self.s.iteration, id, name, input, outcome.map(|o| o.0))?;
        Ok((ok, empty, ended))
    }

    /// Records a call's end, feeds the observers, keeps it for the prompt;
    /// returns the result as the prompt quotes it, and what a failed call
    /// threw (a caller tool's own error, kept for the run's `error.cause`).
    pub(super) fn ended(
        &mut self,
        iteration: u64,
        id: &str,
        name: &str,
        input: &Value,
        outcome: Result<Value>,
    ) -> std::result::Result<(Value, Option<Cause>), Fatal> {
        let (ok, result, error_message, cause) = match outcome {
            Ok(v) => (true, v, None, None),
            Err(e) => (false, Value::String(format!("{}: {}", e.code.as_str(), e.message)), Some(e.message), e.cause),
        };
        self.record(Payload::ToolEnded { tool_call_id: id.into(), tool_name: name.into(), result: result.clone(), is_error: !ok })?;
        if let Some(o) = self.env.observers {
            let call = ToolCallInput {
                tool_name: name.into(),
                params_json: Some(crate::write::json(&input)),
                params_summary: None,
                success: ok,
                error_message,
            };
            o.tool_call(call).map_err(|e| Fatal::Host("observers", e))?;
        }
        self.s.push(Invocation { iteration, tool_call_id: id.into(), tool_name: name.into(), input: input.clone(), ok, result: result.clone() });
        Ok((result, cause))
    }
}
