//! One error type for the whole library. Each variant of [`ErrorCode`] has a
//! stable string code that JS callers can switch on; the message says where
//! (which line, which field, which record) as well as what.

use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// Stable error codes. Never renumber or rename: JS code matches on
/// [`ErrorCode::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A caller passed a value of the wrong shape or range.
    InvalidArgument,
    /// A message did not match any accepted message shape.
    InvalidMessage,
    /// A trajectory record (or payload) did not match the schema.
    InvalidRecord,
    /// A record carries a schema version newer than this reader knows.
    UnsupportedSchemaVersion,
    /// A JSONL line could not be parsed.
    JsonlParse,
    /// A sink refused or failed to store a record.
    SinkFailed,
    /// A host callback (clock, model, observer, agent) threw or returned garbage.
    CallbackFailed,
    /// The package was used before its WebAssembly module was initialised.
    NotInitialized,
    /// A second operation started while one was still running on the same object.
    Busy,
    /// An invariant of the library itself broke; always a bug worth reporting.
    Internal,
    /// A trajectory definition broke a rule (duplicate or unknown step id,
    /// precondition cycle, unreachable terminal, bad number); `stepId` names the step.
    InvalidTrajectory,
    /// A host callback did not answer within its time limit (a step's `timeoutMs`).
    Timeout,
    /// The simulated user produced an empty message, even after a reminder.
    EmptyUserMessage,
    /// A replayed model was asked something the recording does not hold.
    ReplayMiss,
    /// A record stream skips, repeats or reorders a run's `seq`: a record is missing.
    SeqGap,
    /// A virtual-filesystem path escapes the root, is a host path, holds NUL or is too long.
    VfsPath,
    /// A virtual-filesystem file, or all of them, would pass a size cap.
    VfsLimit,
}

impl ErrorCode {
    /// Every code, for reading one back from its string.
    pub const ALL: [ErrorCode; 17] = [
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidMessage,
        ErrorCode::InvalidRecord,
        ErrorCode::UnsupportedSchemaVersion,
        ErrorCode::JsonlParse,
        ErrorCode::SinkFailed,
        ErrorCode::CallbackFailed,
        ErrorCode::NotInitialized,
        ErrorCode::Busy,
        ErrorCode::Internal,
        ErrorCode::InvalidTrajectory,
        ErrorCode::Timeout,
        ErrorCode::EmptyUserMessage,
        ErrorCode::ReplayMiss,
        ErrorCode::SeqGap,
        ErrorCode::VfsPath,
        ErrorCode::VfsLimit,
    ];

    pub fn parse(s: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidMessage => "INVALID_MESSAGE",
            ErrorCode::InvalidRecord => "INVALID_RECORD",
            ErrorCode::UnsupportedSchemaVersion => "UNSUPPORTED_SCHEMA_VERSION",
            ErrorCode::JsonlParse => "JSONL_PARSE",
            ErrorCode::SinkFailed => "SINK_FAILED",
            ErrorCode::CallbackFailed => "CALLBACK_FAILED",
            ErrorCode::NotInitialized => "NOT_INITIALIZED",
            ErrorCode::Busy => "BUSY",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::InvalidTrajectory => "INVALID_TRAJECTORY",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::EmptyUserMessage => "EMPTY_USER_MESSAGE",
            ErrorCode::ReplayMiss => "REPLAY_MISS",
            ErrorCode::SeqGap => "SEQ_GAP",
            ErrorCode::VfsPath => "VFS_PATH",
            ErrorCode::VfsLimit => "VFS_LIMIT",
        }
    }
}

/// An error with a stable code, a message that says where, and optional
/// location data (a 1-based JSONL line) that the binding copies onto the JS
/// `Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    /// 1-based line number, for errors that come from a line-oriented input.
    pub line: Option<usize>,
    /// The step of a trajectory the error is about, when there is one.
    pub step_id: Option<String>,
    /// What a host callback threw, carried untouched to the JS error's
    /// `cause` (stack and type intact). Opaque to the core.
    pub cause: Option<Cause>,
}

/// A host value the core carries without looking inside (the binding puts a JS
/// value here). Equal to any other cause: errors compare by what they say.
#[derive(Clone)]
pub struct Cause(pub Rc<dyn Any>);

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cause(..)")
    }
}

