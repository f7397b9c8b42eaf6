//! What the injected model is asked: the simulated user's next message and
//! the ranking of eligible steps. Prompts read only the last few turns, so
//! their size does not grow with the run.

use serde_json::Value;

use super::definition::{RankerConfig, Trajectory};
use super::graph::StepDefinition;
use super::simulator::Issue;
use super::trace::{Candidate, StepTrace};
use crate::host::{ModelRequest, Purpose, ResponseFormat};
use crate::message::{Content, ModelMessage, Part, Role, ToolOutput};
use crate::write::put;

/// Longest tool input or output quoted in a transcript, in characters.
const QUOTE_LIMIT: usize = 600;

fn clip(s: &str) -> String {
    let mut out = String::new();
    push_clipped(&mut out, s);
    out
}

/// `s` appended, cut at [`QUOTE_LIMIT`] characters (then ending in `…`).
fn push_clipped(out: &mut String, s: &str) {
    match s.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => put(out, &[&s[..cut], "…"]),
        None => out.push_str(s),
    }
}

fn push_tool_output(out: &mut String, output: &Value) {
    let ToolOutput { value, failed } = ToolOutput::of(output);
    if failed {
        out.push_str("ERROR ");
    }
    match value.as_str() {
        Some(text) => push_clipped(out, text),
        None => push_clipped(out, &crate::write::json(value)),
    }
}

fn write_message(out: &mut String, m: &ModelMessage) {
    let who = match m.role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
        Role::Tool => "Tool",
    };
    match &m.content {
        Content::Text(t) => put(out, &[who, ": ", t, "\n"]),
        Content::Parts(parts) => {
            for p in parts {
                match p {
                    Part::Text { text } => put(out, &[who, ": ", text, "\n"]),
                    Part::ToolCall { tool_name, input, .. } => {
                        put(out, &[who, " called tool ", tool_name, " with "]);
                        push_clipped(out, &crate::write::json(input));
                        out.push('\n');
                    }
                    Part::ToolResult { tool_name, output, .. } => {
                        put(out, &["Tool ", tool_name, " returned: "]);
                        push_tool_output(out, output);
                        out.push('\n');
                    }
                    Part::Reasoning { .. } | Part::Other(_) => {}
                }
            }
        }
    }
}

/// The last `n` turns as plain text, tool calls and results included.
pub fn transcript(traces: &[StepTrace], n: usize) -> String {
    let mut out = String::new();
    for t in &traces[traces.len().saturating_sub(n)..] {
        write_message(&mut out, &t.user_message);
        for m in &t.agent_messages {
            write_message(&mut out, m);
        }
    }
    out
}

/// `title:` and a line `- item` per item, or nothing when there are none.
fn push_bullets(out: &mut String, title: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    put(out, &[title, ":\n"]);
    for i in items {
        put(out, &["- ", i, "\n"]);
    }
}

/// The request for the simulated user's next message.
pub fn user_message_request(t: &Trajectory, step: Option<&StepDefinition>, traces: &[StepTrace], reminder: Option<Issue>) -> ModelRequest {
    let p = &t.persona;
    let mut system =
        String::from("You are role-playing the USER in a conversation with an AI assistant. Stay in character and never act as the assistant.\n");
    match &p.name {
        Some(name) => put(&mut system, &["Persona: ", name, ". ", &p.description, "\n"]),
        None => put(&mut system, &["Persona: ", &p.description, "\n"]),
    }
    push_bullets(&mut system, "Guardrails", &p.guardrails);
    put(&mut system, &["Your overall goal: ", &t.goal, "\n"]);
    match step {
        Some(s) => {
            put(&mut system, &["What to do in this message: ", &s.instruction, "\n"]);
            push_bullets(&mut system, "Hints", &s.hints);
        }
        None => system.push_str("No specific step this turn: continue naturally toward the goal.\n"),
    }
    system.push_str("Reply with the user's next message only: plain text, no role label, no quotes.");
    let context = transcript(traces, t.user_context_steps as usize);
    let mut prompt = if context.is_empty() {
        "The conversation has not started. Write the user's first message.".to_owned()
    } else {
        let mut prompt = String::with_capacity(context.len() + 90);
        put(&mut prompt, &["The conversation so far (most recent last):\n", &context, "\nWrite the user's next message."]);
        prompt
    };
    if let Some(issue) = reminder {
        prompt.push('\n');
        prompt.push_str(issue.reminder());
    }
    ModelRequest {
        purpose: Purpose::UserMessage,
        system: Some(system),
        messages: vec![ModelMessage::text(Role::User, prompt)],
        tools: None,
        response_format: Some(ResponseFormat::Text),
    }
}

