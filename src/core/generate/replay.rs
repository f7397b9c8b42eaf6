//! Model record/replay: the recording's format, a request's canonical form
//! and key, matching a request to its recorded answers, and the words of a
//! miss. The JS layer wraps models and turns values into JSON; this decides.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::number::quoted;
use crate::observe::fingerprint::FastBuild;

/// The recording's `format`, and the newest `version` this build reads and writes.
pub const FORMAT: &str = "agent-trajectories/model-recording";
pub const VERSION: u32 = 1;

/// `v` with every object's keys sorted (by UTF-16 code units, as JS sorts),
/// so key order never changes a request's key.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            // An object's keys are distinct, so an unstable sort gives the one order.
            keys.sort_unstable_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            Value::Object(keys.into_iter().map(|k| (k.clone(), canonical(&o[k]))).collect())
        }
        other => other.clone(),
    }
}

/// A request's canonical JSON text and its key; `path` names it in errors.
pub fn keyed(request: &Value, path: &str) -> Result<(String, String)> {
    if !request.is_object() {
        return Err(Error::invalid_argument(format!("{path} must be a model request object")));
    }
    let text = crate::write::json(&canonical(request));
    let key = key_of(&text);
    Ok((text, key))
}

/// Two independent 32-bit FNV-1a style lanes over the UTF-16 text: 16 hex digits.
pub fn key_of(text: &str) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let (mut a, mut b) = (0x811c_9dc5u32, 0x0100_0193u32 ^ units.len() as u32);
    for c in units {
        a = (a ^ u32::from(c)).wrapping_mul(0x0100_0193);
        b = (b ^ u32::from(c)).wrapping_mul(0x5bd1_e995);
        b ^= b >> 15;
    }
    format!("{a:08x}{b:08x}")
}

fn show(v: Option<&Value>) -> String {
    let s = v.map_or_else(|| "undefined".to_owned(), crate::write::json);
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

/// Where two JSON values differ, as `path: recorded X, requested Y` lines;
/// long strings are shown at their first differing line.
pub fn diff(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(format!("{path}: recorded {} item{}, requested {}", x.len(), if x.len() == 1 { "" } else { "s" }, y.len()));
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(p, q, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                match (x.get(k), y.get(k)) {
                    (Some(p), None) => out.push(format!("{path}.{k}: recorded {}, requested (missing)", show(Some(p)))),
                    (None, Some(q)) => out.push(format!("{path}.{k}: recorded (missing), requested {}", show(Some(q)))),
                    (Some(p), Some(q)) => diff(p, q, &format!("{path}.{k}"), out),
                    (None, None) => {}
                }
            }
        }
        (Value::String(x), Value::String(y)) if x != y => {
            let (lx, ly): (Vec<&str>, Vec<&str>) = (x.split('\n').collect(), y.split('\n').collect());
            let i = lx.iter().zip(&ly).take_while(|(p, q)| p == q).count();
            let line = |l: &[&str]| Value::from(*l.get(i).unwrap_or(&"(no such line)"));
            out.push(format!("{path} line {}: recorded {}, requested {}", i + 1, show(Some(&line(&lx))), show(Some(&line(&ly)))));
        }
        _ if a != b => out.push(format!("{path}: recorded {}, requested {}", show(Some(a)), show(Some(b)))),
        _ => {}
    }
}

/// A recorded answer: what the model resolved to, or how it failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Response(Value),
    Failed { message: String, code: Option<String> },
}

/// A recording, ready to answer requests in the order they were recorded.
#[derive(Debug, Default)]
pub struct Replay {
    /// By canonical request text: its recorded answers, and how many were given.
    by_text: HashMap<String, (Vec<Answer>, usize), FastBuild>,
    requests: Vec<Value>,
}

