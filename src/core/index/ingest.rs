//! Reading a stream into the index: one scan per line, a handful of fields
//! kept, runs and turns grouped as the records arrive.

use std::borrow::Cow;

use super::scan::{unescape, Cursor, Scan, Str};
use super::{column, Problem, TrajectoryIndex, COLUMNS, NONE};
use crate::capture::well_known::{total_tokens, MODEL_ERROR, MODEL_USAGE, USAGE_KEYS};
use crate::capture::{TrajectoryRecord, TRAJECTORY_SCHEMA_VERSION};
use crate::error::ErrorCode;

const W: usize = COLUMNS.len();
const RUN: usize = column(&COLUMNS, "run");

/// The fields of one line the index looks at.
#[derive(Default)]
struct Fields {
    version: Option<f64>,
    seq: Option<f64>,
    run_id: Option<Str>,
    parent: Option<Str>,
    depth: Option<f64>,
    at: Option<f64>,
    payload: bool,
    kind: Option<Str>,
    turn_index: Option<f64>,
    iteration: Option<f64>,
    tool: Option<Str>,
    is_error: Option<bool>,
    failed: Option<bool>,
    status: Option<Str>,
    severity: Option<Str>,
    call_index: Option<f64>,
    step: Option<Str>,
    name: Option<Str>,
    total_tokens: Option<f64>,
    input_tokens: Option<f64>,
    output_tokens: Option<f64>,
    /// A field read here holds a value of a kind its schema does not give
    /// it (a string for `is_error`, -5 for `turn_index`): the parser decides.
    suspect: bool,
}

// The fields' readers: a value of the field's own kind, or null, as the
// schema has it; anything else marks the line suspect (and reads as absent).

/// A whole number, 0 or more.
fn count(c: &mut Cursor, suspect: &mut bool) -> Scan<Option<f64>> {
    let null = c.peek() == Some(b'n');
    let v = c.whole()?.filter(|v| *v >= 0.0);
    *suspect |= v.is_none() && !null;
    Ok(v)
}

fn text(c: &mut Cursor, suspect: &mut bool) -> Scan<Option<Str>> {
    *suspect |= !matches!(c.peek(), Some(b'"' | b'n'));
    c.opt_string()
}

fn flag(c: &mut Cursor, suspect: &mut bool) -> Scan<Option<bool>> {
    *suspect |= !matches!(c.peek(), Some(b't' | b'f' | b'n'));
    c.boolean()
}

fn fields(line: &[u8]) -> Scan<Fields> {
    let mut f = Fields::default();
    let mut c = Cursor::new(line);
    c.object(|c, key| {
        match key {
            b"schema_version" => f.version = count(c, &mut f.suspect)?,
            b"seq" => f.seq = count(c, &mut f.suspect)?,
            b"run_id" => f.run_id = text(c, &mut f.suspect)?,
            b"parent_run_id" => f.parent = text(c, &mut f.suspect)?,
            b"depth" => f.depth = count(c, &mut f.suspect)?,
            b"recorded_at_unix_ms" => f.at = count(c, &mut f.suspect)?,
            b"payload" if c.peek() == Some(b'{') => {
                f.payload = true;
                payload(c, &mut f)?
            }
            _ => c.skip()?,
        }
        Ok(())
    })?;
    if !c.at_end() {
        return c.fail();
    }
    f.suspect |= c.suspect;
    Ok(f)
}

/// `{...}` under the cursor, reading only `keys`' values through `read`.
fn nested(c: &mut Cursor, mut read: impl FnMut(&mut Cursor, &[u8]) -> Scan<bool>) -> Scan<()> {
    if c.peek() != Some(b'{') {
        return c.skip();
    }
    c.object(|c, k| if read(c, k)? { Ok(()) } else { c.skip() })
}

/// The string at `key` of the object under the cursor (the rest skipped).
fn nested_string(c: &mut Cursor, key: &[u8]) -> Scan<Option<Str>> {
    let mut found = None;
    nested(c, |c, k| {
        if k != key {
            return Ok(false);
        }
        found = c.opt_string()?;
        Ok(true)
    })?;
    Ok(found)
}

