//! Forking a recorded run (`resumeFrom: { result, atTurn }`): the turns a
//! fork keeps, read back from the result it starts from and checked
//! against the trajectory, for the loop to replay without asking any model
//! before it goes on live. The result is read as JSON data, as the
//! exporters read it, so a result saved to a file forks the same way.

use serde_json::Value;

use super::definition::Trajectory;
use super::trace::{Candidate, Selection, SelectionMethod, StepTrace};
use crate::error::{Error, Result};
use crate::message::{kind_of, normalize_messages, ModelMessage, Role};
use crate::number::{quoted, MAX_SAFE_INTEGER};
use crate::options::check_keys;

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
                let end = s.get("end").filter(|e| !e.is_null());
                if let Some(r @ ("error" | "aborted")) = end.and_then(|e| e.get("reason")).and_then(Value::as_str) {
                    return Err(bad(format!(
                        ".atTurn ({at}): the recorded run ended in turn {i} ({r}), which may be incomplete; atTurn {i} keeps the turns before it and runs turn {i} again"
                    )));
                }
                // Only a run's last turn carries its end.
                if end.is_some() && i + 1 < steps.len() {
                    return Err(bad(format!(".result.steps[{i}].end: a turn before the last has an end marker; the steps are not one run's")));
                }
                read_turn(s, i, t).map_err(|e| bad(format!(".result.steps[{i}]{e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Fork { parent_run_id: parent.to_owned(), turns })
    }
}

/// What a step trace holds; any other key is refused, naming the nearest.
// `judgement`: a judged parent's, read past (a fork's kept turns are not judged again).
const TRACE_KEYS: &[&str] =
    &["turnIndex", "userMessage", "agentMessages", "timestamp", "stepId", "selection", "assessment", "tokens", "end", "judgement"];

/// One kept trace, as runTrajectory writes it; errors start at its keys
/// (`.stepId: ...`).
fn read_turn(s: &Value, i: usize, t: &Trajectory) -> std::result::Result<StepTrace, String> {
    let Some(obj) = s.as_object() else { return Err(format!(": expected a step trace, got {}", kind_of(s))) };
    check_keys(obj.keys().map(String::as_str), TRACE_KEYS, "").map_err(|e| e.message)?;
    // An absent (or null) optional string reads as none; any other kind is refused.
    let text = |v: Option<&Value>, key: &str| match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(x)) => Ok(Some(x.clone())),
        Some(other) => Err(format!(".{key}: expected a string, got {}", kind_of(other))),
    };
    if s.get("turnIndex").and_then(Value::as_u64) != Some(i as u64) {
        return Err(format!(
            ".turnIndex is {}, not {i}: the steps are not the run's turns, in order",
            s.get("turnIndex").map_or("missing".to_owned(), crate::write::json)
        ));
    }
    let user_message = ModelMessage::from_value(s.get("userMessage").unwrap_or(&Value::Null)).map_err(|e| format!(".userMessage: {}", e.message))?;
    let agent_messages =
        normalize_messages(s.get("agentMessages").cloned().unwrap_or_default()).map_err(|e| format!(".agentMessages: {}", e.message))?;
    if user_message.role != Role::User || agent_messages.iter().any(|m| matches!(m.role, Role::User | Role::System)) {
        return Err(": expected a user message (userMessage) and assistant and tool messages (agentMessages)".into());
    }
    let step_id = text(s.get("stepId"), "stepId")?;
    if let Some(id) = &step_id {
        if t.steps.as_ref().and_then(|g| g.position(id)).is_none() {
            return Err(format!(".stepId: {id} is not a step of this trajectory", id = quoted(id)));
        }
    }
    // It dates the kept turn and the state changes it makes.
    let timestamp = text(s.get("timestamp"), "timestamp")?.filter(|ts| is_iso_time(ts));
    let timestamp = timestamp.ok_or_else(|| ".timestamp: expected an ISO 8601 time such as 2026-01-01T00:00:00.000Z".to_owned())?;
    let tokens = match s.get("tokens") {
        None | Some(Value::Null) => 0,
        Some(n) => n.as_u64().filter(|&n| n <= MAX_SAFE_INTEGER).ok_or_else(|| format!(".tokens: expected a whole number of tokens, got {n}"))?,
    };
    let selection = read_selection(s.get("selection").unwrap_or(&Value::Null))?;
    // A turn has a step exactly when its selection chose one.
    if step_id.is_some() == (selection.method == SelectionMethod::None) {
        return Err(format!(
            ".selection.method is {} for {}",
            quoted(selection.method.as_str()),
            step_id.as_ref().map_or("a turn without a step".to_owned(), |id| format!("step {id}", id = quoted(id)))
        ));
    }
    Ok(StepTrace {
        turn_index: i as u32,
        user_message,
        agent_messages,
        timestamp,
        step_id,
        selection,
        assessment: text(s.get("assessment"), "assessment")?,
        tokens,
        end: None,
        judgement: None,
    })
}

