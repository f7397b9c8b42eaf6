//! The requests a background run makes of its model — decide, reflect,
//! summarize — and how their answers are read. Each request is rendered
//! from the run's state alone (no growing transcript), so an iteration's
//! prompt, and its cost, stay bounded however long the run is.

use std::fmt::Write as _;
use std::rc::Rc;

use serde_json::Value;

use super::config::{Config, Objective};
use super::state::State;
use crate::host::{ModelRequest, Purpose, ResponseFormat, ToolSpec};
use crate::message::{ModelMessage, Role};
use crate::number::quoted;
use crate::write::{put, put_int};

/// Longest tool input or result quoted in a prompt, in characters.
const QUOTE: usize = 1500;
/// Most file paths the scratchpad lists.
const LISTED_FILES: usize = 100;

pub fn clip(s: &str, n: usize) -> String {
    let mut out = String::new();
    push_clipped(&mut out, s, n);
    out
}

/// `s` appended, cut at `n` characters (then saying how many more there were).
fn push_clipped(out: &mut String, s: &str, n: usize) {
    match s.char_indices().nth(n) {
        Some((cut, _)) => {
            put(out, &[&s[..cut], "... ("]);
            put_int(out, s[cut..].chars().count() as u64);
            out.push_str(" more characters)");
        }
        None => out.push_str(s),
    }
}

fn quote(v: &Value) -> String {
    let mut out = String::new();
    push_quoted(&mut out, v);
    out
}

/// A tool's input or result: a string as it is, anything else as JSON; clipped.
fn push_quoted(out: &mut String, v: &Value) {
    match v.as_str() {
        Some(s) => push_clipped(out, s, QUOTE),
        None => push_clipped(out, &crate::write::json(v), QUOTE),
    }
}

const RULES: &str = "You work alone on one objective, in a loop of iterations. Each iteration you see the scratchpad below and answer with tool calls.
Rules:
- Be terse. Write ASCII only.
- Plan before acting: when there is no plan, create one with plan_create first. Keep it current with plan_update_step; record findings as notes on the steps.
- All file access goes through the file tools (ls, read_file, write_file, edit_file, glob, grep, rm) on a virtual filesystem. Host paths do not exist here.
- When the objective is met, call finish with status \"completed\" and a summary. If it cannot be met, call finish with status \"abandoned\" and say why.
- A plain text answer ends the run only when it says \"status: completed\" (or \"status: abandoned\") on a line of its own; otherwise it is ignored.";

/// The scratchpad: the snapshot of the run as the model sees it.
fn scratchpad(o: &Objective, cfg: &Config, s: &State, assessment: Option<&str>) -> String {
    let mut out = String::with_capacity(4096);
    put(&mut out, &["Objective: ", &o.objective, "\nIteration "]);
    put_int(&mut out, s.iteration + 1);
    out.push_str(" of ");
    put_int(&mut out, cfg.max_iterations);
    out.push_str(". Consecutive failures: ");
    put_int(&mut out, s.consecutive_failures);
    out.push_str(" of ");
    put_int(&mut out, cfg.max_failures);
    out.push_str(".\n\nPlan:\n");
    match &s.plan {
        Some(p) => p.render(&mut out),
        None => out.push_str("(none yet: create one with plan_create before acting)\n"),
    }
    let files: Vec<&str> = s.vfs.files().map(|(p, _)| p).collect();
    out.push_str("\nFiles (");
    put_int(&mut out, files.len() as u64);
    out.push_str("):\n");
    for p in files.iter().take(LISTED_FILES) {
        put(&mut out, &["- ", p, "\n"]);
    }
    if files.len() > LISTED_FILES {
        out.push_str("... and ");
        put_int(&mut out, (files.len() - LISTED_FILES) as u64);
        out.push_str(" more (use ls or glob)\n");
    }
    if !s.invocations.is_empty() {
        out.push_str("\nLast tool calls (oldest first):\n");
        for i in &s.invocations {
            out.push_str("- iteration ");
            put_int(&mut out, i.iteration + 1);
            put(&mut out, &[": ", &i.tool_name, " "]);
            push_clipped(&mut out, &crate::write::json(&i.input), QUOTE);
            out.push_str(if i.ok { " -> ok: " } else { " -> ERROR: " });
            push_quoted(&mut out, &i.result);
            out.push('\n');
        }
    }
    for (title, text) in [("\nReflection: ", &s.pending_reflection), ("\nNote: ", &s.nudge)] {
        if let Some(text) = text {
            put(&mut out, &[title, text, "\n"]);
        }
    }
    if let Some(a) = assessment {
        put(&mut out, &["\nObservers: ", a, "\n"]);
    }
    out
}

fn system(o: &Objective) -> String {
    let mut out = RULES.to_owned();
    for s in &o.sections {
        let _ = write!(out, "\n\n## {}\n{}", s.title, s.body.trim_end());
    }
    out
}

fn user(text: String) -> Vec<ModelMessage> {
    vec![ModelMessage::text(Role::User, text)]
}

