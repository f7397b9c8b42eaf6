//! Exporters: step JSONL (one line per turn), Tally's `Conversation`, a
//! short summary and the three artifacts of a stored run. Pure functions of
//! a result, so equal results give byte-equal output.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::definition::{Precondition, Trajectory};
use super::state::StepStatus;
use super::trace::{StepTrace, TrajectoryResult};
use crate::core::message::ModelMessage;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConversationStep<'a> {
    step_index: u32,
    input: &'a ModelMessage,
    output: &'a [ModelMessage],
    timestamp: &'a str,
    metadata: Value,
}

fn step_of(t: &StepTrace) -> ConversationStep<'_> {
    let mut metadata = Map::new();
    metadata.insert("stepId".into(), json!(t.step_id));
    metadata.insert("selection".into(), serde_json::to_value(&t.selection).unwrap_or(Value::Null));
    if let Some(end) = &t.end {
        metadata.insert("end".into(), serde_json::to_value(end).unwrap_or(Value::Null));
    }
    ConversationStep { step_index: t.turn_index, input: &t.user_message, output: &t.agent_messages, timestamp: &t.timestamp, metadata: Value::Object(metadata) }
}

/// One JSON line per turn: `{conversationId, stepIndex, input, output, timestamp, metadata}`.
pub fn to_jsonl(r: &TrajectoryResult) -> Vec<String> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Line<'a> {
        conversation_id: &'a str,
        #[serde(flatten)]
        step: ConversationStep<'a>,
    }
    r.steps
        .iter()
        .map(|t| serde_json::to_string(&Line { conversation_id: &r.conversation_id, step: step_of(t) }).expect("plain data serialises"))
        .collect()
}

/// Tally's `Conversation`: `{ id, steps: [{ stepIndex, input, output, timestamp, metadata }] }`.
pub fn to_conversation(r: &TrajectoryResult, id: Option<&str>) -> Value {
    let steps: Vec<ConversationStep<'_>> = r.steps.iter().map(step_of).collect();
    json!({ "id": id.unwrap_or(&r.conversation_id), "steps": steps })
}

/// A few lines a person can read: turns, steps satisfied, how it stopped.
pub fn summarize(r: &TrajectoryResult) -> String {
    let turns = r.steps.len();
    let mut out = format!("Trajectory {}: {turns} turn{}", r.conversation_id, if turns == 1 { "" } else { "s" });
    match r.end() {
        Some(end) => {
            out.push_str(&format!(", stopped: {} ({})", end.reason.as_str(), if end.completed { "completed" } else { "not completed" }));
            if let Some(s) = &end.summary {
                out.push_str(&format!(" — {s}"));
            }
        }
        None => out.push_str(", no end marker"),
    }
    out.push('.');
    if !r.step_states.is_empty() {
        let satisfied: Vec<&str> =
            r.step_states.iter().filter(|s| s.status == StepStatus::Satisfied).map(|s| s.step_id.as_str()).collect();
        out.push_str(&format!("\nSteps satisfied: {}/{}", satisfied.len(), r.step_states.len()));
        if !satisfied.is_empty() {
            out.push_str(&format!(" ({})", satisfied.join(", ")));
        }
        let failed: Vec<&str> = r
            .step_states
            .iter()
            .filter(|s| matches!(s.status, StepStatus::Failed | StepStatus::Skipped))
            .map(|s| s.step_id.as_str())
            .collect();
        if !failed.is_empty() {
            out.push_str(&format!("; failed or skipped: {}", failed.join(", ")));
        }
        out.push('.');
    }
    let path: Vec<&str> = r.steps.iter().map(|t| t.step_id.as_deref().unwrap_or("-")).collect();
    if !path.is_empty() {
        out.push_str(&format!("\nPath: {}", path.join(" -> ")));
    }
    out
}

/// The definition as data (callbacks shown by name), for `trajectory.meta.json`.
pub fn definition_meta(t: &Trajectory) -> Value {
    let steps = t.steps.as_ref().map(|g| {
        let steps: Vec<Value> = g
            .steps
            .iter()
            .map(|s| {
                let pre: Vec<Value> = s
                    .preconditions
                    .iter()
                    .map(|p| match p {
                        Precondition::StepSatisfied(id) => json!({ "type": "stepSatisfied", "stepId": id }),
                        Precondition::Custom { name, .. } => json!({ "type": "custom", "name": name }),
                    })
                    .collect();
                json!({
                    "id": s.id, "instruction": s.instruction, "hints": s.hints, "preconditions": pre,
                    "maxAttempts": s.max_attempts, "timeoutMs": s.timeout_ms, "customSatisfaction": s.is_satisfied.is_some(),
                })
            })
            .collect();
        let terminals: Vec<&str> = g.terminals.iter().map(|&i| g.steps[i].id.as_str()).collect();
        json!({ "steps": steps, "start": g.steps[g.start].id, "terminals": terminals })
    });
    json!({
        "goal": t.goal,
        "persona": t.persona,
        "steps": steps,
        "maxTurns": t.max_turns,
        "conversationId": t.conversation_id,
        "metadata": t.metadata,
        "loopDetection": {
            "maxConsecutiveSameStep": t.loop_detection.max_consecutive_same_step,
            "maxCycleLength": t.loop_detection.max_cycle_length,
            "maxCycleRepetitions": t.loop_detection.max_cycle_repetitions,
        },
        "ranker": { "threshold": t.ranker.threshold, "contextSteps": t.ranker.context_steps, "topK": t.ranker.top_k },
        "userContextSteps": t.user_context_steps,
    })
}

/// `conversation.jsonl`, `stepTraces.json` and `trajectory.meta.json`.
pub fn to_artifacts(r: &TrajectoryResult, t: &Trajectory) -> Vec<(&'static str, String)> {
    let mut jsonl = to_jsonl(r).join("\n");
    if !jsonl.is_empty() {
        jsonl.push('\n');
    }
    let meta = json!({
        "trajectoryId": r.conversation_id,
        "createdAt": r.steps.first().map(|s| s.timestamp.clone()),
        "turns": r.steps.len(),
        "end": r.end(),
        "stepStates": r.step_states,
        "definition": definition_meta(t),
    });
    vec![
        ("conversation.jsonl", jsonl),
        ("stepTraces.json", pretty(&r.steps)),
        ("trajectory.meta.json", pretty(&meta)),
    ]
}

fn pretty<T: Serialize + ?Sized>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("plain data serialises");
    s.push('\n');
    s
}
