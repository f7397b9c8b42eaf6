//! The generation loop. Each turn: the `maxTurns` cap and the policy
//! (before anything of the turn is asked of a model) → preconditions and
//! selection → loop detection → the simulated user's message → the agent's
//! answer (shown the observers' assessment) → step state → trace. Every
//! fault becomes a stop with reason `error`, and everything produced before
//! it is kept. The end is recorded and flushed before it is final: a sink
//! that fails there turns the end into an error, never a silent loss.
//!
//! A fork first replays the turns it keeps of its parent: each is taken as
//! recorded (no model is asked; the policy, `maxTurns` and loop detection
//! are not asked about a turn that happened), while everything else of the
//! turn runs as it did (eligibility, `isSatisfied`, observers, records), so
//! the state it goes on live from is the state the parent had.

use std::cell::Cell;
use std::collections::HashSet;

use super::concurrency::{race, with_deadline, Either};
use super::definition::Trajectory;
use super::env::{Env, RunEvents};
use super::fork::Fork;
use super::graph::{PredicateContext, StepDefinition};
use super::policy::{detect_loop, LoopFound, PolicyContext};
use super::prompt::user_message_request;
use super::simulator::{check, said_key, Issue};
use super::state::{StepStates, StepStatus};
use super::trace::{iso8601, Selection, Side, StepTrace, StopReason, TrajectoryResult};
use crate::capture::{well_known, Payload, RunIdentity};
use crate::error::{Error, ErrorCode, Result};
use crate::host::ShownAssessment;
use crate::host::{LocalBoxFuture, Usage};
use crate::message::{ModelMessage, Role};
use crate::number::quoted;
use crate::observe::with_text_part;

mod ending;
mod judging;
mod messages;
mod selection;

use messages::check_agent_messages;

enum Interrupt {
    /// A host callback failed; the turn in progress gets a trace.
    Fault(Side, Error),
    /// The signal fired; a turn in progress gets a trace.
    Aborted,
    /// Loop detection or the policy stopped the run before the turn began.
    Stop(StopReason, bool, Option<String>),
}

/// What exists of the turn in progress, for the trace a fault leaves.
#[derive(Default)]
struct Partial {
    step: Option<usize>,
    selection: Option<Selection>,
    user: Option<ModelMessage>,
    /// The assessment the agent was shown with the user message.
    shown: Option<String>,
    agent: Vec<ModelMessage>,
    /// Tokens the turn's model calls reported so far.
    tokens: Cell<u64>,
    /// What this turn's ranking cost, recorded once the turn has begun.
    ranker: Usage,
    /// Set once the turn's trace is out; a later fault then ends on it.
    traced: bool,
}

struct Runner<'a, 'e> {
    t: &'a Trajectory,
    env: &'a Env<'e>,
    traces: Vec<StepTrace>,
    history: Vec<ModelMessage>,
    snapshot: StepStates,
    /// The step chosen each turn (`None` for turns without one).
    selected: Vec<Option<usize>>,
    current: Option<usize>,
    partial: Partial,
    /// The latest good clock reading, for a trace a failing clock leaves.
    last_ms: f64,
    /// Every user message so far, as the simulator's repeat check compares
    /// them (kept only when that check is on).
    said: HashSet<String>,
    /// A fork's kept turns (empty for a run of its own).
    kept: &'a [StepTrace],
    /// While a kept turn replays: its recorded time, which dates the
    /// state changes it makes instead of the clock.
    replaying: Option<String>,
    /// The rubric judge's last word: the judgement that ended the run, or the one at its end.
    final_judgement: Option<serde_json::Value>,
    /// Message parts the agent answered since the run last yielded (see [`crate::host::YIELD_AFTER_PARTS`]).
    parts_since_yield: usize,
}

