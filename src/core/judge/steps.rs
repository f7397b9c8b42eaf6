//! Step exports (`toJSONL` lines, or `stepTraces.json`) as record JSONL, so
//! an index (and the viewer) reads a generated run's export the way it
//! reads its records: turns, steps, tool calls and how it ended.

use serde_json::Value;

use agent_trajectories_core::capture::{well_known, OutcomeStatus, TRAJECTORY_SCHEMA_VERSION};
use agent_trajectories_core::generate::trace::parse_iso8601;
use agent_trajectories_core::message::ToolOutput;
use agent_trajectories_core::observe::CurrentAssessment;
use agent_trajectories_core::write::Obj;

/// The records a run of `steps` would have written, one JSON text a line;
/// `final_judgement`, the result's judgement made at the end (a step
/// export keeps only those made after turns), goes before `run_ended`.
pub fn steps_to_jsonl(steps: &[Value], final_judgement: Option<&Value>) -> String {
    let steps: Vec<&Value> = steps.iter().filter(|s| s.is_object()).collect();
    let run_id = steps.iter().find_map(|s| s.get("conversationId").filter(|c| truthy(c))).map_or_else(|| "steps".to_owned(), text_of);
    let mut out: Vec<String> = Vec::new();
    let mut rec = |t: f64, payload: String| {
        let line = Obj::new()
            .raw("schema_version", &TRAJECTORY_SCHEMA_VERSION.to_string())
            .raw("seq", &out.len().to_string())
            .text("run_id", &run_id)
            .raw("depth", "0")
            .raw("recorded_at_unix_ms", &(t.max(0.0) as u64).to_string())
            .raw("payload", &payload)
            .end();
        out.push(line);
    };
    let kind = |k: &str| Obj::new().text("kind", k);
    let mut end: Option<Value> = None;
    let last = steps.len().saturating_sub(1);
    for (k, s) in steps.iter().enumerate() {
        // toJSONL lines carry their facts under `metadata`; stepTraces at the top.
        let m = s.get("metadata").filter(|m| !m.is_null()).unwrap_or(s);
        let t = s.get("timestamp").and_then(Value::as_str).and_then(parse_iso8601).unwrap_or(0.0);
        let turn = present(m, "turnIndex").or_else(|| present(s, "stepIndex")).cloned().unwrap_or_else(|| Value::from(k));
        let step_id = present(m, "stepId").cloned();
        if k == 0 {
            rec(t, kind("run_started").raw("identity", &Obj::new().text("run_id", &run_id).end()).end());
        }
        rec(t, kind("turn_started").val("turn_index", &turn).end());
        if let Some(sel) = present(m, "selection").or_else(|| present(s, "selection")) {
            let mut p = kind("step_selected").val("turn_index", &turn).val("step_id", step_id.as_ref().unwrap_or(&Value::Null));
            if let Some(method) = sel.get("method") {
                p = p.val("method", method);
            }
            p = p.val("candidates", present(sel, "candidates").unwrap_or(&Value::Array(Vec::new())));
            if let Some(e) = sel.get("rankerError").filter(|e| truthy(e)) {
                p = p.val("ranker_error", e);
            }
            rec(t, p.end());
        }
        if let Some(input) = present(s, "input").or_else(|| present(s, "userMessage")).filter(|v| truthy(v)) {
            rec(t, kind("message_appended").val("message", input).end());
        }
        // What the observers showed the agent with this turn's message, as a run records it.
        let produced = |rendered: Option<&Value>, turn: Option<&Value>| {
            let c = rendered.and_then(Value::as_str).and_then(CurrentAssessment::read_rendered);
            c.iter()
                .flat_map(|c| {
                    c.assessments.iter().map(|a| {
                        let p = kind("assessment_produced")
                            .raw("call_index", &c.call_index.to_string())
                            .raw("assessment", &agent_trajectories_core::write::json(a));
                        match turn {
                            Some(t) => p.val("turn_index", t).end(),
                            None => p.end(),
                        }
                    })
                })
                .collect::<Vec<String>>()
        };
        for p in produced(present(m, "assessment").or_else(|| present(s, "assessment")), Some(&turn)) {
            rec(t, p);
        }
        let output = present(s, "output").or_else(|| present(s, "agentMessages")).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for msg in output {
            rec(t, kind("message_appended").val("message", msg).end());
            for p in msg.get("content").and_then(Value::as_array).into_iter().flatten() {
                let empty = Value::from("");
                let (id, name) = (present(p, "toolCallId").unwrap_or(&empty), present(p, "toolName").unwrap_or(&empty));
                let started = |kd: &str| kind(kd).val("tool_call_id", id).val("tool_name", name);
                match p.get("type").and_then(Value::as_str) {
                    Some("tool-call") => rec(t, started("tool_started").val("args", present(p, "input").unwrap_or(&Value::Null)).end()),
                    Some("tool-result") => {
                        let output = ToolOutput::of(present(p, "output").unwrap_or(&Value::Null));
                        rec(t, started("tool_ended").val("result", output.value).raw("is_error", if output.failed { "true" } else { "false" }).end());
                    }
                    _ => {}
                }
            }
        }
        // The turn's tokens, as one model_usage record (a run records one per model call).
        if let Some(n) = present(m, "tokens").or_else(|| present(s, "tokens")).and_then(Value::as_u64).filter(|n| *n > 0) {
            let data = Obj::new().raw("totalTokens", &n.to_string()).end();
            rec(t, kind("custom").text("name", well_known::MODEL_USAGE).raw("data", &data).end());
        }
        let answer = output.iter().rev().find(|x| x.get("role").and_then(Value::as_str) == Some("assistant"));
        let answer = answer.map_or_else(|| r#"{"role":"assistant","content":""}"#.to_owned(), agent_trajectories_core::write::json);
        let mut ended = kind("turn_ended").raw("assistant", &answer).raw("tool_results", "[]").val("turn_index", &turn);
        if let Some(id) = step_id.filter(truthy) {
            ended = ended.val("step_id", &id);
        }
        rec(t, ended.end());
        let judgement = |data: &Value| kind("custom").text("name", well_known::JUDGEMENT).val("data", data).end();
        if let Some(j) = present(m, "judgement").or_else(|| present(s, "judgement")) {
            rec(t, judgement(j));
        }
        end = present(m, "end").or_else(|| present(s, "end")).cloned().or_else(|| m.get("reason").is_some().then(|| m.clone())).or(end);
        if let (true, Some(j)) = (k == last, final_judgement) {
            rec(t, judgement(j));
        }
        if let (true, Some(e)) = (k == last, &end) {
            // What the agent was never shown, recorded in no turn at the end.
            for p in produced(e.get("assessment"), None) {
                rec(t, p);
            }
            let reason = e.get("reason").and_then(Value::as_str);
            // The status a generated run's own run_ended carries for this end.
            let status = OutcomeStatus::of(e.get("completed").is_some_and(truthy), reason == Some("error"), reason == Some("aborted"));
            let mut outcome = Obj::new().raw("status", &agent_trajectories_core::write::json(&status));
            if let Some(r) = e.get("reason") {
                outcome = outcome.val("reason", r);
            }
            for (from, to) in [("summary", "message"), ("verdict", "verdict")] {
                if let Some(v) = e.get(from).filter(|v| truthy(v)) {
                    outcome = outcome.val(to, v);
                }
            }
            rec(t, kind("run_ended").raw("outcome", &outcome.end()).end());
        }
    }
    out.join("\n")
}

/// `v[k]` unless absent or null (JS `??`).
fn present<'a>(v: &'a Value, k: &str) -> Option<&'a Value> {
    v.get(k).filter(|x| !x.is_null())
}

