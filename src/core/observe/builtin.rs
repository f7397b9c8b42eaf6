//! The built-in observers by name, each with its options and its state.

use crate::read::{read, FromJson};
use serde_json::Value;

use super::budget::Budget;
use super::cascade::{CascadeConfig, CascadeState};
use super::drift::{DriftConfig, DriftState};
use super::log::CallFacts;
use super::resources::{ResourcesConfig, Usage};
use super::stall::{StallConfig, StallState};
use super::Outcome;
use crate::error::{Error, Result};

pub const BUILTIN_NAMES: [&str; 4] = ["resources", "stall", "error-cascade", "drift"];

/// The largest detector window: a window is scanned per check, so its size
/// is the per-call cost; past this it would be a history scan in disguise.
pub const MAX_WINDOW: usize = 1000;

#[derive(Debug, Clone, PartialEq)]
pub enum Builtin {
    Resources(ResourcesConfig),
    Stall(StallConfig, StallState),
    ErrorCascade(CascadeConfig, CascadeState),
    Drift(DriftConfig, DriftState),
}

fn options<T: FromJson + Default>(v: Option<&Value>, who: &str) -> Result<T> {
    match v {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => read(v.clone(), "").map_err(|e| Error::invalid_argument(format!("{who}: options: {e}"))),
    }
}

impl Builtin {
    /// A built-in by its config name; `who` names it in errors.
    pub fn from_config(kind: &str, opts: Option<&Value>, who: &str) -> Result<Builtin> {
        Ok(match kind {
            "resources" => {
                let c: ResourcesConfig = options(opts, who)?;
                if !(0.0..=1.0).contains(&c.warning_threshold)
                    || !(0.0..=1.0).contains(&c.caution_threshold)
                    || c.warning_threshold > c.caution_threshold
                {
                    return Err(Error::invalid_argument(format!("{who}: thresholds must satisfy 0 <= warningThreshold <= cautionThreshold <= 1")));
                }
                Builtin::Resources(c)
            }
            "stall" => {
                let c: StallConfig = options(opts, who)?;
                if c.window < 6 || c.target_window == 0 || c.repeat_threshold < 2 || c.failing_repeat_threshold < 2 || c.same_target_threshold < 2 {
                    return Err(Error::invalid_argument(format!("{who}: window must be at least 6 and every threshold at least 2")));
                }
                if c.window > MAX_WINDOW || c.target_window > MAX_WINDOW {
                    return Err(Error::invalid_argument(format!("{who}: window and targetWindow must be at most {MAX_WINDOW}")));
                }
                Builtin::Stall(c, StallState::default())
            }
            "error-cascade" => {
                let c: CascadeConfig = options(opts, who)?;
                if c.threshold == 0 {
                    return Err(Error::invalid_argument(format!("{who}: threshold must be a positive integer")));
                }
                Builtin::ErrorCascade(c, CascadeState::default())
            }
            "drift" => {
                let c: DriftConfig = options(opts, who)?;
                c.validate().map_err(|e| e.within(who))?;
                if c.window > MAX_WINDOW {
                    return Err(Error::invalid_argument(format!("{who}: window must be at most {MAX_WINDOW}")));
                }
                Builtin::Drift(c, DriftState::default())
            }
            other => {
                return Err(Error::invalid_argument(format!(
                    "{who}: unknown observer {other:?}; expected one of {} or a custom observer object",
                    BUILTIN_NAMES.join(", ")
                )))
            }
        })
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Builtin::Resources(_) => "resources",
            Builtin::Stall(..) => "stall",
            Builtin::ErrorCascade(..) => "error-cascade",
            Builtin::Drift(..) => "drift",
        }
    }

    /// The name its assessments carry.
    pub fn name(&self) -> &str {
        match self {
            Builtin::Resources(c) => &c.name,
            Builtin::Stall(c, _) => &c.name,
            Builtin::ErrorCascade(c, _) => &c.name,
            Builtin::Drift(c, _) => &c.name,
        }
    }

    pub fn on_call(&mut self, facts: &CallFacts) {
        match self {
            Builtin::Resources(_) => {}
            Builtin::Stall(c, s) => s.on_call(c, facts),
            Builtin::ErrorCascade(_, s) => s.on_call(facts),
            Builtin::Drift(c, s) => s.on_call(c, facts),
        }
    }

    pub fn check(&mut self, budget: &Budget, usage: &Usage) -> Outcome {
        match self {
            Builtin::Resources(c) => Outcome::Report(c.observe(budget, usage)),
            Builtin::Stall(c, s) => s.check(c),
            Builtin::ErrorCascade(c, s) => s.check(c),
            Builtin::Drift(c, s) => s.check(c),
        }
    }

    /// The options in force, as JSON: a snapshot keeps them, so a restore
    /// with other options (whose state would not fit) is refused.
    pub fn options(&self) -> Value {
        let value = match self {
            Builtin::Resources(c) => serde_json::to_value(c),
            Builtin::Stall(c, _) => serde_json::to_value(c),
            Builtin::ErrorCascade(c, _) => serde_json::to_value(c),
            Builtin::Drift(c, _) => serde_json::to_value(c),
        };
        value.unwrap_or(Value::Null)
    }

    /// Whether `saved` (options as a snapshot kept them, maybe after a trip
    /// through JS, where `1.0` comes back as `1`) are the options in force.
    pub fn same_options(&self, saved: &Value) -> bool {
        fn same<T: FromJson + PartialEq>(saved: &Value, now: &T) -> bool {
            read::<T>(saved.clone(), "").is_ok_and(|s| s == *now)
        }
        match self {
            Builtin::Resources(c) => same(saved, c),
            Builtin::Stall(c, _) => same(saved, c),
            Builtin::ErrorCascade(c, _) => same(saved, c),
            Builtin::Drift(c, _) => same(saved, c),
        }
    }

    /// The detector's state as JSON (`null` for stateless observers).
    pub fn state(&self) -> Value {
        let value = match self {
            Builtin::Resources(_) => Ok(Value::Null),
            Builtin::Stall(_, s) => serde_json::to_value(s),
            Builtin::ErrorCascade(_, s) => serde_json::to_value(s),
            Builtin::Drift(_, s) => serde_json::to_value(s),
        };
        value.unwrap_or(Value::Null)
    }

    pub fn restore_state(&mut self, v: Value, who: &str) -> Result<()> {
        let bad = |e: String| Error::invalid_argument(format!("{who}: snapshot state: {e}"));
        match self {
            Builtin::Resources(_) => {}
            Builtin::Stall(_, s) => *s = read(v, "state").map_err(bad)?,
            Builtin::ErrorCascade(_, s) => *s = read(v, "state").map_err(bad)?,
            Builtin::Drift(_, s) => *s = read(v, "state").map_err(bad)?,
        }
        Ok(())
    }
}