fn payload(c: &mut Cursor, f: &mut Fields) -> Scan<()> {
    c.object(|c, key| {
        match key {
            b"kind" => f.kind = text(c, &mut f.suspect)?,
            b"turn_index" => f.turn_index = count(c, &mut f.suspect)?,
            b"iteration" => f.iteration = count(c, &mut f.suspect)?,
            b"tool_name" => f.tool = text(c, &mut f.suspect)?,
            b"is_error" => f.is_error = flag(c, &mut f.suspect)?,
            b"failed" => f.failed = flag(c, &mut f.suspect)?,
            b"status" => f.status = text(c, &mut f.suspect)?,
            b"call_index" => f.call_index = count(c, &mut f.suspect)?,
            b"step_id" => f.step = text(c, &mut f.suspect)?,
            b"name" => f.name = text(c, &mut f.suspect)?,
            // A bare label ("ended") in records of the original agent runtime.
            b"outcome" if c.peek() == Some(b'"') => f.status = Some(c.string()?),
            b"outcome" => f.status = nested_string(c, b"status")?,
            b"assessment" => f.severity = nested_string(c, b"severity")?,
            b"data" => nested(c, |c, k| {
                // Either spelling of model_usage (well_known::USAGE_KEYS); the first one found wins.
                let key = |keys: [&str; 2]| keys.iter().any(|w| w.as_bytes() == k);
                let slot = if key(USAGE_KEYS.total) {
                    &mut f.total_tokens
                } else if key(USAGE_KEYS.input) {
                    &mut f.input_tokens
                } else if key(USAGE_KEYS.output) {
                    &mut f.output_tokens
                } else {
                    return Ok(false);
                };
                if slot.is_some() {
                    return Ok(false);
                }
                *slot = c.whole()?;
                Ok(true)
            })?,
            _ => c.skip()?,
        }
        Ok(())
    })
}

/// Whether the string token `s` is `want` (no escapes to undo in a well-known name).
fn name_is(line: &[u8], s: Option<Str>, want: &str) -> bool {
    s.is_some_and(|s| !s.escaped && &line[s.start..s.end] == want.as_bytes())
}

/// A string token's text (unescaped when it has escapes).
fn text_of<'a>(line: &'a [u8], s: Str) -> Cow<'a, str> {
    let raw = &line[s.start..s.end];
    if s.escaped {
        let mut out = Vec::new();
        unescape(raw, &mut out);
        Cow::Owned(String::from_utf8_lossy(&out).into_owned())
    } else {
        String::from_utf8_lossy(raw)
    }
}

/// Why the index refuses a line it scanned, in `parseTrajectoryJsonl`'s
/// words, if it does: a field of the wrong kind (the parser's reading
/// decides, so the index refuses what the parser refuses; a field a kind
/// does not have is ignored by both; rare, so the full read costs a good
/// stream nothing), a missing field, or a newer schema version.
fn refusal(f: &Fields, line: &[u8]) -> Option<(ErrorCode, String)> {
    if f.suspect {
        // UTF-8 already: the scan checked the strings, and outside them JSON is ASCII.
        if let Err(e) = TrajectoryRecord::from_json(&String::from_utf8_lossy(line)) {
            return Some((e.code, e.message));
        }
    }
    if f.seq.is_none() || f.at.is_none() || !f.payload || f.kind.is_none() {
        return Some(refused(line, ErrorCode::InvalidRecord, "not a record (seq, recorded_at_unix_ms or payload.kind)"));
    }
    // Printed as an integer (it is whole): formatting an f64 would link
    // core's float printer into the module (~14 KB).
    let e = crate::capture::newer_version(f.version.filter(|&v| v > f64::from(TRAJECTORY_SCHEMA_VERSION))? as u64);
    Some((e.code, e.message))
}

/// A line the scan refuses, said as `parseTrajectoryJsonl` says it (its
/// code and words, without the line's number, which a problem carries
/// apart): one line, one reading, whichever reads it. Only a refused line
/// pays for the parser's read. `own` is kept only if the parser took the
/// line, which would be a bug of the scan's.
fn refused(line: &[u8], code: ErrorCode, own: &str) -> (ErrorCode, String) {
    // UTF-8 already: the caller says a line that is not UTF-8 as that (NOT_UTF8).
    let parsed = TrajectoryRecord::from_json(&String::from_utf8_lossy(line));
    parsed.err().map_or_else(|| (code, own.to_owned()), |e| (e.code, e.message))
}