/// Runs a validated trajectory to its end, or a fork of a recorded run from
/// the turns it keeps. Never fails: faults end the run with reason `error`
/// and are described on the last trace.
pub async fn run(t: &Trajectory, env: &Env<'_>, fork: Option<&Fork>) -> TrajectoryResult {
    // A clock that fails from the start ends the run as the clock's fault,
    // before anything is recorded (no record could be stamped).
    let reading = env.clock.try_now_ms();
    let start_ms = reading.as_ref().map_or(0.0, |ms| *ms);
    let parent = fork.map(|f| f.parent_run_id.clone());
    // A fork is a run of its own: `runId` (unless it is the parent's), else
    // `{parent}-fork-{atTurn}`. Not the definition's id: that names the
    // conversation every run and fork of it starts from.
    let conversation_id = match fork {
        Some(f) => super::batch::fork_run_id(&f.parent_run_id, f.turns.len() as u64, env.run_id.as_deref()),
        None => t.conversation_id.clone().or_else(|| env.run_id.clone()).unwrap_or_else(|| crate::capture::default_run_id("trajectory", start_ms)),
    };
    let mut r = Runner {
        t,
        env,
        traces: Vec::new(),
        history: Vec::new(),
        snapshot: StepStates::new(t.steps.iter().flat_map(|g| g.steps.iter().map(|s| s.id.as_str())), &iso8601(start_ms)),
        selected: Vec::new(),
        current: None,
        partial: Partial::default(),
        last_ms: start_ms,
        said: HashSet::new(),
        kept: fork.map_or(&[], |f| &f.turns),
        replaying: None,
        final_judgement: None,
        parts_since_yield: 0,
    };
    let identity = RunIdentity { run_id: conversation_id.clone(), parent_run_id: parent.clone(), agent: None, model_id: None };
    let mut outcome = match reading {
        Err(e) => Err(Interrupt::Fault(Side::Clock, e)),
        Ok(_) => env.events.record(Payload::RunStarted { identity }).map_err(recording(env.events)),
    };
    if let (Ok(()), Some(g)) = (&outcome, &t.steps) {
        let data = g.to_record_data(t.max_turns, t.min_turns);
        outcome = env.events.record(Payload::Custom { name: well_known::STEP_GRAPH.into(), data }).map_err(recording(env.events));
    }
    if let (Ok(()), Some(parent)) = (&outcome, parent) {
        let data = crate::write::object(vec![("parentRunId", parent.into()), ("atTurn", r.kept.len().into())]);
        outcome = env.events.record(Payload::Custom { name: well_known::FORK.into(), data }).map_err(recording(env.events));
    }
    let mut turn = 0u32;
    while outcome.is_ok() {
        r.partial = Partial::default();
        outcome = r.turn(turn).await;
        // The cap (at most u32::MAX) stops the loop before this could wrap.
        turn = turn.saturating_add(1);
    }
    let end = r.finish(outcome.expect_err("the loop ends on an interrupt")).await;
    TrajectoryResult { conversation_id, steps: r.traces, end: Some(end), step_states: r.snapshot.states, judgement: r.final_judgement }
}

fn fault(side: Side) -> impl Fn(Error) -> Interrupt {
    move |e| Interrupt::Fault(side, e)
}

/// A record refused: the clock's fault when it could not be stamped (the
/// recorder reads the run's clock), else the recorder's.
fn recording(events: &dyn RunEvents) -> impl Fn(Error) -> Interrupt + '_ {
    move |e| Interrupt::Fault(if events.clock_failed() { Side::Clock } else { Side::Recorder }, e)
}

impl Runner<'_, '_> {
    fn now(&mut self) -> std::result::Result<f64, Interrupt> {
        let ms = self.env.clock.try_now_ms().map_err(fault(Side::Clock))?;
        self.last_ms = ms;
        Ok(ms)
    }

    /// When a state change happens: now, or a kept turn's recorded time.
    fn now_iso(&mut self) -> std::result::Result<String, Interrupt> {
        match &self.replaying {
            Some(at) => Ok(at.clone()),
            None => Ok(iso8601(self.now()?)),
        }
    }

    /// Tokens a model call used: recorded (a `custom` `model_usage`
    /// record, `source` naming the caller) and added to the observers' budget.
    fn spend(&self, usage: &Usage, source: &str) -> std::result::Result<(), Interrupt> {
        if usage.total() == 0 {
            return Ok(());
        }
        self.partial.tokens.set(self.partial.tokens.get().saturating_add(usage.total()));
        self.record(usage.model_usage(Some(source)).payload())?;
        match self.env.observers {
            Some(o) => o.record_tokens(usage.total()).map_err(fault(Side::Observer)),
            None => Ok(()),
        }
    }

    fn record(&self, payload: Payload) -> std::result::Result<(), Interrupt> {
        self.env.events.record(payload).map_err(recording(self.env.events))
    }

