//! ResourceObserver: remaining time, tokens and tool calls in plain words,
//! with severity from the scarcest constraint.

use serde::Serialize;

use crate::observe::assessment::{Assessment, Severity};
use crate::observe::budget::Budget;
use crate::observe::detector::{Detector, NoState, Usage};
use crate::error::{Error, Result};
use crate::observe::Outcome;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesConfig {
    pub name: String,
    /// Remaining fraction at or below which the severity is caution.
    pub caution_threshold: f64,
    /// Remaining fraction at or below which the severity is warning.
    pub warning_threshold: f64,
}

/// The `'resources'` observer.
pub struct Resources;

impl Detector for Resources {
    const KIND: &'static str = "resources";
    const REPORTS: &'static str = "time, tokens and tool calls left, in words; severity from the scarcest (≤ 30 % left: caution, ≤ 10 %: warning)";
    const LIMITS: &'static str = "0 ≤ `warningThreshold` ≤ `cautionThreshold` ≤ 1";
    type Config = ResourcesConfig;
    type State = NoState;

    fn check_options(c: &ResourcesConfig) -> Result<()> {
        if !(0.0..=1.0).contains(&c.warning_threshold) || !(0.0..=1.0).contains(&c.caution_threshold) || c.warning_threshold > c.caution_threshold {
            return Err(Error::invalid_argument("thresholds must satisfy 0 <= warningThreshold <= cautionThreshold <= 1"));
        }
        Ok(())
    }

    fn name(c: &ResourcesConfig) -> &str {
        &c.name
    }

    fn check(c: &ResourcesConfig, _: &mut NoState, budget: &Budget, usage: &Usage) -> Outcome {
        Outcome::Report(c.observe(budget, usage))
    }
}

impl Default for ResourcesConfig {
    fn default() -> Self {
        ResourcesConfig { name: "Resources".into(), caution_threshold: 0.3, warning_threshold: 0.1 }
    }
}

impl ResourcesConfig {
    fn grade(&self, remaining_fraction: f64) -> Severity {
        if remaining_fraction <= self.warning_threshold {
            Severity::Warning
        } else if remaining_fraction <= self.caution_threshold {
            Severity::Caution
        } else {
            Severity::Info
        }
    }

    pub fn observe(&self, budget: &Budget, usage: &Usage) -> Assessment {
        let mut statements = Vec::new();
        let mut severity = Severity::Info;

        if let Some(deadline) = budget.deadline {
            let remaining = (deadline - usage.now_ms) / 1000.0;
            if remaining <= 0.0 {
                statements.push("You have reached the time deadline.".to_owned());
                severity = Severity::Warning;
            } else {
                statements.push(format!("You have {} remaining before the deadline.", format_duration(remaining)));
                let elapsed = budget.elapsed_seconds.unwrap_or(((usage.now_ms - usage.started_at_ms) / 1000.0).max(0.0));
                severity = severity.max(self.grade(remaining / (elapsed + remaining)));
            }
        }

        if let Some(max) = budget.max_tokens {
            let used = budget.tokens_used.unwrap_or(0);
            if used >= max {
                statements.push("You have exhausted your token budget.".to_owned());
                severity = Severity::Warning;
            } else {
                let remaining = max - used;
                statements.push(format!(
                    "You have used {} of {} tokens ({}% of budget). {} {} remaining.",
                    thousands(used),
                    thousands(max),
                    percent(used, max),
                    thousands(remaining),
                    if remaining == 1 { "token" } else { "tokens" }
                ));
                severity = severity.max(self.grade(remaining as f64 / max as f64));
            }
        }

        if let Some(max) = budget.max_tool_calls {
            let used = usage.tool_calls;
            if used >= max {
                statements.push("You have exhausted your tool call budget.".to_owned());
                severity = Severity::Warning;
            } else {
                let remaining = max - used;
                let calls = if remaining == 1 { "call" } else { "calls" };
                statements.push(format!("You have made {used} of {max} allowed tool calls. {remaining} {calls} remaining."));
                severity = severity.max(self.grade(remaining as f64 / max as f64));
            }
        }

        let summary = if statements.is_empty() { "No resource constraints configured.".to_owned() } else { statements.join(" ") };
        let mut a = Assessment::new(self.name.clone(), summary, severity);
        a.suggestions = match severity {
            Severity::Warning => vec![
                "Prioritize completing the most critical remaining work.".into(),
                "Consider wrapping up with a summary of progress and remaining tasks.".into(),
            ],
            Severity::Caution => vec!["Be mindful of remaining resources when planning next steps.".into()],
            Severity::Info => vec![],
        };
        a
    }
}

/// `N seconds` (< 1 min), `N minute(s)` (< 1 h), `X.Y hours` (< 1 day), `X.Y days`.
pub fn format_duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{} seconds", seconds as u64)
    } else if seconds < 3600.0 {
        let m = (seconds / 60.0) as u64;
        format!("{m} minute{}", if m == 1 { "" } else { "s" })
    } else if seconds < 86_400.0 {
        format!("{} hours", tenths(seconds / 3600.0))
    } else {
        format!("{} days", tenths(seconds / 86_400.0))
    }
}

/// `X.Y` for a non-negative number. Written with integers rather than
/// `{:.1}`: that format is the only float formatting in the module, and it
/// links core's float printer (~14 KB of wasm).
fn tenths(x: f64) -> String {
    // Ties to even, as `{:.1}` did. A saturating cast: a deadline is at most
    // 8.64e15 ms, so this never saturates.
    let t = (x * 10.0).round_ties_even() as u64;
    format!("{}.{}", t / 10, t % 10)
}

