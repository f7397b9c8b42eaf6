//! Graded escalation: a problem reported again with new evidence climbs
//! info -> caution -> warning; a problem no longer present is forgotten, so
//! a resolved pattern stops being reported. Repeats without new evidence
//! (the same old calls still in the window) are not reported again.

use serde::ser::SerializeMap;
use serde::Serialize;
use serde_json::Value;

use super::assessment::{Assessment, Severity};
use super::Outcome;
use crate::read::{object, At, FromJson};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Escalation {
    problems: Problems,
}

/// problem key -> (times reported, newest call index reported as evidence),
/// in key order (a snapshot writes them so, as a JSON object). A detector
/// tracks a few problems: a sorted list, with no map routine of its own in
/// the module.
#[derive(Debug, Clone, Default, PartialEq)]
struct Problems(Vec<(u64, (u32, u64))>);

impl Problems {
    fn entry(&mut self, key: u64) -> &mut (u32, u64) {
        let i = match self.0.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (key, (0, 0)));
                i
            }
        };
        &mut self.0[i].1
    }
}

impl Serialize for Problems {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// JSON keys are strings of digits.
impl FromJson for Problems {
    fn from_json(v: Option<Value>, at: &At) -> std::result::Result<Self, String> {
        let mut out = Problems::default();
        for (key, value) in object(v, at)? {
            let here = At::Key(at, &key);
            let k = key.parse::<u64>().map_err(|_| format!("{here}: the key must be a whole number"))?;
            *out.entry(k) = FromJson::from_json(Some(value), &here)?;
        }
        Ok(out)
    }
}

/// A problem a detector sees now, with the newest call that shows it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub key: u64,
    pub latest: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Report these problems (index into the detector's list) at this severity.
    Report { reported: Vec<(usize, u32)>, severity: Severity },
    /// Problems persist but nothing new happened since the last report.
    Quiet,
    /// Everything reported before is gone.
    Resolved,
    /// Nothing seen, nothing reported before.
    Clear,
}

pub fn level(times: u32) -> Severity {
    match times {
        0 | 1 => Severity::Info,
        2 => Severity::Caution,
        _ => Severity::Warning,
    }
}

impl Escalation {
    pub fn update(&mut self, seen: &[Seen]) -> Verdict {
        let had_any = !self.problems.0.is_empty();
        self.problems.0.retain(|(k, _)| seen.iter().any(|s| s.key == *k));
        let mut reported = Vec::new();
        for (i, s) in seen.iter().enumerate() {
            let entry = self.problems.entry(s.key);
            if entry.0 == 0 || s.latest > entry.1 {
                entry.0 = entry.0.saturating_add(1);
                entry.1 = s.latest;
                reported.push((i, entry.0));
            }
        }
        if !reported.is_empty() {
            let severity = reported.iter().map(|(_, n)| level(*n)).max().unwrap_or_default();
            Verdict::Report { reported, severity }
        } else if !self.problems.0.is_empty() {
            Verdict::Quiet
        } else if had_any {
            Verdict::Resolved
        } else {
            Verdict::Clear
        }
    }
}

impl Verdict {
    /// The detector's outcome: `report` writes the assessment for the
    /// problems to report (index into its list, times reported) at `severity`.
    pub fn into_outcome(self, report: impl FnOnce(&[(usize, u32)], Severity) -> Assessment) -> Outcome {
        match self {
            Verdict::Report { reported, severity } => Outcome::Report(report(&reported, severity)),
            Verdict::Quiet | Verdict::Clear => Outcome::Quiet,
            Verdict::Resolved => Outcome::Resolved,
        }
    }
}

/// `summary` plus the escalation note when the problem was reported before.
pub fn with_note(mut summary: String, times: u32) -> String {
    if let Some(n) = note(times) {
        summary.push(' ');
        summary.push_str(&n);
    }
    summary
}

/// "2nd", "3rd", ... for escalation notes.
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The sentence a repeated report adds to its summary: escalated when this
/// report raised the level, still at the top level after that.
pub fn note(times: u32) -> Option<String> {
    let (now, before) = (level(times), level(times.saturating_sub(1)));
    let how = if now > before { "escalated to" } else { "still at" };
    (times > 1).then(|| format!("This is the {} report of this problem in a row; {how} {}.", ordinal(times), now.as_str()))
}

from_json_struct!(Escalation { problems: "problems" = default });

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(key: &str, latest: u64) -> Seen {
        Seen { key: key.bytes().map(u64::from).sum(), latest }
    }

    #[test]
    fn escalates_on_new_evidence_only_and_forgets_resolved() {
        let mut e = Escalation::default();
        assert_eq!(e.update(&[seen("a", 3)]), Verdict::Report { reported: vec![(0, 1)], severity: Severity::Info });
        assert_eq!(e.update(&[seen("a", 3)]), Verdict::Quiet, "same evidence");
        assert_eq!(e.update(&[seen("a", 4)]), Verdict::Report { reported: vec![(0, 2)], severity: Severity::Caution });
        assert_eq!(e.update(&[seen("a", 5)]), Verdict::Report { reported: vec![(0, 3)], severity: Severity::Warning });
        assert_eq!(e.update(&[]), Verdict::Resolved);
        assert_eq!(e.update(&[]), Verdict::Clear);
        assert_eq!(e.update(&[seen("a", 9)]), Verdict::Report { reported: vec![(0, 1)], severity: Severity::Info }, "starts over");
        assert_eq!(ordinal(2), "2nd");
        assert_eq!(ordinal(11), "11th");
        assert_eq!(ordinal(23), "23rd");
    }

    #[test]
    fn the_note_says_escalated_only_when_the_level_rose() {
        assert_eq!(note(1), None);
        assert_eq!(note(2).unwrap(), "This is the 2nd report of this problem in a row; escalated to caution.");
        assert_eq!(note(3).unwrap(), "This is the 3rd report of this problem in a row; escalated to warning.");
        assert_eq!(note(4).unwrap(), "This is the 4th report of this problem in a row; still at warning.");
    }

    #[test]
    fn problems_are_saved_as_an_object_in_key_order_and_read_back() {
        let mut e = Escalation::default();
        e.update(&[Seen { key: 70, latest: 2 }, Seen { key: 7, latest: 1 }, Seen { key: 700, latest: 3 }]);
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"problems":{"7":[1,1],"70":[1,2],"700":[1,3]}}"#);
        let back: Escalation = crate::read::read(v, "").unwrap();
        assert_eq!(back, e);
        let e = crate::read::read::<Escalation>(serde_json::json!({ "problems": { "x": [1, 2] } }), "state").unwrap_err();
        assert_eq!(e, "state.problems.x: the key must be a whole number");
    }
}
