//! What a run did, as the judging functions read it: its tool calls in
//! order, its findings, turns, tokens, the steps it worked on and how it
//! ended. Read from a run's records; a generated run's result becomes its
//! records first (`index::steps`), so every shape is read by one rule.

use serde_json::Value;

use crate::steps::steps_to_jsonl;
use agent_trajectories_core::capture::{jsonl, well_known, EndRead, ModelUsage, Payload, SeqCheck, TrajectoryRecord};
use agent_trajectories_core::error::{Error, Result};
use agent_trajectories_core::message::ModelMessage;
use agent_trajectories_core::number;
use agent_trajectories_core::number::quoted;
use agent_trajectories_core::observe::Severity;

/// A run as callers hand it over: record JSONL text, an array of records,
/// or a generated run's result (`{ steps, end }`, read as the records its
/// steps stand for). `run_id` picks a run among several. Records are read
/// as `parseTrajectoryJsonl` reads them (schema, versions, seq holes), an
/// error naming the line, or the item of an array.
pub fn read_run(v: &Value, run_id: Option<&str>, place: &str) -> Result<RunFacts> {
    let records = match v {
        Value::String(text) => jsonl::parse(text).map_err(|e| e.within(place))?,
        Value::Array(items) => {
            let text: String = items.iter().map(|r| format!("{r}\n")).collect();
            jsonl::parse(&text).map_err(|mut e| {
                if let Some(n) = e.line.take() {
                    let rest = e.message.strip_prefix(&format!("line {n}: ")).unwrap_or(&e.message).to_owned();
                    e.message = format!("{place}[{}]: {rest}", n - 1);
                }
                e
            })?
        }
        Value::Object(o) if o.get("steps").is_some_and(Value::is_array) && o.contains_key("end") => {
            // The result's id names the run, as the steps of a `toJSONL` export carry it.
            let mut steps = o.get("steps").and_then(Value::as_array).cloned().unwrap_or_default();
            if let Some(id) = o.get("conversationId").filter(|c| c.is_string()) {
                steps.iter_mut().filter_map(Value::as_object_mut).for_each(|s| {
                    s.entry("conversationId").or_insert_with(|| id.clone());
                });
            }
            let last = o.get("judgement").filter(|j| j.get("final") == Some(&Value::Bool(true)));
            jsonl::parse(&steps_to_jsonl(&steps, last)).map_err(|e| e.within(place))?
        }
        Value::Object(o) if o.contains_key("snapshot") && o.contains_key("iterations") => {
            return Err(Error::invalid_argument(format!(
                "{place}: a background run's result keeps only its last five tool calls; pass the run's records instead (its sink's, or those onRecord saw)"
            )))
        }
        other => {
            return Err(Error::invalid_argument(format!(
                "{place} must be a run: its records (an array, or JSONL text), a runTrajectory result, or a TrajectoryIndex; got {}",
                number::show_value(other)
            )))
        }
    };
    RunFacts::of_records(&records, run_id, place)
}

/// One tool call of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Value,
    /// `None` while unfinished: the run ended before the call did.
    pub ok: Option<bool>,
    /// The turn it was made in (a background run's iteration), from 0.
    pub turn: Option<u64>,
}

/// An observer's finding, with the turn it was shown in.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub observer: String,
    pub severity: Severity,
    pub summary: String,
    pub turn: Option<u64>,
}

/// The facts of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFacts {
    pub run_id: Option<String>,
    pub calls: Vec<Call>,
    pub findings: Vec<Finding>,
    /// Turns begun (a background run's iterations).
    pub turns: u64,
    /// Every model call's tokens (its `model_usage` records).
    pub tokens: u64,
    /// Steps the run worked on, in the order first selected.
    pub steps: Vec<String>,
    /// How the run ended; `None` without a `run_ended`.
    pub end: Option<EndRead>,
    /// The conversation: its `message_appended` messages, or, for a turn
    /// that has none, the turn's answer (`turn_ended`).
    pub messages: Vec<ModelMessage>,
    /// The rubric judge's judgements (`custom` `judgement` records), in order.
    pub judgements: Vec<Judged>,
}

/// A recorded judgement, as a check reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// `pass`, `fail` or `inconclusive`.
    pub verdict: String,
    /// The criteria that failed, each with its reasoning.
    pub failed: Vec<(String, String)>,
    pub turn: Option<u64>,
    pub is_final: bool,
}

