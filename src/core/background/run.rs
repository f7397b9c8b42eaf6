//! The loop. Each iteration: guardrails → `iteration_started` → decide (or
//! the retry reflection asked for) → act on each tool call → count the
//! failure → reflect → `iteration_completed`. Then the final summary, the
//! deliverable, `run_terminated` and `run_ended`. A model or tool that
//! throws, times out or answers garbage is a counted failure the model
//! sees; only the harness's own parts (recorder, observers, clock) and the
//! abort signal end the run at once, and every record before is kept.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use serde_json::Value;

use super::config::{Config, Objective};
use super::prompt::{self, Topic, Verdict};
use super::state::{LastError, Retry, State};
use super::tools::{self, FINISH};
use super::{Env, RunResult, Status};
use crate::capture::{Payload, RunIdentity, MODEL_COMPLETED, PLAN_COMPLETED};
use crate::error::{Cause, Error, ErrorCode, Result};
use crate::generate::concurrency::{race, Either};
use crate::host::{LocalBoxFuture, ModelRequest, ModelResponse, ToolSpec, Usage};
use crate::message::Part;
use crate::number::show;

mod calls;
mod ending;

/// What ends a run at once.
enum Fatal {
    Aborted,
    /// The harness's own part failed: the recorder, the observers, the
    /// clock, a replay that missed.
    Host(&'static str, Error),
}

struct Terminal {
    status: Status,
    reason: String,
    /// What the model said when it ended the run.
    summary: Option<String>,
    /// The deliverable the model gave with `finish`.
    proposed: Option<Value>,
}

impl Terminal {
    fn new(status: Status, reason: impl Into<String>) -> Terminal {
        Terminal { status, reason: reason.into(), summary: None, proposed: None }
    }
}

/// One bound shared by the calls of a phase: a timer started once, which
/// every call races (so it bounds them together, not each).
struct Deadline {
    sleep: RefCell<Option<LocalBoxFuture<'static, ()>>>,
    ms: f64,
}

impl Deadline {
    /// Resolves when the bound has passed (at once if it already has).
    fn wait(&self) -> LocalBoxFuture<'_, ()> {
        Box::pin(poll_fn(move |cx| {
            let mut slot = self.sleep.borrow_mut();
            match slot.as_mut() {
                None => Poll::Ready(()),
                Some(f) => match f.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        *slot = None;
                        Poll::Ready(())
                    }
                    Poll::Pending => Poll::Pending,
                },
            }
        }))
    }

    fn expired(&self) -> bool {
        self.sleep.borrow().is_none()
    }
}

struct Runner<'a, 'e> {
    o: &'a Objective,
    cfg: &'a Config,
    env: &'a Env<'e>,
    s: State,
    specs: Rc<[ToolSpec]>,
    /// The call after which the assessment last recorded was made (calls count from 1).
    shown: u64,
}

/// Runs an objective to its end. Fails only before the run starts (a mount
/// or a snapshot that cannot be used, a clock that throws); after that
/// every fault ends the run with a status and a reason.
pub async fn run(o: &Objective, cfg: &Config, env: &Env<'_>, resume: Option<&Value>) -> Result<RunResult> {
    let mut s = State::new(o, cfg.vfs)?;
    if let Some(snapshot) = resume {
        s.resume(snapshot, &o.objective)?;
    }
    let start = env.clock.try_now_ms()?;
    if env.run_id.as_deref() == Some("") {
        return Err(Error::invalid_argument("runId is empty; leave it out for background-<start ms>"));
    }
    let base = env.run_id.clone().unwrap_or_else(|| format!("background-{}", start.max(0.0) as u64));
    let run_id = if env.run_number > 1 { format!("{base}-{}", env.run_number) } else { base };
    let mut specs = tools::specs(cfg.allow_plan_reset, o.deliverable_schema.as_ref());
    specs.extend(env.tools.iter().cloned());
    let mut r = Runner { o, cfg, env, s, specs: specs.into(), shown: 0 };
    let identity = RunIdentity { run_id: run_id.clone(), parent_run_id: None, agent: Some("background".into()), model_id: None };
    let mut end = r.record(Payload::RunStarted { identity }).err().map(|f| r.fatal(f));
    while end.is_none() {
        end = match r.iteration().await {
            Ok(t) => t,
            Err(f) => Some(r.fatal(f)),
        };
    }
    let mut end = end.expect("the loop ends with a terminal");
    // What the observers found that no decision was shown (the last
    // iteration's calls) is recorded now, so no finding is lost; not after
    // the harness's own part failed, an end `fatal` gives the reason
    // `error: …` (read from it: a flag of its own measured 23 B).
    if !end.reason.starts_with("error:") {
        if let Err(f) = r.assessment() {
            end = r.fatal(f);
        }
    }
    Ok(r.finish(end, run_id).await)
}