/// The decision request: every tool's spec, the rules, the caller's
/// sections, and the scratchpad (with the observers' assessment, if any).
pub fn decide(o: &Objective, cfg: &Config, s: &State, tools: &Rc<[ToolSpec]>, assessment: Option<&str>) -> ModelRequest {
    let mut text = scratchpad(o, cfg, s, assessment);
    text.push_str("\nWhat next? Answer with tool calls.");
    ModelRequest { purpose: Purpose::Decide, system: Some(system(o)), messages: user(text), tools: Some(Rc::clone(tools)), response_format: None }
}

/// What reflection is asked about.
pub enum Topic<'a> {
    /// A call failed or found nothing: `(tool, input, result)`.
    Action { tool: &'a str, input: &'a Value, result: &'a Value, failed: bool },
    /// The model's answer itself failed (threw, timed out, was garbage).
    Decision { error: &'a str },
    /// Every plan step is done: is the objective met?
    PlanDone,
}

pub fn reflect(o: &Objective, cfg: &Config, s: &State, topic: &Topic<'_>) -> ModelRequest {
    let mut text = scratchpad(o, cfg, s, None);
    let reset = if cfg.allow_plan_reset { ", \"reset_plan\" (drop the plan to make a new one)" } else { "" };
    match topic {
        Topic::Action { tool, input, result, failed } => {
            let what = if *failed { "failed" } else { "found nothing" };
            let _ = write!(
                text,
                "\nThe last call {what}: {tool} {} -> {}\nDecide how to go on. Answer with JSON only: {{\"action\": ..., \"reason\": \"...\"}} where action is \"retry\" (give \"input\": the corrected arguments of {tool}), \"continue\"{reset} or \"abandon\".",
                clip(&crate::write::json(input), QUOTE),
                quote(result)
            );
        }
        Topic::Decision { error } => {
            let _ = write!(text, "\nThe last decision failed: {error}\nDecide how to go on. Answer with JSON only: {{\"action\": ..., \"reason\": \"...\"}} where action is \"continue\"{reset} or \"abandon\".");
        }
        Topic::PlanDone => {
            text.push_str("\nEvery plan step is done. Is the objective met? Answer with JSON only: {\"action\": \"complete\" or \"continue\", \"reason\": \"...\"}.");
        }
    }
    ModelRequest {
        purpose: Purpose::Reflect,
        system: Some(system(o)),
        messages: user(text),
        tools: None,
        response_format: Some(ResponseFormat::Json),
    }
}

/// The final summary; with `deliverable`, the JSON Schema the answer's
/// `deliverable` must follow (asked for when the model has not given one).
pub fn summarize(o: &Objective, cfg: &Config, s: &State, status: &str, reason: &str, deliverable: Option<&Value>) -> ModelRequest {
    let mut text = scratchpad(o, cfg, s, None);
    let _ = write!(text, "\nThe run has ended: {status} ({reason}). ");
    let format = match deliverable {
        Some(schema) => {
            let _ = write!(text, "Answer with JSON only: {{\"summary\": \"a short report for the caller\", \"deliverable\": ...}} where deliverable follows this JSON Schema:\n{schema}");
            Some(ResponseFormat::Json)
        }
        None if status == "abandoned" => {
            text.push_str("Write a short report for the caller: why the objective was abandoned, and what was done.");
            None
        }
        None => {
            text.push_str("Write a short report for the caller: what was done and found.");
            None
        }
    };
    ModelRequest { purpose: Purpose::Summarize, system: Some(system(o)), messages: user(text), tools: None, response_format: format }
}

/// The JSON object in an answer (inside a Markdown fence, or the outermost
/// `{...}` of the text), if there is one.
pub fn json_object(text: &str) -> Option<serde_json::Map<String, Value>> {
    let t = text.trim();
    let start = t.find('{')?;
    let end = t.rfind('}')?;
    match serde_json::from_str::<Value>(t.get(start..=end)?) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    }
}

/// What reflection decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Retry(Value),
    Continue,
    ResetPlan,
    Abandon,
    Complete,
}

/// Reads a reflection answer: `{"action": ..., "reason"?, "input"?}`.
pub fn parse_reflection(text: &str) -> Result<(Verdict, String), String> {
    let o = json_object(text).ok_or_else(|| format!("the reflection answer is not a JSON object: {}", clip(text.trim(), 200)))?;
    let reason = o.get("reason").and_then(Value::as_str).unwrap_or("").trim().to_owned();
    let verdict = match o.get("action").and_then(Value::as_str) {
        Some("retry") => match o.get("input") {
            Some(input @ Value::Object(_)) => Verdict::Retry(input.clone()),
            _ => return Err("the reflection asked for a retry without \"input\" (the corrected arguments)".into()),
        },
        Some("continue") => Verdict::Continue,
        Some("reset_plan") => Verdict::ResetPlan,
        Some("abandon") => Verdict::Abandon,
        Some("complete") => Verdict::Complete,
        other => {
            return Err(format!(
                "the reflection answer's action is {}; expected retry, continue, reset_plan, abandon or complete",
                other.map_or("missing".into(), quoted)
            ))
        }
    };
    Ok((verdict, reason))
}

