//! The rubric judge: criteria in plain language, the prompt that asks a
//! model to grade a conversation against them, the strict JSON verdict it
//! must answer with, and the judgement: `pass` / `fail` / `inconclusive`
//! per criterion, with reasoning. An answer that cannot be read is asked
//! again once with the problem named, then judged inconclusive: a judge's
//! bad answer never crashes a run. A generated run asks it after each turn
//! and at the end (`run_judge::Rubric`, the core's `RunJudge`); `judge()` asks it
//! about a recorded run.

use serde::Serialize;
use serde_json::Value;

use agent_trajectories_core::error::{Error, ErrorCode, Result};
pub use agent_trajectories_core::generate::env::JudgeVerdict;
use agent_trajectories_core::host::{LocalBoxFuture, ModelRequest, ModelResponse, Purpose, ResponseFormat, Usage};
use agent_trajectories_core::message::{Content, ModelMessage, Part, Role, ToolOutput};
use agent_trajectories_core::number;
use agent_trajectories_core::number::quoted;
use agent_trajectories_core::observe::Assessment;
use agent_trajectories_core::options::check_keys;

/// A criterion: a short name and, optionally, what it means.
#[derive(Debug, Clone, PartialEq)]
pub struct Criterion {
    pub name: String,
    pub description: Option<String>,
}

/// At most this many criteria: each is graded in one answer.
pub const MAX_CRITERIA: usize = 50;

/// Reads `criteria`: strings (the name says it all) or `{ name, description? }`;
/// at least one, names unique and non-empty.
pub fn read_criteria(v: &Value, place: &str) -> Result<Vec<Criterion>> {
    let bad = |m: String| Error::invalid_argument(m);
    let Value::Array(items) = v else {
        return Err(bad(format!("{place} must be an array of criteria (strings or {{ name, description? }}), got {}", number::show_value(v))));
    };
    if items.is_empty() || items.len() > MAX_CRITERIA {
        return Err(bad(format!("{place} must hold 1 to {MAX_CRITERIA} criteria, got {}", items.len())));
    }
    let mut out: Vec<Criterion> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{place}[{i}]");
        let c = match item {
            Value::String(name) => Criterion { name: name.clone(), description: None },
            Value::Object(o) => {
                check_keys(o.keys().map(String::as_str), &["name", "description"], &at)?;
                let text = |k: &str| match o.get(k) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::String(s)) => Ok(Some(s.clone())),
                    Some(other) => Err(bad(format!("{at}.{k} must be a string, got {}", number::show_value(other)))),
                };
                Criterion { name: text("name")?.unwrap_or_default(), description: text("description")? }
            }
            other => return Err(bad(format!("{at} must be a string or {{ name, description? }}, got {}", number::show_value(other)))),
        };
        if c.name.trim().is_empty() {
            return Err(bad(format!("{at}: a criterion needs a name")));
        }
        if out.iter().any(|o| o.name == c.name) {
            return Err(bad(format!("{at}: two criteria are named {}; the judge answers by name", quoted(&c.name))));
        }
        out.push(c);
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriterionVerdict {
    pub name: String,
    pub verdict: JudgeVerdict,
    pub reasoning: String,
}

/// Why a judgement holds no reading of the judge's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgementError {
    pub code: &'static str,
    pub message: String,
}

/// A judge's grading of a run, after turn `turn` (`None`: a recorded run)
/// or at its end (`final`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// `fail` when any criterion failed, `pass` when every one passed, else `inconclusive`.
    pub verdict: JudgeVerdict,
    pub criteria: Vec<CriterionVerdict>,
    pub turn: Option<u64>,
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Model calls it took: 1, or 2 when the first answer could not be read.
    pub attempts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<JudgementError>,
    /// A line per failed or inconclusive criterion, naming it and the turn.
    pub message: String,
}

