//! `judge()`: the rubric judge over a recorded run, its model call bounded
//! by a deadline (a judge that never answers must not hang the caller).

use super::facts::RunFacts;
use crate::rubric::{assess, request, transcript, Criterion, Judgement};
use agent_trajectories_core::error::Result;
use agent_trajectories_core::generate::concurrency::with_deadline;
use agent_trajectories_core::host::{LocalBoxFuture, Model, ModelRequest, ModelResponse, Timer};
use agent_trajectories_core::observe::Assessment;

/// Grades `facts` against `criteria` with `model`; each call bounded by
/// `timeout_ms` (named `what` in the error) when a timer is given.
pub async fn judge_run(
    facts: &RunFacts,
    criteria: &[Criterion],
    model: &dyn Model,
    timer: Option<&dyn Timer>,
    timeout: Option<(f64, &str)>,
) -> Result<Judgement> {
    let findings: Vec<Assessment> = facts.findings.iter().map(|f| Assessment::new(f.observer.clone(), f.summary.clone(), f.severity)).collect();
    let shown: Vec<(Option<u64>, &Assessment)> = facts.findings.iter().zip(&findings).map(|(f, a)| (f.turn, a)).collect();
    let req = request(criteria, &transcript(&facts.messages, &shown), None, true);
    let ask = |r: ModelRequest| -> LocalBoxFuture<'_, Result<ModelResponse>> { with_deadline(model.complete(r), timer, timeout) };
    Ok(assess(&ask, criteria, req, None, true).await?.0)
}

/// What `judge(run, options)` reads (`model` is the binding's).
pub const JUDGE_RUN_OPTIONS: [&str; 4] = ["model", "criteria", "runId", "timeoutMs"];

#[derive(Debug, Clone, PartialEq)]
pub struct JudgeRunOptions {
    pub criteria: Vec<Criterion>,
    pub run_id: Option<String>,
    /// Per model call; default two minutes (`CallTimeout::DEFAULT_MS`), `false`: none.
    pub timeout_ms: Option<f64>,
}

impl JudgeRunOptions {
    pub fn read(v: &serde_json::Value, place: &str) -> Result<JudgeRunOptions> {
        use agent_trajectories_core::host::CallTimeout;
        let o = agent_trajectories_core::value::Opts::new(v, &JUDGE_RUN_OPTIONS, place, "{ model, criteria, runId?, timeoutMs? }")?;
        let timeout_ms = CallTimeout::read_as(o.get("timeoutMs"), &format!("{place}.timeoutMs"))?;
        let criteria = crate::rubric::read_criteria(o.get("criteria").unwrap_or(&serde_json::Value::Null), &format!("{place}.criteria"))?;
        Ok(JudgeRunOptions { criteria, run_id: o.string("runId")?, timeout_ms })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::tests::facts;
    use serde_json::json;
    use std::cell::RefCell;
    use std::future::Future;

    struct Scripted(RefCell<Vec<ModelRequest>>, &'static str);

    impl Model for Scripted {
        fn complete(&self, request: ModelRequest) -> LocalBoxFuture<'_, Result<ModelResponse>> {
            self.0.borrow_mut().push(request);
            Box::pin(async move { Ok(ModelResponse { text: self.1.into(), ..Default::default() }) })
        }
    }

    #[test]
    fn a_recorded_run_is_judged_over_its_conversation_and_findings() {
        let o = JudgeRunOptions::read(&json!({ "model": "[function]", "criteria": ["searched first"] }), "judge: options").unwrap();
        assert_eq!(o.timeout_ms, Some(120_000.0));
        let model = Scripted(RefCell::default(), r#"{"criteria":[{"name":"searched first","verdict":"pass","reasoning":"it did"}]}"#);
        let f = facts();
        let mut fut = std::pin::pin!(judge_run(&f, &o.criteria, &model, None, None));
        let std::task::Poll::Ready(j) = fut.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) else { panic!("waited") };
        let j = j.unwrap();
        assert_eq!((j.verdict.as_str(), j.turn, j.is_final), ("pass", None, true));
        let asked = model.0.borrow();
        let agent_trajectories_core::message::Content::Text(text) = &asked[0].messages[0].content else { panic!() };
        assert!(text.contains("The conversation is over."), "{text}");
        assert!(text.contains("[caution] stall (turn 1): same call twice"), "{text}");
        let e = JudgeRunOptions::read(&json!({ "criteria": ["a"], "timeoutMs": 0 }), "judge: options").unwrap_err();
        assert!(e.message.starts_with("judge: options.timeoutMs must be a positive number"), "{}", e.message);
        assert!(JudgeRunOptions::read(&json!({ "criteria": ["a"], "criterion": 1 }), "o").unwrap_err().message.contains("did you mean \"criteria\""));
    }
}
