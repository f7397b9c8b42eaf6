//! An index over a record JSONL stream that keeps the bytes and, per
//! record, only what navigation needs (run, kind, turn, tool, error flag,
//! severity, time, byte range), as flat columns. Nothing is parsed into a
//! value at ingest: a record is materialised when asked for, so a 100 MB
//! stream costs its bytes plus 80 bytes a record.
//!
//! Grouping the columns into runs and turns is decided here (`group`);
//! the queries that shape a few records into answers are in the package's
//! JS layer (`src/js/trajectory-index.js`), which reads the groups as
//! typed arrays.

pub mod group;
mod ingest;
pub mod scan;
mod search;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::capture::SeqCheck;
use crate::error::ErrorCode;

/// "Absent" in the `u32` columns.
pub const NONE: u32 = u32::MAX;

/// The `u32` columns of a record, in order: byte range, line, interned
/// strings (run id, parent run id, kind, tool name, step id, custom name),
/// whole numbers (turn_index, iteration, call_index, depth) and flags.
pub const COLUMNS: [&str; 14] =
    ["start", "end", "line", "run", "parent", "kind", "tool", "step", "name", "turnIndex", "iteration", "callIndex", "depth", "flags"];
/// The position of column `name` in `columns`: the grouping names its
/// columns through this, so the order is written once (a name that is no
/// column fails the build).
pub const fn column(columns: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < columns.len() {
        let (a, b) = (columns[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut k = 0;
            while k < a.len() && a[k] == b[k] {
                k += 1;
            }
            if k == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no such column")
}

/// The `f64` columns: seq, recorded_at_unix_ms and a `model_usage` record's
/// tokens (NaN for none).
pub const NUMBERS: [&str; 3] = ["seq", "at", "tokens"];

/// `flags`: bit 0 the record is an error (a failed tool call or model call, a run that
/// did not complete, a failed iteration, a warning assessment); bits 1-2
/// an assessment's severity (1 info, 2 caution, 3 warning).
pub const ERROR: u32 = 1;

/// A line that is not a record, with the code `parseTrajectoryJsonl` gives
/// the same fault.
pub struct Problem {
    pub line: u32,
    pub message: String,
    pub code: ErrorCode,
}

/// FxHash's mix: the interned strings are run ids, kinds and tool names,
/// looked up several times a record, where SipHash's DoS resistance buys
/// nothing and costs a third of the ingest time.
#[derive(Default)]
pub struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Default)]
pub struct Interner {
    pub names: Vec<Box<str>>,
    map: HashMap<Box<str>, u32, BuildHasherDefault<Fx>>,
}

impl Interner {
    /// The id of `s`, if the stream holds it.
    pub fn id(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
    }

    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(s.into());
        self.map.insert(s.into(), id);
        id
    }
}

pub struct TrajectoryIndex {
    pub bytes: Vec<u8>,
    /// [`COLUMNS`].len() values per record.
    pub cols: Vec<u32>,
    /// [`NUMBERS`].len() values per record.
    pub nums: Vec<f64>,
    pub strings: Interner,
    pub problems: Vec<Problem>,
    /// The seq check `parseTrajectoryJsonl` makes, over the same stream.
    seqs: SeqCheck,
    /// The first row a run named later may yet claim (see `ingest`).
    unnamed_since: usize,
}

impl TrajectoryIndex {
    /// Indexes a record JSONL stream. Never fails: a line that is not a
    /// record becomes a [`Problem`] with its line number, and the rest loads.
    pub fn from_bytes(bytes: Vec<u8>) -> TrajectoryIndex {
        let mut index = TrajectoryIndex {
            bytes: Vec::new(),
            cols: Vec::new(),
            nums: Vec::new(),
            strings: Interner::default(),
            problems: Vec::new(),
            seqs: SeqCheck::default(),
            unnamed_since: 0,
        };
        index.ingest(&bytes);
        index.bytes = bytes;
        index.unknown_kinds();
        index
    }

    pub fn len(&self) -> usize {
        self.cols.len() / COLUMNS.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cols.is_empty()
    }

    /// The line of record `i`, as written (`None` past the end).
    pub fn line(&self, i: usize) -> Option<&[u8]> {
        let row = self.cols.get(i * COLUMNS.len()..(i + 1) * COLUMNS.len())?;
        self.bytes.get(row[0] as usize..row[1] as usize)
    }
}