impl Judgement {
    fn of(criteria: Vec<CriterionVerdict>, turn: Option<u64>, is_final: bool, attempts: u32, error: Option<JudgementError>) -> Judgement {
        let verdict = if criteria.iter().any(|c| c.verdict == JudgeVerdict::Fail) {
            JudgeVerdict::Fail
        } else if criteria.iter().all(|c| c.verdict == JudgeVerdict::Pass) {
            JudgeVerdict::Pass
        } else {
            JudgeVerdict::Inconclusive
        };
        let when = match (turn, is_final) {
            (Some(t), false) => format!("after turn {t}"),
            (Some(t), true) => format!("at the end (turn {t})"),
            (None, _) => "on the run".to_owned(),
        };
        let lines = criteria
            .iter()
            .filter(|c| c.verdict != JudgeVerdict::Pass)
            .map(|c| format!("- {}: {} {when}: {}", quoted(&c.name), c.verdict.as_str(), c.reasoning));
        let head = format!(
            "judge: {} {when} ({} of {} criteria passed)",
            verdict.as_str(),
            criteria.iter().filter(|c| c.verdict == JudgeVerdict::Pass).count(),
            criteria.len()
        );
        let message = std::iter::once(head).chain(lines).collect::<Vec<_>>().join("\n");
        Judgement { verdict, criteria, turn, is_final, attempts, error, message }
    }

    /// The criteria that failed, by name.
    pub fn failed(&self) -> impl Iterator<Item = &str> {
        self.criteria.iter().filter(|c| c.verdict == JudgeVerdict::Fail).map(|c| c.name.as_str())
    }
}

/// What the judge reads: the conversation so far (each message with its
/// role, tool calls and results cut to 400 characters) and the observers'
/// findings.
pub fn transcript(messages: &[ModelMessage], findings: &[(Option<u64>, &Assessment)]) -> String {
    let mut out = String::new();
    let mut turn = 0u64;
    let clip = |s: String| match s.char_indices().nth(400) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    };
    for m in messages {
        let role = match m.role {
            Role::System => "system",
            Role::User => {
                out.push_str(&format!("--- turn {turn} ---\n"));
                turn += 1;
                "user"
            }
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        };
        match &m.content {
            Content::Text(t) => out.push_str(&format!("{role}: {t}\n")),
            Content::Parts(parts) => {
                for p in parts {
                    let line = match p {
                        Part::Text { text } => format!("{role}: {text}"),
                        Part::Reasoning { .. } | Part::Other(_) => continue,
                        Part::ToolCall { tool_name, input, .. } => {
                            format!("{role} calls {tool_name}({})", clip(agent_trajectories_core::write::json(input)))
                        }
                        Part::ToolResult { tool_name, output, .. } => {
                            let result = ToolOutput::of(output);
                            let failed = if result.failed { " (failed)" } else { "" };
                            format!("tool {tool_name} returns{failed}: {}", clip(agent_trajectories_core::write::json(result.value)))
                        }
                    };
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
    }
    if !findings.is_empty() {
        out.push_str("--- observer findings ---\n");
        for (t, a) in findings {
            let at = t.map_or(String::new(), |t| format!(" (turn {t})"));
            out.push_str(&format!("[{}] {}{at}: {}\n", a.severity.as_str(), a.observer_name, a.summary));
        }
    }
    out
}

const SYSTEM: &str = "You judge a conversation between a user and an AI agent against criteria written in plain language. \
Read the conversation, the agent's tool calls and their results, and the observers' findings. For each criterion, answer \
pass (the conversation shows it holds), fail (the conversation shows it does not), or inconclusive (the conversation does \
not show either way). Answer with JSON only, no other text: \
{\"criteria\":[{\"name\":\"<the criterion's name, exactly>\",\"verdict\":\"pass\"|\"fail\"|\"inconclusive\",\"reasoning\":\"<one or two sentences>\"}]}, \
one entry per criterion.";

/// The request grading `transcript` against `criteria`: after turn `turn`
/// of a run still going on, or of a run that is over (`is_final`, or a
/// recorded run: `turn` `None`).
pub fn request(criteria: &[Criterion], transcript: &str, turn: Option<u64>, is_final: bool) -> ModelRequest {
    let mut text = String::from("Criteria:\n");
    for c in criteria {
        match &c.description {
            Some(d) => text.push_str(&format!("- {}: {d}\n", c.name)),
            None => text.push_str(&format!("- {}\n", c.name)),
        }
    }
    match (turn, is_final) {
        (Some(t), false) => text.push_str(&format!(
            "\nThe conversation is still going on (this is after turn {t}). Judge what it shows so far: a criterion that could still be met later is inconclusive, not fail.\n"
        )),
        _ => text.push_str("\nThe conversation is over.\n"),
    }
    text.push_str("\nConversation:\n");
    text.push_str(transcript);
    ModelRequest {
        purpose: Purpose::Judge,
        system: Some(SYSTEM.to_owned()),
        messages: vec![ModelMessage::text(Role::User, text)],
        tools: None,
        response_format: Some(ResponseFormat::Json),
    }
}

/// The judge's verdicts from its answer, or what is wrong with it.
pub fn read_answer(text: &str, criteria: &[Criterion]) -> std::result::Result<Vec<CriterionVerdict>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("the answer was empty".into());
    }
    // The JSON object, without a Markdown fence or words around it.
    let json = match (trimmed.find('{'), trimmed.rfind('}')) {
        (Some(a), Some(b)) if a < b => &trimmed[a..=b],
        _ => return Err("the answer holds no JSON object".into()),
    };
    let v: Value =
        serde_json::from_str(json).map_err(|e| format!("the answer is not valid JSON ({})", agent_trajectories_core::error::plain_serde(&e)))?;
    let items = v.get("criteria").and_then(Value::as_array).ok_or("the answer has no \"criteria\" array")?;
    let mut found: Vec<Option<CriterionVerdict>> = vec![None; criteria.len()];
    for (i, item) in items.iter().enumerate() {
        let name = item.get("name").and_then(Value::as_str).ok_or_else(|| format!("criteria[{i}] has no \"name\""))?;
        let k = criteria
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| format!("criteria[{i}] names {name}, which is not a criterion", name = quoted(name)))?;
        let verdict = item.get("verdict").and_then(Value::as_str);
        let verdict = verdict.and_then(JudgeVerdict::parse).ok_or_else(|| {
            format!(
                "criteria[{i}] ({name}) has verdict {}, not \"pass\", \"fail\" or \"inconclusive\"",
                item.get("verdict").map_or("none".into(), number::show_value),
                name = quoted(name)
            )
        })?;
        let reasoning = item.get("reasoning").and_then(Value::as_str).unwrap_or_default().to_owned();
        if found[k].replace(CriterionVerdict { name: name.to_owned(), verdict, reasoning }).is_some() {
            return Err(format!("criterion {name} is graded twice", name = quoted(name)));
        }
    }
    let missing: Vec<String> = criteria.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(c, _)| quoted(&c.name)).collect();
    if !missing.is_empty() {
        return Err(format!("the answer does not grade {}", missing.join(", ")));
    }
    Ok(found.into_iter().flatten().collect())
}