/// How a kept turn's step was chosen: `{ method, candidates?, rankerError? }`.
fn read_selection(v: &Value) -> std::result::Result<Selection, String> {
    let Some(obj) = v.as_object() else { return Err(format!(".selection: expected {{ method, candidates?, rankerError? }}, got {}", kind_of(v))) };
    let name = obj.get("method").and_then(Value::as_str).unwrap_or("");
    let method = SelectionMethod::parse(name)
        .ok_or_else(|| format!(".selection.method: {name} is none of start, preconditions-ordered, llm-ranked, none", name = quoted(name)))?;
    let candidates = match obj.get("candidates") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .enumerate()
                .map(|(j, c)| {
                    let reasons = match c.get("reasons") {
                        None | Some(Value::Null) => Ok(None),
                        Some(Value::Array(r)) => r.iter().map(|x| x.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>().map(Some).ok_or(()),
                        Some(_) => Err(()),
                    };
                    match (c.get("stepId").and_then(Value::as_str), c.get("score").and_then(Value::as_f64), reasons) {
                        (Some(id), Some(score), Ok(reasons)) => Ok(Candidate { step_id: id.to_owned(), score, reasons }),
                        _ => Err(format!(".selection.candidates[{j}]: expected {{ stepId, score, reasons? }}")),
                    }
                })
                .collect::<std::result::Result<Vec<_>, _>>()?,
        ),
        Some(other) => return Err(format!(".selection.candidates: expected an array, got {}", kind_of(other))),
    };
    let ranker_error = match obj.get("rankerError") {
        None | Some(Value::Null) => None,
        Some(Value::String(e)) => Some(e.clone()),
        Some(other) => return Err(format!(".selection.rankerError: expected a string, got {}", kind_of(other))),
    };
    Ok(Selection { method, candidates, ranker_error })
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (a longer, signed year too), each field in
/// its range: what `Date.prototype.toISOString` and runTrajectory write.
fn is_iso_time(ts: &str) -> bool {
    let b = ts.as_bytes();
    if b.len() < 24 || !ts.is_ascii() {
        return false;
    }
    let (year, rest) = ts.split_at(ts.len() - 20);
    let year = year.strip_prefix(['+', '-']).unwrap_or(year);
    let r = rest.as_bytes();
    let num =
        |from: usize, len: usize| rest.get(from..from + len).filter(|d| d.bytes().all(|c| c.is_ascii_digit())).and_then(|d| d.parse::<u32>().ok());
    let shape = [(0, b'-'), (3, b'-'), (6, b'T'), (9, b':'), (12, b':'), (15, b'.'), (19, b'Z')].iter().all(|&(i, c)| r[i] == c);
    let fields =
        [(1, 1, 12), (4, 1, 31), (7, 0, 23), (10, 0, 59), (13, 0, 59)].iter().all(|&(at, lo, hi)| num(at, 2).is_some_and(|n| (lo..=hi).contains(&n)));
    shape && fields && num(16, 3).is_some() && year.len() >= 4 && year.bytes().all(|c| c.is_ascii_digit())
}
