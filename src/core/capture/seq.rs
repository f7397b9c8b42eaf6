//! The seq check: every run's records start at seq 0 and go up by one. A
//! skipped, repeated or backward seq is exactly the lost record the seq
//! exists to reveal. `parseTrajectoryJsonl` and `TrajectoryIndex` both
//! follow a stream through this one check, so they report the same lines
//! with the same words.

use std::collections::HashMap;

use crate::error::{Error, ErrorCode, Result};
use crate::number::quoted;

#[derive(Default)]
pub struct SeqCheck {
    /// The next seq of each named run.
    named: HashMap<Box<str>, u64>,
    /// The next seq of the records without a run_id, once there are some.
    unnamed: Option<u64>,
    /// The run of the last record and its next seq: records of one run
    /// mostly follow each other, and this spares a lookup for each.
    last: Option<(Box<str>, u64)>,
    /// Whether the last record checked named the run the records without
    /// a run_id before it carry on (see [`SeqCheck::adopted`]).
    adopted: bool,
}

impl SeqCheck {
    /// Checks the record on 1-based `line`; an error names the run and the
    /// seq that is missing, its `line` set (the message does not repeat it:
    /// the parser starts its every message with the line, the index lists
    /// the line beside it). After a gap the check follows the stream from
    /// where it is, so one lost record is reported once, not on every later line.
    pub fn check(&mut self, line: usize, run_id: Option<&str>, seq: u64) -> Result<()> {
        match self.problem(run_id, seq) {
            None => Ok(()),
            Some(problem) => Err(Error::new(ErrorCode::SeqGap, problem).at_line(line)),
        }
    }

    /// Whether the record just checked named the run that the records
    /// without a run_id before it (since the last such record) belong to:
    /// a recorder given no runId stamps the records before `run_started`
    /// without one, and the run's seq goes on from them. Which run a
    /// record belongs to follows this, wherever records are grouped.
    pub fn adopted(&self) -> bool {
        self.adopted
    }

    /// What is wrong with the next record being seq `seq` of `run_id`, if anything.
    fn problem(&mut self, run_id: Option<&str>, seq: u64) -> Option<String> {
        let want = self.advance(run_id, seq);
        if seq == want {
            return None;
        }
        let run = match run_id {
            Some(id) => format!("run {id}", id = quoted(id)),
            None => "the records without a run_id".to_owned(),
        };
        let problem = if seq > want {
            let missing = if seq - want == 1 { format!("seq {want} is missing") } else { format!("seqs {want} to {} are missing", seq - 1) };
            match want {
                0 => format!("{run} starts at seq {seq}: {missing}"),
                _ => format!("{run} jumps from seq {} to {seq}: {missing}", want - 1),
            }
        } else {
            format!("{run} repeats or goes back to seq {seq} after seq {}", want - 1)
        };
        Some(problem)
    }

    /// The seq `run_id` expected next, its next seq moved past `seq`
    /// (after a gap the check follows the stream from where it is).
    fn advance(&mut self, run_id: Option<&str>, seq: u64) -> u64 {
        let past = |want: u64| want.max(seq.saturating_add(1));
        self.adopted = false;
        let Some(id) = run_id else {
            let want = self.unnamed.unwrap_or(0);
            self.unnamed = Some(past(want));
            return want;
        };
        if let Some((last, next)) = &mut self.last {
            if **last == *id {
                let want = *next;
                *next = past(want);
                return want;
            }
        }
        // Another run: put the last one back, then find this one.
        if let Some((last, next)) = self.last.take() {
            self.named.insert(last, next);
        }
        let want = match self.named.remove(id) {
            Some(n) => n,
            // A recorder given no runId stamps the records before run_started
            // without one; the run's seq goes on from them once it is named.
            None => match self.unnamed {
                Some(n) if n == seq => {
                    self.unnamed = None;
                    self.adopted = true;
                    n
                }
                _ => 0,
            },
        };
        self.last = Some((id.into(), past(want)));
        want
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(seqs: &[(Option<&str>, u64)]) -> Vec<String> {
        let mut c = SeqCheck::default();
        seqs.iter()
            .enumerate()
            .filter_map(|(i, (run, seq))| c.check(i + 1, *run, *seq).err().map(|e| format!("line {}: {}", e.line.unwrap_or_default(), e.message)))
            .collect()
    }

    #[test]
    fn a_repeat_is_reported_once() {
        let r = Some("r");
        assert_eq!(problems(&[(r, 0), (r, 1), (r, 2), (r, 1), (r, 3)]), ["line 4: run \"r\" repeats or goes back to seq 1 after seq 2"]);
    }

    #[test]
    fn a_run_starts_at_zero() {
        assert_eq!(problems(&[(Some("r"), 2), (Some("r"), 3)]), ["line 1: run \"r\" starts at seq 2: seqs 0 to 1 are missing"]);
    }

    #[test]
    fn unnamed_records_before_run_started_carry_on() {
        assert!(problems(&[(None, 0), (None, 1), (Some("r"), 2), (Some("r"), 3)]).is_empty());
        assert_eq!(problems(&[(Some("a"), 0), (Some("a"), 2)]), ["line 2: run \"a\" jumps from seq 0 to 2: seq 1 is missing"]);
    }

    #[test]
    fn records_before_a_late_run_id_belong_to_that_run() {
        let mut c = SeqCheck::default();
        let adopted: Vec<bool> = [(None, 0), (None, 1), (Some("r"), 2), (None, 0), (Some("s"), 0)]
            .iter()
            .enumerate()
            .map(|(i, (run, seq))| {
                c.check(i + 1, *run, *seq).unwrap();
                c.adopted()
            })
            .collect();
        // The second unnamed record 0 starts a sequence of its own; run s
        // starts afresh at 0, so it does not carry that one on.
        assert_eq!(adopted, [false, false, true, false, false]);
    }
}
