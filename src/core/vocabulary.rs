//! The package's closed sets of words, listed once: error codes, record
//! kinds, run statuses, stop reasons and verdicts. The build generates the
//! TypeScript unions and the docs' tables from [`vocabulary`], so neither
//! can drift from the enums here.

use serde_json::{json, Value};

use crate::capture::{OutcomeStatus, KINDS};
use crate::error::ErrorCode;
use crate::generate::{StopReason, Verdict};

/// Every closed set, as plain data (`{ errorCodes: [{ code, when }], recordKinds, statuses, stopReasons, verdicts }`).
pub fn vocabulary() -> Value {
    let words = |v: Vec<Value>| Value::Array(v);
    json!({
        "errorCodes": ErrorCode::ALL.iter().map(|c| json!({ "code": c.as_str(), "when": c.when() })).collect::<Vec<_>>(),
        "recordKinds": KINDS,
        "statuses": words(OutcomeStatus::ALL.iter().map(|s| serde_json::to_value(s).unwrap_or(Value::Null)).collect()),
        "stopReasons": StopReason::ALL.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
        "verdicts": Verdict::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_is_complete_and_reads_back() {
        let v = vocabulary();
        let strings = |k: &str| v[k].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect::<Vec<_>>();
        for c in &v["errorCodes"].as_array().unwrap()[..] {
            let code = ErrorCode::parse(c["code"].as_str().unwrap()).unwrap();
            assert!(!code.when().is_empty());
        }
        assert_eq!(v["errorCodes"].as_array().unwrap().len(), ErrorCode::ALL.len());
        assert_eq!(strings("statuses"), ["completed", "stopped", "error", "aborted"]);
        for r in strings("stopReasons") {
            assert!(StopReason::parse(&r).is_some(), "{r}");
        }
        assert_eq!(strings("verdicts"), ["pass", "agent", "simulator", "harness", "aborted"]);
        assert!(strings("recordKinds").contains(&"run_ended".to_owned()));
    }
}