/// JS truthiness of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| agent_trajectories_core::write::json(v), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn judgements_are_records_after_their_turn_and_before_the_end() {
        let steps = [
            json!({ "turnIndex": 0, "timestamp": "2026-01-01T00:00:00.000Z", "userMessage": { "role": "user", "content": "hi" }, "agentMessages": [],
            "judgement": { "verdict": "inconclusive", "turn": 0 }, "end": { "reason": "max-turns", "completed": false, "verdict": "agent" } }),
        ];
        let text = steps_to_jsonl(&steps, Some(&json!({ "verdict": "fail", "final": true })));
        let tail: Vec<Value> = text.lines().rev().take(4).map(|l| serde_json::from_str::<Value>(l).unwrap()["payload"].clone()).collect();
        assert_eq!(tail[0]["kind"], "run_ended");
        assert_eq!((tail[1]["name"].as_str(), tail[1]["data"]["final"].as_bool()), (Some("judgement"), Some(true)));
        assert_eq!((tail[2]["name"].as_str(), tail[2]["data"]["verdict"].as_str()), (Some("judgement"), Some("inconclusive")));
        assert_eq!(tail[3]["kind"], "turn_ended");
    }

    #[test]
    fn what_the_agent_was_never_shown_is_recorded_at_the_end_in_no_turn() {
        use agent_trajectories_core::observe::{Assessment, Severity};
        let current = CurrentAssessment {
            assessments: vec![Assessment::new("Stall", "same call 3 times", Severity::Warning)],
            generated_at: 0.0,
            call_index: 4,
        };
        let end = json!({ "reason": "max-turns", "completed": false, "verdict": "agent", "assessment": current.render() });
        let steps = [json!({ "turnIndex": 0, "userMessage": { "role": "user", "content": "hi" }, "agentMessages": [], "end": end })];
        let text = steps_to_jsonl(&steps, None);
        let tail: Vec<Value> = text.lines().rev().take(2).map(|l| serde_json::from_str::<Value>(l).unwrap()["payload"].clone()).collect();
        assert_eq!(tail[0]["kind"], "run_ended");
        assert_eq!((tail[1]["kind"].as_str(), tail[1]["call_index"].as_u64()), (Some("assessment_produced"), Some(4)));
        assert_eq!((tail[1]["assessment"]["severity"].as_str(), tail[1].get("turn_index")), (Some("warning"), None));
    }

    #[test]
    fn a_step_export_reads_as_the_records_of_its_run() {
        let steps = [
            json!({ "stepIndex": 0, "timestamp": "2026-01-01T00:00:00.000Z", "conversationId": "c1",
                "metadata": { "turnIndex": 0, "stepId": "ask", "selection": { "method": "rank", "candidates": ["ask"] } },
                "input": { "role": "user", "content": "hi" },
                "output": [
                    { "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "t1", "toolName": "look", "input": {} }] },
                    { "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "t1", "toolName": "look", "output": { "type": "error-text", "value": "no" } }] },
                    { "role": "assistant", "content": "done" },
                ] }),
            json!({ "stepIndex": 1, "timestamp": "2026-01-01T00:00:01.000Z", "metadata": { "turnIndex": 1, "end": { "reason": "max-turns", "completed": false, "verdict": "agent", "summary": "ran out" } } }),
        ];
        let text = steps_to_jsonl(&steps, None);
        let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let kinds: Vec<&str> = records.iter().map(|r| r["payload"]["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "run_started",
                "turn_started",
                "step_selected",
                "message_appended",
                "message_appended",
                "tool_started",
                "message_appended",
                "tool_ended",
                "message_appended",
                "turn_ended",
                "turn_started",
                "turn_ended",
                "run_ended"
            ]
        );
        assert!(records
            .iter()
            .enumerate()
            .all(|(i, r)| r["seq"] == json!(i) && r["run_id"] == "c1" && r["schema_version"] == json!(TRAJECTORY_SCHEMA_VERSION)));
        assert_eq!(records[7]["payload"]["is_error"], json!(true));
        assert_eq!(records[7]["payload"]["result"], json!("no"), "the tool's own result, not the output's {{ type, value }}");
        assert_eq!(records[9]["payload"]["assistant"]["content"], "done");
        assert_eq!(records[9]["payload"]["step_id"], "ask");
        assert_eq!(records[10]["recorded_at_unix_ms"], json!(1_767_225_601_000u64));
        assert_eq!(
            records[12]["payload"]["outcome"],
            json!({ "status": "stopped", "reason": "max-turns", "message": "ran out", "verdict": "agent" })
        );
        assert_eq!(steps_to_jsonl(&[], None), "");
    }
}
