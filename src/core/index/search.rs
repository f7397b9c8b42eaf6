//! Text search over every string value of the records.

use super::scan::{unescape, Cursor};
use super::{TrajectoryIndex, COLUMNS};

/// Matches of a search: records with at least one, and how many in each.
#[derive(Default)]
pub struct Hits {
    pub count: f64,
    pub records: Vec<u32>,
    pub counts: Vec<u32>,
}

impl TrajectoryIndex {
    /// Case-insensitive (ASCII letters) occurrences of `needle` in every
    /// string value of every record (keys are not searched): tool names,
    /// arguments, results, messages, assessments. `run`: only records whose
    /// interned run id is this one.
    pub fn search(&self, needle: &str, run: Option<u32>) -> Hits {
        let needle = needle.to_ascii_lowercase().into_bytes();
        let mut hits = Hits::default();
        if needle.is_empty() {
            return hits;
        }
        let mut scratch = Vec::new();
        for (i, row) in self.cols.chunks_exact(COLUMNS.len()).enumerate() {
            if run.is_some_and(|r| row[3] != r) {
                continue;
            }
            let mut n = 0u32;
            let mut c = Cursor::new(&self.bytes[row[0] as usize..row[1] as usize]);
            // The line passed the same scanner at ingest, so this cannot fail.
            let _ = c.strings(
                &mut |c, s| {
                    let raw = &c.b[s.start..s.end];
                    let hay = if s.escaped {
                        unescape(raw, &mut scratch);
                        &scratch[..]
                    } else {
                        raw
                    };
                    n = n.saturating_add(occurrences(hay, &needle));
                },
                0,
            );
            if n > 0 {
                hits.count += f64::from(n);
                hits.records.push(i as u32);
                hits.counts.push(n);
            }
        }
        hits
    }
}

/// Non-overlapping occurrences of a lowercase `needle` in `hay`, ASCII
/// letters compared without case.
fn occurrences(hay: &[u8], needle: &[u8]) -> u32 {
    let Some((first, rest)) = needle.split_first() else { return 0 };
    let mut n = 0u32;
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay[i].to_ascii_lowercase() == *first && hay[i + 1..i + needle.len()].iter().zip(rest).all(|(a, b)| a.to_ascii_lowercase() == *b) {
            n = n.saturating_add(1);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    n
}
