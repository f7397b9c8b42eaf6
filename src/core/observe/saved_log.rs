//! A pipeline snapshot's log of calls, compact. The log is most of a long
//! run's snapshot: a call written as an object is ~120 bytes of JSON, and a
//! run repeats few tool names and many summaries and error messages. So
//! version 2 writes each distinct string once, in `strings`, and a call as
//! four numbers in `calls`:
//!
//! - its time: milliseconds after the previous call's (the first: since
//!   the epoch), or since the epoch for every call when `absoluteTimes` is
//!   true (a clock whose differences do not add back exactly, such as a
//!   fractional one);
//! - its tool name and its summary, as indexes into `strings`;
//! - `2 × e + s`: `e` its error message's index + 1 (0 without one), `s`
//!   1 when it succeeded.
//!
//! Call indexes are the positions (from 1). Version 1's array of call
//! objects is read too, so an older snapshot restores.

use std::collections::HashMap;
use std::rc::Rc;

use serde::ser::SerializeMap;
use serde::Serialize;
use serde_json::Value;

use super::fingerprint::FastBuild;
use super::log::ToolCallRecord;
use crate::number::show;
use crate::read::{field, object, At, FromJson};

/// Numbers per call in `calls`.
const PER_CALL: usize = 4;

/// The calls a snapshot keeps, in order (call indexes from 1).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SavedLog(pub Vec<ToolCallRecord>);

impl SavedLog {
    /// Whether every time is the previous one plus a difference that adds
    /// back exactly (JSON keeps both numbers exactly).
    fn deltas_exact(&self) -> bool {
        let mut prev = 0.0;
        self.0.iter().all(|r| {
            let d = r.timestamp - prev;
            let exact = d.is_finite() && prev + d == r.timestamp;
            prev = r.timestamp;
            exact
        })
    }
}

impl Serialize for SavedLog {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut strings: Vec<&str> = Vec::new();
        let mut index: HashMap<&str, u64, FastBuild> = HashMap::default();
        let mut id = |text| -> u64 {
            *index.entry(text).or_insert_with(|| {
                strings.push(text);
                strings.len() as u64 - 1
            })
        };
        let deltas = self.deltas_exact();
        let mut calls: Vec<Num> = Vec::with_capacity(self.0.len() * PER_CALL);
        let mut prev = 0.0;
        for r in &self.0 {
            calls.push(Num::time(if deltas { r.timestamp - prev } else { r.timestamp }));
            prev = r.timestamp;
            calls.push(Num::Whole(id(&r.tool_name)));
            calls.push(Num::Whole(id(&r.params_summary)));
            let error = r.error_message.as_deref().map_or(0, |m| id(m) + 1);
            calls.push(Num::Whole(error * 2 + u64::from(r.success)));
        }
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("strings", &strings)?;
        map.serialize_entry("calls", &calls)?;
        map.serialize_entry("absoluteTimes", &!deltas)?;
        map.end()
    }
}

/// A number of `calls`: whole numbers from 0 are written as integers
/// (a time that is not one, a fraction or a clock going back, as a float).
enum Num {
    Whole(u64),
    Other(f64),
}

impl Num {
    fn time(t: f64) -> Num {
        whole(t).map_or(Num::Other(t), Num::Whole)
    }
}

impl Serialize for Num {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            Num::Whole(n) => s.serialize_u64(n),
            Num::Other(f) => s.serialize_f64(f),
        }
    }
}

impl FromJson for SavedLog {
    fn from_json(v: Option<Value>, at: &At) -> std::result::Result<Self, String> {
        match v {
            // Version 1: the calls as objects.
            Some(Value::Array(_)) => Ok(SavedLog(Vec::<ToolCallRecord>::from_json(v, at)?)),
            v => {
                let mut obj = object(v, at)?;
                let strings: Vec<String> = field(&mut obj, "strings", at)?;
                let calls: Vec<f64> = field(&mut obj, "calls", at)?;
                let deltas = !field::<bool>(&mut obj, "absoluteTimes", at)?;
                if calls.len() % PER_CALL != 0 {
                    return Err(format!("{}: {} numbers, not {PER_CALL} per call", At::Key(at, "calls"), calls.len()));
                }
                let strings: Vec<Rc<str>> = strings.into_iter().map(Rc::from).collect();
                let calls_at = At::Key(at, "calls");
                let bad = |i: usize, what: &str| format!("{}: {} is not {what}", At::Index(&calls_at, i), show(calls[i]));
                let string = |i: usize, k: Option<u64>| {
                    k.and_then(|k| usize::try_from(k).ok()).and_then(|k| strings.get(k).cloned()).ok_or_else(|| bad(i, "an index of strings"))
                };
                let mut records = Vec::with_capacity(calls.len() / PER_CALL);
                let mut prev = 0.0;
                for (k, call) in calls.chunks_exact(PER_CALL).enumerate() {
                    let i = k * PER_CALL;
                    let timestamp = if deltas { prev + call[0] } else { call[0] };
                    if !timestamp.is_finite() {
                        // Past f64's range as a sum: no clock reads that.
                        return Err(bad(i, "a time that adds up to one"));
                    }
                    prev = timestamp;
                    let code = whole(call[3]).ok_or_else(|| bad(i + 3, "a call's outcome"))?;
                    let error_message = match code / 2 {
                        0 => None,
                        e => Some(string(i + 3, Some(e - 1))?.to_string()),
                    };
                    records.push(ToolCallRecord {
                        tool_name: string(i + 1, whole(call[1]))?,
                        params_summary: string(i + 2, whole(call[2]))?,
                        success: code % 2 == 1,
                        error_message,
                        timestamp,
                        call_index: k as u64 + 1,
                    });
                }
                Ok(SavedLog(records))
            }
        }
    }
}

