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

/// Longest tool input or result quoted in a prompt, in characters.
const QUOTE: usize = 1500;
/// Most file paths the scratchpad lists.
const LISTED_FILES: usize = 100;

pub fn clip(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((cut, _)) => format!("{}... ({} more characters)", &s[..cut], s[cut..].chars().count()),
        None => s.to_owned(),
    }
}

fn quote(v: &Value) -> String {
    clip(&v.as_str().map(str::to_owned).unwrap_or_else(|| crate::write::json(v)), QUOTE)
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
    let mut out = format!("Objective: {}\n", o.objective);
    let _ = writeln!(
        out,
        "Iteration {} of {}. Consecutive failures: {} of {}.",
        s.iteration + 1,
        cfg.max_iterations,
        s.consecutive_failures,
        cfg.max_failures
    );
    out.push_str("\nPlan:\n");
    match &s.plan {
        Some(p) => p.render(&mut out),
        None => out.push_str("(none yet: create one with plan_create before acting)\n"),
    }
    let files: Vec<&str> = s.vfs.files().map(|(p, _)| p).collect();
    let _ = writeln!(out, "\nFiles ({}):", files.len());
    for p in files.iter().take(LISTED_FILES) {
        let _ = writeln!(out, "- {p}");
    }
    if files.len() > LISTED_FILES {
        let _ = writeln!(out, "... and {} more (use ls or glob)", files.len() - LISTED_FILES);
    }
    if !s.invocations.is_empty() {
        out.push_str("\nLast tool calls (oldest first):\n");
        for i in &s.invocations {
            let outcome = if i.ok { "ok" } else { "ERROR" };
            let _ = writeln!(
                out,
                "- iteration {}: {} {} -> {outcome}: {}",
                i.iteration + 1,
                i.tool_name,
                clip(&crate::write::json(&i.input), QUOTE),
                quote(&i.result)
            );
        }
    }
    if let Some(r) = &s.pending_reflection {
        let _ = writeln!(out, "\nReflection: {r}");
    }
    if let Some(n) = &s.nudge {
        let _ = writeln!(out, "\nNote: {n}");
    }
    if let Some(a) = assessment {
        let _ = writeln!(out, "\nObservers: {a}");
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
                other.map_or("missing".into(), |a| format!("{a:?}"))
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