/// `35000` -> `35,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whole-number percentage, rounded half to even on the exact ratio.
pub fn percent(part: u64, whole: u64) -> u64 {
    let scaled = u128::from(part) * 100;
    let whole = u128::from(whole);
    let (q, r) = (scaled / whole, scaled % whole);
    let up = 2 * r > whole || (2 * r == whole && q % 2 == 1);
    (q + u128::from(up)) as u64
}

from_json_options!(ResourcesConfig { name: "name", caution_threshold: "cautionThreshold", warning_threshold: "warningThreshold" });

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: f64 = 60_000.0;

    fn observe(budget: Budget, now_min: f64, calls: u64) -> Assessment {
        ResourcesConfig::default().observe(&budget, &Usage { now_ms: now_min * MIN, started_at_ms: 0.0, tool_calls: calls })
    }

    #[test]
    fn caution_case_matches_the_spec_example() {
        let a = observe(
            Budget {
                deadline: Some(38.5 * MIN),
                elapsed_seconds: Some(22.0 * 60.0),
                max_tokens: Some(50_000),
                tokens_used: Some(35_000),
                max_tool_calls: Some(100),
            },
            30.0,
            47,
        );
        assert_eq!(
            a.render(),
            "### Resources [caution]\n\nYou have 8 minutes remaining before the deadline. You have used 35,000 of 50,000 tokens (70% of budget). \
             15,000 tokens remaining. You have made 47 of 100 allowed tool calls. 53 calls remaining.\n\n**Suggestions**:\n\
             - Be mindful of remaining resources when planning next steps."
        );
    }

    #[test]
    fn info_and_warning_cases() {
        let info = observe(
            Budget {
                deadline: Some(25.5 * MIN),
                elapsed_seconds: Some(300.0),
                max_tokens: Some(50_000),
                tokens_used: Some(12_000),
                ..Default::default()
            },
            0.0,
            0,
        );
        assert_eq!(
            info.render(),
            "### Resources [info]\n\nYou have 25 minutes remaining before the deadline. You have used 12,000 of 50,000 tokens (24% of budget). 38,000 tokens remaining."
        );
        let warn = observe(
            Budget {
                deadline: Some(2.5 * MIN),
                elapsed_seconds: Some(3600.0),
                max_tokens: Some(50_000),
                tokens_used: Some(48_500),
                ..Default::default()
            },
            0.0,
            0,
        );
        assert_eq!(
            warn.render(),
            "### Resources [warning]\n\nYou have 2 minutes remaining before the deadline. You have used 48,500 of 50,000 tokens (97% of budget). 1,500 tokens remaining.\n\n\
             **Suggestions**:\n- Prioritize completing the most critical remaining work.\n- Consider wrapping up with a summary of progress and remaining tasks."
        );
    }

    #[test]
    fn deadline_passed_exhaustion_and_no_constraints() {
        let a = observe(
            Budget { deadline: Some(1.0 * MIN), max_tokens: Some(10), tokens_used: Some(10), max_tool_calls: Some(3), ..Default::default() },
            2.0,
            3,
        );
        assert_eq!(a.severity, Severity::Warning);
        assert_eq!(a.summary, "You have reached the time deadline. You have exhausted your token budget. You have exhausted your tool call budget.");
        assert_eq!(observe(Budget::default(), 0.0, 9).summary, "No resource constraints configured.");
        assert_eq!(observe(Budget::default(), 0.0, 9).severity, Severity::Info);
    }

    #[test]
    fn durations_and_numbers() {
        assert_eq!(format_duration(59.9), "59 seconds");
        assert_eq!(format_duration(60.0), "1 minute");
        assert_eq!(format_duration(3599.0), "59 minutes");
        assert_eq!(format_duration(5400.0), "1.5 hours");
        assert_eq!(format_duration(86_400.0 * 2.25), "2.2 days", "ties to even, as the spec's Python does");
        assert_eq!(format_duration(86_400.0 * 3.0), "3.0 days");
        assert_eq!(
            (thousands(0), thousands(999), thousands(1000), thousands(1_234_567)),
            ("0".into(), "999".into(), "1,000".into(), "1,234,567".into())
        );
        assert_eq!((percent(35_000, 50_000), percent(1, 3), percent(1, 200), percent(3, 200)), (70, 33, 0, 2));
    }

    #[test]
    fn severity_is_the_worst_constraint_and_thresholds_are_configurable() {
        // Plenty of time, tool calls at 20 % remaining -> caution.
        let a = observe(Budget { deadline: Some(600.0 * MIN), elapsed_seconds: Some(1.0), max_tool_calls: Some(10), ..Default::default() }, 0.0, 8);
        assert_eq!(a.severity, Severity::Caution);
        let strict = ResourcesConfig { caution_threshold: 0.5, warning_threshold: 0.25, ..Default::default() };
        let usage = Usage { now_ms: 0.0, started_at_ms: 0.0, tool_calls: 6 };
        assert_eq!(strict.observe(&Budget { max_tool_calls: Some(10), ..Default::default() }, &usage).severity, Severity::Caution);
        // Without elapsedSeconds, time since the pipeline started counts as elapsed.
        let usage = Usage { now_ms: 95.0 * MIN, started_at_ms: 0.0, tool_calls: 0 };
        assert_eq!(
            ResourcesConfig::default().observe(&Budget { deadline: Some(100.0 * MIN), ..Default::default() }, &usage).severity,
            Severity::Warning
        );
    }
}
