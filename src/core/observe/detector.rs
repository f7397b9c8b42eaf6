//! What a built-in observer is ([`Detector`]): the detectors implement it,
//! and `builtin.rs` lists them.

use serde::Serialize;
use serde_json::Value;

use super::budget::Budget;
use super::log::CallFacts;
use super::Outcome;
use crate::error::Result;
use crate::read::FromJson;

/// The largest detector window: a window is scanned per check, so its size
/// is the per-call cost; past this it would be a history scan in disguise.
pub const MAX_WINDOW: usize = 1000;

/// A built-in observer.
pub trait Detector {
    /// Its name in a pipeline's observer list (`'stall'`).
    const KIND: &'static str;
    /// What it reports, in the docs' words.
    const REPORTS: &'static str;
    /// Limits on its options the defaults do not show, in the docs' words
    /// (empty when there are none).
    const LIMITS: &'static str;
    /// Its options (camelCase keys, every one with a default).
    type Config: FromJson + Serialize + Default + PartialEq + Clone + std::fmt::Debug;
    /// What it keeps between calls, saved in a pipeline snapshot.
    type State: FromJson + Serialize + Default + PartialEq + Clone + std::fmt::Debug;
    /// Refuses options out of range, in words (the caller names the observer).
    fn check_options(_config: &Self::Config) -> Result<()> {
        Ok(())
    }
    /// The name its assessments carry.
    fn name(config: &Self::Config) -> &str;
    /// Takes in a call.
    fn on_call(_config: &Self::Config, _state: &mut Self::State, _facts: &CallFacts) {}
    /// Its word at a check.
    fn check(config: &Self::Config, state: &mut Self::State, budget: &Budget, usage: &Usage) -> Outcome;
}

/// The state of an observer that keeps none: `null` in a snapshot, and
/// whatever a snapshot holds in its place is ignored on restore.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NoState;

impl Serialize for NoState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_unit()
    }
}

impl FromJson for NoState {
    fn from_json(_: Option<Value>, _: &crate::read::At) -> std::result::Result<Self, String> {
        Ok(NoState)
    }
}

/// What a detector reads at a check, besides the budget.
pub struct Usage {
    pub now_ms: f64,
    pub started_at_ms: f64,
    pub tool_calls: u64,
}
