//! The package's closed sets of words, listed once: error codes, record
//! kinds (with their fields and docs), built-in observers (with what they
//! report and their options' defaults), run statuses, stop reasons and
//! verdicts. The build runs the `vocabulary` binary, which prints this,
//! and generates the TypeScript unions and the docs' tables from it, so
//! neither can drift from the enums here; none of it ships in the module.

use serde_json::{json, Value};

use crate::capture::{OutcomeStatus, KINDS, KIND_DOCS};
use crate::error::ErrorCode;
use crate::generate::{StopReason, Verdict};
use crate::observe::builtin_docs;

/// Every closed set, as plain data: `{ errorCodes: [{ code, when }],
/// recordKinds, records: [{ kind, fields, about }], observers: [{ name,
/// reports, defaults, limits }], statuses, stopReasons, verdicts }`. A
/// record field that may be absent ends in `?`.
pub fn vocabulary() -> Value {
    let words = |v: Vec<Value>| Value::Array(v);
    let records = KIND_DOCS.iter().map(|k| {
        let fields = k.fields.iter().map(|(name, ty)| if ty.starts_with("Option") { format!("{name}?") } else { (*name).to_owned() });
        let about = k.about.iter().map(|line| line.trim()).collect::<Vec<_>>().join(" ");
        json!({ "kind": k.kind, "fields": fields.collect::<Vec<_>>(), "about": about })
    });
    let observers = builtin_docs().into_iter().map(|d| json!({ "name": d.kind, "reports": d.reports, "defaults": d.defaults, "limits": d.limits }));
    json!({
        "errorCodes": ErrorCode::ALL.iter().map(|c| json!({ "code": c.as_str(), "when": c.when() })).collect::<Vec<_>>(),
        "recordKinds": KINDS,
        "records": records.collect::<Vec<_>>(),
        "observers": observers.collect::<Vec<_>>(),
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
        let records = v["records"].as_array().unwrap();
        assert_eq!(records.iter().map(|r| r["kind"].as_str().unwrap().to_owned()).collect::<Vec<_>>(), strings("recordKinds"));
        for r in records {
            assert!(r["about"].as_str().unwrap().len() > 10, "{} has no doc comment", r["kind"]);
        }
        let turn_started = records.iter().find(|r| r["kind"] == "turn_started").unwrap();
        assert_eq!(turn_started["fields"], json!(["turn_index?"]));
        let observers = v["observers"].as_array().unwrap();
        assert_eq!(observers.iter().map(|o| o["name"].as_str().unwrap()).collect::<Vec<_>>(), crate::observe::BUILTIN_NAMES);
        assert_eq!(observers[1]["defaults"]["window"], 20);
    }
}