impl Replay {
    /// Reads a recording (`{ format, version, entries }`); every entry's key is recomputed,
    /// so a hand-edited request still matches.
    pub fn read(recording: &Value) -> Result<Replay> {
        let not_one = || {
            Error::invalid_argument(format!("replayModel: not a model recording (expected format {FORMAT} with entries)", FORMAT = quoted(FORMAT)))
        };
        let Some(entries) = recording.get("format").filter(|f| f.as_str() == Some(FORMAT)).and(recording.get("entries")).and_then(Value::as_array)
        else {
            return Err(not_one());
        };
        let version = match recording.get("version") {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            other => {
                let shown = other.map_or_else(|| "undefined".to_owned(), crate::number::show_value);
                return Err(Error::invalid_argument(format!("replayModel: recording version must be a number, got {shown}")));
            }
        };
        if version > f64::from(VERSION) {
            return Err(Error::new(
                ErrorCode::UnsupportedSchemaVersion,
                format!("replayModel: recording version {}; this build reads up to {VERSION}", crate::number::show(version)),
            ));
        }
        let mut replay = Replay::default();
        for (i, e) in entries.iter().enumerate() {
            let at = format!("replayModel: entries[{i}]");
            let (Some(request), true) = (e.get("request"), e.get("response").is_some() || e.get("error").is_some()) else {
                return Err(Error::invalid_argument(format!("{at} needs request and response (or error)")));
            };
            let (text, _) = keyed(request, &format!("{at}.request"))?;
            let answer = match e.get("error") {
                Some(err) => match err.get("message").and_then(Value::as_str) {
                    Some(m) => Answer::Failed { message: m.to_owned(), code: err.get("code").and_then(Value::as_str).map(str::to_owned) },
                    None => return Err(Error::invalid_argument(format!("{at}.error must be {{ message, code? }}"))),
                },
                None => Answer::Response(e.get("response").cloned().unwrap_or(Value::Null)),
            };
            replay.requests.push(canonical(request));
            replay.by_text.entry(text).or_default().0.push(answer);
        }
        Ok(replay)
    }

    /// The next recorded answer to `request`, or a `REPLAY_MISS` that says
    /// how often it was recorded, or where the closest recorded request of
    /// the same purpose differs.
    pub fn answer(&mut self, request: &Value) -> Result<Answer> {
        let (text, key) = keyed(request, "replayModel: request")?;
        let purpose = match request.get("purpose") {
            Some(Value::String(p)) => p.clone(),
            other => other.map_or_else(|| "undefined".to_owned(), crate::write::json),
        };
        if let Some((list, next)) = self.by_text.get_mut(&text) {
            *next += 1;
            return match list.get(*next - 1) {
                Some(a) => Ok(a.clone()),
                None => Err(Error::new(
                    ErrorCode::ReplayMiss,
                    format!(
                        "replayModel: this {purpose} request (key {key}) was recorded {} time{}; this is call {} of it",
                        list.len(),
                        if list.len() == 1 { "" } else { "s" },
                        next
                    ),
                )),
            };
        }
        let asked = canonical(request);
        let same_purpose = |r: &&Value| r.get("purpose") == asked.get("purpose");
        // The closest: fewest differences, a list of another length counting
        // as many (so a later turn's conversation is compared with its own turn).
        let score = |d: &[String]| d.len() + 100 * d.iter().filter(|l| is_length_line(l)).count();
        let closest = self
            .requests
            .iter()
            .filter(same_purpose)
            .map(|r| {
                let mut d = Vec::new();
                diff(r, &asked, "request", &mut d);
                d
            })
            .min_by_key(|d| score(d));
        Err(Error::new(
            ErrorCode::ReplayMiss,
            match closest {
                Some(d) => format!(
                    "replayModel: no recorded answer for this {purpose} request (key {key}). Closest recorded request differs at:\n{}",
                    d.iter().take(8).cloned().collect::<Vec<_>>().join("\n")
                ),
                None => format!("replayModel: no recorded answer for this {purpose} request (key {key}); the recording has no {purpose} requests"),
            },
        ))
    }
}

/// `…: recorded N items, requested M`.
fn is_length_line(l: &str) -> bool {
    l.rsplit_once(", requested ")
        .is_some_and(|(head, n)| n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() && (head.ends_with(" item") || head.ends_with(" items")))
}