impl Judged {
    /// A judgement as recorded (a `judgement` record's data, a trace's or a
    /// batch run's `judgements` entry).
    pub fn read(data: &Value) -> Judged {
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        let failed =
            data.get("criteria").and_then(Value::as_array).into_iter().flatten().filter(|c| c.get("verdict").and_then(Value::as_str) == Some("fail"));
        Judged {
            verdict: text(data, "verdict"),
            failed: failed.map(|c| (text(c, "name"), text(c, "reasoning"))).collect(),
            turn: data.get("turn").and_then(Value::as_u64),
            is_final: data.get("final") == Some(&Value::Bool(true)),
        }
    }

    /// Whether a run may pass with this as the judge's last word: `pass`
    /// or `inconclusive` (which says neither); not `fail`, nor a verdict
    /// that is none of the three (a hand-written or garbled judgement is
    /// not read as a pass). `checkRun`'s judge check and `compareBatches`
    /// both read a run by this.
    pub fn holds(&self) -> bool {
        matches!(self.verdict.as_str(), "pass" | "inconclusive")
    }
}

impl RunFacts {
    /// Failed calls: those whose `tool_ended` says so, and those the run ended without finishing.
    pub fn failed_calls(&self) -> u64 {
        self.calls.iter().filter(|c| c.ok != Some(true)).count() as u64
    }

    /// The most severe finding, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// The facts of the top-level run among `records` named `run_id`, or of
    /// the only top-level run when `run_id` is `None`. Child runs' records
    /// (depth > 0) are their own runs'. `place` names the argument.
    pub fn of_records(records: &[TrajectoryRecord], run_id: Option<&str>, place: &str) -> Result<RunFacts> {
        // A record belongs to the run its run_id names, or to the run
        // named later that carries it on (the core's one rule).
        let owners = owners(records);
        let top: Vec<Option<&str>> = {
            let mut ids: Vec<Option<&str>> = Vec::new();
            for (r, &owner) in records.iter().zip(&owners) {
                if r.depth == 0 && !ids.contains(&owner) {
                    ids.push(owner);
                }
            }
            ids
        };
        // The first ten: a message names runs, it does not list a whole index.
        let shown = |ids: &[Option<&str>]| {
            let names = ids.iter().take(10).map(|i| quoted(i.unwrap_or(""))).collect::<Vec<_>>().join(", ");
            match ids.len() {
                n @ 11.. => format!("{names} and {} more", n - 10),
                _ => names,
            }
        };
        let chosen = match run_id {
            Some(id) => {
                if !records.iter().any(|r| r.run_id.as_deref() == Some(id)) {
                    return Err(Error::invalid_argument(format!("{place}: no run {id} in the records (runs: {})", shown(&top), id = quoted(id))));
                }
                Some(id)
            }
            None => match top.as_slice() {
                [] => return Err(Error::invalid_argument(format!("{place}: no records of a run (an empty list)"))),
                [one] => *one,
                many => {
                    return Err(Error::invalid_argument(format!(
                        "{place}: the records hold {} runs ({}); say which with the runId option",
                        many.len(),
                        shown(many)
                    )))
                }
            },
        };
        let mut f = RunFacts { run_id: chosen.map(str::to_owned), ..RunFacts::default() };
        let mut open: Vec<(String, usize)> = Vec::new();
        let mut turn: Option<u64> = None;
        // Whether the turn in progress appended messages of its own.
        let mut appended = false;
        for (r, _) in records.iter().zip(&owners).filter(|(_, &owner)| owner == chosen) {
            match &r.payload {
                Payload::TurnStarted { turn_index } => {
                    turn = Some(turn_index.unwrap_or(f.turns));
                    f.turns += 1;
                    appended = false;
                }
                Payload::MessageAppended { message } => {
                    f.messages.push(message.clone());
                    appended = true;
                }
                Payload::TurnEnded { assistant, tool_results, .. } if !appended => {
                    f.messages.push(assistant.clone());
                    f.messages.extend(tool_results.iter().cloned());
                }
                Payload::IterationStarted { iteration } => {
                    turn = Some(*iteration);
                    f.turns += 1;
                }
                Payload::StepSelected { step_id: Some(id), .. } if !f.steps.contains(id) => f.steps.push(id.clone()),
                Payload::ToolStarted { tool_call_id, tool_name, args } => {
                    open.push((tool_call_id.clone(), f.calls.len()));
                    f.calls.push(Call { name: tool_name.clone(), args: args.clone(), ok: None, turn });
                }
                Payload::ToolEnded { tool_call_id, tool_name, is_error, .. } => match open.iter().position(|(id, _)| id == tool_call_id) {
                    Some(k) => {
                        let (_, i) = open.remove(k);
                        f.calls[i].ok = Some(!is_error);
                    }
                    // A stream that records only ends: the call is its end.
                    None => f.calls.push(Call { name: tool_name.clone(), args: Value::Null, ok: Some(!is_error), turn }),
                },
                Payload::AssessmentProduced { assessment, turn_index, .. } => f.findings.push(Finding {
                    observer: assessment.observer_name.clone(),
                    severity: assessment.severity,
                    summary: assessment.summary.clone(),
                    turn: turn_index.or(turn),
                }),
                Payload::Custom { name, data } if name == well_known::JUDGEMENT => f.judgements.push(Judged::read(data)),
                Payload::Custom { name, data } if name == well_known::MODEL_USAGE => {
                    f.tokens = f.tokens.saturating_add(ModelUsage::read(data).map_or(0, |u| u.total()));
                }
                Payload::RunEnded { outcome, .. } => f.end = Some(EndRead::read(&agent_trajectories_core::write::value(outcome))),
                _ => {}
            }
        }
        Ok(f)
    }
}