fn failure(e: &Error) -> LastError {
    LastError { code: e.code.as_str().to_owned(), message: e.message.clone(), cause: e.cause.clone() }
}

impl Runner<'_, '_> {
    fn record(&self, payload: Payload) -> std::result::Result<(), Fatal> {
        self.env.events.record(payload).map_err(|e| Fatal::Host("recorder", e))
    }

    fn fatal(&mut self, f: Fatal) -> Terminal {
        match f {
            Fatal::Aborted => Terminal::new(Status::Abandoned, "aborted"),
            Fatal::Host(side, e) => {
                let t = Terminal::new(Status::Failed, format!("error: {side} failed: {}", e.message));
                self.s.last_error = Some(failure(&e));
                t
            }
        }
    }

    fn deadline(&self) -> Option<Deadline> {
        match (self.cfg.iteration_timeout_ms, self.env.timer) {
            (Some(ms), Some(t)) => Some(Deadline { sleep: RefCell::new(Some(t.sleep(ms))), ms }),
            _ => None,
        }
    }

    /// Awaits a host call within the deadline and the abort signal: an
    /// expired deadline is the call's `TIMEOUT` error, an abort is fatal.
    async fn bounded<T>(&self, fut: LocalBoxFuture<'_, Result<T>>, d: Option<&Deadline>, what: &str) -> std::result::Result<Result<T>, Fatal> {
        let timed: LocalBoxFuture<'_, Result<T>> = match d {
            Some(d) if d.expired() => Box::pin(async move { Err(timeout(d.ms, what)) }),
            Some(d) => Box::pin(async move {
                match race(fut, d.wait()).await {
                    Either::Left(r) => r,
                    Either::Right(()) => Err(timeout(d.ms, what)),
                }
            }),
            None => fut,
        };
        match self.env.abort {
            Some(a) => match race(timed, a.wait()).await {
                Either::Left(r) => Ok(r),
                Either::Right(()) => Err(Fatal::Aborted),
            },
            None => Ok(timed.await),
        }
    }

    /// Asks the model, [`Runner::bounded`]. A replay that misses ends the
    /// run: asked again, it would miss again (its recording is out of date,
    /// the model is not wrong).
    async fn ask(&self, request: ModelRequest, d: Option<&Deadline>, what: &str) -> std::result::Result<Result<ModelResponse>, Fatal> {
        match self.bounded(self.env.model.complete(request), d, what).await? {
            Err(e) if e.code == ErrorCode::ReplayMiss => Err(Fatal::Host("replay", e)),
            answer => Ok(answer),
        }
    }

    /// Tokens a model call used (`source`: agent for its decisions, reflect or summarize):
    /// recorded as `model_usage`, as every producer does, and added to the
    /// observers' budget.
    fn spend(&self, usage: &Usage, source: &str) -> std::result::Result<(), Fatal> {
        if usage.total() > 0 {
            self.record(usage.model_usage(Some(source)).payload())?;
        }
        match self.env.observers {
            Some(o) if usage.total() > 0 => o.record_tokens(usage.total()).map_err(|e| Fatal::Host("observers", e)),
            _ => Ok(()),
        }
    }

    /// The observers' current assessment, recorded the first time it is
    /// shown (a finding shown to several decisions is still one finding).
    fn assessment(&mut self) -> std::result::Result<Option<String>, Fatal> {
        let Some(o) = self.env.observers else { return Ok(None) };
        let shown = o.current().map_err(|e| Fatal::Host("observers", e))?;
        if let Some(s) = shown.as_ref().filter(|s| s.call_index != self.shown) {
            for a in &s.assessments {
                self.record(Payload::AssessmentProduced { call_index: s.call_index, assessment: a.clone(), turn_index: None })?;
            }
            self.shown = s.call_index;
        }
        Ok(shown.map(|s| s.text))
    }

    async fn iteration(&mut self) -> std::result::Result<Option<Terminal>, Fatal> {
        // The host's event loop gets a turn every few iterations, so a model
        // that answers at once cannot starve the abort signal or a timer.
        if let Some(t) = self.env.timer.filter(|_| crate::host::yields_before(self.s.iteration)) {
            t.yield_now().await;
        }
        if self.env.abort.is_some_and(|a| a.aborted()) {
            return Err(Fatal::Aborted);
        }
        if self.s.iteration >= self.cfg.max_iterations {
            return Ok(Some(Terminal::new(Status::Failed, "max-iterations")));
        }
        let i = self.s.iteration;
        self.record(Payload::IterationStarted { iteration: i })?;
        let deadline = self.deadline();
        let d = deadline.as_ref();
        let mut terminal = None;
        let mut decision_error: Option<Error> = None;
        // Calls that failed or found nothing, for reflection: (tool, input, result, failed, what the tool threw).
        let mut notable: Option<(String, Value, Value, bool, Option<Cause>)> = None;
        let mut names = Vec::new();
        let mut any_failed = false;
        let decision = if let Some(retry) = self.s.retry.take() {
            let (ok, empty, (result, cause)) = self.act(&retry.tool_name, &retry.input, &format!("retry-{i}"), d).await?;
            names.push(retry.tool_name.clone());
            any_failed |= !ok;
            if !ok || empty {
                notable = Some((retry.tool_name, retry.input, result, !ok, cause));
            }
            "retry"
        } else {
            let shown = self.assessment()?;
            let request = prompt::decide(self.o, self.cfg, &self.s, &self.specs, shown.as_deref());
            self.s.pending_reflection = None;
            self.s.nudge = None;
            match self.ask(request, d, "the model (decide)").await? {
                Err(e) => {
                    decision_error = Some(e);
                    "error"
                }
                Ok(answer) => {
                    self.spend(&answer.usage, "agent")?;
                    let message = answer.to_assistant_message(|k| format!("call-{i}-{k}"));
                    self.record(Payload::MessageAppended { message: message.clone() })?;
                    if answer.tool_calls.is_empty() {
                        match prompt::text_signal(&answer.text) {
                            Some((status, summary)) => {
                                let (status, reason) =
                                    if status == "completed" { (Status::Completed, MODEL_COMPLETED) } else { (Status::Abandoned, "model-abandoned") };
                                terminal = Some(Terminal { summary: Some(summary).filter(|s| !s.is_empty()), ..Terminal::new(status, reason) });
                            }
                            None => {
                                self.s.nudge = Some("your last answer was text without a tool call or an end signal, so nothing happened; act with the tools, or call finish".into());
                            }
                        }
                        "text"
                    } else {
                        for part in message.parts() {
                            let Part::ToolCall { tool_call_id, tool_name, input } = part else { continue };
                            names.push(tool_name.clone());
                            if tool_name == FINISH {
                                match self.finish_call(tool_call_id, input) {
                                    Ok(t) => {
                                        terminal = Some(t);
                                        break;
                                    }
                                    Err(e) => {
                                        any_failed = true;
                                        let started = Payload::ToolStarted {
                                            tool_call_id: tool_call_id.clone(),
                                            tool_name: FINISH.into(),
                                            args: input.clone(),
                                        };
                                        self.record(started)?;
                                        let (result, cause) = self.ended(i, tool_call_id, tool_name, input, Err(e))?;
                                        notable = Some((tool_name.clone(), input.clone(), result, true, cause));
                                        continue;
                                    }
                                }
                            }
                            let (ok, empty, (result, cause)) = self.act(tool_name, input, tool_call_id, d).await?;
                            any_failed |= !ok;
                            if (!ok || empty) && notable.as_ref().is_none_or(|n| !n.3) {
                                notable = Some((tool_name.clone(), input.clone(), result, !ok, cause));
                            }
                        }
                        "tools"
                    }
                }
            }
        };
        let mut error = decision_error
            .as_ref()
            .map(failure)
            .or_else(|| notable.as_ref().filter(|n| n.3).map(|n| LastError { cause: n.4.clone(), ..split_error(&n.2) }));
        if terminal.is_none() {
            if self.cfg.enable_reflection {
                let topic = match (&decision_error, &notable) {
                    (Some(e), _) => Some(Topic::Decision { error: &e.message }),
                    (None, Some((tool, input, result, failed, _))) => Some(Topic::Action { tool, input, result, failed: *failed }),
                    (None, None) if self.s.plan.as_ref().is_some_and(|p| p.all_done()) => Some(Topic::PlanDone),
                    _ => None,
                };
                if let Some(topic) = topic {
                    let plan_done = matches!(topic, Topic::PlanDone);
                    let retry_tool = notable.as_ref().map(|n| n.0.clone());
                    match self.reflect(&topic).await? {
                        Ok((verdict, reason)) => terminal = self.apply(verdict, reason, retry_tool, plan_done),
                        Err(e) => {
                            // Said to the model next, and on the iteration's record (after a failed call's own error).
                            self.s.pending_reflection = Some(format!("your reflection failed: {}", e.message));
                            match &mut error {
                                Some(first) => first.message = format!("{}; then {}", first.message, e.message),
                                None => error = Some(failure(&e)),
                            }
                            any_failed = true;
                        }
                    }
                }
            } else if self.s.plan.as_ref().is_some_and(|p| p.all_done()) {
                terminal = Some(Terminal::new(Status::Completed, PLAN_COMPLETED));
            }
        }
        let failed = any_failed || decision_error.is_some();
        if failed {
            self.s.failures += 1;
            self.s.consecutive_failures += 1;
            self.s.last_error = error.clone();
        } else {
            self.s.consecutive_failures = 0;
        }
        self.record(Payload::IterationCompleted {
            iteration: i,
            decision: decision.into(),
            tools: names,
            failed,
            error: if failed { error.map(|e| format!("{}: {}", e.code, e.message)) } else { None },
        })?;
        self.s.iteration += 1;
        if terminal.is_none() && self.s.consecutive_failures >= self.cfg.max_failures {
            let last = self.s.last_error.as_ref().map(|e| format!(": last error: {}: {}", e.code, e.message)).unwrap_or_default();
            terminal = Some(Terminal::new(Status::Failed, format!("max-failures{last}")));
        }
        Ok(terminal)
    }

    /// Asks the model to reflect; a call that fails or an answer that
    /// cannot be read is a failure of the iteration (the error returned).
    async fn reflect(&mut self, topic: &Topic<'_>) -> std::result::Result<Result<(Verdict, String)>, Fatal> {
        let request = prompt::reflect(self.o, self.cfg, &self.s, topic);
        let deadline = self.deadline();
        let answer = match self.ask(request, deadline.as_ref(), "the model (reflect)").await? {
            Ok(a) => a,
            Err(e) => return Ok(Err(e)),
        };
        self.spend(&answer.usage, "reflect")?;
        Ok(prompt::parse_reflection(&answer.text).map_err(|m| Error::new(ErrorCode::CallbackFailed, format!("the model (reflect): {m}"))))
    }

    fn apply(&mut self, verdict: Verdict, reason: String, tool: Option<String>, plan_done: bool) -> Option<Terminal> {
        let because = |what: &str| if reason.is_empty() { what.to_owned() } else { format!("{what}: {reason}") };
        match verdict {
            Verdict::Retry(input) => match tool {
                Some(tool_name) if !plan_done => {
                    self.s.pending_reflection = Some(because(&format!("retried {tool_name} with corrected arguments")));
                    self.s.retry = Some(Retry { tool_name, input });
                }
                _ => self.s.pending_reflection = Some(because("there is no failed call to retry")),
            },
            Verdict::Abandon => {
                return Some(Terminal { summary: Some(reason).filter(|r| !r.is_empty()), ..Terminal::new(Status::Abandoned, "reflection-abandoned") })
            }
            Verdict::Complete if plan_done => return Some(Terminal::new(Status::Completed, PLAN_COMPLETED)),
            Verdict::ResetPlan if self.cfg.allow_plan_reset => {
                self.s.plan = None;
                self.s.pending_reflection = Some(because("the plan was dropped; make a new one"));
            }
            Verdict::ResetPlan => self.s.pending_reflection = Some(because("a plan reset was asked for but is not allowed (allowPlanReset: false)")),
            Verdict::Continue | Verdict::Complete => self.s.pending_reflection = Some(reason).filter(|r| !r.is_empty()),
        }
        None
    }
}

fn timeout(ms: f64, what: &str) -> Error {
    Error::new(ErrorCode::Timeout, format!("{what} did not answer within iterationTimeoutMs ({} ms)", show(ms)))
}

/// A failed call's result (`CODE: message`) as an error.
fn split_error(v: &Value) -> LastError {
    let text = v.as_str().unwrap_or_default();
    match text.split_once(": ") {
        Some((code, message)) => LastError { code: code.into(), message: message.into(), cause: None },
        None => LastError { code: "CALLBACK_FAILED".into(), message: text.into(), cause: None },
    }
}
