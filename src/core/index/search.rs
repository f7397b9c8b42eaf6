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
        let probe = Probe::new(&needle);
        for (i, row) in self.cols.chunks_exact(COLUMNS.len()).enumerate() {
            if run.is_some_and(|r| row[3] != r) {
                continue;
            }
            let line = &self.bytes[row[0] as usize..row[1] as usize];
            if probe.as_ref().is_some_and(|p| !p.may_match(line)) {
                continue;
            }
            let mut n = 0u32;
            let mut c = Cursor::new(line);
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

/// A quick test of a record's raw line that rules most records out before
/// the JSON walk. Outside `\u` escapes, JSON writes every byte of a string
/// as itself except `"`, `\`, `/` and control characters; so a run of the
/// needle free of those (its fragment) shows verbatim in the line of any
/// record holding a match, or the line has a `\u` (then it is walked).
struct Probe {
    fragment: Vec<u8>,
    /// The fragment's byte found by memchr: its first non-letter (matched
    /// exactly), else its first letter (either case), and where it sits.
    at: usize,
}

impl Probe {
    /// None when the needle has no such run (the walk then reads every record).
    fn new(needle: &[u8]) -> Option<Probe> {
        let plain = |b: &u8| *b >= 0x20 && !matches!(b, b'"' | b'\\' | b'/');
        let fragment = needle.split(|b| !plain(b)).max_by_key(|run| run.len()).filter(|run| !run.is_empty())?.to_vec();
        let at = fragment.iter().position(|b| !b.is_ascii_alphabetic()).unwrap_or(0);
        Some(Probe { fragment, at })
    }

    fn may_match(&self, line: &[u8]) -> bool {
        let (f, at) = (&self.fragment[..], self.at);
        let b = f[at];
        let mut from = at;
        while from < line.len() {
            let rest = &line[from..];
            let hit = if b.is_ascii_alphabetic() { memchr::memchr2(b, b.to_ascii_uppercase(), rest) } else { memchr::memchr(b, rest) };
            let Some(k) = hit else { break };
            let start = from + k - at;
            if line.get(start..start + f.len()).is_some_and(|w| w.eq_ignore_ascii_case(f)) {
                return true;
            }
            from += k + 1;
        }
        has_unicode_escape(line)
    }
}

/// Whether the line holds a `\u` escape. (A backslash is always the start
/// of an escape in a valid line, so no pair of them is mistaken for one.)
fn has_unicode_escape(line: &[u8]) -> bool {
    let mut from = 0;
    while let Some(k) = memchr::memchr(b'\\', &line[from..]) {
        match line.get(from + k + 1) {
            Some(b'u') => return true,
            Some(_) => from += k + 2,
            None => return false,
        }
    }
    false
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: u32, data: &str) -> String {
        format!(
            r#"{{"schema_version":1,"seq":{seq},"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{{"kind":"custom","name":"x","data":{data}}}}}"#
        )
    }

    fn found(needle: &str, data: &str) -> (f64, usize) {
        let ix = TrajectoryIndex::from_bytes(rec(0, data).into_bytes());
        assert_eq!(ix.len(), 1, "{data}");
        let hits = ix.search(needle, None);
        (hits.count, hits.records.len())
    }

    #[test]
    fn the_quick_test_never_hides_a_match() {
        // Written plainly, in another case, as escapes of every kind, or split by one.
        assert_eq!(found("Needle-7", r#""a needle-7 and NEEDLE-7""#), (2.0, 1));
        assert_eq!(found("abc", r#""\u0061bc""#), (1.0, 1));
        assert_eq!(found("a\"b/c", r#""a\"b\/c""#), (1.0, 1));
        assert_eq!(found("line\nnext", r#""line\nnext""#), (1.0, 1));
        assert_eq!(found("é", r#""caf\u00e9""#), (1.0, 1));
        assert_eq!(found("/", r#""a\/b""#), (1.0, 1));
        // Keys are not searched; a near miss is no match.
        assert_eq!(found("needle", r#"{"needle":"hay"}"#), (0.0, 0));
        assert_eq!(found("needle-7", r#""needle-8""#), (0.0, 0));
    }

    #[test]
    fn the_fragment_is_the_longest_run_a_line_writes_verbatim() {
        let p = Probe::new(b"ab\"cdef/g").unwrap();
        assert_eq!((p.fragment.as_slice(), p.at), (&b"cdef"[..], 0));
        assert_eq!(Probe::new(b"x-1").unwrap().at, 1);
        assert!(Probe::new(b"\"/").is_none());
        assert!(Probe::new(b"abc").unwrap().may_match(b"..ABC.."));
        assert!(!Probe::new(b"abc").unwrap().may_match(b"..ab.c.."));
        assert!(Probe::new(b"abc").unwrap().may_match(br#""\u0041""#));
        assert!(!has_unicode_escape(br#""a\\u\n""#), "an escaped backslash before a u");
        assert!(has_unicode_escape(br#""\\\u0041""#));
    }
}
