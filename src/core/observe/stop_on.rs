//! `stopOn`: when a watched agent loop stops on its observers' findings.
//! `'warning'`, or `{ severity: 'warning', times: 2 }` ("nudge once, stop if
//! it repeats"): the loop stops once that many assessments at or above the
//! severity were produced.

use serde_json::Value;

use super::assessment::Severity;
use crate::error::{Error, Result};
use crate::number;

/// The keys of an object `stopOn`.
pub const STOP_ON_KEYS: [&str; 2] = ["severity", "times"];

#[derive(Debug, Clone, PartialEq)]
pub struct StopOn {
    pub severity: Severity,
    pub times: u64,
    hits: u64,
}

impl StopOn {
    /// Reads the option (`None` when not given); `place` names the adapter's options.
    pub fn read(v: Option<&Value>, place: &str) -> Result<Option<StopOn>> {
        let Some(v) = v else { return Ok(None) };
        let (severity, times, field) = match v {
            Value::Object(o) => {
                crate::options::check_keys(o.keys().map(String::as_str), &STOP_ON_KEYS, &format!("{place}.stopOn"))?;
                (o.get("severity"), o.get("times"), ".severity")
            }
            other => (Some(other), None, ""),
        };
        let severity = match severity {
            Some(Value::String(s)) => Severity::parse(s),
            _ => None,
        };
        let Some(severity) = severity else {
            let given = match v {
                Value::Object(o) => o.get("severity").map_or_else(|| "undefined".to_owned(), number::show_value),
                other => number::show_value(other),
            };
            return Err(Error::invalid_argument(format!("{place}.stopOn{field} must be 'info', 'caution' or 'warning', got {given}")));
        };
        let times = match times {
            None | Some(Value::Null) => 1,
            Some(t) => match t.as_f64() {
                Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= number::MAX_SAFE_INTEGER as f64 => n as u64,
                _ => {
                    return Err(Error::invalid_argument(format!("{place}.stopOn.times must be a whole number from 1, got {}", number::show_value(t))))
                }
            },
        };
        Ok(Some(StopOn { severity, times, hits: 0 }))
    }

    /// Counts an assessment; true once the loop should stop (and from then on).
    pub fn hit(&mut self, severity: Severity) -> bool {
        if severity >= self.severity {
            self.hits = self.hits.saturating_add(1);
        }
        self.hits >= self.times
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_severity_alone_stops_at_the_first_finding_at_or_above_it() {
        let mut s = StopOn::read(Some(&json!("caution")), "observeAISdk options").unwrap().unwrap();
        assert_eq!((s.severity, s.times), (Severity::Caution, 1));
        assert!(!s.hit(Severity::Info));
        assert!(s.hit(Severity::Warning));
        assert_eq!(StopOn::read(None, "x").unwrap(), None);
    }

    #[test]
    fn times_counts_repeats() {
        let mut s = StopOn::read(Some(&json!({ "severity": "warning", "times": 2 })), "p").unwrap().unwrap();
        assert!(!s.hit(Severity::Warning));
        assert!(!s.hit(Severity::Caution));
        assert!(s.hit(Severity::Warning));
    }

    #[test]
    fn bad_options_say_where() {
        let e = StopOn::read(Some(&json!("loud")), "observeAISdk options").unwrap_err();
        assert_eq!(e.message, "observeAISdk options.stopOn must be 'info', 'caution' or 'warning', got \"loud\"");
        let e = StopOn::read(Some(&json!({ "severity": "warning", "times": 0 })), "p").unwrap_err();
        assert_eq!(e.message, "p.stopOn.times must be a whole number from 1, got 0");
        let e = StopOn::read(Some(&json!({ "severity": "warning", "time": 2 })), "p").unwrap_err();
        assert!(e.message.contains("did you mean \"times\""), "{}", e.message);
        let e = StopOn::read(Some(&json!({})), "p").unwrap_err();
        assert_eq!(e.message, "p.stopOn.severity must be 'info', 'caution' or 'warning', got undefined");
    }
}