/// The request to rank the eligible steps against the recent turns.
pub fn rank_request(t: &Trajectory, eligible: &[&StepDefinition], traces: &[StepTrace]) -> ModelRequest {
    let system = "You decide which step of a scripted conversation a simulated user should take next. \
Score every listed step from 0 to 1 for how well it fits as the user's next move. \
Answer with JSON only, no prose: {\"candidates\":[{\"stepId\":\"<id>\",\"score\":<0..1>,\"reasons\":[\"<short reason>\"]}]}";
    let mut prompt = String::new();
    put(&mut prompt, &["Goal: ", &t.goal, "\nEligible steps:\n"]);
    for (i, s) in eligible.iter().enumerate() {
        put(&mut prompt, &[if i == 0 { "- " } else { "\n- " }, &s.id, ": ", &s.instruction]);
    }
    prompt.push_str("\nRecent conversation:\n");
    let context = transcript(traces, t.ranker.context_steps as usize);
    prompt.push_str(if context.is_empty() { "(none)\n" } else { &context });
    ModelRequest {
        purpose: Purpose::RankSteps,
        system: Some(system.to_owned()),
        messages: vec![ModelMessage::text(Role::User, prompt)],
        tools: None,
        response_format: Some(ResponseFormat::Json),
    }
}

/// The ranker's answer read: the top `topK` known candidates by score
/// (all of them, for the record) and those above the threshold (to choose
/// from). A text that is not JSON of the expected shape gives an error
/// string to record, never a thrown error.
pub struct Ranking {
    pub top: Vec<Candidate>,
    pub kept: Vec<Candidate>,
    pub error: Option<String>,
}

