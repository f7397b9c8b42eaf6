//! `checkRun`: a run's own facts (how it ended, its findings, failed calls,
//! tokens, turns, the steps it reached) against limits, as pass/fail with a
//! reason per check: a detected loop or a warning fails a test with no
//! model asked.

use serde_json::Value;

use super::facts::RunFacts;
use agent_trajectories_core::capture::{is_stop_reason, LOOP_FINISHED, OBJECTIVE_MET, STOP_PREFIXES, STOP_REASONS};
use agent_trajectories_core::error::{Error, Result};
use agent_trajectories_core::generate::{StopReason, Verdict};
use agent_trajectories_core::number;
use agent_trajectories_core::number::quoted;
use agent_trajectories_core::observe::Severity;
use agent_trajectories_core::options::nearest;
use agent_trajectories_core::value::Opts;
use agent_trajectories_core::write::{array, Obj};

pub const CHECK_OPTIONS: [&str; 11] = [
    "verdict",
    "reason",
    "maxSeverity",
    "failOnSeverity",
    "maxFailedCalls",
    "maxToolCalls",
    "maxTokens",
    "maxTurns",
    "reachedSteps",
    "judge",
    "runId",
];

/// The limits a run is held to; `None` is not checked.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOptions {
    /// The verdicts that pass (default: `pass`; `null`: not checked).
    pub verdicts: Option<Vec<String>>,
    /// The stop reasons that pass.
    pub reasons: Option<Vec<String>>,
    /// Findings above this fail; `Some(None)` ('none'): any finding fails.
    pub max_severity: Option<Option<Severity>>,
    /// The severity `failOnSeverity` named, when that is how the limit was given.
    pub fail_on: Option<&'static str>,
    pub max_failed_calls: Option<u64>,
    pub max_tool_calls: Option<u64>,
    pub max_tokens: Option<u64>,
    pub max_turns: Option<u64>,
    pub reached_steps: Vec<String>,
    /// The run's last judgement (when it was judged) must not be `fail`; default true.
    pub judge: bool,
    /// The run to read, among several.
    pub run_id: Option<String>,
}

fn words(v: &Value, at: &str, valid: Option<&[&str]>) -> Result<Vec<String>> {
    let one = |w: &Value| match (w.as_str(), valid) {
        (Some(s), Some(valid)) if !valid.contains(&s) => {
            Err(Error::invalid_argument(format!("{at} must be one of {}, got {}", valid.join(", "), number::show_value(w))))
        }
        (Some(s), _) => Ok(s.to_owned()),
        (None, _) => Err(Error::invalid_argument(format!("{at} must be a string or an array of strings, got {}", number::show_value(w)))),
    };
    match v {
        Value::Array(items) => items.iter().map(one).collect(),
        w => Ok(vec![one(w)?]),
    }
}

/// A `reason` a slip away from one this package writes (`goal-reachd`)
/// would pass no run: refused, naming that one. Any other word is a run's
/// own reason (a recorder writes what it is given), taken as it is.
fn check_reason(reason: &str, at: &str) -> Result<()> {
    // Every reason a run of this package ends with (a background run's too),
    // not only the stops; of the prefixes, those that are whole reasons
    // (all but `stopped-on-`, which a severity completes).
    let known = [&StopReason::ALL.map(StopReason::as_str)[..], &STOP_REASONS, &STOP_PREFIXES[1..], &OBJECTIVE_MET, &LOOP_FINISHED].concat();
    if known.contains(&reason) || is_stop_reason(reason) {
        return Ok(());
    }
    match nearest(reason, &known) {
        Some(near) => Err(Error::invalid_argument(format!(
            "{at}: {} is no stop reason this package writes; did you mean {}? (a run's own reason is matched as written)",
            quoted(reason),
            quoted(near)
        ))),
        None => Ok(()),
    }
}