/// A recording's entry: `{ key, request, response }` or `{ key, request, error }`.
pub fn entry(request: &Value, answer: &Answer) -> Result<Value> {
    let (_, key) = keyed(request, "recordingModel: request")?;
    let mut e = Map::new();
    e.insert("key".into(), Value::from(key));
    e.insert("request".into(), request.clone());
    match answer {
        Answer::Response(r) => e.insert("response".into(), r.clone()),
        Answer::Failed { message, code } => {
            let mut err = Map::new();
            err.insert("message".into(), Value::from(message.as_str()));
            if let Some(c) = code {
                err.insert("code".into(), Value::from(c.as_str()));
            }
            e.insert("error".into(), Value::Object(err))
        }
    };
    Ok(Value::Object(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_key_and_the_hash_is_stable() {
        let (t1, k1) = keyed(&json!({ "b": 1, "a": { "d": [1, { "z": 0, "y": 1 }], "c": "x" } }), "r").unwrap();
        let (t2, k2) = keyed(&json!({ "a": { "c": "x", "d": [1, { "y": 1, "z": 0 }] }, "b": 1 }), "r").unwrap();
        assert_eq!((t1.as_str(), &k1), (r#"{"a":{"c":"x","d":[1,{"y":1,"z":0}]},"b":1}"#, &k2));
        assert_eq!(t1, t2);
        // The JS layer's hash, kept: recordings made before carry these keys.
        assert_eq!(key_of(""), "811c9dc501000193");
        assert_eq!(key_of("{}").len(), 16);
        assert!(keyed(&json!([1]), "modelRequestKey: request").unwrap_err().message.ends_with("must be a model request object"));
    }

    #[test]
    fn answers_in_order_then_says_how_often_it_was_recorded() {
        let rec = json!({ "format": FORMAT, "version": 1, "entries": [
            { "request": { "purpose": "user-turn", "n": 1 }, "response": "a" },
            { "request": { "n": 1, "purpose": "user-turn" }, "response": "b" },
            { "request": { "purpose": "user-turn", "n": 2 }, "error": { "message": "boom", "code": "TIMEOUT" } },
        ]});
        let mut r = Replay::read(&rec).unwrap();
        let ask = json!({ "purpose": "user-turn", "n": 1 });
        assert_eq!(r.answer(&ask).unwrap(), Answer::Response(json!("a")));
        assert_eq!(r.answer(&ask).unwrap(), Answer::Response(json!("b")));
        let e = r.answer(&ask).unwrap_err();
        assert_eq!(e.code, ErrorCode::ReplayMiss);
        assert!(e.message.ends_with("was recorded 2 times; this is call 3 of it"), "{}", e.message);
        assert_eq!(
            r.answer(&json!({ "purpose": "user-turn", "n": 2 })).unwrap(),
            Answer::Failed { message: "boom".into(), code: Some("TIMEOUT".into()) }
        );
    }

    #[test]
    fn a_miss_names_where_the_closest_request_differs() {
        let rec = json!({ "format": FORMAT, "version": 1, "entries": [
            { "request": { "purpose": "user-turn", "messages": ["hi", "there"] }, "response": "a" },
            { "request": { "purpose": "user-turn", "messages": ["hi"], "system": "one\ntwo" }, "response": "b" },
        ]});
        let mut r = Replay::read(&rec).unwrap();
        let e = r.answer(&json!({ "purpose": "user-turn", "messages": ["hi"], "system": "one\nthree" })).unwrap_err();
        assert!(
            e.message.ends_with("Closest recorded request differs at:\nrequest.system line 2: recorded \"two\", requested \"three\""),
            "{}",
            e.message
        );
        let e = r.answer(&json!({ "purpose": "rank" })).unwrap_err();
        assert!(e.message.ends_with("the recording has no rank requests"), "{}", e.message);
    }

    #[test]
    fn a_recording_is_checked() {
        assert!(Replay::read(&json!({ "format": "x", "entries": [] })).unwrap_err().message.starts_with("replayModel: not a model recording"));
        let e = Replay::read(&json!({ "format": FORMAT, "version": 2, "entries": [] })).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::UnsupportedSchemaVersion, "replayModel: recording version 2; this build reads up to 1"));
        let e = Replay::read(&json!({ "format": FORMAT, "version": 1, "entries": [{ "request": {} }] })).unwrap_err();
        assert_eq!(e.message, "replayModel: entries[0] needs request and response (or error)");
        let e = Replay::read(&json!({ "format": FORMAT, "version": 1, "entries": [{ "request": {}, "error": 3 }] })).unwrap_err();
        assert_eq!(e.message, "replayModel: entries[0].error must be { message, code? }");
    }
}
