//! JSONL: one record per line. Reading tolerates CRLF, a trailing newline
//! and blank lines; a bad line is an error naming its 1-based number, or,
//! leniently, a reported bad line among the good records.

use std::collections::HashMap;

use serde::Serialize;

use super::record::TrajectoryRecord;
use crate::core::error::{Error, ErrorCode, Result};

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
    // A byte-order mark, as some editors save files, is not part of line 1.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l))).filter(|(_, l)| !l.trim().is_empty())
}

fn parse_line(n: usize, line: &str) -> Result<TrajectoryRecord> {
    TrajectoryRecord::from_json(line).map_err(|e| {
        let msg = format!("line {n}: {}", e.message);
        Error::new(e.code, msg).at_line(n)
    })
}

/// Follows each run's `seq` through a stream: every run starts at 0 and
/// goes up by one. A skipped, repeated or backward seq is exactly the lost
/// record the seq exists to reveal, so it is reported, naming the run and
/// the seq that is missing.
#[derive(Default)]
struct SeqCheck {
    next: HashMap<Option<String>, u64>,
}

impl SeqCheck {
    fn check(&mut self, n: usize, r: &TrajectoryRecord) -> Result<()> {
        if r.run_id.is_some() && !self.next.contains_key(&r.run_id) {
            // A recorder given no runId stamps the records before run_started
            // without one; the run's seq goes on from them once it is named.
            let before = self.next.get(&None).copied().filter(|&n| n == r.seq);
            if let Some(n) = before {
                self.next.remove(&None);
                self.next.insert(r.run_id.clone(), n);
            }
        }
        let expected = self.next.entry(r.run_id.clone()).or_insert(0);
        let want = *expected;
        // After a gap, follow the stream from where it is, so one lost
        // record is reported once, not on every later line.
        *expected = want.max(r.seq.saturating_add(1));
        if r.seq == want {
            return Ok(());
        }
        let run = match &r.run_id {
            Some(id) => format!("run {id:?}"),
            None => "the records without a run_id".to_owned(),
        };
        let problem = if r.seq > want {
            let missing = if r.seq - want == 1 { format!("seq {want} is missing") } else { format!("seqs {want} to {} are missing", r.seq - 1) };
            match want {
                0 => format!("{run} starts at seq {}: {missing}", r.seq),
                _ => format!("{run} jumps from seq {} to {}: {missing}", want - 1, r.seq),
            }
        } else {
            format!("{run} repeats or goes back to seq {} after seq {}", r.seq, want - 1)
        };
        Err(Error::new(ErrorCode::SeqGap, format!("line {n}: {problem}")).at_line(n))
    }
}

/// Strict: the first bad line, or the first gap in a run's seq, is the error.
pub fn parse(text: &str) -> Result<Vec<TrajectoryRecord>> {
    let mut seqs = SeqCheck::default();
    lines(text)
        .map(|(n, l)| {
            let r = parse_line(n, l)?;
            seqs.check(n, &r)?;
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
                if let Err(e) = seqs.check(n, &r) {
                    bad.push(BadLine { line: n, code: e.code.as_str(), message: e.message });
                }
                good.push(r)
            }
            Err(e) => bad.push(BadLine { line: n, code: e.code.as_str(), message: e.message }),
        }
    }
    (good, bad)
}
