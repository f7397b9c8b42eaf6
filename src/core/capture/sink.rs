//! Sinks the core provides. A sink is failable: `accept` may refuse a
//! record, and the dispatcher's policy decides what that means.

use super::jsonl;
use super::record::TrajectoryRecord;
use crate::error::{Error, ErrorCode, Result};

pub trait Sink {
    fn accept(&mut self, record: &TrajectoryRecord) -> Result<()>;
}

/// What a closed (freed) sink answers: its records could never be read again, so
/// taking them would lose them silently.
pub fn closed(what: &str) -> Error {
    Error::new(ErrorCode::SinkFailed, format!("the {what} was freed; records given to it could never be read"))
}

/// Keeps every record in memory, in delivery order.
#[derive(Debug, Default, Clone)]
pub struct MemorySink {
    records: Vec<TrajectoryRecord>,
    closed: bool,
}

impl MemorySink {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn records(&self) -> &[TrajectoryRecord] {
        &self.records
    }
    pub fn len(&self) -> usize {
        self.records.len()
    }
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    pub fn clear(&mut self) {
        self.records.clear();
    }
    pub fn to_jsonl(&self) -> String {
        jsonl::serialize(&self.records)
    }
    /// No more records: the host freed the sink (a recorder may still hold it).
    pub fn close(&mut self) {
        self.closed = true;
        self.records = Vec::new();
    }
}

impl MemorySink {
    /// [`Sink::accept`] for a record the caller no longer needs: kept as
    /// is, not copied. Refused (the record handed back) once closed.
    pub fn keep(&mut self, record: TrajectoryRecord) -> std::result::Result<(), Box<(Error, TrajectoryRecord)>> {
        if self.closed {
            return Err(Box::new((closed("MemorySink"), record)));
        }
        self.records.push(record);
        Ok(())
    }
}

impl Sink for MemorySink {
    fn accept(&mut self, record: &TrajectoryRecord) -> Result<()> {
        self.keep(record.copy()).map_err(|refused| refused.0)
    }
}

/// Accumulates records as JSONL text, one `\n`-terminated line each.
#[derive(Debug, Default, Clone)]
pub struct JsonlSink {
    text: String,
    lines: usize,
    closed: bool,
}

impl JsonlSink {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn text(&self) -> &str {
        &self.text
    }
    pub fn len(&self) -> usize {
        self.lines
    }
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }
    /// Hands over the text so far and starts empty (for chunked flushing).
    pub fn take(&mut self) -> String {
        self.lines = 0;
        std::mem::take(&mut self.text)
    }
    /// No more records: the host freed the sink (a recorder may still hold it).
    pub fn close(&mut self) {
        self.closed = true;
        self.take();
    }
    /// Refuses a record once closed, whether lines accumulate here or go to a writer.
    pub fn check_open(&self) -> Result<()> {
        if self.closed {
            return Err(closed("JsonlSink"));
        }
        Ok(())
    }
}

impl Sink for JsonlSink {
    fn accept(&mut self, record: &TrajectoryRecord) -> Result<()> {
        self.check_open()?;
        jsonl::write_line(&mut self.text, record);
        self.lines += 1;
        Ok(())
    }
}