impl CheckOptions {
    pub fn read(v: &Value, place: &str) -> Result<CheckOptions> {
        let o = Opts::new(v, &CHECK_OPTIONS, place, "an object of checks")?;
        let at = |k: &str| format!("{place}.{k}");
        let verdicts = Verdict::ALL.map(Verdict::as_str);
        const MAX: [(&str, Option<Severity>); 4] =
            [("none", None), ("info", Some(Severity::Info)), ("caution", Some(Severity::Caution)), ("warning", Some(Severity::Warning))];
        // At or above a severity fails: the most severe allowed is the one below it.
        const FAIL_ON: [(&str, Option<Severity>); 3] = [("info", None), ("caution", Some(Severity::Info)), ("warning", Some(Severity::Caution))];
        let fail_on = o.word("failOnSeverity", &FAIL_ON)?;
        let max_severity = match (o.word("maxSeverity", &MAX)?, fail_on) {
            (Some(_), Some(_)) => return Err(Error::invalid_argument(format!("{place}: give maxSeverity or failOnSeverity, not both"))),
            (max, fail_on) => max.or(fail_on),
        };
        let fail_on =
            fail_on.and(o.get("failOnSeverity").and_then(Value::as_str)).and_then(|w| FAIL_ON.iter().find(|(n, _)| *n == w)).map(|(n, _)| *n);
        Ok(CheckOptions {
            verdicts: match v.get("verdict") {
                None => Some(vec!["pass".into()]),
                Some(Value::Null) => None,
                Some(v) => Some(words(v, &at("verdict"), Some(&verdicts))?),
            },
            reasons: match o.get("reason").map(|r| words(r, &at("reason"), None)).transpose()? {
                Some(rs) => {
                    rs.iter().try_for_each(|r| check_reason(r, &at("reason")))?;
                    Some(rs)
                }
                None => None,
            },
            max_severity,
            fail_on,
            max_failed_calls: o.count("maxFailedCalls")?,
            max_tool_calls: o.count("maxToolCalls")?,
            max_tokens: o.count("maxTokens")?,
            max_turns: o.count("maxTurns")?,
            reached_steps: o.get("reachedSteps").map(|r| words(r, &at("reachedSteps"), None)).transpose()?.unwrap_or_default(),
            judge: o.flag("judge", true)?,
            run_id: o.string("runId")?,
        })
    }
}

/// One check and how the run fared.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The option it checks (`verdict`, `maxSeverity`, ...).
    pub check: &'static str,
    pub pass: bool,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckResult {
    pub pass: bool,
    pub checks: Vec<Check>,
    /// The failed checks' messages, one line each after a heading.
    pub message: String,
}

