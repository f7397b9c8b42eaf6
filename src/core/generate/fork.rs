//! Forking a recorded run (`resumeFrom: { result, atTurn }`): the turns a
//! fork keeps, read back from the result it starts from and checked
//! against the trajectory, for the loop to replay without asking any model
//! before it goes on live. The result is read as JSON data, as the
//! exporters read it, so a result saved to a file forks the same way.

use serde_json::Value;

use super::definition::Trajectory;
use super::trace::{Candidate, Selection, SelectionMethod, StepTrace};
use crate::core::error::{Error, Result};
use crate::core::message::{kind_of, normalize_messages, ModelMessage, Role};
use crate::core::options::check_keys;

const PLACE: &str = "runTrajectory options.resumeFrom";

/// The run a fork starts from and the turns it keeps of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fork {
    /// The forked run's `conversationId`, recorded as the fork's parent.
    pub parent_run_id: String,
    /// Its first `atTurn` traces, without their end marker.
    pub turns: Vec<StepTrace>,
}

impl Fork {
    /// Reads `{ result, atTurn }`: `atTurn` is how many of the result's
    /// turns are kept (0 keeps none: a fresh run; all of them continues the
    /// run). A turn the result ended in with an error or an abort may be
    /// incomplete, so it is not kept: forking before it runs it again.
    pub fn from_value(v: &Value, t: &Trajectory) -> Result<Fork> {
        let bad = |what: String| Error::invalid_argument(format!("{PLACE}{what}"));
        let obj = v.as_object().ok_or_else(|| bad(format!(" must be {{ result, atTurn }}, got {}", kind_of(v))))?;
        check_keys(obj.keys().map(String::as_str), &["result", "atTurn"], PLACE)?;
        let result = obj.get("result").unwrap_or(&Value::Null);
        if !result.is_object() {
            return Err(bad(format!(
                ".result must be a result runTrajectory resolved with ({{ conversationId, steps, ... }}), got {}",
                kind_of(result)
            )));
        }
        let parent = match result.get("conversationId") {
            Some(Value::String(id)) if !id.is_empty() => id,
            other => {
                let got = other.map_or("nothing".to_owned(), |v| if v.is_string() { "an empty string".to_owned() } else { kind_of(v).to_owned() });
                return Err(bad(format!(".result.conversationId must be the id of the run forked from, got {got}")));
            }
        };
        let steps = match result.get("steps") {
            Some(Value::Array(steps)) => steps,
            other => return Err(bad(format!(".result.steps must be the run's step traces, got {}", other.map_or("nothing", kind_of)))),
        };
        let given = obj.get("atTurn");
        let at = given.and_then(Value::as_u64).filter(|&n| n <= steps.len() as u64).ok_or_else(|| {
            // NaN and ±Infinity come as strings (JSON has no such numbers).
            let shown = match given {
                None => "nothing".to_owned(),
                Some(Value::String(s)) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => s.clone(),
                Some(other) => other.to_string(),
            };
            bad(format!(".atTurn must be a whole number from 0 to {} (how many of the result's turns to keep), got {shown}", steps.len()))
        })? as usize;
        if at > t.max_turns as usize {
            return Err(bad(format!(".atTurn ({at}) is past the trajectory's maxTurns ({})", t.max_turns)));
        }
        let turns = steps[..at]
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let reason = s.get("end").and_then(|e| e.get("reason")).and_then(Value::as_str);
                if let Some(r @ ("error" | "aborted")) = reason {
                    return Err(bad(format!(
                        ".atTurn ({at}): the recorded run ended in turn {i} ({r}), which may be incomplete; atTurn {i} keeps the turns before it and runs turn {i} again"
                    )));
                }
                read_turn(s, i, t).map_err(|e| bad(format!(".result.steps[{i}]{e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Fork { parent_run_id: parent.to_owned(), turns })
    }
}

/// One kept trace; errors start at its keys (`.stepId: ...`).
fn read_turn(s: &Value, i: usize, t: &Trajectory) -> std::result::Result<StepTrace, String> {
    if !s.is_object() {
        return Err(format!(": expected a step trace, got {}", kind_of(s)));
    }
    // An absent (or null) optional string reads as none; any other kind is refused.
    let text = |key: &str| match s.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(x)) => Ok(Some(x.clone())),
        Some(other) => Err(format!(".{key}: expected a string, got {}", kind_of(other))),
    };
    if let Some(n) = s.get("turnIndex").filter(|n| n.as_u64() != Some(i as u64)) {
        return Err(format!(".turnIndex is {n}, not {i}: the steps are not the run's turns, in order"));
    }
    let user_message = ModelMessage::from_value(s.get("userMessage").unwrap_or(&Value::Null)).map_err(|e| format!(".userMessage: {}", e.message))?;
    let agent_messages = normalize_messages(s.get("agentMessages").unwrap_or(&Value::Null)).map_err(|e| format!(".agentMessages: {}", e.message))?;
    if user_message.role != Role::User || agent_messages.iter().any(|m| matches!(m.role, Role::User | Role::System)) {
        return Err(": expected a user message (userMessage) and assistant and tool messages (agentMessages)".into());
    }
    let step_id = text("stepId")?;
    if let Some(id) = &step_id {
        if t.steps.as_ref().and_then(|g| g.position(id)).is_none() {
            return Err(format!(".stepId: {id:?} is not a step of this trajectory"));
        }
    }
    // As runTrajectory writes it (`2026-01-01T00:00:00.000Z`): it dates the kept turn and the state changes it makes.
    let timestamp = text("timestamp")?.filter(|ts| ts.len() >= 24 && ts.ends_with('Z') && ts.as_bytes()[ts.len() - 14] == b'T');
    let timestamp = timestamp.ok_or_else(|| ".timestamp: expected an ISO 8601 time such as 2026-01-01T00:00:00.000Z".to_owned())?;
    let tokens = match s.get("tokens") {
        None | Some(Value::Null) => 0,
        Some(n) => n.as_u64().ok_or_else(|| format!(".tokens: expected a whole number of tokens, got {n}"))?,
    };
    let selection = s.get("selection");
    let method = selection.and_then(|v| v.get("method")).and_then(Value::as_str).unwrap_or("none");
    let method = [SelectionMethod::Start, SelectionMethod::PreconditionsOrdered, SelectionMethod::LlmRanked, SelectionMethod::None]
        .into_iter()
        .find(|m| m.as_str() == method)
        .ok_or_else(|| format!(".selection.method: {method:?} is none of start, preconditions-ordered, llm-ranked, none"))?;
    // The candidates are what the turn's records say of its choice, nothing the replay decides on.
    let candidates = selection.and_then(|v| v.get("candidates")).and_then(Value::as_array).map(|items| {
        items
            .iter()
            .filter_map(|c| {
                let reasons = c.get("reasons").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect());
                Some(Candidate { step_id: c.get("stepId")?.as_str()?.to_owned(), score: c.get("score")?.as_f64()?, reasons })
            })
            .collect()
    });
    Ok(StepTrace {
        turn_index: i as u32,
        user_message,
        agent_messages,
        timestamp,
        step_id,
        selection: Selection {
            method,
            candidates,
            ranker_error: selection.and_then(|v| v.get("rankerError")).and_then(Value::as_str).map(str::to_owned),
        },
        assessment: text("assessment")?,
        tokens,
        end: None,
    })
}