/// The run each record belongs to: its `run_id`, or, for a record
/// without one that a run named later carries on (the core's seq check
/// says so: [`SeqCheck::adopted`]), that run's.
fn owners(records: &[TrajectoryRecord]) -> Vec<Option<&str>> {
    let mut seqs = SeqCheck::default();
    let mut owners: Vec<Option<&str>> = Vec::new();
    let mut since = 0;
    for (i, r) in records.iter().enumerate() {
        let run = r.run_id.as_deref();
        // A gap is the parser's to report; here only who owns what matters.
        let _ = seqs.check(i + 1, run, r.seq);
        owners.push(run);
        if seqs.adopted() {
            for o in &mut owners[since..] {
                *o = o.or(run);
            }
            since = owners.len();
        }
    }
    owners
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use agent_trajectories_core::capture::jsonl;

    pub(crate) const RUN: &str = concat!(
        r#"{"schema_version":1,"seq":0,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"run_started","identity":{"run_id":"r"}}}"#,
        "\n",
        r#"{"schema_version":1,"seq":1,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started","turn_index":0}}"#,
        "\n",
        r#"{"schema_version":1,"seq":2,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"step_selected","turn_index":0,"step_id":"greet","method":"start"}}"#,
        "\n",
        r#"{"schema_version":1,"seq":3,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"tool_started","tool_call_id":"a","tool_name":"search","args":{"q":"paris"}}}"#,
        "\n",
        r#"{"schema_version":1,"seq":4,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"tool_ended","tool_call_id":"a","tool_name":"search","result":1,"is_error":false}}"#,
        "\n",
        r#"{"schema_version":1,"seq":5,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"custom","name":"model_usage","data":{"inputTokens":10,"outputTokens":5}}}"#,
        "\n",
        r#"{"schema_version":1,"seq":6,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started","turn_index":1}}"#,
        "\n",
        r#"{"schema_version":1,"seq":7,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"assessment_produced","call_index":1,"assessment":{"observerName":"stall","summary":"same call twice","severity":"caution"},"turn_index":1}}"#,
        "\n",
        r#"{"schema_version":1,"seq":8,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"tool_started","tool_call_id":"b","tool_name":"book","args":{"city":"paris","n":2}}}"#,
        "\n",
        r#"{"schema_version":1,"seq":9,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"run_ended","outcome":{"status":"completed","reason":"goal-reached","verdict":"pass"}}}"#,
        "\n",
    );

    pub(crate) fn facts() -> RunFacts {
        RunFacts::of_records(&jsonl::parse(RUN).unwrap(), None, "run").unwrap()
    }

    #[test]
    fn reads_calls_findings_tokens_steps_and_end() {
        let f = facts();
        assert_eq!(f.run_id.as_deref(), Some("r"));
        assert_eq!(
            f.calls.iter().map(|c| (c.name.as_str(), c.ok, c.turn)).collect::<Vec<_>>(),
            [("search", Some(true), Some(0)), ("book", None, Some(1))]
        );
        assert_eq!((f.turns, f.tokens, f.failed_calls()), (2, 15, 1), "the unfinished call failed with the run");
        assert_eq!(f.steps, ["greet"]);
        assert_eq!(f.worst(), Some(Severity::Caution));
        assert_eq!(f.findings[0].turn, Some(1));
        assert!(f.end.unwrap().passed);
    }

    #[test]
    fn several_runs_need_a_run_id() {
        let two = format!("{RUN}{}", RUN.replace("\"r\"", "\"s\""));
        let records = jsonl::parse(&two).unwrap();
        let e = RunFacts::of_records(&records, None, "run").unwrap_err();
        assert_eq!(e.message, "run: the records hold 2 runs (\"r\", \"s\"); say which with the runId option");
        assert_eq!(RunFacts::of_records(&records, Some("s"), "run").unwrap().run_id.as_deref(), Some("s"));
        let e = RunFacts::of_records(&records, Some("t"), "run").unwrap_err();
        assert_eq!(e.message, "run: no run \"t\" in the records (runs: \"r\", \"s\")");
        assert!(RunFacts::of_records(&[], None, "run").is_err());
        // A message names the first ten runs, not a whole file's.
        let many: String = (0..12).map(|i| RUN.replace("\"r\"", &format!("\"r{i}\""))).collect();
        let e = RunFacts::of_records(&jsonl::parse(&many).unwrap(), None, "run").unwrap_err();
        assert!(e.message.starts_with("run: the records hold 12 runs (\"r0\", \"r1\","), "{}", e.message);
        assert!(e.message.ends_with("\"r9\" and 2 more); say which with the runId option"), "{}", e.message);
    }

    const RECORD: &str = r#"{"schema_version":1,"seq":SEQ,RUN"depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"custom","name":"n","data":1}}"#;

    #[test]
    fn records_before_a_late_run_id_are_that_runs() {
        let text = [
            r#"{"schema_version":1,"seq":0,"depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started","turn_index":0}}"#,
            r#"{"schema_version":1,"seq":1,"run_id":"late","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"run_started","identity":{"run_id":"late"}}}"#,
            r#"{"schema_version":1,"seq":2,"run_id":"late","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"run_ended","outcome":{"status":"completed"}}}"#,
        ]
        .join("\n");
        // One run, not two: the first record is the run's own.
        let f = RunFacts::of_records(&jsonl::parse(&text).unwrap(), None, "run").unwrap();
        assert_eq!((f.run_id.as_deref(), f.turns), (Some("late"), 1));
        // A record without a run_id after it starts a sequence of its own,
        // which a run starting afresh at seq 0 does not carry on.
        let more = format!(
            "{text}\n{}\n{}",
            RECORD.replace("SEQ", "0").replace("RUN", ""),
            RECORD.replace("SEQ", "0").replace("RUN", r#""run_id":"other","#)
        );
        let records = jsonl::parse(&more).unwrap();
        assert_eq!(owners(&records), [Some("late"), Some("late"), Some("late"), None, Some("other")]);
    }

    #[test]
    fn a_run_is_read_from_text_records_or_a_result() {
        let text = Value::String(RUN.to_owned());
        assert_eq!(read_run(&text, None, "run").unwrap(), facts());
        let records: Vec<Value> = RUN.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(read_run(&Value::Array(records.clone()), None, "run").unwrap(), facts());
        let e = read_run(&Value::Array(records[1..].to_vec()), None, "matchTrajectory: run").unwrap_err();
        assert_eq!(e.message, "matchTrajectory: run[0]: run \"r\" starts at seq 1: seq 0 is missing");
        let e = read_run(&Value::String(RUN.replace("\"seq\":3", "\"seq\":30")), None, "run").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (Some(4), "run: line 4: run \"r\" jumps from seq 2 to 30: seqs 3 to 29 are missing"));
        let result = serde_json::json!({ "conversationId": "c", "end": {}, "steps": [{
            "turnIndex": 0, "timestamp": "2026-01-01T00:00:00.000Z", "stepId": null, "selection": { "method": "none" },
            "userMessage": { "role": "user", "content": "hi" },
            "agentMessages": [{ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "1", "toolName": "search", "input": { "q": 1 } }] }],
            "tokens": 12, "assessment": "## Trajectory Assessment\n\n_Generated after tool call #3_\n\n### stall [warning]\n\nsame call\n",
            "end": { "isFinal": true, "reason": "max-turns", "completed": false, "verdict": "agent" }
        }] });
        let f = read_run(&result, None, "run").unwrap();
        assert_eq!((f.run_id.as_deref(), f.calls.len(), f.calls[0].name.as_str(), f.turns), (Some("c"), 1, "search", 1));
        assert_eq!((f.tokens, f.worst(), f.findings[0].summary.as_str(), f.findings[0].turn), (12, Some(Severity::Warning), "same call", Some(0)));
        assert_eq!(f.end.unwrap().verdict, "agent");
        assert!(read_run(&serde_json::json!(3), None, "run").unwrap_err().message.starts_with("run must be a run"));
    }
}
