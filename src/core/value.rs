//! The host's values, as the core sees them before deciding anything: what
//! a caller passed ([`Arg`]) and what a host clock answered ([`check_clock`]).
//! Low in the layering (see the crate's doc), so capture and observe read
//! them without depending on [`crate::host`].
//!
//! For a caller's value, the binding says what kind of JS value it is (and
//! how to show it in an error), the core applies the rule (a default, a
//! required shape, "null means absent"). One rule per option, wherever the
//! option is read.

use crate::error::{Error, ErrorCode, Result};
use crate::number;

/// What the caller gave for one option.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Absent,
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Function,
    /// Anything else (an object, an array, a symbol): how to show it.
    Other(String),
}

impl Arg {
    /// How an error shows the value.
    pub fn shown(&self) -> String {
        match self {
            Arg::Absent => "undefined".into(),
            Arg::Null => "null".into(),
            Arg::Bool(b) => b.to_string(),
            Arg::Number(n) => number::show(*n),
            Arg::Str(s) => crate::write::json(s),
            Arg::Function => "a function".into(),
            Arg::Other(s) => s.clone(),
        }
    }

    /// An optional callback: absent and `null` both mean "none" (everywhere:
    /// `onError`, `onRecord`, `clock`, ...); anything but a function is refused.
    pub fn callback(&self, what: &str) -> Result<bool> {
        match self {
            Arg::Absent | Arg::Null => Ok(false),
            Arg::Function => Ok(true),
            other => Err(Error::invalid_argument(format!("{what} must be a function, got {}", other.shown()))),
        }
    }

    /// An optional run id: absent and `null` mean "none"; else a non-empty string.
    pub fn run_id(&self, what: &str) -> Result<Option<String>> {
        match self {
            Arg::Absent | Arg::Null => Ok(None),
            Arg::Str(s) if !s.is_empty() => Ok(Some(s.clone())),
            Arg::Str(_) => Err(Error::invalid_argument(format!("{what} must not be empty"))),
            other => Err(Error::invalid_argument(format!("{what} must be a string, got {}", other.shown()))),
        }
    }

    /// An optional whole count (`maxAgeCalls`): `default` when absent.
    pub fn count_or(&self, default: u64, what: &str) -> Result<u64> {
        match self {
            Arg::Absent => Ok(default),
            Arg::Number(n) => number::safe_count(*n, what),
            other => Err(Error::invalid_argument(format!("{what} must be a number, got {}", other.shown()))),
        }
    }
}

/// The error for a clock that answered something that is not a time.
pub fn clock_error(ms: f64) -> Error {
    Error::new(
        ErrorCode::CallbackFailed,
        format!("clock returned {}; expected milliseconds since the epoch (what Date.now() returns)", number::show(ms)),
    )
}

/// A clock reading, refused when it is not a time since the epoch that a
/// JS `Date` can hold (finite, from 0 to 8.64e15 ms): every stamp stays an
/// exact JS integer, and records store whole unsigned milliseconds. The one
/// rule for every clock: a recorder's, a pipeline's, a run's.
pub fn check_clock(ms: f64) -> Result<f64> {
    if (0.0..=number::MAX_TIME_MS).contains(&ms) {
        Ok(ms)
    } else {
        Err(clock_error(ms))
    }
}

/// An options object read as JSON: its keys checked against the ones a
/// function reads (an unknown key is refused, naming the nearest), each
/// value read by one of these rules, null and absent alike meaning "not
/// given", every error naming `{place}.{key}`.
pub struct Opts<'a> {
    map: &'a serde_json::Map<String, serde_json::Value>,
    place: &'a str,
}

static EMPTY: std::sync::OnceLock<serde_json::Map<String, serde_json::Value>> = std::sync::OnceLock::new();

impl<'a> Opts<'a> {
    /// `v` an object (or null: no options) with keys among `allowed`; `shape` says what it should be.
    pub fn new(v: &'a serde_json::Value, allowed: &[&str], place: &'a str, shape: &str) -> Result<Opts<'a>> {
        let map = match v {
            serde_json::Value::Object(o) => o,
            serde_json::Value::Null => EMPTY.get_or_init(serde_json::Map::new),
            other => return Err(Error::invalid_argument(format!("{place} must be {shape}, got {}", number::show_value(other)))),
        };
        crate::options::check_keys(map.keys().map(String::as_str), allowed, place)?;
        Ok(Opts { map, place })
    }

    /// The value of `key`, unless absent or null.
    pub fn get(&self, key: &str) -> Option<&'a serde_json::Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn wrong(&self, key: &str, what: &str, got: &serde_json::Value) -> Error {
        Error::invalid_argument(format!("{}.{key} must be {what}, got {}", self.place, number::show_value(got)))
    }

    pub fn string(&self, key: &str) -> Result<Option<String>> {
        self.get(key).map(|v| v.as_str().map(str::to_owned).ok_or_else(|| self.wrong(key, "a string", v))).transpose()
    }

    pub fn flag(&self, key: &str, default: bool) -> Result<bool> {
        self.get(key).map_or(Ok(default), |v| v.as_bool().ok_or_else(|| self.wrong(key, "true or false", v)))
    }

    /// A whole number from 0 to 2^53 - 1.
    pub fn count(&self, key: &str) -> Result<Option<u64>> {
        let what = format!("a whole number from 0 to {}", number::MAX_SAFE_INTEGER);
        self.get(key)
            .map(|v| v.as_f64().filter(|n| number::safe_count(*n, "").is_ok()).map(|n| n as u64).ok_or_else(|| self.wrong(key, &what, v)))
            .transpose()
    }

    /// One of `table`'s words, as its value.
    pub fn word<T: Copy>(&self, key: &str, table: &[(&str, T)]) -> Result<Option<T>> {
        let names = || table.iter().map(|(n, _)| format!("'{n}'")).collect::<Vec<_>>().join(", ");
        self.get(key)
            .map(|v| {
                v.as_str()
                    .and_then(|s| table.iter().find(|(n, _)| *n == s))
                    .map(|(_, t)| *t)
                    .ok_or_else(|| self.wrong(key, &format!("one of {}", names()), v))
            })
            .transpose()
    }
}

