//! Exporters of a finished run: step JSONL (one line per turn), Tally's
//! `Conversation`, a short summary. Pure functions of a result, so equal results give
//! byte-equal output. (The artifacts of a stored run are assembled from
//! these by the JS layer, which also sees the definition's callbacks.)

use serde_json::{Map, Value};

use agent_trajectories_core::error::{Error, Result};
use agent_trajectories_core::generate::TrajectoryResult;

// The exporters read a result as JSON data, so a result that went through
// a file (stepTraces.json) or was built by hand exports the same way, and
// the module carries no second (deserialising) copy of the trace types.

/// A result as the JSON data the exporters read.
pub fn result_value(r: &TrajectoryResult) -> Value {
    agent_trajectories_core::write::value(r)
}

fn steps_of(r: &Value) -> Result<&Vec<Value>> {
    r.get("steps").and_then(Value::as_array).ok_or_else(|| Error::invalid_argument("result.steps must be an array of step traces"))
}

/// `{ stepIndex, input, output, timestamp, metadata }` of one trace.
fn step_of(t: &Value, i: usize) -> Result<Map<String, Value>> {
    let field = |k: &str| t.get(k).ok_or_else(|| Error::invalid_argument(format!("result.steps[{i}] has no {k}")));
    let mut metadata = Map::new();
    metadata.insert("turnIndex".into(), t.get("turnIndex").cloned().unwrap_or(Value::from(i)));
    metadata.insert("stepId".into(), t.get("stepId").cloned().unwrap_or(Value::Null));
    metadata.insert("selection".into(), t.get("selection").cloned().unwrap_or(Value::Null));
    // What a reader of the export needs to see the turn as its records
    // would show it (stepsToJsonl reads these back): what the agent was
    // shown, the turn's tokens, the judge's judgement after it.
    for k in ["assessment", "tokens", "judgement"] {
        if let Some(v) = t.get(k).filter(|v| !v.is_null()) {
            metadata.insert(k.into(), v.clone());
        }
    }
    if let Some(end) = t.get("end").filter(|e| !e.is_null()) {
        metadata.insert("end".into(), end.clone());
    }
    let mut out = Map::new();
    out.insert("stepIndex".into(), t.get("turnIndex").cloned().unwrap_or(Value::from(i)));
    out.insert("input".into(), field("userMessage")?.clone());
    out.insert("output".into(), field("agentMessages")?.clone());
    out.insert("timestamp".into(), t.get("timestamp").cloned().unwrap_or(Value::Null));
    out.insert("metadata".into(), Value::Object(metadata));
    Ok(out)
}

fn conversation_id(r: &Value) -> &str {
    r.get("conversationId").and_then(Value::as_str).unwrap_or("conversation")
}

/// How the run ended, `{ completed, reason, verdict, summary? }`, as Tally
/// puts it in a conversation's and each JSONL line's metadata (plus the
/// verdict). Empty without an end.
fn outcome_of(r: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(end) = end_of(r) {
        for k in ["completed", "reason", "verdict", "summary"] {
            if let Some(v) = end.get(k).filter(|v| !v.is_null()) {
                out.insert(k.into(), v.clone());
            }
        }
    }
    out
}

/// One JSON line per turn: `{conversationId, stepIndex, input, output, timestamp, metadata}`;
/// the metadata carries the turn's step and selection and the run's outcome.
pub fn to_jsonl(r: &Value) -> Result<Vec<String>> {
    let id = Value::String(conversation_id(r).to_owned());
    let outcome = outcome_of(r);
    steps_of(r)?
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut line = Map::new();
            line.insert("conversationId".into(), id.clone());
            let mut step = step_of(t, i)?;
            if let Some(Value::Object(m)) = step.get_mut("metadata") {
                m.extend(outcome.clone());
            }
            line.extend(step);
            Ok(agent_trajectories_core::write::json(&Value::Object(line)))
        })
        .collect()
}

/// Tally's `Conversation`: `{ id, steps: [{ stepIndex, input, output, timestamp, metadata }], metadata }`,
/// the conversation's metadata being the run's outcome.
pub fn to_conversation(r: &Value, id: Option<&str>) -> Result<Value> {
    let steps = steps_of(r)?.iter().enumerate().map(|(i, t)| step_of(t, i).map(Value::Object)).collect::<Result<Vec<_>>>()?;
    Ok(agent_trajectories_core::write::object(vec![
        ("id", id.unwrap_or(conversation_id(r)).into()),
        ("steps", steps.into()),
        ("metadata", Value::Object(outcome_of(r))),
    ]))
}

fn end_of(r: &Value) -> Option<&Value> {
    r.get("end").filter(|e| e.is_object()).or_else(|| steps_of(r).ok()?.last()?.get("end").filter(|e| e.is_object()))
}

/// A few lines a person can read: turns, steps satisfied, how it stopped.
pub fn summarize(r: &Value) -> Result<String> {
    let steps = steps_of(r)?;
    let turns = steps.len();
    let mut out = format!("Trajectory {}: {turns} turn{}", conversation_id(r), if turns == 1 { "" } else { "s" });
    match end_of(r) {
        Some(end) => {
            let reason = end.get("reason").and_then(Value::as_str).unwrap_or("?");
            let completed = end.get("completed").and_then(Value::as_bool).unwrap_or(false);
            out.push_str(&format!(", ended: {reason} ({})", if completed { "completed" } else { "not completed" }));
            if let Some(s) = end.get("summary").and_then(Value::as_str) {
                out.push_str(&format!(" — {s}"));
            }
        }
        None => out.push_str(", no end marker"),
    }
    out.push('.');
    if let Some(v) = end_of(r).and_then(|e| e.get("verdict")).and_then(Value::as_str) {
        out.push_str(&format!("\nVerdict: {v}{}", verdict_note(v)));
    }
    let states = r.get("stepStates").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if !states.is_empty() {
        let with = |wanted: &[&str]| -> Vec<&str> {
            states
                .iter()
                .filter(|s| s.get("status").and_then(Value::as_str).is_some_and(|st| wanted.contains(&st)))
                .filter_map(|s| s.get("stepId").and_then(Value::as_str))
                .collect()
        };
        let satisfied = with(&["satisfied"]);
        out.push_str(&format!("\nSteps satisfied: {}/{}", satisfied.len(), states.len()));
        if !satisfied.is_empty() {
            out.push_str(&format!(" ({})", satisfied.join(", ")));
        }
        let failed = with(&["failed", "skipped"]);
        if !failed.is_empty() {
            out.push_str(&format!("; failed or skipped: {}", failed.join(", ")));
        }
        out.push('.');
    }
    let path: Vec<&str> = steps.iter().map(|t| t.get("stepId").and_then(Value::as_str).unwrap_or("-")).collect();
    if !path.is_empty() {
        out.push_str(&format!("\nPath: {}", path.join(" -> ")));
    }
    Ok(out)
}

fn verdict_note(verdict: &str) -> &'static str {
    match verdict {
        "pass" => " (the goal was reached)",
        "agent" => " (the agent's failure)",
        "simulator" => " (the simulated user's fault, not the agent's)",
        "harness" => " (a callback of the harness failed, not the agent)",
        "aborted" => " (stopped by the caller)",
        _ => "",
    }
}
