//! Whether a run goes on: loop detection over the selected steps, and the
//! stop policy asked before each turn (the default one, or the host's).

use serde_json::Value;

use super::definition::LoopDetection;
use super::graph::StepGraph;
use super::state::StepStates;
use super::trace::{StepTrace, StopReason};
use crate::error::{Error, ErrorCode, Result};
use crate::host::LocalBoxFuture;
use crate::message::kind_of;
use crate::number::quoted;
use crate::options::check_keys;

/// A loop found in the selected step ids.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopFound {
    SameStep { step: usize, times: usize },
    Cycle { steps: Vec<usize>, repetitions: usize },
}

/// Looks at the tail of `selected` (the newest selection last): the same
/// step more than `maxConsecutiveSameStep` times in a row, or a cycle of
/// 2..=`maxCycleLength` distinct steps repeated more than
/// `maxCycleRepetitions` times. Turns without a step break both.
pub fn detect_loop(selected: &[Option<usize>], cfg: &LoopDetection) -> Option<LoopFound> {
    let last = (*selected.last()?)?;
    let run = selected.iter().rev().take_while(|s| **s == Some(last)).count();
    if run as u64 > u64::from(cfg.max_consecutive_same_step) {
        return Some(LoopFound::SameStep { step: last, times: run });
    }
    // In u64: the limits are any u32 a caller gives, and on wasm32 a usize
    // product of two of them overflows. A cycle longer than the history
    // cannot have repeated, so the search stops there (O(turns), not O(limit)).
    let reps = u64::from(cfg.max_cycle_repetitions) + 1;
    for len in 2..=u64::from(cfg.max_cycle_length) {
        let need = len * reps;
        if (selected.len() as u64) < need {
            break;
        }
        let (len, need) = (len as usize, need as usize);
        let tail = &selected[selected.len() - need..];
        let block = &tail[..len];
        let distinct = block.iter().enumerate().all(|(i, s)| s.is_some() && !block[..i].contains(s));
        if distinct && tail.chunks(len).all(|c| c == block) {
            return Some(LoopFound::Cycle { steps: block.iter().map(|s| s.expect("checked")).collect(), repetitions: reps as usize });
        }
    }
    None
}

/// What a policy sees before each turn, before anything of the turn is
/// asked of a model (so a stop costs no ranking or user-message call).
pub struct PolicyContext<'a> {
    pub turn_index: u32,
    pub max_turns: u32,
    pub graph: Option<&'a StepGraph>,
    pub snapshot: &'a StepStates,
    pub traces: &'a [StepTrace],
    /// The step the previous turn worked on, if any.
    pub last_step: Option<usize>,
    /// True when a graph exists and no open step is left (every step is
    /// satisfied, failed, or skipped because it waits on a failure).
    pub exhausted: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PolicyDecision {
    pub stop: Option<(StopReason, bool, Option<String>)>,
}

impl PolicyDecision {
    pub const CONTINUE: PolicyDecision = PolicyDecision { stop: None };
    pub fn stop(reason: StopReason, completed: bool, summary: impl Into<String>) -> PolicyDecision {
        PolicyDecision { stop: Some((reason, completed, Some(summary.into()))) }
    }

