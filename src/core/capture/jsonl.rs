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
    if line == UNREADABLE {
        return Err(on_line(n, Error::new(crate::ErrorCode::JsonlParse, NOT_UTF8)));
    }
    TrajectoryRecord::from_json(line).map_err(|e| on_line(n, e))
}

/// What the parser and the index say of a line that is not UTF-8 text.
pub const NOT_UTF8: &str = "the line is not UTF-8 text";

/// Stands in, in [`text_of`]'s text, for a line that was not UTF-8: no
/// JSONL line reads as it (a NUL, then a noncharacter).
const UNREADABLE: &str = "\u{0}\u{fffe}";

/// JSONL bytes as text for [`parse`] and [`parse_lenient`]: a line that is
/// not UTF-8 becomes a bad line, numbered as in the bytes.
pub fn text_of(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let bytes = e.into_bytes();
            let lines: Vec<&str> = bytes.split(|b| *b == b'\n').map(|l| std::str::from_utf8(l).unwrap_or(UNREADABLE)).collect();
            lines.join("\n")
        }
    }
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
            Err(e) => {
                // A refused line still counts in its run's seq when its seq
                // can be read, as the index counts it: the next line is then
                // no false gap (its own gap goes unsaid: it is bad already).
                if let Ok(serde_json::Value::Object(o)) = serde_json::from_str(l) {
                    if let Some(seq) = o.get("seq").and_then(serde_json::Value::as_u64) {
                        let _ = seqs.check(n, o.get("run_id").and_then(serde_json::Value::as_str), seq);
                    }
                }
                bad.push(BadLine { line: n, code: e.code.as_str(), message: e.message })
            }
        }
    }
    (good, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"schema_version":1,"seq":0,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}"#;

    #[test]
    fn a_line_of_bytes_that_is_not_utf8_is_a_bad_line_numbered() {
        let next = LINE.replace("\"seq\":0", "\"seq\":1");
        let bytes = |middle: &[u8]| [LINE.as_bytes(), b"\n", middle, b"\n", next.as_bytes(), b"\n"].concat();
        // Strict: the line, by number, in the index's words.
        let e = parse(&text_of(bytes(b"\xff\xfe"))).unwrap_err();
        assert_eq!((e.code, e.line, e.message.as_str()), (crate::ErrorCode::JsonlParse, Some(2), "line 2: the line is not UTF-8 text"));
        // An earlier bad line is said first.
        assert_eq!(parse(&text_of([b"{\n".as_slice(), &bytes(b"\xff")].concat())).unwrap_err().line, Some(1));
        // Lenient: the others are read; the bad line is listed in line order.
        let (good, bad) = parse_lenient(&text_of([&bytes(b"\xff")[..], b"oops\n"].concat()));
        assert_eq!(good.len(), 2);
        assert_eq!(bad.iter().map(|b| b.line).collect::<Vec<_>>(), [2, 4]);
        assert_eq!(bad[0].message, "line 2: the line is not UTF-8 text");
        // Valid bytes read as their text does.
        assert_eq!(text_of(bytes(b"")), std::str::from_utf8(&bytes(b"")).unwrap());
    }

    #[test]
    fn a_refused_line_with_a_seq_still_counts_in_its_run_for_the_parser_and_the_index_alike() {
        let line = |seq: u32, kind: &str| LINE.replace("\"seq\":0", &format!("\"seq\":{seq}")).replace("turn_started", kind);
        let text = [line(0, "turn_started"), line(1, "tool_startd"), line(2, "turn_started"), line(4, "turn_started")].join("\n");
        let (good, bad) = parse_lenient(&text);
        assert_eq!(good.len(), 3);
        let said: Vec<(usize, &str)> = bad.iter().map(|b| (b.line, b.code)).collect();
        // The unknown kind is refused; seq 2 follows it, and only seq 3 is missing.
        assert_eq!(said, [(2, "INVALID_RECORD"), (4, "SEQ_GAP")]);
        assert!(bad[1].message.ends_with("seq 3 is missing"), "{}", bad[1].message);
        // A line refused for a field of the wrong kind, by the index too.
        let wrong =
            [line(0, "turn_started"), LINE.replace("\"seq\":0", "\"seq\":1").replace("\"depth\":0", "\"depth\":\"deep\""), line(2, "turn_started")]
                .join("\n");
        let ix = crate::index::TrajectoryIndex::from_bytes(wrong.clone().into_bytes());
        let (_, bad) = parse_lenient(&wrong);
        assert_eq!((ix.problems.iter().map(|p| p.line).collect::<Vec<_>>(), bad.iter().map(|b| b.line).collect::<Vec<_>>()), (vec![2], vec![2]));
    }
}