impl CheckResult {
    /// The result as JSON text, as JS reads it.
    pub fn to_json(&self) -> String {
        let checks = self.checks.iter().map(|c| Obj::new().text("check", c.check).flag("pass", c.pass).text("message", &c.message).end());
        Obj::new().flag("pass", self.pass).raw("checks", &array(checks)).text("message", &self.message).end()
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// Holds `f` to `o`.
pub fn check_run(f: &RunFacts, o: &CheckOptions) -> CheckResult {
    let mut checks = Vec::new();
    let mut add = |check: &'static str, pass: bool, message: String| checks.push(Check { check, pass, message });
    let run = f.run_id.as_deref().map_or("the run".to_owned(), |id| format!("run {id}", id = quoted(id)));
    let ended = |e: &agent_trajectories_core::capture::EndRead| format!("verdict {}, reason {}", e.verdict, e.reason.as_deref().unwrap_or(&e.status));
    if let Some(v) = &o.verdicts {
        match &f.end {
            None => add("verdict", false, format!("{run} has no end (no run_ended record): it did not finish")),
            Some(e) => add("verdict", v.contains(&e.verdict), format!("{run} ended with {}; passing: {}", ended(e), list(v))),
        }
    }
    if let Some(r) = &o.reasons {
        let reason = f.end.as_ref().and_then(|e| e.reason.clone());
        let pass = reason.as_ref().is_some_and(|x| r.contains(x));
        add("reason", pass, format!("{run} ended with reason {}; passing: {}", reason.as_deref().unwrap_or("none"), list(r)));
    }
    if let Some(max) = o.max_severity {
        let over: Vec<String> = f
            .findings
            .iter()
            .filter(|x| max.is_none_or(|m| x.severity > m))
            .map(|x| format!("{} {} ({}{})", x.severity.as_str(), x.observer, x.summary, x.turn.map_or(String::new(), |t| format!(", turn {t}"))))
            .collect();
        let listed = if over.is_empty() { String::new() } else { format!(": {}", over.join("; ")) };
        match o.fail_on {
            Some(level) => add("failOnSeverity", over.is_empty(), format!("{} finding(s) at or above failOnSeverity {level}{listed}", over.len())),
            None => add(
                "maxSeverity",
                over.is_empty(),
                format!("{} finding(s) above maxSeverity {}{listed}", over.len(), max.map_or("none", Severity::as_str)),
            ),
        }
    }
    if let Some(max) = o.max_failed_calls {
        let failed: Vec<String> = f
            .calls
            .iter()
            .enumerate()
            .filter(|(_, c)| c.ok != Some(true))
            .map(|(i, c)| {
                format!(
                    "call {} {}{}{}",
                    i + 1,
                    c.name,
                    c.turn.map_or(String::new(), |t| format!(" at turn {t}")),
                    if c.ok.is_none() { " (unfinished)" } else { "" }
                )
            })
            .collect();
        let n = failed.len() as u64;
        add(
            "maxFailedCalls",
            n <= max,
            format!("{n} failed call(s), maxFailedCalls {max}{}", if n == 0 { String::new() } else { format!(": {}", failed.join(", ")) }),
        );
    }
    if let Some(max) = o.max_tool_calls {
        let n = f.calls.len() as u64;
        add("maxToolCalls", n <= max, format!("{n} tool call(s), maxToolCalls {max}"));
    }
    if let Some(max) = o.max_tokens {
        add(
            "maxTokens",
            f.tokens <= max,
            format!(
                "{} tokens, maxTokens {}",
                agent_trajectories_core::observe::thousands(f.tokens),
                agent_trajectories_core::observe::thousands(max)
            ),
        );
    }
    if let Some(max) = o.max_turns {
        add("maxTurns", f.turns <= max, format!("{} turn(s), maxTurns {max}", f.turns));
    }
    for s in &o.reached_steps {
        let pass = f.steps.contains(s);
        add(
            "reachedSteps",
            pass,
            format!("step {s} {} (reached: {})", if pass { "was reached" } else { "was never reached" }, list(&f.steps), s = quoted(s)),
        );
    }
    // The last word of the judge: the whole conversation, as far as it went, was in front of it.
    if let (true, Some(j)) = (o.judge, f.judgements.last()) {
        let when = match (j.is_final, j.turn) {
            (true, _) => "at the end".to_owned(),
            (false, Some(t)) => format!("after turn {t}"),
            (false, None) => "on the run".to_owned(),
        };
        let failed: Vec<String> = j.failed.iter().map(|(n, r)| if r.is_empty() { quoted(n) } else { format!("{n} ({r})", n = quoted(n)) }).collect();
        let message = match j.verdict.as_str() {
            "fail" if !failed.is_empty() => format!("the judge failed {} {when}", failed.join(", ")),
            v @ ("pass" | "fail" | "inconclusive") => format!("the judge's last judgement ({when}) is {v}"),
            v => format!("the judge's last judgement ({when}) has verdict {v}, which is not pass, fail or inconclusive", v = quoted(v)),
        };
        add("judge", j.holds(), message);
    }
    let failed: Vec<&Check> = checks.iter().filter(|c| !c.pass).collect();
    let pass = failed.is_empty();
    let head =
        if pass { format!("{run} passes {} check(s)", checks.len()) } else { format!("{run} fails {} of {} check(s)", failed.len(), checks.len()) };
    let message = std::iter::once(head).chain(failed.iter().map(|c| format!("- {}: {}", c.check, c.message))).collect::<Vec<_>>().join("\n");
    CheckResult { pass, checks, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::tests::facts;
    use serde_json::json;

    fn check(o: Value) -> CheckResult {
        check_run(&facts(), &CheckOptions::read(&o, "checkRun: options").unwrap())
    }

    #[test]
    fn the_end_passes_by_default() {
        let r = check(Value::Null);
        assert!(r.pass, "{}", r.message);
        assert_eq!(r.checks.len(), 1);
        let r = check(json!({ "verdict": "agent" }));
        assert_eq!(r.message, "run \"r\" fails 1 of 1 check(s)\n- verdict: run \"r\" ended with verdict pass, reason goal-reached; passing: agent");
        assert!(check(json!({ "verdict": null })).checks.is_empty());
        assert!(check(json!({ "reason": ["goal-reached", "max-turns"] })).pass);
        // A slip of a reason this package writes is refused; a run's own reason (or one with detail) is taken as written.
        let e = CheckOptions::read(&json!({ "reason": ["max-turns", "goal-reachd"] }), "checkRun(run, options)").unwrap_err();
        assert_eq!(
            e.message,
            "checkRun(run, options).reason: \"goal-reachd\" is no stop reason this package writes; did you mean \"goal-reached\"? (a run's own reason is matched as written)"
        );
        // A background run's reasons, too (a gate on plan-complete would never fire).
        for (slip, near) in [
            ("plan-complete", "plan-completed"),
            ("model-complete", "model-completed"),
            ("max-failure", "max-failures"),
            ("deliverable-faild", "deliverable-failed"),
        ] {
            let e = CheckOptions::read(&json!({ "reason": slip }), "o").unwrap_err();
            assert!(e.message.contains(&format!("did you mean \"{near}\"?")), "{}", e.message);
        }
        for own in ["done", "stopped-on-warning", "max-failures", "plan-completed", "stop", "goal-met"] {
            assert!(CheckOptions::read(&json!({ "reason": own }), "o").is_ok(), "{own}");
        }
    }

    #[test]
    fn findings_failed_calls_budget_and_steps() {
        let r = check(json!({ "maxSeverity": "info" }));
        assert_eq!(r.checks[1].message, "1 finding(s) above maxSeverity info: caution stall (same call twice, turn 1)");
        assert!(check(json!({ "maxSeverity": "caution" })).pass);
        assert!(!check(json!({ "maxSeverity": "none" })).pass);
        assert!(!check(json!({ "failOnSeverity": "caution" })).pass, "at or above caution");
        assert_eq!(
            check(json!({ "failOnSeverity": "caution" })).checks[1].message,
            "1 finding(s) at or above failOnSeverity caution: caution stall (same call twice, turn 1)"
        );
        assert!(!check(json!({ "failOnSeverity": "info" })).pass);
        assert!(check(json!({ "failOnSeverity": "warning" })).pass);
        assert!(CheckOptions::read(&json!({ "failOnSeverity": "none" }), "o").is_err());
        assert!(CheckOptions::read(&json!({ "failOnSeverity": "info", "maxSeverity": "info" }), "o").is_err());
        let r = check(json!({ "maxFailedCalls": 0 }));
        assert_eq!(r.checks[1].message, "1 failed call(s), maxFailedCalls 0: call 2 book at turn 1 (unfinished)");
        assert!(check(json!({ "maxFailedCalls": 1, "maxTokens": 15, "maxTurns": 2, "maxToolCalls": 2 })).pass);
        assert!(!check(json!({ "maxTokens": 14 })).pass);
        assert!(!check(json!({ "maxTurns": 1 })).pass);
        let r = check(json!({ "reachedSteps": ["greet", "pay"] }));
        assert_eq!(r.checks.iter().map(|c| c.pass).collect::<Vec<_>>(), [true, true, false]);
        assert_eq!(r.checks[2].message, "step \"pay\" was never reached (reached: greet)");
    }

    #[test]
    fn the_last_judgement_must_not_fail() {
        use crate::facts::Judged;
        let mut f = facts();
        let judged = |verdict: &str, turn, is_final| Judged {
            verdict: verdict.into(),
            failed: vec![("polite".into(), "rude at turn 1".into())],
            turn,
            is_final,
        };
        let o = CheckOptions::read(&Value::Null, "o").unwrap();
        assert_eq!(check_run(&f, &o).checks.len(), 1, "no judgement: no judge check");
        f.judgements = vec![judged("inconclusive", Some(0), false), judged("fail", Some(1), false)];
        let r = check_run(&f, &o);
        assert_eq!(r.checks[1].message, "the judge failed \"polite\" (rude at turn 1) after turn 1");
        assert!(!r.pass);
        f.judgements.push(Judged { verdict: "pass".into(), failed: vec![], turn: Some(2), is_final: true });
        assert!(check_run(&f, &o).pass, "a later judgement, of the whole conversation, stands");
        assert_eq!(check_run(&f, &o).checks[1].message, "the judge's last judgement (at the end) is pass");
        // A judgement whose verdict is none of the three (a hand-written `FAIL`, a misspelt key) does not pass the run.
        for (verdict, said) in [("FAIL", "has verdict \"FAIL\", which is not pass, fail or inconclusive"), ("", "has verdict \"\", which")] {
            f.judgements.push(Judged { verdict: verdict.into(), failed: vec![], turn: None, is_final: false });
            let r = check_run(&f, &o);
            assert!(!r.pass && r.checks[1].message.starts_with(&format!("the judge's last judgement (on the run) {said}")), "{}", r.message);
        }
        // A fail naming no criterion says so plainly.
        f.judgements.push(Judged { verdict: "fail".into(), failed: vec![], turn: None, is_final: false });
        assert_eq!(check_run(&f, &o).checks[1].message, "the judge's last judgement (on the run) is fail");
        assert_eq!(check_run(&f, &CheckOptions::read(&json!({ "judge": false }), "o").unwrap()).checks.len(), 1);
    }

    #[test]
    fn bad_options_say_where() {
        let e = CheckOptions::read(&json!({ "maxTurn": 3 }), "checkRun: options").unwrap_err();
        assert!(e.message.contains("did you mean \"maxTurns\""), "{}", e.message);
        let e = CheckOptions::read(&json!({ "maxTokens": -1 }), "checkRun: options").unwrap_err();
        assert_eq!(e.message, "checkRun: options.maxTokens must be a whole number from 0 to 9007199254740991, got -1");
        let e = CheckOptions::read(&json!({ "maxSeverity": "high" }), "o").unwrap_err();
        assert_eq!(e.message, "o.maxSeverity must be one of 'none', 'info', 'caution', 'warning', got \"high\"");
        let e = CheckOptions::read(&json!({ "verdict": "won" }), "o").unwrap_err();
        assert!(e.message.starts_with("o.verdict must be one of pass, agent"), "{}", e.message);
    }
}