    /// Reads a policy's answer: nothing (`undefined`/`null`) or
    /// `{ stop: false }` goes on; `{ stop: true, reason, completed?, summary? }`
    /// stops (`shouldStop` is read as `stop`, as Tally's policies write it).
    /// `completed` defaults to whether the reason is `goal-reached`.
    pub fn from_value(v: &Value) -> Result<PolicyDecision> {
        const KEYS: &[&str] = &["stop", "shouldStop", "reason", "completed", "summary"];
        let garbage = |why: String| {
            Error::new(
                ErrorCode::CallbackFailed,
                format!("policy.evaluate returned {why}; expected {{ stop: false }} or {{ stop: true, reason, completed?, summary? }}"),
            )
        };
        let obj = match v {
            Value::Null => return Ok(PolicyDecision::CONTINUE),
            Value::Object(obj) => obj,
            other => return Err(garbage(kind_of(other).to_owned())),
        };
        check_keys(obj.keys().map(String::as_str), KEYS, "policy.evaluate's answer").map_err(|e| Error::new(ErrorCode::CallbackFailed, e.message))?;
        let stop = obj.get("stop").or_else(|| obj.get("shouldStop"));
        match stop {
            Some(Value::Bool(false)) => Ok(PolicyDecision::CONTINUE),
            Some(Value::Bool(true)) => {
                // `error`, `aborted` and `judge-failed` are the run's own ends:
                // each carries what failed (the error, the signal, the judge's
                // criterion), which a policy's stop does not have.
                use StopReason::*;
                let reason = match obj.get("reason") {
                    Some(Value::String(r)) => match StopReason::parse(r) {
                        Some(reason @ (GoalReached | MaxTurns | PolicyViolation | AgentLoop | NoStepMatch)) => reason,
                        own => {
                            let own = if own.is_some() { " (the run's own end; a policy that fails throws)" } else { "" };
                            return Err(garbage(format!(
                                "a stop with reason {r}, which is none of goal-reached, max-turns, policy-violation, agent-loop, no-step-match{own}",
                                r = quoted(r)
                            )));
                        }
                    },
                    _ => return Err(garbage("a stop without a reason".into())),
                };
                let completed = match obj.get("completed") {
                    None | Some(Value::Null) => reason == StopReason::GoalReached,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => return Err(garbage(format!("`completed` as {}", kind_of(other)))),
                };
                let summary = match obj.get("summary") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(other) => return Err(garbage(format!("`summary` as {}", kind_of(other)))),
                };
                Ok(PolicyDecision { stop: Some((reason, completed, summary)) })
            }
            _ => Err(garbage("an object without a boolean `stop`".into())),
        }
    }
}

/// Decides before each turn whether the run goes on. The default is
/// [`DefaultPolicy`]; the host may replace it. `maxTurns` caps the run
/// whatever the policy says.
pub trait Policy {
    fn evaluate<'a>(&'a self, ctx: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>>;
}

/// A terminal step satisfied (or, without terminals, every step
/// satisfied) → `goal-reached`; `maxTurns` turns done → `max-turns`;
/// no open step left → `no-step-match`.
pub struct DefaultPolicy;

impl DefaultPolicy {
    pub fn decide(ctx: &PolicyContext<'_>) -> PolicyDecision {
        if let Some(g) = ctx.graph {
            if let Some(&t) = g.terminals.iter().find(|&&t| ctx.snapshot.satisfied(t)) {
                return PolicyDecision::stop(StopReason::GoalReached, true, format!("terminal step {} satisfied", quoted(&g.steps[t].id)));
            }
            if g.terminals.is_empty() && (0..g.steps.len()).all(|i| ctx.snapshot.satisfied(i)) {
                return PolicyDecision::stop(StopReason::GoalReached, true, "every step satisfied");
            }
        }
        if ctx.turn_index >= ctx.max_turns {
            return PolicyDecision::stop(StopReason::MaxTurns, false, format!("reached maxTurns ({})", ctx.max_turns));
        }
        if ctx.exhausted {
            return PolicyDecision::stop(StopReason::NoStepMatch, false, "no remaining step can run: the open ones failed or wait on failed steps");
        }
        PolicyDecision::CONTINUE
    }
}

