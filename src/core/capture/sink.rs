//! Sinks the core provides. A sink is failable: `accept` may refuse a
//! record, and the dispatcher's policy decides what that means.

use super::jsonl;
use super::record::TrajectoryRecord;
use crate::core::error::Result;

pub trait Sink {
    fn accept(&mut self, record: &TrajectoryRecord) -> Result<()>;
}

/// Keeps every record in memory, in delivery order.
#[derive(Debug, Default, Clone)]
pub struct MemorySink {
    records: Vec<TrajectoryRecord>,
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
}

impl Sink for MemorySink {
    fn accept(&mut self, record: &TrajectoryRecord) -> Result<()> {
        self.records.push(record.clone());
        Ok(())
    }
}

/// Accumulates records as JSONL text, one `\n`-terminated line each.
#[derive(Debug, Default, Clone)]
pub struct JsonlSink {
    text: String,
    lines: usize,
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
}

impl Sink for JsonlSink {
    fn accept(&mut self, record: &TrajectoryRecord) -> Result<()> {
        jsonl::write_line(&mut self.text, record);
        self.lines += 1;
        Ok(())
    }
}
