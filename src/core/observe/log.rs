//! The tool-call log: every call, in order, with the counters triggers need
//! kept incrementally, so no per-call work scans the history.

use std::collections::HashMap;
use std::rc::Rc;

use serde::Serialize;

use super::fingerprint::{file_op, hash_str, mix, normalize_error, param_facts, FastBuild, FileOp};
use crate::error::{Error, Result};
use crate::number::quoted;
use crate::value::check_clock;

/// One call as the host reports it. `params_json` is the params as JSON text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallInput {
    pub tool_name: String,
    pub params_json: Option<String>,
    pub params_summary: Option<String>,
    pub success: bool,
    pub error_message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    pub tool_name: Rc<str>,
    pub params_summary: Rc<str>,
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Milliseconds since the epoch, from the injected clock.
    pub timestamp: f64,
    /// From 1, monotonic.
    pub call_index: u64,
}

/// A 64-bit fingerprint. Serialised as hex text: JSON numbers lose bits past 2^53.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fp(pub u64);

impl Serialize for Fp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0))
    }
}

/// What detectors compare one call by; computed once per call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFacts {
    pub call_index: u64,
    pub tool_name: Rc<str>,
    /// Shared with the log record.
    pub summary: Rc<str>,
    /// Tool name + canonical params.
    pub call_fp: Fp,
    /// 0 for success, else the normalised error's hash.
    pub outcome_fp: Fp,
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Rc<str>>,
    /// Tool name + (path, or canonical params when there is no path).
    pub target_fp: Fp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Rc<str>>,
    /// Hash of `path` (0 without one): compared instead of the text.
    pub path_fp: Fp,
    pub op: FileOp,
}

impl CallFacts {
    /// `tool(summary)`, for evidence; built only when an assessment cites the call.
    pub fn label(&self) -> String {
        format!("{}({})", self.tool_name, self.summary)
    }
}

const SUMMARY_CHARS: usize = 80;

/// The default params summary: the path of file operations, else compact JSON cut to ~80 chars.
fn summarize_params(json: &str, path: Option<&Rc<str>>) -> Rc<str> {
    if let Some(p) = path {
        return p.clone();
    }
    match json.char_indices().nth(SUMMARY_CHARS) {
        Some((cut, _)) => Rc::from(format!("{}…", &json[..cut])),
        None => Rc::from(json),
    }
}

/// What is fixed per tool name, worked out once per distinct name.
#[derive(Debug, Clone, Copy)]
struct ToolInfo {
    name_hash: u64,
    op: FileOp,
}

#[derive(Debug, Clone, Default)]
pub struct ToolLog {
    records: Vec<ToolCallRecord>,
    /// One shared name per distinct tool (a long log repeats few names),
    /// with what is fixed per name.
    names: HashMap<Rc<str>, ToolInfo, FastBuild>,
    consecutive_failures: u64,
}

impl ToolLog {
    pub fn from_records(records: Vec<ToolCallRecord>) -> Result<ToolLog> {
        let mut log = ToolLog::default();
        for (i, mut r) in records.into_iter().enumerate() {
            if r.call_index != i as u64 + 1 {
                return Err(Error::invalid_argument(format!("snapshot log[{i}] has call_index {}, expected {}", r.call_index, i + 1)));
            }
            r.tool_name = log.intern(&r.tool_name).0;
            log.consecutive_failures = if r.success { 0 } else { log.consecutive_failures + 1 };
            log.records.push(r);
        }
        Ok(log)
    }

    fn intern(&mut self, name: &str) -> (Rc<str>, ToolInfo) {
        if let Some((k, info)) = self.names.get_key_value(name) {
            return (k.clone(), *info);
        }
        let k: Rc<str> = Rc::from(name);
        let info = ToolInfo { name_hash: hash_str(name), op: file_op(name, None) };
        self.names.insert(k.clone(), info);
        (k, info)
    }

    /// Checks a call before anything changes (a refused call leaves no trace).
    pub fn validate(input: &ToolCallInput, now_ms: f64) -> Result<()> {
        if input.tool_name.trim().is_empty() {
            return Err(Error::invalid_argument("recordToolCall: toolName must be a non-empty string"));
        }
        check_clock(now_ms).map(drop)
    }