impl Policy for DefaultPolicy {
    fn evaluate<'a>(&'a self, ctx: &'a PolicyContext<'a>) -> LocalBoxFuture<'a, Result<PolicyDecision>> {
        let d = DefaultPolicy::decide(ctx);
        Box::pin(async move { Ok(d) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &str) -> Vec<Option<usize>> {
        s.chars().map(|c| if c == '-' { None } else { Some(c as usize - 'a' as usize) }).collect()
    }

    #[test]
    fn same_step_more_than_the_limit() {
        let cfg = LoopDetection::default();
        assert_eq!(detect_loop(&ids("aaa"), &cfg), None);
        assert_eq!(detect_loop(&ids("baaaa"), &cfg), Some(LoopFound::SameStep { step: 0, times: 4 }));
        assert_eq!(detect_loop(&ids("aa-aa"), &cfg), None);
        assert_eq!(detect_loop(&ids("aaa-"), &cfg), None);
    }

    #[test]
    fn cycles_repeated_more_than_the_limit() {
        let cfg = LoopDetection::default();
        assert_eq!(detect_loop(&ids("abab"), &cfg), None);
        assert_eq!(detect_loop(&ids("ababab"), &cfg), Some(LoopFound::Cycle { steps: vec![0, 1], repetitions: 3 }));
        assert_eq!(detect_loop(&ids("abcabc"), &cfg), None);
        assert_eq!(detect_loop(&ids("xabcabcabc"), &cfg), Some(LoopFound::Cycle { steps: vec![0, 1, 2], repetitions: 3 }));
        // Length 4 exceeds maxCycleLength 3.
        assert_eq!(detect_loop(&ids("abcdabcdabcd"), &cfg), None);
        // A block with a repeated step is not a cycle of distinct steps.
        assert_eq!(detect_loop(&ids("abaabaaba"), &cfg), None);
        let wide = LoopDetection { max_cycle_length: 4, max_cycle_repetitions: 1, ..cfg };
        assert_eq!(detect_loop(&ids("abcdabcd"), &wide), Some(LoopFound::Cycle { steps: vec![0, 1, 2, 3], repetitions: 2 }));
    }

    #[test]
    fn huge_limits_neither_overflow_nor_scan_up_to_the_limit() {
        let max = LoopDetection { max_consecutive_same_step: u32::MAX, max_cycle_length: u32::MAX, max_cycle_repetitions: u32::MAX };
        assert_eq!(detect_loop(&ids("abababababaaaa"), &max), None);
        let reps = LoopDetection { max_cycle_repetitions: 2_147_483_647, ..LoopDetection::default() };
        assert_eq!(detect_loop(&ids("abababab"), &reps), None);
    }

    #[test]
    fn policy_answers_are_read_in_the_core() {
        use serde_json::json;
        assert_eq!(PolicyDecision::from_value(&Value::Null).unwrap(), PolicyDecision::CONTINUE);
        assert_eq!(PolicyDecision::from_value(&json!({ "stop": false })).unwrap(), PolicyDecision::CONTINUE);
        assert_eq!(
            PolicyDecision::from_value(&json!({ "shouldStop": true, "reason": "goal-reached" })).unwrap(),
            PolicyDecision { stop: Some((StopReason::GoalReached, true, None)) }
        );
        assert_eq!(
            PolicyDecision::from_value(&json!({ "stop": true, "reason": "policy-violation", "summary": "rude" })).unwrap(),
            PolicyDecision { stop: Some((StopReason::PolicyViolation, false, Some("rude".into()))) }
        );
        for (bad, needle) in [
            (json!(5), "returned a number"),
            (json!({ "stop": "yes" }), "without a boolean `stop`"),
            (json!({ "stop": true }), "without a reason"),
            (json!({ "stop": true, "reason": "done" }), "reason \"done\""),
            (json!({ "stop": true, "reason": "agent-loop", "completed": "no" }), "`completed` as a string"),
            (json!({ "stop": true, "reason": "error" }), "reason \"error\", which is none of goal-reached, max-turns, policy-violation, agent-loop, no-step-match (the run's own end; a policy that fails throws)"),
            (json!({ "stop": true, "reason": "aborted" }), "reason \"aborted\""),
            (json!({ "stop": true, "reason": "judge-failed" }), "reason \"judge-failed\""),
            (json!({ "stopp": true }), "did you mean \"stop\""),
        ] {
            let e = PolicyDecision::from_value(&bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::CallbackFailed);
            assert!(e.message.contains(needle), "{bad}: {}", e.message);
        }
    }
}
