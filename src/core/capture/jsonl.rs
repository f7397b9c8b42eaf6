//! JSONL: one record per line. Reading tolerates CRLF, a trailing newline
//! and blank lines; a bad line is an error naming its 1-based number, or,
//! leniently, a reported bad line among the good records.

use serde::Serialize;

use super::record::TrajectoryRecord;
use crate::core::error::{Error, Result};

/// Appends one record and its `\n`.
pub fn write_line(out: &mut String, record: &TrajectoryRecord) {
    out.push_str(&record.to_json());
    out.push('\n');
}

pub fn serialize(records: &[TrajectoryRecord]) -> String {
    let mut out = String::with_capacity(records.len() * 160);
    for r in records {
        write_line(&mut out, r);
    }
    out
}

/// A line that failed to parse, under lenient reading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BadLine {
    pub line: usize,
    pub code: &'static str,
    pub message: String,
}

/// Iterates the non-blank lines with their 1-based numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty())
}

fn parse_line(n: usize, line: &str) -> Result<TrajectoryRecord> {
    TrajectoryRecord::from_json(line).map_err(|e| {
        let msg = format!("line {n}: {}", e.message);
        Error::new(e.code, msg).at_line(n)
    })
}

/// Strict: the first bad line is the error.
pub fn parse(text: &str) -> Result<Vec<TrajectoryRecord>> {
    lines(text).map(|(n, l)| parse_line(n, l)).collect()
}

/// Lenient: every good record, plus every bad line with why.
pub fn parse_lenient(text: &str) -> (Vec<TrajectoryRecord>, Vec<BadLine>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (n, l) in lines(text) {
        match parse_line(n, l) {
            Ok(r) => good.push(r),
            Err(e) => bad.push(BadLine { line: n, code: e.code.as_str(), message: e.message }),
        }
    }
    (good, bad)
}