/// The same request with the unreadable answer and the problem named.
fn retry(mut req: ModelRequest, answer: &str, problem: &str) -> ModelRequest {
    req.messages.push(ModelMessage::text(Role::Assistant, answer));
    req.messages.push(ModelMessage::text(
        Role::User,
        format!("Your answer could not be read: {problem}. Answer again with the JSON object only, one entry per criterion."),
    ));
    req
}

/// Asks the judge (`ask`: the model call, bounded by the caller) and reads
/// its answer, asking once more when it cannot be read; a second unreadable
/// answer is an inconclusive judgement with the problem as its error. The
/// tokens of every call come back beside it. A call that fails (throws,
/// times out) is the error. Boxed: one copy of its state machine, not one
/// inside each caller's.
pub fn assess<'a>(
    ask: &'a dyn Fn(ModelRequest) -> LocalBoxFuture<'a, Result<ModelResponse>>,
    criteria: &'a [Criterion],
    req: ModelRequest,
    turn: Option<u64>,
    is_final: bool,
) -> LocalBoxFuture<'a, Result<(Judgement, Usage)>> {
    Box::pin(async move {
        let mut usage = Usage::default();
        let mut req = req;
        for attempt in 1..=2 {
            let answer = ask(req.clone()).await?;
            // Both asks' tokens, each counted as its own record would count it.
            usage.total_tokens = Some(usage.total().saturating_add(answer.usage.total()));
            usage.input_tokens = add(usage.input_tokens, answer.usage.input_tokens);
            usage.output_tokens = add(usage.output_tokens, answer.usage.output_tokens);
            match read_answer(&answer.text, criteria) {
                Ok(v) => return Ok((Judgement::of(v, turn, is_final, attempt, None), usage)),
                Err(problem) if attempt == 1 => req = retry(req, &answer.text, &problem),
                Err(problem) => {
                    let reasoning = format!("the judge's answer could not be read: {problem}");
                    let all = criteria.iter().map(|c| CriterionVerdict {
                        name: c.name.clone(),
                        verdict: JudgeVerdict::Inconclusive,
                        reasoning: reasoning.clone(),
                    });
                    let error = JudgementError { code: ErrorCode::CallbackFailed.as_str(), message: format!("judge model: asked twice, {problem}") };
                    return Ok((Judgement::of(all.collect(), turn, is_final, 2, Some(error)), usage));
                }
            }
        }
        Err(Error::new(ErrorCode::Internal, "the judge was asked more than twice"))
    })
}

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        _ => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_trajectories_core::observe::Severity;
    use serde_json::json;
    use std::cell::RefCell;

    fn criteria() -> Vec<Criterion> {
        read_criteria(&json!(["polite", { "name": "booked", "description": "a table was booked" }]), "criteria").unwrap()
    }

    #[test]
    fn criteria_are_read_and_checked() {
        assert_eq!(criteria()[1].description.as_deref(), Some("a table was booked"));
        assert_eq!(read_criteria(&json!([]), "judge.criteria").unwrap_err().message, "judge.criteria must hold 1 to 50 criteria, got 0");
        assert!(read_criteria(&json!(["a", "a"]), "c").unwrap_err().message.contains("two criteria are named \"a\""));
        assert!(read_criteria(&json!([{ "nam": "a" }]), "c").unwrap_err().message.contains("did you mean \"name\""));
        assert!(read_criteria(&json!([" "]), "c").unwrap_err().message.contains("needs a name"));
    }

    #[test]
    fn the_prompt_holds_the_criteria_the_conversation_and_the_findings() {
        let msgs = vec![
            ModelMessage::text(Role::User, "a table for two"),
            ModelMessage {
                role: Role::Assistant,
                content: Content::Parts(vec![Part::ToolCall { tool_call_id: "1".into(), tool_name: "book".into(), input: json!({ "n": 2 }) }]),
                provider_options: None,
            },
            ModelMessage {
                role: Role::Tool,
                content: Content::Parts(vec![Part::ToolResult {
                    tool_call_id: "1".into(),
                    tool_name: "book".into(),
                    output: json!({ "type": "error-text", "value": "full" }),
                }]),
                provider_options: None,
            },
        ];
        let a = Assessment::new("stall", "same call", Severity::Caution);
        let t = transcript(&msgs, &[(Some(0), &a)]);
        assert_eq!(t, "--- turn 0 ---\nuser: a table for two\nassistant calls book({\"n\":2})\ntool book returns (failed): \"full\"\n--- observer findings ---\n[caution] stall (turn 0): same call\n");
        let r = request(&criteria(), &t, Some(0), false);
        assert_eq!((r.purpose, r.response_format), (Purpose::Judge, Some(ResponseFormat::Json)));
        let Content::Text(text) = &r.messages[0].content else { panic!() };
        assert!(
            text.starts_with("Criteria:\n- polite\n- booked: a table was booked\n\nThe conversation is still going on (this is after turn 0)."),
            "{text}"
        );
        assert!(text.ends_with(&t));
    }

    #[test]
    fn answers_are_read_strictly() {
        let ok = r#"```json
{"criteria":[{"name":"booked","verdict":"fail","reasoning":"full"},{"name":"polite","verdict":"pass","reasoning":"yes"}]}
```"#;
        let v = read_answer(ok, &criteria()).unwrap();
        assert_eq!(
            v.iter().map(|c| (c.name.as_str(), c.verdict)).collect::<Vec<_>>(),
            [("polite", JudgeVerdict::Pass), ("booked", JudgeVerdict::Fail)]
        );
        assert_eq!(read_answer(" ", &criteria()).unwrap_err(), "the answer was empty");
        assert_eq!(read_answer("sure!", &criteria()).unwrap_err(), "the answer holds no JSON object");
        assert_eq!(
            read_answer(r#"{"criteria":[{"name":"polite","verdict":"pass"}]}"#, &criteria()).unwrap_err(),
            "the answer does not grade \"booked\""
        );
        assert!(read_answer(r#"{"criteria":[{"name":"polite","verdict":"yes"}]}"#, &criteria()).unwrap_err().contains("has verdict \"yes\""));
        assert!(read_answer(r#"{"criteria":[{"name":"rude","verdict":"pass"}]}"#, &criteria()).unwrap_err().contains("not a criterion"));
        assert!(read_answer(r#"{"criteria": 1}"#, &criteria()).unwrap_err().contains("no \"criteria\" array"));
    }

    fn run(answers: Vec<Result<&'static str>>) -> (Result<(Judgement, Usage)>, Vec<ModelRequest>) {
        let answers = RefCell::new(answers.into_iter());
        let asked = RefCell::new(Vec::new());
        let ask = |r: ModelRequest| -> LocalBoxFuture<'_, Result<ModelResponse>> {
            asked.borrow_mut().push(r);
            let a = answers.borrow_mut().next().unwrap();
            Box::pin(async move {
                a.map(|t| ModelResponse {
                    text: t.into(),
                    usage: Usage { input_tokens: Some(3), output_tokens: Some(1), total_tokens: None },
                    ..Default::default()
                })
            })
        };
        let req = request(&criteria(), "t", Some(2), false);
        let out = futures_lite(assess(&ask, &criteria(), req, Some(2), false));
        (out, asked.into_inner())
    }

    /// Polls a future that never waits (the fakes answer at once).
    fn futures_lite<T>(f: impl std::future::Future<Output = T>) -> T {
        let mut f = std::pin::pin!(f);
        let waker = std::task::Waker::noop();
        match f.as_mut().poll(&mut std::task::Context::from_waker(waker)) {
            std::task::Poll::Ready(v) => v,
            std::task::Poll::Pending => panic!("the fake model waited"),
        }
    }

    #[test]
    fn an_unreadable_answer_is_asked_again_once_then_inconclusive() {
        let good = r#"{"criteria":[{"name":"polite","verdict":"pass","reasoning":"r"},{"name":"booked","verdict":"fail","reasoning":"no table"}]}"#;
        let (out, asked) = run(vec![Ok(good)]);
        let (j, usage) = out.unwrap();
        assert_eq!((j.verdict, j.attempts, asked.len(), usage.total()), (JudgeVerdict::Fail, 1, 1, 4));
        assert_eq!(j.message, "judge: fail after turn 2 (1 of 2 criteria passed)\n- \"booked\": fail after turn 2: no table");
        let (out, asked) = run(vec![Ok("nope"), Ok(good)]);
        assert_eq!((out.unwrap().0.attempts, asked.len()), (2, 2));
        let Content::Text(again) = &asked[1].messages[2].content else { panic!() };
        assert_eq!(
            again,
            "Your answer could not be read: the answer holds no JSON object. Answer again with the JSON object only, one entry per criterion."
        );
        let (out, _) = run(vec![Ok(""), Ok("{}")]);
        let (j, usage) = out.unwrap();
        assert_eq!((j.verdict, j.attempts, usage.total()), (JudgeVerdict::Inconclusive, 2, 8));
        assert_eq!(j.error.as_ref().unwrap().message, "judge model: asked twice, the answer has no \"criteria\" array");
        let data = serde_json::to_value(&j).unwrap();
        assert_eq!((data["final"].clone(), data["turn"].clone(), data["error"]["code"].clone()), (json!(false), json!(2), json!("CALLBACK_FAILED")));
        let (out, _) = run(vec![Err(Error::new(ErrorCode::Timeout, "no answer"))]);
        assert_eq!(out.unwrap_err().code, ErrorCode::Timeout, "a failing call is the caller's to handle");
    }
}