/// A plain text answer's end signal: a line `status: completed` or
/// `status: abandoned` (any case, quotes allowed), or a JSON object with
/// such a `status`. The rest of the text is the summary.
pub fn text_signal(text: &str) -> Option<(&'static str, String)> {
    let of = |s: &str| match s.trim().trim_matches(|c| c == '"' || c == '\'' || c == '.').to_ascii_lowercase().as_str() {
        "completed" => Some("completed"),
        "abandoned" => Some("abandoned"),
        _ => None,
    };
    if let Some(o) = json_object(text) {
        if let Some(status) = o.get("status").and_then(Value::as_str).and_then(of) {
            return Some((status, o.get("summary").and_then(Value::as_str).unwrap_or("").trim().to_owned()));
        }
    }
    let mut status = None;
    let mut rest = Vec::new();
    for line in text.lines() {
        let l = line.trim().trim_start_matches(['*', '#', '-', ' ']);
        match l.split_once(':') {
            Some((k, v)) if status.is_none() && k.trim().trim_matches('*').eq_ignore_ascii_case("status") && of(v.trim_matches('*')).is_some() => {
                status = of(v.trim_matches('*'));
            }
            _ => rest.push(line),
        }
    }
    status.map(|s| (s, rest.join("\n").trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratchpad_shows_the_run_as_the_model_sees_it() {
        use super::super::plan::{Plan, StepStatus};
        use super::super::state::Invocation;
        use serde_json::json;
        let files: serde_json::Map<String, Value> = (0..102).map(|i| (format!("f{i}.rs"), json!("x"))).collect();
        let o = Objective::from_value(&json!({ "objective": "Tidy up", "hostMounts": [{ "path": "repo", "files": files }] }), None).unwrap();
        let cfg = Config::default();
        let mut s = State::new(&o, cfg.vfs).unwrap();
        assert_eq!(scratchpad(&o, &cfg, &s, None).lines().take(5).collect::<Vec<_>>().join("\n"), format!("Objective: Tidy up\nIteration 1 of {}. Consecutive failures: 0 of {}.\n\nPlan:\n(none yet: create one with plan_create before acting)", cfg.max_iterations, cfg.max_failures));
        let mut plan = Plan::new(&["map".into(), "fix".into()]).unwrap();
        plan.update(1, Some(StepStatus::Done), Some("two files")).unwrap();
        s.plan = Some(plan);
        s.iteration = 6;
        s.consecutive_failures = 2;
        for (k, (tool, ok, result)) in
            [("read_file", true, json!("fn main() {}\n")), ("grep", false, json!({ "error": "no match" }))].into_iter().enumerate()
        {
            s.invocations.push_back(Invocation {
                iteration: 4 + k as u64,
                tool_call_id: format!("c{k}"),
                tool_name: tool.into(),
                input: json!({ "path": "x".repeat(1501) }),
                ok,
                result,
            });
        }
        s.pending_reflection = Some("look elsewhere".into());
        s.nudge = Some("answer with tool calls".into());
        let text = scratchpad(&o, &cfg, &s, Some("Stall [info]"));
        let long = format!("{{\"path\":\"{}... (12 more characters)", "x".repeat(1491));
        let expected = format!(
            "Objective: Tidy up\nIteration 7 of {}. Consecutive failures: 2 of {}.\n\nPlan:\n1. [done] map\n   - two files\n2. [pending] fix\n\nFiles (102):\n{}... and 2 more (use ls or glob)\n\nLast tool calls (oldest first):\n- iteration 5: read_file {long} -> ok: fn main() {{}}\n\n- iteration 6: grep {long} -> ERROR: {{\"error\":\"no match\"}}\n\nReflection: look elsewhere\n\nNote: answer with tool calls\n\nObservers: Stall [info]\n",
            cfg.max_iterations,
            cfg.max_failures,
            s.vfs.files().take(100).map(|(p, _)| format!("- {p}\n")).collect::<String>(),
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn signals_and_verdicts() {
        assert_eq!(text_signal("Done.\nStatus: completed\n"), Some(("completed", "Done.".into())));
        assert_eq!(text_signal("**Status:** abandoned"), Some(("abandoned", String::new())));
        assert_eq!(text_signal("{\"status\":\"completed\",\"summary\":\"ok\"}"), Some(("completed", "ok".into())));
        assert_eq!(text_signal("I think we are completed"), None);
        assert_eq!(text_signal("status: maybe"), None);
        let (v, r) = parse_reflection("```json\n{\"action\":\"retry\",\"input\":{\"path\":\"a\"},\"reason\":\"typo\"}\n```").unwrap();
        assert_eq!(v, Verdict::Retry(serde_json::json!({ "path": "a" })));
        assert_eq!(r, "typo");
        assert!(parse_reflection("{\"action\":\"retry\"}").unwrap_err().contains("without \"input\""));
        assert!(parse_reflection("no").is_err());
        assert!(parse_reflection("{\"action\":\"dance\"}").unwrap_err().contains("\"dance\""));
    }
}