impl PartialEq for Cause {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), line: None, step_id: None, cause: None }
    }

    pub fn caused_by(mut self, cause: Cause) -> Self {
        self.cause = Some(cause);
        self
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }

    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    pub fn at_step(mut self, step_id: &str) -> Self {
        self.step_id = Some(step_id.to_owned());
        self
    }

    /// Prefixes the message with a location (`"payload.message"`), keeping
    /// the code, so nested validation errors read from the outside in.
    pub fn within(mut self, place: &str) -> Self {
        self.message = format!("{place}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// [`plain_serde`] of an error reading `text` (one line of JSON), with the
/// key whose value it is about: `"repeatThreshold: invalid value: ..."`.
/// serde_json names no field, but its column ends at the bad value, and the
/// last `"key":` before it is that value's key.
pub fn serde_error_in(text: &str, e: &serde_json::Error) -> String {
    let message = plain_serde(e);
    if message.starts_with("unknown option") || e.line() != 1 {
        return message; // names its key already / not the one-line text we wrote
    }
    let before = text.get(..e.column().min(text.len())).unwrap_or_default();
    let key = before.rfind("\":").and_then(|end| before[..end].rfind('"').map(|start| &before[start + 1..end]));
    match key {
        Some(k) if !k.is_empty() => format!("{k}: {message}"),
        _ => message,
    }
}

/// A serde_json error about data that came from a JS object, in JS terms:
/// no "line 1 column 70" (of a JSON text the caller never saw), no Rust
/// type names (`u64`, `struct Budget`, `sequence`).
pub fn plain_serde(e: &serde_json::Error) -> String {
    let mut m = e.to_string();
    if let Some(at) = m.rfind(" at line ") {
        m.truncate(at);
    }
    // "unknown field `windw`, expected one of `name`, `window`, ..." reads
    // as every other unknown key does, naming the nearest valid one.
    if let Some(rest) = m.strip_prefix("unknown field `") {
        let names: Vec<&str> = rest.split('`').skip(2).step_by(2).collect();
        if let Some(key) = rest.split('`').next().filter(|_| !names.is_empty()) {
            return super::options::unknown_key_message(key, &names, "").trim_start_matches(": ").to_owned();
        }
    }
    for (rust, js) in [
        ("expected u64", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected usize", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected an object"),
    ] {
        m = m.replace(rust, js);
    }
    // A number is shown bare: "floating point `1e+300`" -> "the number 1e+300".
    for kind in ["floating point `", "integer `"] {
        while let Some(at) = m.find(kind) {
            let rest = &m[at + kind.len()..];
            let Some(close) = rest.find('`') else { break };
            let number = rest[..close].to_owned();
            m.replace_range(at..at + kind.len() + close + 1, &format!("the number {number}"));
        }
    }
    if let Some(at) = m.find("expected struct ") {
        let end = m[at..].find([',', ';']).map_or(m.len(), |i| at + i);
        m.replace_range(at..end, "expected an object");
    }
    // NaN and ±Infinity cross from JS as strings (JSON has no such numbers).
    for n in ["NaN", "Infinity", "-Infinity"] {
        m = m.replace(&format!("invalid type: string \"{n}\""), &format!("invalid value: the number {n}"));
    }
    m.replace('`', "\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_errors_read_in_js_terms() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Budget {
            max_tokens: u64,
        }
        let e = serde_json::from_str::<Budget>(r#"{"max_tokens":1e300}"#).unwrap_err();
        assert_eq!(plain_serde(&e), "invalid type: the number 1e+300, expected a whole number");
        let e = serde_json::from_str::<Budget>("null").unwrap_err();
        assert_eq!(plain_serde(&e), "invalid type: null, expected an object");
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        #[allow(dead_code)]
        struct Opts {
            window: Option<u64>,
            target_window: Option<u64>,
        }
        let e = serde_json::from_str::<Opts>(r#"{"windw":1}"#).unwrap_err();
        assert_eq!(plain_serde(&e), "unknown option \"windw\"; did you mean \"window\"? (valid: window, targetWindow)");
    }

    #[test]
    fn serde_errors_name_the_key_of_the_bad_value() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        #[allow(dead_code)]
        struct Stall {
            #[serde(default)]
            window: u32,
            #[serde(default)]
            repeat_threshold: u32,
        }
        let read = |text: &str| serde_error_in(text, &serde_json::from_str::<Stall>(text).unwrap_err());
        assert_eq!(read(r#"{"window":8,"repeatThreshold":-1}"#), "repeatThreshold: invalid value: the number -1, expected a whole number");
        assert_eq!(read(r#"{"window":"Infinity"}"#), "window: invalid value: the number Infinity, expected a whole number");
        assert_eq!(read(r#"{"windw":8}"#), "unknown option \"windw\"; did you mean \"window\"? (valid: window, repeatThreshold)");
    }

    #[test]
    fn codes_are_stable_strings() {
        assert_eq!(ErrorCode::JsonlParse.as_str(), "JSONL_PARSE");
        assert_eq!(ErrorCode::UnsupportedSchemaVersion.as_str(), "UNSUPPORTED_SCHEMA_VERSION");
        let e = Error::new(ErrorCode::InvalidRecord, "bad").within("payload").at_line(3);
        assert_eq!(e.to_string(), "[INVALID_RECORD] payload: bad");
        assert_eq!(e.line, Some(3));
    }
}