    /// Appends a validated call and returns what detectors need of it.
    pub fn push(&mut self, input: ToolCallInput, now_ms: f64) -> CallFacts {
        let params = input.params_json.as_deref().unwrap_or("");
        let facts = if params.is_empty() { Default::default() } else { param_facts(params) };
        let (tool_name, info) = self.intern(&input.tool_name);
        let name_hash = info.name_hash;
        let path = facts.path;
        let path_fp = path.as_deref().map_or(0, |p| mix(8, hash_str(p)));
        let params_summary = match input.params_summary {
            Some(s) => Rc::from(s),
            None => summarize_params(params, path.as_ref()),
        };
        let call_index = self.records.len() as u64 + 1;
        let error: Option<Rc<str>> = (!input.success).then(|| Rc::from(normalize_error(input.error_message.as_deref().unwrap_or(""))));
        // Editor tools say read or write in their `command`; others by name (cached).
        let op = match facts.command.as_deref() {
            Some(c) => file_op(&tool_name, Some(c)),
            None => info.op,
        };
        let out = CallFacts {
            call_index,
            tool_name: tool_name.clone(),
            summary: params_summary.clone(),
            call_fp: Fp(mix(name_hash, facts.hash)),
            outcome_fp: Fp(error.as_deref().map_or(0, |e| mix(7, hash_str(e)))),
            success: input.success,
            error,
            target_fp: Fp(mix(name_hash, if path_fp == 0 { facts.hash } else { path_fp })),
            path_fp: Fp(path_fp),
            op,
            path,
        };
        self.consecutive_failures = if input.success { 0 } else { self.consecutive_failures + 1 };
        self.records.push(ToolCallRecord {
            tool_name,
            params_summary,
            success: input.success,
            error_message: input.error_message,
            timestamp: now_ms,
            call_index,
        });
        out
    }

    /// Drops the calls after the first `len` (undoing a call whose
    /// assessment could not be recorded); `consecutive_failures` is the
    /// counter as it was then.
    pub fn truncate(&mut self, len: usize, consecutive_failures: u64) {
        self.records.truncate(len);
        self.consecutive_failures = consecutive_failures;
    }

    pub fn len(&self) -> u64 {
        self.records.len() as u64
    }
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    pub fn records(&self) -> &[ToolCallRecord] {
        &self.records
    }
    pub fn consecutive_failures(&self) -> u64 {
        self.consecutive_failures
    }

    /// The last `n` calls (fewer if the log is shorter).
    pub fn recent(&self, n: usize) -> &[ToolCallRecord] {
        &self.records[self.records.len().saturating_sub(n)..]
    }

    /// Calls at or after `since_ms`; a binary search, as the clock only moves forward.
    pub fn since(&self, since_ms: f64) -> &[ToolCallRecord] {
        let start = self.records.partition_point(|r| r.timestamp < since_ms);
        &self.records[start..]
    }

    /// Failed share of the last `window` calls; 0 with no calls.
    pub fn error_rate(&self, window: usize) -> f64 {
        let recent = self.recent(window);
        if recent.is_empty() {
            return 0.0;
        }
        recent.iter().filter(|r| !r.success).count() as f64 / recent.len() as f64
    }
}

from_json_struct!(ToolCallRecord {
    tool_name: "toolName",
    params_summary: "paramsSummary",
    success: "success",
    error_message: "errorMessage",
    timestamp: "timestamp",
    call_index: "callIndex",
});
from_json_struct!(CallFacts {
    call_index: "callIndex",
    tool_name: "toolName",
    summary: "summary",
    call_fp: "callFp",
    outcome_fp: "outcomeFp",
    success: "success",
    error: "error",
    target_fp: "targetFp",
    path: "path",
    path_fp: "pathFp",
    op: "op",
});

impl crate::read::FromJson for Fp {
    fn from_json(v: Option<serde_json::Value>, at: &crate::read::At) -> std::result::Result<Self, String> {
        let s = <String as crate::read::FromJson>::from_json(v, at)?;
        u64::from_str_radix(&s, 16).map(Fp).map_err(|_| format!("{at}: {s} is not a fingerprint (16 hex digits)", s = quoted(&s)))
    }
}
