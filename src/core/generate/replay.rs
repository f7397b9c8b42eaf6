//! Model record/replay. A request's key is a hash of its canonical JSON
//! (object keys sorted), so it does not depend on key order. Replaying
//! answers recorded requests in the order they were recorded and refuses
//! an unknown one with a field-by-field diff against the closest recorded
//! request.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::core::error::{Error, ErrorCode, Result};
use crate::core::observe::fingerprint::hash_bytes;

pub const RECORDING_FORMAT: &str = "agent-trajectories/model-recording";
pub const RECORDING_VERSION: u64 = 1;

/// The value with every object's keys sorted.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), canonical(&o[k]))).collect::<Map<_, _>>())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// A stable key for a model request: 16 hex digits.
pub fn request_key(request: &Value) -> String {
    format!("{:016x}", hash_bytes(canonical(request).to_string().as_bytes()))
}

struct Entry {
    request: Value,
    response: Value,
}

/// A recording, ready to answer.
pub struct Replay {
    by_key: HashMap<String, (Vec<usize>, usize)>,
    entries: Vec<Entry>,
}

impl Replay {
    /// Reads `{ format, version, entries: [{ key?, request, response }] }`
    /// (keys are recomputed, so a hand-edited request still matches).
    pub fn from_value(v: &Value) -> Result<Replay> {
        let bad = |why: String| Error::invalid_argument(format!("replayModel: {why}"));
        if v.get("format").and_then(Value::as_str) != Some(RECORDING_FORMAT) {
            return Err(bad(format!("not a model recording (expected format {RECORDING_FORMAT:?})")));
        }
        match v.get("version").and_then(Value::as_u64) {
            Some(n) if n <= RECORDING_VERSION => {}
            other => return Err(Error::new(ErrorCode::UnsupportedSchemaVersion, format!("replayModel: recording version {other:?}; this build reads up to {RECORDING_VERSION}"))),
        }
        let items = v.get("entries").and_then(Value::as_array).ok_or_else(|| bad("`entries` must be an array".into()))?;
        let mut replay = Replay { by_key: HashMap::new(), entries: Vec::with_capacity(items.len()) };
        for (i, e) in items.iter().enumerate() {
            let (Some(request), Some(response)) = (e.get("request"), e.get("response")) else {
                return Err(bad(format!("entries[{i}] needs `request` and `response`")));
            };
            replay.by_key.entry(request_key(request)).or_insert_with(|| (Vec::new(), 0)).0.push(i);
            replay.entries.push(Entry { request: request.clone(), response: response.clone() });
        }
        Ok(replay)
    }

    /// The recorded response for `request`: the next unused one recorded
    /// for it, or the last when all were used. Unknown requests fail with
    /// `REPLAY_MISS` and a diff.
    pub fn answer(&mut self, request: &Value) -> Result<Value> {
        let key = request_key(request);
        if let Some((list, next)) = self.by_key.get_mut(&key) {
            let i = list[(*next).min(list.len() - 1)];
            *next += 1;
            return Ok(self.entries[i].response.clone());
        }
        let closest = self
            .entries
            .iter()
            .filter(|e| e.request.get("purpose") == request.get("purpose"))
            .map(|e| {
                let mut d = Vec::new();
                diff(&canonical(&e.request), &canonical(request), "request", &mut d);
                d
            })
            .min_by_key(Vec::len);
        let purpose = request.get("purpose").and_then(Value::as_str).unwrap_or("?");
        let message = match closest {
            Some(d) => format!(
                "replayModel: no recorded answer for this {purpose} request (key {key}). Closest recorded request differs at:\n{}",
                d.into_iter().take(8).collect::<Vec<_>>().join("\n")
            ),
            None => format!("replayModel: no recorded answer for this {purpose} request (key {key}); the recording has no {purpose} requests"),
        };
        Err(Error::new(ErrorCode::ReplayMiss, message))
    }
}

fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 { format!("{}…", s.chars().take(80).collect::<String>()) } else { s }
}

/// Where two JSON values differ, as `path: recorded X, requested Y` lines.
/// Long strings are shown around their first differing line.
pub fn diff(recorded: &Value, requested: &Value, path: &str, out: &mut Vec<String>) {
    match (recorded, requested) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    Some(vb) => diff(va, vb, &format!("{path}.{k}"), out),
                    None => out.push(format!("{path}.{k}: recorded {}, requested (missing)", show(va))),
                }
            }
            for (k, vb) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                out.push(format!("{path}.{k}: recorded (missing), requested {}", show(vb)));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{path}: recorded {} items, requested {}", a.len(), b.len()));
            }
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                diff(va, vb, &format!("{path}[{i}]"), out);
            }
        }
        (Value::String(a), Value::String(b)) if a != b => {
            let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or_else(|| a.lines().count().min(b.lines().count()));
            let at = |s: &str| s.lines().nth(line).map(|l| show(&Value::String(l.to_owned()))).unwrap_or_else(|| "(no such line)".into());
            out.push(format!("{path} line {}: recorded {}, requested {}", line + 1, at(a), at(b)));
        }
        (a, b) if a != b => out.push(format!("{path}: recorded {}, requested {}", show(a), show(b))),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_ignore_key_order_and_misses_show_a_diff() {
        let a = json!({ "purpose": "user-message", "system": "s", "messages": [{ "role": "user", "content": "hi\nthere" }] });
        let b = json!({ "messages": [{ "content": "hi\nthere", "role": "user" }], "system": "s", "purpose": "user-message" });
        assert_eq!(request_key(&a), request_key(&b));
        let rec = json!({ "format": RECORDING_FORMAT, "version": 1, "entries": [
            { "request": a, "response": "first" }, { "request": a, "response": "second" }
        ]});
        let mut r = Replay::from_value(&rec).unwrap();
        assert_eq!(r.answer(&b).unwrap(), json!("first"));
        assert_eq!(r.answer(&b).unwrap(), json!("second"));
        assert_eq!(r.answer(&b).unwrap(), json!("second"));
        let c = json!({ "purpose": "user-message", "system": "s", "messages": [{ "role": "user", "content": "hi\nthen" }] });
        let e = r.answer(&c).unwrap_err();
        assert_eq!(e.code, ErrorCode::ReplayMiss);
        assert!(e.message.contains("request.messages[0].content line 2: recorded \"there\", requested \"then\""), "{}", e.message);
        let e = Replay::from_value(&json!({ "entries": [] })).err().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
    }
}