    /// A model call's deadline: the step's `timeoutMs` when given (for the
    /// agent), else the run's `callTimeoutMs`; with the option's name.
    pub(super) fn deadline(&self, step_timeout_ms: Option<f64>) -> Option<(f64, &'static str)> {
        step_timeout_ms.map(|ms| (ms, "timeoutMs")).or(self.env.call_timeout_ms.map(|ms| (ms, "callTimeoutMs")))
    }

    /// Awaits a host future, bounded by a deadline and the abort signal.
    async fn guard<T>(
        &self,
        fut: LocalBoxFuture<'_, Result<T>>,
        side: Side,
        deadline: Option<(f64, &'static str)>,
    ) -> std::result::Result<T, Interrupt> {
        let bounded = with_deadline(fut, self.env.timer, deadline);
        let result = match self.env.abort {
            Some(a) => match race(bounded, a.wait()).await {
                Either::Left(r) => r,
                Either::Right(()) => return Err(Interrupt::Aborted),
            },
            None => bounded.await,
        };
        result.map_err(fault(side))
    }

    fn aborted(&self) -> bool {
        self.env.abort.is_some_and(|a| a.aborted())
    }

    async fn turn(&mut self, turn: u32) -> std::result::Result<(), Interrupt> {
        // Every few turns the host's event loop runs (its timers too), so a
        // run whose callbacks all answer at once can still be aborted.
        let heavy = self.parts_since_yield >= crate::host::YIELD_AFTER_PARTS;
        if let Some(timer) = self.env.timer.filter(|_| heavy || crate::host::yields_before(turn.into())) {
            timer.yield_now().await;
            self.parts_since_yield = 0;
        }
        if self.aborted() {
            return Err(Interrupt::Aborted);
        }
        let kept = self.kept.get(turn as usize);
        self.replaying = kept.map(|k| k.timestamp.clone());
        let graph = self.t.steps.as_ref();
        if kept.is_none() {
            self.ask_policy(turn).await?;
        }
        let (step, selection) = self.select(turn).await?;
        self.partial.step = step;
        self.partial.selection = Some(selection.clone());
        self.selected.push(step);
        let ranker = std::mem::take(&mut self.partial.ranker);
        match detect_loop(&self.selected, &self.t.loop_detection) {
            Some(found) if kept.is_none() => {
                // The turn does not begin, but its ranking was paid for: recorded all the same.
                self.spend(&ranker, "ranker")?;
                return Err(Interrupt::Stop(StopReason::AgentLoop, false, Some(self.describe_loop(&found))));
            }
            _ => {}
        }
        let step_def = step.and_then(|i| graph.map(|g| &g.steps[i]));
        let step_id = step_def.map(|s| s.id.clone());
        self.record(Payload::TurnStarted { turn_index: Some(turn.into()) })?;
        self.record(Payload::StepSelected {
            turn_index: turn.into(),
            step_id: step_id.clone(),
            method: selection.method.as_str().to_owned(),
            candidates: selection.candidates.as_ref().map(crate::write::value),
            ranker_error: selection.ranker_error.clone(),
        })?;
        self.spend(&ranker, "ranker")?;
        if let Some(i) = step {
            let now = self.now_iso()?;
            self.snapshot.states[i].attempts = self.snapshot.states[i].attempts.saturating_add(1);
            self.snapshot.set(i, StepStatus::InProgress, &now);
        }

        let user = match kept {
            Some(k) => k.user_message.clone(),
            None => self.user_message(turn, step_def).await?,
        };
        if self.t.simulator.repeat {
            self.said.insert(said_key(&user.text_content()));
        }
        self.partial.user = Some(user.clone());
        self.record(Payload::MessageAppended { message: user.clone() })?;
        self.history.push(user.clone());

        let shown = self.shown_assessment(turn, kept)?;
        let agent_messages = match kept {
            // What the agent was shown then, not what these observers make of it now.
            Some(k) => {
                self.partial.shown = k.assessment.clone();
                self.partial.agent = k.agent_messages.clone();
                self.partial.tokens.set(k.tokens);
                if let (Some(o), 1..) = (self.env.observers, k.tokens) {
                    o.record_tokens(k.tokens).map_err(fault(Side::Observer))?;
                }
                k.agent_messages.clone()
            }
            None => {
                let shown_user = shown.as_ref().map(|s| with_text_part(&user, &s.text));
                self.partial.shown = shown.map(|s| s.text);
                let timeout = self.deadline(step_def.and_then(|s| s.timeout_ms));
                let answer = self.guard(self.env.agent.respond(&self.history, shown_user.as_ref()), Side::Agent, timeout).await?;
                let agent_messages = check_agent_messages(answer.messages).map_err(fault(Side::Agent))?;
                self.partial.agent = agent_messages.clone();
                self.spend(&answer.usage, "agent")?;
                agent_messages
            }
        };
        self.report_messages(&agent_messages)?;
        self.parts_since_yield = self.parts_since_yield.saturating_add(agent_messages.iter().map(|m| m.parts().len().max(1)).sum());
        self.history.extend(agent_messages.iter().cloned());

        let trace = StepTrace {
            turn_index: turn,
            user_message: user,
            agent_messages,
            timestamp: self.now_iso()?,
            step_id: step_id.clone(),
            selection,
            assessment: self.partial.shown.clone(),
            tokens: self.partial.tokens.get(),
            end: None,
            judgement: None,
        };
        self.traces.push(trace);
        self.partial.traced = true;
        self.env.events.trace(self.traces.last().expect("just pushed"));
        if let Some(i) = step {
            self.judge(i).await?;
        }
        let last = self.traces.last().expect("just pushed");
        let assistant = last.agent_messages.iter().rev().find(|m| m.role == Role::Assistant).cloned();
        let tool_results = last.agent_messages.iter().filter(|m| m.role == Role::Tool).cloned().collect();
        self.record(Payload::TurnEnded {
            assistant: assistant.unwrap_or_else(|| ModelMessage::text(Role::Assistant, "")),
            tool_results,
            turn_index: Some(turn.into()),
            step_id,
        })?;
        // A kept turn was judged (or not) in its parent run.
        if kept.is_none() {
            self.judge_turn(turn).await?;
        }
        Ok(())
    }

    /// Before a live turn: the policy, then the `maxTurns` cap.
    async fn ask_policy(&self, turn: u32) -> std::result::Result<(), Interrupt> {
        let graph = self.t.steps.as_ref();
        let ctx = PolicyContext {
            turn_index: turn,
            max_turns: self.t.max_turns,
            graph,
            snapshot: &self.snapshot,
            traces: &self.traces,
            last_step: self.selected.last().copied().flatten(),
            exhausted: graph.is_some_and(|g| (0..g.steps.len()).all(|i| !self.snapshot.open(i))),
        };
        let decision = self.guard(self.env.policy.evaluate(&ctx), Side::Policy, self.deadline(None)).await?;
        match decision.stop {
            // Before `minTurns` a reached goal does not end the conversation.
            Some((StopReason::GoalReached, ..)) if turn < self.t.min_turns && turn < self.t.max_turns => {}
            Some((reason, completed, summary)) => return Err(Interrupt::Stop(reason, completed, summary)),
            None => {}
        }
        // `maxTurns` caps every run, whatever the policy says (after it had
        // its say: a goal reached on the last turn is still `goal-reached`).
        if turn >= self.t.max_turns {
            return Err(Interrupt::Stop(StopReason::MaxTurns, false, Some(format!("reached maxTurns ({})", self.t.max_turns))));
        }
        Ok(())
    }

    /// The observers' current assessment, recorded (`assessment_produced`
    /// with this turn) as it is shown to the agent, so a run can be audited
    /// for what the agent saw. In a kept turn it is asked too (the
    /// observers move on as they did), and recorded only when it is what
    /// the agent was shown then.
    fn shown_assessment(&self, turn: u32, kept: Option<&StepTrace>) -> std::result::Result<Option<ShownAssessment>, Interrupt> {
        let Some(o) = self.env.observers else { return Ok(None) };
        let shown = o.current().map_err(fault(Side::Observer))?;
        if let Some(s) = shown.as_ref().filter(|s| kept.is_none_or(|k| k.assessment.as_ref() == Some(&s.text))) {
            self.record_assessment(s, Some(turn.into()))?;
        }
        Ok(shown)
    }

    /// An `assessment_produced` record per assessment of `s`, in turn
    /// `turn_index` (none: the agent was never shown it).
    pub(super) fn record_assessment(&self, s: &ShownAssessment, turn_index: Option<u64>) -> std::result::Result<(), Interrupt> {
        for a in &s.assessments {
            self.record(Payload::AssessmentProduced { call_index: s.call_index, assessment: a.clone(), turn_index })?;
        }
        Ok(())
    }

    /// The simulated user's message, asked again (with a reminder) while
    /// it is not the user speaking; each rejected reply is recorded.
    async fn user_message(&self, turn: u32, step: Option<&StepDefinition>) -> std::result::Result<ModelMessage, Interrupt> {
        let checks = &self.t.simulator;
        let attempts = checks.retries.saturating_add(1);
        let mut reminder = None;
        let mut issues: Vec<Issue> = Vec::new();
        for attempt in 1..=attempts {
            let request = user_message_request(self.t, step, &self.traces, reminder);
            let answer = self.guard(self.env.user_model.complete(request), Side::UserSimulator, self.deadline(None)).await?;
            self.spend(&answer.usage, "user-simulator")?;
            let text = answer.text.trim();
            let Some(issue) = check(text, &self.said, checks) else {
                return Ok(ModelMessage::text(Role::User, text));
            };
            self.record(Payload::SimulatorIssue {
                turn_index: turn.into(),
                issue: issue.as_str().to_owned(),
                attempt: attempt.into(),
                retried: attempt < attempts,
                text: text.chars().take(500).collect(),
            })?;
            issues.push(issue);
            reminder = Some(issue);
        }
        let tried = if attempts == 1 { "once".to_owned() } else { format!("{attempts} times, each retry with a reminder") };
        let error = if issues.iter().all(|&i| i == Issue::Empty) {
            Error::new(ErrorCode::EmptyUserMessage, format!("turn {turn}: the user model returned an empty message ({tried})"))
        } else {
            let what: Vec<&str> = issues.iter().map(|i| i.as_str()).collect();
            Error::new(
                ErrorCode::SimulatorIssue,
                format!("turn {turn}: the user model's replies were not the user speaking ({tried}): {}", what.join(", ")),
            )
        };
        Err(Interrupt::Fault(Side::UserSimulator, error))
    }

    /// Updates step `i` after its turn: `isSatisfied` or the default
    /// heuristic (the agent's last assistant message has text), then
    /// `failed` once `maxAttempts` tries went unsatisfied.
    async fn judge(&mut self, i: usize) -> std::result::Result<(), Interrupt> {
        let g = self.t.steps.as_ref().expect("a step implies a graph");
        let step = &g.steps[i];
        let satisfied = match &step.is_satisfied {
            Some(p) => {
                let ctx = PredicateContext { traces: &self.traces, snapshot: &self.snapshot, step: i };
                self.guard(p.evaluate(&ctx), Side::Satisfaction, self.deadline(None)).await.map_err(|e| match e {
                    // The callback's error already names it (`step "s": isSatisfied threw: ...`).
                    Interrupt::Fault(side, e) => Interrupt::Fault(side, e.at_step(&step.id)),
                    other => other,
                })?
            }
            None => self.traces.last().is_some_and(|t| {
                t.agent_messages.iter().rev().find(|m| m.role == Role::Assistant).is_some_and(|m| !m.text_content().trim().is_empty())
            }),
        };
        let now = self.now_iso()?;
        let state = &self.snapshot.states[i];
        if satisfied {
            self.snapshot.set(i, StepStatus::Satisfied, &now);
        } else if step.max_attempts.is_some_and(|max| state.attempts >= max) {
            self.snapshot.set(i, StepStatus::Failed, &now);
            self.snapshot.propagate_skips(&g.dependents, &now);
        }
        self.current = Some(i);
        Ok(())
    }

    fn describe_loop(&self, found: &LoopFound) -> String {
        let g = self.t.steps.as_ref().expect("loops need steps");
        match found {
            LoopFound::SameStep { step, times } => format!("step {} selected {times} times in a row", quoted(&g.steps[*step].id)),
            LoopFound::Cycle { steps, repetitions } => {
                let ids: Vec<&str> = steps.iter().map(|&i| g.steps[i].id.as_str()).collect();
                format!("cycle {} repeated {repetitions} times", ids.join(" -> "))
            }
        }
    }
}