/// `n` as a whole number from 0 (JSON numbers arrive as floats).
fn whole(n: f64) -> Option<u64> {
    (n.fract() == 0.0 && (0.0..9.0e15).contains(&n)).then_some(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(i: u64, tool: &str, summary: &str, success: bool, error: Option<&str>, t: f64) -> ToolCallRecord {
        ToolCallRecord {
            tool_name: tool.into(),
            params_summary: summary.into(),
            success,
            error_message: error.map(str::to_owned),
            timestamp: t,
            call_index: i,
        }
    }

    fn round_trip(log: &SavedLog) -> SavedLog {
        let text = serde_json::to_string(log).unwrap();
        crate::read::read(serde_json::from_str(&text).unwrap(), "log").unwrap()
    }

    #[test]
    fn a_log_writes_each_string_once_and_reads_back_exactly() {
        let log = SavedLog(vec![
            call(1, "read_file", "src/a.rs", true, None, 1_700_000_000_000.0),
            call(2, "run_tests", "{\"filter\":\"t0\"}", false, Some("assertion failed"), 1_700_000_000_100.0),
            call(3, "read_file", "src/a.rs", true, None, 1_700_000_000_150.0),
            call(4, "run_tests", "{\"filter\":\"t0\"}", false, None, 1_700_000_000_150.0),
        ]);
        let v = serde_json::to_value(&log).unwrap();
        assert_eq!(v["strings"], serde_json::json!(["read_file", "src/a.rs", "run_tests", "{\"filter\":\"t0\"}", "assertion failed"]));
        assert_eq!(v["calls"], serde_json::json!([1_700_000_000_000u64, 0, 1, 1, 100, 2, 3, 10, 50, 0, 1, 1, 0, 2, 3, 0]));
        assert_eq!(v["absoluteTimes"], false);
        assert_eq!(round_trip(&log), log);
    }

    #[test]
    fn times_that_do_not_add_back_exactly_are_written_whole() {
        // 1e-17 - 3 rounds to -3: adding it back to 3 gives 0, not 1e-17.
        let log = SavedLog(vec![call(1, "t", "s", true, None, 3.0), call(2, "t", "s", true, None, 1e-17)]);
        let v = serde_json::to_value(&log).unwrap();
        assert_eq!(v["absoluteTimes"], true);
        assert_eq!(round_trip(&log), log);
        assert_eq!(round_trip(&SavedLog::default()), SavedLog::default());
    }

    #[test]
    fn version_1_arrays_are_read_and_bad_numbers_are_named() {
        let v1 = serde_json::json!([{ "toolName": "t", "paramsSummary": "s", "success": true, "timestamp": 5, "callIndex": 1 }]);
        let log: SavedLog = crate::read::read(v1, "log").unwrap();
        assert_eq!(log, SavedLog(vec![call(1, "t", "s", true, None, 5.0)]));
        let bad = serde_json::json!({ "strings": ["t"], "calls": [0, 0, 4, 1], "absoluteTimes": false });
        let e = crate::read::read::<SavedLog>(bad, "log").unwrap_err();
        assert!(e.contains("calls[2]") && e.contains("not an index of strings"), "{e}");
        let huge = serde_json::json!({ "strings": ["t"], "calls": [1.7e308, 0, 0, 1, 1.7e308, 0, 0, 1], "absoluteTimes": false });
        let e = crate::read::read::<SavedLog>(huge, "log").unwrap_err();
        assert!(e.starts_with("log.calls[4]: ") && e.ends_with("is not a time that adds up to one"), "{e}");
        let far = serde_json::json!({ "strings": ["t"], "calls": [0, 4294967296u64, 0, 1], "absoluteTimes": false });
        assert!(crate::read::read::<SavedLog>(far, "log").unwrap_err().contains("calls[1]: 4294967296 is not an index of strings"));
        let odd = serde_json::json!({ "strings": [], "calls": [0, 0], "absoluteTimes": false });
        assert!(crate::read::read::<SavedLog>(odd, "log").unwrap_err().contains("not 4 per call"));
        let times = serde_json::json!({ "strings": [], "calls": [], "absoluteTimes": "later" });
        assert!(crate::read::read::<SavedLog>(times, "log").unwrap_err().contains("log.absoluteTimes"));
    }
}