/// A host value's JSON text, as `JSON.stringify` writes it, with each
/// lone half of a UTF-16 pair (`\ud83d`, as a string cut inside an emoji
/// leaves) as U+FFFD, the character `String.prototype.toWellFormed` puts
/// there: no Rust string holds a lone surrogate, and a record refused for
/// one is a record lost. `JSON.stringify` escapes a surrogate only when it
/// is alone (a whole pair it writes as the character), so every `\ud8`-`\udf`
/// escape in its text is one; `\\` is an escaped backslash, not an escape.
pub fn well_formed(json: String) -> String {
    let mut b = json.into_bytes();
    let mut i = 0;
    while i + 5 < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b[i + 1] == b'u' && b[i + 2] == b'd' && matches!(b[i + 3], b'8'..=b'9' | b'a'..=b'f') {
            b[i + 2..i + 6].copy_from_slice(b"fffd");
        }
        i += 2;
    }
    // ASCII replaced by ASCII: the text is UTF-8 still.
    String::from_utf8(b).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_surrogate_escape_becomes_the_replacement_character() {
        // As JSON.stringify writes "a😀".slice(0, 2) and "😀".slice(1); an escaped backslash and other escapes stay.
        let fixed = |s: &str| well_formed(s.to_owned());
        assert_eq!(fixed(r#"{"a":"a\ud83d","b":"\ude00x"}"#), r#"{"a":"a\ufffd","b":"\ufffdx"}"#);
        assert_eq!(fixed(r#"["😀","\\ud83d","\u00e9","\ud7ff"]"#), r#"["😀","\\ud83d","\u00e9","\ud7ff"]"#);
        let read: serde_json::Value = serde_json::from_str(&fixed(r#"{"t":"cut \ud83d"}"#)).unwrap();
        assert_eq!(read["t"], "cut \u{fffd}");
    }

    #[test]
    fn null_and_absent_callbacks_are_none_and_others_are_refused() {
        assert!(!Arg::Absent.callback("onError").unwrap());
        assert!(!Arg::Null.callback("onError").unwrap());
        assert!(Arg::Function.callback("onError").unwrap());
        let e = Arg::Str("x".into()).callback("onError").unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidArgument, "onError must be a function, got \"x\""));
    }

    #[test]
    fn a_clock_reading_is_a_time_since_the_epoch() {
        for ok in [0.0, 1_700_000_000_000.0, number::MAX_TIME_MS] {
            assert_eq!(check_clock(ok).unwrap(), ok);
        }
        for bad in [-1.0, -5.0, f64::NAN, f64::INFINITY, number::MAX_TIME_MS + 1.0, 1e308] {
            let e = check_clock(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::CallbackFailed, "{bad}");
            assert!(e.message.starts_with(&format!("clock returned {}; expected milliseconds since the epoch", number::show(bad))), "{}", e.message);
        }
    }

    #[test]
    fn a_run_id_is_a_non_empty_string() {
        assert_eq!(Arg::Str("r".into()).run_id("runId").unwrap().as_deref(), Some("r"));
        assert_eq!(Arg::Null.run_id("runId").unwrap(), None);
        assert_eq!(Arg::Str(String::new()).run_id("runId").unwrap_err().message, "runId must not be empty");
        assert_eq!(Arg::Number(1.0).run_id("runId").unwrap_err().message, "runId must be a string, got 1");
    }

    #[test]
    fn a_count_has_its_default_and_must_be_whole() {
        assert_eq!(Arg::Absent.count_or(20, "maxAgeCalls").unwrap(), 20);
        assert_eq!(Arg::Number(3.0).count_or(20, "maxAgeCalls").unwrap(), 3);
        assert!(Arg::Number(1.5).count_or(20, "maxAgeCalls").is_err());
        assert!(Arg::Null.count_or(20, "maxAgeCalls").is_err());
    }
}