impl TrajectoryIndex {
    pub(super) fn ingest(&mut self, bytes: &[u8]) {
        // A byte-order mark some editors write is not part of the first line.
        let mut pos = if bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        let mut line_no = 0u32;
        while pos < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |n| pos + n);
            line_no = line_no.saturating_add(1);
            let mut stop = end;
            if stop > pos && bytes[stop - 1] == b'\r' {
                stop -= 1;
            }
            let line = &bytes[pos..stop];
            if stop > u32::MAX as usize {
                self.problem(line_no, ErrorCode::InvalidRecord, "the stream is longer than 4 GiB; the rest is not indexed".into());
                return;
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                // A line that scans is UTF-8 text: outside strings JSON is
                // ASCII, and the scanner checks the strings' UTF-8 as it
                // goes. One that does not is checked whole, so a line that
                // is not text is said to be that, whatever else is wrong.
                match fields(line) {
                    Ok(f) => self.add(f, line, pos as u32, stop as u32, line_no),
                    Err(_) if std::str::from_utf8(line).is_err() => {
                        self.problem(line_no, ErrorCode::JsonlParse, crate::capture::jsonl::NOT_UTF8.into())
                    }
                    Err(_) => self.refuse(line_no, line, ErrorCode::JsonlParse, "not a JSON record"),
                }
            }
            pos = end + 1;
        }
    }

    fn problem(&mut self, line: u32, code: ErrorCode, message: String) {
        self.problems.push(Problem { line, message, code });
    }

    /// A line the scan refuses, as [`refused`] says it.
    fn refuse(&mut self, line_no: u32, line: &[u8], code: ErrorCode, own: &str) {
        let (code, message) = refused(line, code, own);
        self.problem(line_no, code, message);
    }

    fn add(&mut self, f: Fields, line: &[u8], start: u32, end: u32, line_no: u32) {
        let refusal = refusal(&f, line);
        // A refused line still counts in its run's seq when its seq can be
        // read, as the parser's lenient reading counts it: the next line is
        // then no false gap (its own gap goes unsaid: it is bad already).
        let run = f.run_id.map(|s| text_of(line, s));
        let gap = f.seq.map(|seq| self.seqs.check(line_no as usize, run.as_deref(), seq as u64));
        if let Some((code, message)) = refusal {
            return self.problem(line_no, code, message);
        }
        if let Some(Err(e)) = gap {
            self.problem(line_no, e.code, e.message);
        }
        let kind = f.kind.map(|s| text_of(line, s)).unwrap_or_default();
        let status = f.status.map(|s| text_of(line, s));
        let severity = match f.severity.map(|s| text_of(line, s)).as_deref() {
            Some("info") => 1,
            Some("caution") => 2,
            Some("warning") => 3,
            _ => 0,
        };
        let not_completed = status.as_deref().is_some_and(|s| s != "completed" && s != "ended");
        let error = match &*kind {
            "tool_ended" => f.is_error == Some(true),
            "custom" => name_is(line, f.name, MODEL_ERROR),
            "run_ended" | "run_terminated" => not_completed,
            "iteration_completed" => f.failed == Some(true),
            "assessment_produced" => severity == 3,
            _ => false,
        };
        let mut id = |s: Option<Str>| s.map_or(NONE, |s| self.strings.intern(&text_of(line, s)));
        let whole = |n: Option<f64>| n.map_or(NONE, |n| n.clamp(0.0, f64::from(NONE - 1)) as u32);
        let tokens =
            if name_is(line, f.name, MODEL_USAGE) && kind == "custom" { total_tokens(f.total_tokens, f.input_tokens, f.output_tokens) } else { None };
        let row = [
            start,
            end,
            line_no,
            id(f.run_id),
            id(f.parent),
            id(f.kind),
            id(f.tool),
            id(f.step),
            id(f.name),
            whole(f.turn_index),
            whole(f.iteration),
            whole(f.call_index),
            whole(f.depth.or(Some(0.0))),
            u32::from(error) | (severity << 1),
        ];
        self.cols.extend_from_slice(&row);
        self.nums.extend_from_slice(&[f.seq.unwrap_or_default(), f.at.unwrap_or_default(), tokens.unwrap_or(f64::NAN)]);
        if self.seqs.adopted() {
            // The records without a run_id since the last such record are
            // this run's: it carries their seq on (the seq check's rule).
            let run = row[RUN];
            let mut i = self.unnamed_since * W + RUN;
            while let Some(r) = self.cols.get_mut(i) {
                if *r == NONE {
                    *r = run;
                }
                i += W;
            }
            self.unnamed_since = self.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seq: u32, text: &str) -> String {
        format!(
            r#"{{"schema_version":1,"seq":{seq},"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{{"kind":"custom","name":"note","data":"{text}"}}}}"#
        )
    }

    #[test]
    fn a_line_that_is_not_utf8_is_said_to_be_so_and_text_is_indexed() {
        let mut bytes = format!("{}\n", record(0, "café 😀 ok")).into_bytes();
        // Bad UTF-8 inside a string, then outside one (where the JSON is wrong too).
        bytes.extend_from_slice(
            br#"{"schema_version":1,"seq":1,"run_id":"r","depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"custom","name":"note","data":"a"#,
        );
        bytes.extend_from_slice(b"\xff\xfe\"}}\n\xc3{\n");
        bytes.extend_from_slice(format!("{}\n", record(1, "naïve")).as_bytes());
        let ix = TrajectoryIndex::from_bytes(bytes);
        assert_eq!(ix.len(), 2);
        let said: Vec<_> = ix.problems.iter().map(|p| (p.line, p.message.as_str())).collect();
        assert_eq!(said, [(2, "the line is not UTF-8 text"), (3, "the line is not UTF-8 text")]);
        assert_eq!(std::str::from_utf8(ix.line(0).unwrap()).unwrap(), record(0, "café 😀 ok"));
    }

    /// A `\n` ends a record wherever it falls, whitespace and `\r` around a
    /// record are kept in its line, and each bad line is said on its own.
    #[test]
    fn line_ends_bound_every_record_whatever_surrounds_them() {
        let (a, b, c, d) = (record(0, "a"), record(1, "b"), record(2, "c"), record(3, "d"));
        let split = a.replacen(r#""seq":0,"#, "\"seq\":\n0,", 1);
        let stream = format!("  {a} \r\n\n \t\r\n{b}\r \n{split}\n{c}\t\n\"text\\nnot a record\"\n{d}");
        let ix = TrajectoryIndex::from_bytes(stream.into_bytes());
        let lines: Vec<_> = (0..ix.len()).map(|i| String::from_utf8(ix.line(i).unwrap().to_vec()).unwrap()).collect();
        assert_eq!(lines, [format!("  {a} "), format!("{b}\r "), format!("{c}\t"), d]);
        let said: Vec<_> = ix.problems.iter().map(|p| (p.line, p.message.as_str())).collect();
        let cut = split.split_once('\n').unwrap().0.len();
        assert_eq!(
            said,
            [
                (5, format!("invalid JSON at column {cut}: EOF while parsing a value").as_str()),
                (6, "invalid type: a number, expected a record (a JSON object)"),
                (8, "invalid type: a string, expected a record (a JSON object)"),
            ]
        );
    }

    /// A line the index refuses is refused as the parser refuses it: the
    /// same code and the same words (the parser's start with the line).
    #[test]
    fn a_refused_line_is_said_as_the_parser_says_it() {
        let bad = [
            "{not json",
            "null",
            "[1, 2]",
            "\"text\"",
            r#"{"schema_version":1}"#,
            r#"{"seq":"0","recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}"#,
            r#"{"seq":9007199254740993,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}"#,
            r#"{"seq":0,"recorded_at_unix_ms":-1,"payload":{"kind":"turn_started"}}"#,
            r#"{"seq":0,"recorded_at_unix_ms":1}"#,
            r#"{"seq":0,"recorded_at_unix_ms":1,"payload":[]}"#,
            r#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":7}}"#,
            r#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"},}"#,
            r#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}} x"#,
            // Half of a surrogate pair alone (a cut emoji, as JSON.stringify escapes it).
            r#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"custom","name":"n","data":"\ud83d"}}"#,
            r#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"custom","name":"n","data":"\ude00 and \ud83d\ude00"}}"#,
        ];
        let text = bad.join("\n");
        let ix = TrajectoryIndex::from_bytes(text.clone().into_bytes());
        let (_, parsed) = crate::capture::jsonl::parse_lenient(&text);
        let index: Vec<_> = ix.problems.iter().map(|p| (p.line as usize, p.code.as_str(), p.message.clone())).collect();
        let parser: Vec<_> = parsed.iter().map(|b| (b.line, b.code, b.message.replacen(&format!("line {}: ", b.line), "", 1))).collect();
        assert_eq!(index.len(), bad.len());
        assert_eq!(index, parser);
        // A whole pair escaped is read as the parser reads it.
        let pair = TrajectoryIndex::from_bytes(
            br#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"custom","name":"n","data":"\ud83d\ude00"}}"#.to_vec(),
        );
        assert_eq!((pair.len(), pair.problems.len()), (1, 0));
    }
}
