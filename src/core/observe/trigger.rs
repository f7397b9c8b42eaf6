//! When an observer runs: triggers OR'd together, checked in O(1) from the
//! shared observer state and the log's incremental counters.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::write::json;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_n_calls: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_consecutive_errors: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_n_seconds: Option<f64>,
    #[serde(default)]
    pub on_every_call: bool,
}

/// Counters shared by every observer, as the observer spec has them; any
/// assessment resets `tool_calls_since_assessment`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObserverState {
    pub tool_calls_since_assessment: u64,
    pub last_assessment_time: Option<f64>,
    pub last_assessment_call_index: u64,
    pub total_assessments: u64,
}

impl Trigger {
    /// Parses a trigger, naming the observer and field at fault: counts must
    /// be positive integers, seconds a positive number, and at least one
    /// condition must be set.
    pub fn from_value(v: &Value, who: &str) -> Result<Trigger> {
        const TRIGGERS: [&str; 4] = ["everyNCalls", "afterConsecutiveErrors", "everyNSeconds", "onEveryCall"];
        let obj = v.as_object().ok_or_else(|| Error::invalid_argument(format!("{who}: trigger must be an object")))?;
        let mut t = Trigger::default();
        for (key, val) in obj {
            match key.as_str() {
                "everyNCalls" => t.every_n_calls = Some(positive_int(val, who, key)?),
                "afterConsecutiveErrors" => t.after_consecutive_errors = Some(positive_int(val, who, key)?),
                "everyNSeconds" => match val.as_f64() {
                    Some(s) if s.is_finite() && s > 0.0 => t.every_n_seconds = Some(s),
                    _ => {
                        return Err(Error::invalid_argument(format!(
                            "{who}: trigger.everyNSeconds must be a positive number, got {}",
                            crate::number::show_value(val)
                        )))
                    }
                },
                "onEveryCall" => {
                    t.on_every_call = val
                        .as_bool()
                        .ok_or_else(|| Error::invalid_argument(format!("{who}: trigger.onEveryCall must be a boolean, got {}", json(val))))?
                }
                other => return Err(Error::invalid_argument(crate::options::unknown_message("trigger", other, &TRIGGERS, who))),
            }
        }
        if !t.on_every_call && t.every_n_calls.is_none() && t.after_consecutive_errors.is_none() && t.every_n_seconds.is_none() {
            return Err(Error::invalid_argument(format!("{who}: trigger sets no condition, so the observer would never run")));
        }
        Ok(t)
    }

    /// Any condition met? `calls_since_run` counts the calls since this
    /// observer last ran (so `everyNCalls: 5` means every 5th call, whatever
    /// the other observers do); `seconds_since` counts from the last
    /// assessment of any observer, or from the pipeline's start before the first.
    pub fn fires(&self, calls_since_run: u64, consecutive_failures: u64, seconds_since: f64) -> bool {
        self.on_every_call
            || self.every_n_calls.is_some_and(|n| calls_since_run >= n)
            || self.after_consecutive_errors.is_some_and(|n| consecutive_failures >= n)
            || self.every_n_seconds.is_some_and(|s| seconds_since >= s)
    }
}

fn positive_int(v: &Value, who: &str, key: &str) -> Result<u64> {
    match v.as_f64() {
        Some(f) if f >= 1.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_991.0 => Ok(f as u64),
        _ => Err(Error::invalid_argument(format!("{who}: trigger.{key} must be a positive integer, got {}", crate::number::show_value(v)))),
    }
}

from_json_struct!(ObserverState {
    tool_calls_since_assessment: "toolCallsSinceAssessment",
    last_assessment_time: "lastAssessmentTime",
    last_assessment_call_index: "lastAssessmentCallIndex",
    total_assessments: "totalAssessments",
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn triggers_are_ored() {
        let t = Trigger::from_value(&json!({ "everyNCalls": 5, "afterConsecutiveErrors": 3, "everyNSeconds": 60 }), "x").unwrap();
        assert!(!t.fires(4, 2, 59.9));
        assert!(t.fires(5, 0, 0.0), "calls");
        assert!(t.fires(1, 3, 0.0), "errors");
        assert!(t.fires(1, 0, 60.0), "seconds");
        let every = Trigger::from_value(&json!({ "onEveryCall": true }), "x").unwrap();
        assert!(every.fires(0, 0, 0.0));
    }

    #[test]
    fn bad_triggers_name_the_culprit() {
        for (v, needle) in [
            (json!({ "everyNCalls": 0 }), "everyNCalls must be a positive integer, got 0"),
            (json!({ "everyNCalls": 2.5 }), "positive integer, got 2.5"),
            // NaN crosses from JS as the string "NaN": said as the number it was.
            (json!({ "everyNCalls": "NaN" }), "positive integer, got NaN"),
            (json!({ "everyNCalls": "3" }), "positive integer, got \"3\""),
            (json!({ "everyNSeconds": "-Infinity" }), "positive number, got -Infinity"),
            (json!({ "afterConsecutiveErrors": -1 }), "afterConsecutiveErrors"),
            (json!({ "everyNSeconds": 0 }), "everyNSeconds must be a positive number"),
            (json!({ "everyNCall": 3 }), "unknown trigger \"everyNCall\"; did you mean \"everyNCalls\"? (valid: everyNCalls, afterConsecutiveErrors, everyNSeconds, onEveryCall)"),
            (json!({}), "no condition"),
            (json!({ "onEveryCall": false }), "no condition"),
        ] {
            let e = Trigger::from_value(&v, "observers[1] (stall)").unwrap_err();
            assert!(e.message.contains(needle) && e.message.starts_with("observers[1] (stall)"), "{v}: {}", e.message);
        }
    }
}
