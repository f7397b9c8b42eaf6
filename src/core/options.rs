//! Option objects from callers: every key must be one the library reads.
//! A misspelt key (`maxturns`, `onSinkErorr`, `observer:` for `observers:`)
//! would otherwise be ignored and the run would silently use a default, so
//! unknown keys are refused with the nearest valid key named.

use super::error::{Error, Result};
use crate::number::quoted;

/// Refuses the first key of `given` that is not in `allowed`, naming the
/// place (`"runTrajectory options"`) and the nearest valid key.
pub fn check_keys<'a>(given: impl IntoIterator<Item = &'a str>, allowed: &[&str], place: &str) -> Result<()> {
    for key in given {
        if !allowed.contains(&key) {
            return Err(Error::invalid_argument(unknown_key_message(key, allowed, place)));
        }
    }
    Ok(())
}

/// For objects that may carry fields of their own or of other libraries (a
/// message part's `providerOptions`, a usage's `inputTokenDetails`): the
/// first key that is a slip of a field of `known` the object lacks (near
/// it), as an error: `place: unknown field "verdic"; did you mean
/// "verdict"?`. `theirs` are keys another library is known to write near
/// ours; they, and keys near none, are not slips.
pub fn refuse_slips(obj: &serde_json::Map<String, serde_json::Value>, known: &[&'static str], theirs: &[&str], place: &str) -> Result<()> {
    let slip = obj
        .keys()
        .filter(|k| !known.contains(&k.as_str()) && !theirs.contains(&k.as_str()))
        .find_map(|k| nearest(k, known).filter(|near| !obj.contains_key(*near)).map(|near| (k, near)));
    match slip {
        Some((key, near)) => {
            Err(Error::invalid_argument(format!("{place}: unknown field {key}; did you mean {near}?", key = quoted(key), near = quoted(near))))
        }
        None => Ok(()),
    }
}

/// `place: unknown option "maxturns"; did you mean "maxTurns"? (valid: ...)`.
pub fn unknown_key_message(key: &str, allowed: &[&str], place: &str) -> String {
    unknown_message("option", key, allowed, place)
}

/// The same words for any kind of key (`what`: "option", "field").
pub fn unknown_message(what: &str, key: &str, allowed: &[&str], place: &str) -> String {
    let valid = allowed.join(", ");
    match nearest(key, allowed) {
        Some(near) => format!("{place}: unknown {what} {key}; did you mean {near}? (valid: {valid})", key = quoted(key), near = quoted(near)),
        None => format!("{place}: unknown {what} {key} (valid: {valid})", key = quoted(key)),
    }
}

/// The valid key closest to `key`: same letters ignoring case, or a
/// prefix/suffix of one another (`observer` / `observers`), or forms of one
/// word (`retry` / `retries`), or within an edit distance of a third of the
/// key's length (at least 2).
pub fn nearest<'a>(key: &str, allowed: &[&'a str]) -> Option<&'a str> {
    // ASCII only: option keys are ASCII, and Unicode case tables would cost ~10 KB of module.
    let lower = key.to_ascii_lowercase();
    if let Some(same) = allowed.iter().find(|a| a.to_ascii_lowercase() == lower) {
        return Some(same);
    }
    let limit = (key.chars().count() / 3).max(2);
    allowed
        .iter()
        .map(|a| {
            let al = a.to_ascii_lowercase();
            let affix = al.len() >= 3 && lower.len() >= 3 && (al.starts_with(&lower) || lower.starts_with(&al));
            // One word's other form: `retry` / `retries`, all but the shorter's last letter shared.
            let common = lower.bytes().zip(al.bytes()).take_while(|(x, y)| x == y).count();
            let stem = common >= 4 && common + 1 >= lower.len().min(al.len());
            let d = if affix {
                1
            } else if stem {
                2
            } else {
                edit_distance(&lower, &al)
            };
            (d, *a)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

/// Levenshtein distance over chars; two rows, linear memory.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let swap = if ca == *cb { prev[j] } else { prev[j] + 1 };
            row[j + 1] = swap.min(prev[j + 1] + 1).min(row[j] + 1);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &[&str] = &["userModel", "observers", "onSinkError", "maxTurns", "sink", "clock"];

    #[test]
    fn names_the_nearest_key() {
        assert_eq!(nearest("maxturns", RUN), Some("maxTurns"));
        assert_eq!(nearest("onSinkErorr", RUN), Some("onSinkError"));
        assert_eq!(nearest("observer", RUN), Some("observers"));
        assert_eq!(nearest("zzz", RUN), None);
        assert_eq!(nearest("retry", &["retries", "checks"]), Some("retries"));
        assert_eq!(nearest("policies", &["policy", "clock"]), Some("policy"));
        assert_eq!(nearest("sinks", &["signal", "clock"]), None);
        let e = check_keys(["sink", "maxturns"], RUN, "runTrajectory options").unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidArgument);
        assert!(e.message.starts_with("runTrajectory options: unknown option \"maxturns\"; did you mean \"maxTurns\"?"), "{}", e.message);
        assert!(check_keys(["sink", "clock"], RUN, "x").is_ok());
    }
}