pub fn parse_ranking(text: &str, eligible: &[&StepDefinition], cfg: &RankerConfig) -> Ranking {
    let fail = |why: String| Ranking { top: vec![], kept: vec![], error: Some(why) };
    let body = strip_fence(text);
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => return fail(format!("ranker answer is not JSON ({e}): {}", clip(text))),
    };
    let list = match &value {
        Value::Array(items) => items,
        Value::Object(o) => match o.get("candidates") {
            Some(Value::Array(items)) => items,
            _ => return fail("ranker answer has no `candidates` array".into()),
        },
        _ => return fail("ranker answer must be { candidates: [...] }".into()),
    };
    let mut all = Vec::with_capacity(list.len());
    let mut unknown = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let id = c.get("stepId").and_then(Value::as_str);
        let score = c.get("score").and_then(Value::as_f64).filter(|s| s.is_finite());
        let (Some(id), Some(score)) = (id, score) else {
            return fail(format!("ranker candidates[{i}] needs a string stepId and a numeric score"));
        };
        if !eligible.iter().any(|s| s.id == id) {
            unknown.push(id.to_owned());
            continue;
        }
        let reasons = match c.get("reasons") {
            Some(Value::Array(r)) => Some(r.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()),
            Some(Value::String(r)) => Some(vec![r.clone()]),
            _ => None,
        };
        all.push(Candidate { step_id: id.to_owned(), score, reasons });
    }
    // Few candidates: an insertion sort (stable, highest score first) keeps
    // a general sort's code out of the module.
    for i in 1..all.len() {
        let mut j = i;
        while j > 0 && all[j - 1].score < all[j].score {
            all.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut seen: Vec<String> = Vec::new();
    all.retain(|c| {
        let fresh = !seen.contains(&c.step_id);
        seen.push(c.step_id.clone());
        fresh
    });
    all.truncate(cfg.top_k as usize);
    let kept = all.iter().filter(|c| c.score > cfg.threshold).cloned().collect();
    let error = (!unknown.is_empty()).then(|| format!("ranker named steps that are not eligible: {}", unknown.join(", ")));
    Ranking { top: all, kept, error }
}

/// Models often wrap JSON in a Markdown fence; the content is what counts.
fn strip_fence(text: &str) -> &str {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        return rest.strip_suffix("```").unwrap_or(rest).trim();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: &str) -> StepDefinition {
        StepDefinition {
            id: id.into(),
            instruction: format!("do {id}"),
            hints: vec![],
            preconditions: vec![],
            max_attempts: None,
            timeout_ms: None,
            is_satisfied: None,
        }
    }

    #[test]
    fn messages_and_bullets_as_a_prompt_quotes_them() {
        use serde_json::json;
        let messages = [
            json!({ "role": "user", "content": "hi" }),
            json!({ "role": "assistant", "content": [{ "type": "text", "text": "ok" }, { "type": "tool-call", "toolCallId": "c", "toolName": "search", "input": { "q": "x" } }] }),
            json!({ "role": "tool", "content": [
                { "type": "tool-result", "toolCallId": "c", "toolName": "search", "output": { "type": "error-text", "value": "boom" } },
                { "type": "tool-result", "toolCallId": "d", "toolName": "search", "output": { "type": "json", "value": { "hits": 3 } } },
            ] }),
        ];
        let mut out = String::new();
        for m in &messages {
            write_message(&mut out, &ModelMessage::from_value(m).unwrap());
        }
        assert_eq!(
            out,
            "User: hi\nAssistant: ok\nAssistant called tool search with {\"q\":\"x\"}\nTool search returned: ERROR boom\nTool search returned: {\"hits\":3}\n"
        );
        // Quotes are cut at QUOTE_LIMIT characters, not bytes.
        assert_eq!(clip(&"é".repeat(QUOTE_LIMIT + 1)), format!("{}…", "é".repeat(QUOTE_LIMIT)));
        assert_eq!(clip(&"é".repeat(QUOTE_LIMIT)), "é".repeat(QUOTE_LIMIT));
        let mut bullets = String::new();
        push_bullets(&mut bullets, "Hints", &["a".into(), "b".into()]);
        push_bullets(&mut bullets, "Guardrails", &[]);
        assert_eq!(bullets, "Hints:\n- a\n- b\n");
    }

    #[test]
    fn the_ranker_is_shown_the_goal_the_steps_and_the_recent_turns() {
        let t = Trajectory::from_value(&serde_json::json!({ "goal": "a table", "persona": { "description": "a diner" } })).unwrap();
        let (a, b) = (step("a"), step("b"));
        let text = |eligible: &[&StepDefinition]| match &rank_request(&t, eligible, &[]).messages[0].content {
            Content::Text(text) => text.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(&[&a, &b]), "Goal: a table\nEligible steps:\n- a: do a\n- b: do b\nRecent conversation:\n(none)\n");
        assert_eq!(text(&[]), "Goal: a table\nEligible steps:\n\nRecent conversation:\n(none)\n");
    }

    #[test]
    fn ranking_keeps_top_k_above_threshold() {
        let (a, b, c, d) = (step("a"), step("b"), step("c"), step("d"));
        let eligible = [&a, &b, &c, &d];
        let cfg = RankerConfig { threshold: 0.5, context_steps: 1, top_k: 2 };
        let r = parse_ranking(
            "```json\n{\"candidates\":[{\"stepId\":\"a\",\"score\":0.4},{\"stepId\":\"b\",\"score\":0.9,\"reasons\":[\"asked\"]},{\"stepId\":\"c\",\"score\":0.7},{\"stepId\":\"zz\",\"score\":1}]}\n```",
            &eligible,
            &cfg,
        );
        assert_eq!(r.top.iter().map(|c| c.step_id.as_str()).collect::<Vec<_>>(), ["b", "c"]);
        assert_eq!(r.kept.len(), 2);
        assert_eq!(r.kept[0].reasons.as_deref(), Some(&["asked".to_owned()][..]));
        assert!(r.error.unwrap().contains("zz"));
        // The threshold drops equal scores too.
        let r = parse_ranking("[{\"stepId\":\"a\",\"score\":0.5}]", &eligible, &cfg);
        assert!(r.kept.is_empty() && r.top.len() == 1 && r.error.is_none());
        for bad in ["sure, step a", "{\"steps\":[]}", "[{\"stepId\":\"a\"}]", "42"] {
            let r = parse_ranking(bad, &eligible, &cfg);
            assert!(r.kept.is_empty() && r.error.is_some(), "{bad}");
        }
    }
}
