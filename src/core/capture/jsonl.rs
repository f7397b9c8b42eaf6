//! JSONL: one record per line. Reading tolerates CRLF, a trailing newline
//! and blank lines; a bad line is an error naming its 1-based number, or,
//! leniently, a reported bad line among the good records.

use serde::Serialize;

use super::record::TrajectoryRecord;
use super::seq::SeqCheck;
use crate::error::{Error, Result};

/// Appends one record and its `\n`.
pub fn write_line(out: &mut String, record: &TrajectoryRecord) {
    crate::write::json_into(out, record);
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
    // A byte-order mark, as some editors save files, is not part of line 1.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l))).filter(|(_, l)| !l.trim().is_empty())
}

/// An error about line `n`, its message starting with the line.
fn on_line(n: usize, e: Error) -> Error {
    Error::new(e.code, format!("line {n}: {}", e.message)).at_line(n)
}

fn parse_line(n: usize, line: &str) -> Result<TrajectoryRecord> {
    TrajectoryRecord::from_json(line).map_err(|e| on_line(n, e))
}

/// Strict: the first bad line, or the first gap in a run's seq, is the error.
pub fn parse(text: &str) -> Result<Vec<TrajectoryRecord>> {
    let mut seqs = SeqCheck::default();
    lines(text)
        .map(|(n, l)| {
            let r = parse_line(n, l)?;
            seqs.check(n, r.run_id.as_deref(), r.seq).map_err(|e| on_line(n, e))?;
            Ok(r)
        })
        .collect()
}

/// Lenient: every good record, plus every bad line and every seq gap with
/// why (a gap is listed on the line where it shows; that record is kept).
pub fn parse_lenient(text: &str) -> (Vec<TrajectoryRecord>, Vec<BadLine>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    let mut seqs = SeqCheck::default();
    for (n, l) in lines(text) {
        match parse_line(n, l) {
            Ok(r) => {
                if let Err(e) = seqs.check(n, r.run_id.as_deref(), r.seq) {
                    let e = on_line(n, e);
                    bad.push(BadLine { line: n, code: e.code.as_str(), message: e.message });
                }
                good.push(r)
            }
            Err(e) => bad.push(BadLine { line: n, code: e.code.as_str(), message: e.message }),
        }
    }
    (good, bad)
}
