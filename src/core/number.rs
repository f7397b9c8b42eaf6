//! Numbers that come from JS. A JS number is an f64: integers are exact
//! only up to 2^53 − 1, and a value past that cannot make the round trip
//! record → JSON → JS → record. So every integer the library reads is
//! refused above [`MAX_SAFE_INTEGER`] where it enters, never wrapped or
//! rounded later, and arithmetic on such values is checked.

use super::error::{Error, Result};

/// `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The largest time a JS `Date` can hold, in ms either side of the epoch.
pub const MAX_TIME_MS: f64 = 8.64e15;

/// A non-negative integer from a JS number, at most [`MAX_SAFE_INTEGER`];
/// `what` names the option in the error (`"maxAgeCalls"`).
pub fn safe_count(n: f64, what: &str) -> Result<u64> {
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER as f64 {
        Ok(n as u64)
    } else {
        Err(Error::invalid_argument(format!("{what} must be a whole number from 0 to {MAX_SAFE_INTEGER}, got {}", show(n))))
    }
}

/// `a + b`, refused past [`MAX_SAFE_INTEGER`] instead of wrapping.
pub fn checked_add(a: u64, b: u64, what: &str) -> Result<u64> {
    a.checked_add(b)
        .filter(|&s| s <= MAX_SAFE_INTEGER)
        .ok_or_else(|| Error::invalid_argument(format!("{what} would pass {MAX_SAFE_INTEGER} ({a} + {b})")))
}

/// A number as JS prints it (`1e+300`, `NaN`, `Infinity`, `-0` as `0`).
/// Through serde_json's shortest round-trip formatting, which the module
/// carries anyway: `core::fmt` for floats would add ~15 KB to it.
pub fn show(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n.fract() == 0.0 && n.abs() < 9.0e18 {
        return (n as i64).to_string();
    }
    // Prints exponents as JS does (`1e+300`, `1.5e-7`).
    serde_json::Number::from_f64(n).map(|x| x.to_string()).unwrap_or_default()
}

/// A value as a message shows it, the one rule for every message: numbers
/// as JS prints them, a string in its JSON form (a long one cut, with its
/// length: a whole JSON file passed where an object goes would fill the
/// message), NaN, ±Infinity and functions as the binding wrote them,
/// `true`, `false` and `null`, and an object or an array by its kind.
pub fn show_value(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Number(n) => show(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) if s.chars().count() > 80 => quoted(s),
        // NaN, ±Infinity and functions, as the binding wrote them.
        Value::String(s) if s.starts_with('[') || s.ends_with("Infinity") || s == "NaN" => s.clone(),
        Value::String(s) => crate::write::json(s),
        Value::Bool(b) => b.to_string(),
        other => crate::message::kind_of(other).to_owned(),
    }
}

/// A name or a word as a message quotes it (a run id, a key, a step id):
/// its JSON form, as a JS string shows and as [`show_value`] shows a
/// string; never Rust's debug form, which writes a control character as
/// `\u{1}` and escapes some letters (a combining accent) besides. A long
/// one is cut, with its length: a message names it, it does not hold it.
pub fn quoted(s: &str) -> String {
    match s.chars().count() {
        n @ 81.. => format!("{}… ({n} characters)", crate::write::json(&s.chars().take(60).collect::<String>())),
        _ => crate::write::json(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_quoted_as_js_shows_a_string_not_in_rusts_debug_form() {
        assert_eq!(quoted("run-1"), "\"run-1\"");
        assert_eq!(quoted(&"x".repeat(200_000)), format!("\"{}\"… (200000 characters)", "x".repeat(60)), "named, not held");
        // A control character, a quote, a backslash, a combining accent, an emoji.
        assert_eq!(quoted("a\u{1}\"\\e\u{301}\u{1F600}\n"), "\"a\\u0001\\\"\\\\e\u{301}\u{1F600}\\n\"");
        // As every message quotes a name of the caller's.
        assert_eq!(crate::options::unknown_key_message("r\u{1}", &["runId"], "o"), "o: unknown option \"r\\u0001\" (valid: runId)");
    }

    #[test]
    fn counts_stay_exact() {
        assert_eq!(safe_count(3.0, "n").unwrap(), 3);
        assert_eq!(safe_count(MAX_SAFE_INTEGER as f64, "n").unwrap(), MAX_SAFE_INTEGER);
        for bad in [1e300, -1.0, 0.5, f64::NAN, f64::INFINITY, 9_007_199_254_740_992.0] {
            let e = safe_count(bad, "maxAgeCalls").unwrap_err();
            assert!(e.message.starts_with("maxAgeCalls must be a whole number"), "{}", e.message);
        }
        assert!(safe_count(1e300, "x").unwrap_err().message.ends_with("got 1e+300"));
        assert_eq!((show(-0.0), show(2.5), show(1e-7), show(123.0)), ("0".into(), "2.5".into(), "1e-7".into(), "123".into()));
        assert!(checked_add(MAX_SAFE_INTEGER, 1, "tokensUsed").is_err());
        let long = serde_json::Value::String("x".repeat(25_000));
        assert_eq!(show_value(&long), format!("\"{}\"… (25000 characters)", "x".repeat(60)));
        assert_eq!(checked_add(2, 3, "x").unwrap(), 5);
    }

    #[test]
    fn a_value_is_shown_as_js_would_write_it() {
        use serde_json::json;
        // A string in its JSON form, not Rust's debug form ("\u{1}").
        assert_eq!(show_value(&json!("a\"b\u{1}é")), r#""a\"b\u0001é""#);
        assert_eq!(show_value(&json!(1e21)), "1e+21");
        assert_eq!(show_value(&json!("NaN")), "NaN");
        assert_eq!((show_value(&json!(true)), show_value(&json!(null))), ("true".into(), "null".into()));
        assert_eq!((show_value(&json!({ "a": 1 })), show_value(&json!([1]))), ("an object".into(), "an array".into()));
    }
}
