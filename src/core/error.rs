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
    /// The simulated user kept answering with something that is not the
    /// user speaking (its reasoning, the assistant's voice, a repeat).
    SimulatorIssue,
    /// A record stream skips, repeats or reorders a run's `seq`: a record is missing.
    SeqGap,
    /// A virtual-filesystem path escapes the root, is a host path, holds NUL or is too long.
    VfsPath,
    /// A virtual-filesystem file, or all of them, would pass a size cap.
    VfsLimit,
}

impl ErrorCode {
    /// Every code, for reading one back from its string.
    pub const ALL: [ErrorCode; 18] = [
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
        ErrorCode::SimulatorIssue,
        ErrorCode::SeqGap,
        ErrorCode::VfsPath,
        ErrorCode::VfsLimit,
    ];

    pub fn parse(s: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// When a caller meets it, in the caller's words: the docs' error table
    /// is generated from these.
    pub fn when(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "an option or call is out of range (unknown `onSinkError`, a sink without `record`, a record after `run_ended`)",
            ErrorCode::InvalidMessage => "a message matches no accepted shape (`messages[3]: content[0]: …`)",
            ErrorCode::InvalidRecord => "a payload or record does not match the schema",
            ErrorCode::UnsupportedSchemaVersion => "a record is newer than this reader",
            ErrorCode::JsonlParse => "a JSONL line is not JSON (`err.line`)",
            ErrorCode::SinkFailed => "a sink threw or rejected, or a file could not be written (`writeArtifacts`, `writeViewerHtml`, the command line's reports; the system's error is `cause`)",
            ErrorCode::CallbackFailed => "a host callback (the clock, a model, the agent, a JS observer, a policy) threw or returned garbage",
            ErrorCode::NotInitialized => {
                "browser entry used before `await init()`, or `init()` could not load the `.wasm`, or the viewer could not read the package's own files (a 404, a bundle without the files; the load's own error is `cause`)"
            }
            ErrorCode::Busy => "an object was used re-entrantly from inside its own callback (e.g. `recordToolCall` from an observer)",
            ErrorCode::Internal => "a bug of this package; please report it",
            ErrorCode::InvalidTrajectory => {
                "a trajectory definition breaks a rule (duplicate or unknown step id, a precondition cycle, an unreachable terminal, a misspelt key); `err.stepId` names the step"
            }
            ErrorCode::Timeout => {
                "a model call passed its deadline without an answer (a step's `timeoutMs`, or the run's `callTimeoutMs`, default two minutes)"
            }
            ErrorCode::EmptyUserMessage => "the simulated user answered with empty text, and again on every retry (`simulator.retries`)",
            ErrorCode::SimulatorIssue => "the simulated user's replies kept failing the simulator checks (its reasoning, the assistant's voice, a repeat)",
            ErrorCode::ReplayMiss => "a replayed model was asked something its recording does not hold (with a diff)",
            ErrorCode::SeqGap => "a record stream skips, repeats or reorders a run's `seq`: a record is missing",
            ErrorCode::VfsPath => "a background run's file path escapes the root, is absolute, holds a NUL or is too long",
            ErrorCode::VfsLimit => "a background run's file or filesystem is over its size cap",
        }
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
            ErrorCode::SimulatorIssue => "SIMULATOR_ISSUE",
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

/// A serde_json error about JSON text made from a JS value, in JS terms:
/// no "line 1 column 70" (of a text the caller never saw), no Rust names.
/// Typed values are read by [`crate::read`], whose errors name the
/// key; what reaches serde_json is only ever read as a `Value` (or a list
/// of raw values), so its errors are about the text's overall shape.
pub fn plain_serde(e: &serde_json::Error) -> String {
    let mut m = e.to_string();
    // What serde says of an escaped half of a UTF-16 pair (JSON.stringify
    // writes a lone surrogate as `\ud800`), which no Rust string holds.
    if m.starts_with("unexpected end of hex escape") || m.starts_with("lone leading surrogate in hex escape") {
        return "a string holds half of a UTF-16 surrogate pair (a lone surrogate, as a cut emoji leaves), which JSON text cannot carry: make the string whole (String.prototype.toWellFormed)".to_owned();
    }
    if let Some(at) = m.rfind(" at line ") {
        m.truncate(at);
    }
    // "ident" is the parser's word for a `null`, `true` or `false` begun and not finished.
    m.replace("expected ident", "expected value")
        .replace("expected a sequence", "expected an array")
        .replace("expected a map", "expected an object")
        .replace('`', "\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_errors_read_in_js_terms() {
        let e = serde_json::from_str::<Vec<serde_json::Value>>(r#"{"a":1}"#).unwrap_err();
        assert_eq!(plain_serde(&e), "invalid type: map, expected an array");
        let e = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        assert_eq!(plain_serde(&e), "EOF while parsing an object");
        let e = serde_json::from_str::<serde_json::Value>("nope").unwrap_err();
        assert_eq!(plain_serde(&e), "expected value", "not the parser's word for a literal");
        // A lone surrogate, as JSON.stringify escapes it, is said as what it is.
        for text in [r#"{"a":"x\ud83d"}"#, r#""\udc00""#, r#""\ud800\u0041""#] {
            let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            assert!(plain_serde(&e).starts_with("a string holds half of a UTF-16 surrogate pair"), "{text}: {}", plain_serde(&e));
        }
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
