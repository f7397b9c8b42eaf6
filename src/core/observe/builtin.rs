//! The built-in observers by name, each with its options and its state.
//!
//! A built-in is a type implementing [`Detector`] (its name, what it
//! reports, its options and their checks, its state, what it does after a
//! call and at a check) and one line in [`builtins!`] below: the enum, the
//! list of names, the option and snapshot handling and the docs' table
//! follow from those two places.

use serde::Serialize;
use serde_json::Value;

use super::budget::Budget;
use super::cascade::ErrorCascade;
use super::drift::Drift;
use super::log::CallFacts;
use super::resources::{Resources, Usage};
use super::stall::Stall;
use super::Outcome;
use crate::error::{Error, Result};
use crate::read::{read, FromJson};

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

fn options<T: FromJson + Default>(v: Option<&Value>, who: &str) -> Result<T> {
    match v {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => read(v.clone(), "").map_err(|e| Error::invalid_argument(format!("{who}: options: {e}"))),
    }
}

/// A built-in for the docs: its name, what it reports, its options with
/// their defaults (JSON), and the limits on them.
pub struct BuiltinDoc {
    pub kind: &'static str,
    pub reports: &'static str,
    pub defaults: Value,
    pub limits: &'static str,
}

macro_rules! builtins {
    ($( $variant:ident($detector:ty) ),* $(,)?) => {
        /// Every built-in observer's name, in the order the docs list them.
        pub const BUILTIN_NAMES: &[&str] = &[$( <$detector as Detector>::KIND ),*];

        #[derive(Debug, Clone, PartialEq)]
        pub enum Builtin {
            $( $variant(<$detector as Detector>::Config, <$detector as Detector>::State), )*
        }

        /// Every built-in as the docs describe it.
        pub fn builtin_docs() -> Vec<BuiltinDoc> {
            vec![$( BuiltinDoc {
                kind: <$detector as Detector>::KIND,
                reports: <$detector as Detector>::REPORTS,
                defaults: serde_json::to_value(<<$detector as Detector>::Config as Default>::default()).unwrap_or(Value::Null),
                limits: <$detector as Detector>::LIMITS,
            } ),*]
        }

        impl Builtin {
            /// A built-in by its config name; `who` names it in errors.
            pub fn from_config(kind: &str, opts: Option<&Value>, who: &str) -> Result<Builtin> {
                $( if kind == <$detector as Detector>::KIND {
                    let config = options(opts, who)?;
                    <$detector as Detector>::check_options(&config).map_err(|e| e.within(who))?;
                    return Ok(Builtin::$variant(config, Default::default()));
                } )*
                Err(Error::invalid_argument(format!(
                    "{who}: unknown observer {kind:?}; expected one of {} or a custom observer object",
                    BUILTIN_NAMES.join(", ")
                )))
            }

            pub fn kind(&self) -> &'static str {
                match self {
                    $( Builtin::$variant(..) => <$detector as Detector>::KIND, )*
                }
            }

            /// The name its assessments carry.
            pub fn name(&self) -> &str {
                match self {
                    $( Builtin::$variant(c, _) => <$detector as Detector>::name(c), )*
                }
            }

            pub fn on_call(&mut self, facts: &CallFacts) {
                match self {
                    $( Builtin::$variant(c, s) => <$detector as Detector>::on_call(c, s, facts), )*
                }
            }

            pub fn check(&mut self, budget: &Budget, usage: &Usage) -> Outcome {
                match self {
                    $( Builtin::$variant(c, s) => <$detector as Detector>::check(c, s, budget, usage), )*
                }
            }

            /// The options in force, as JSON: a snapshot keeps them, so a restore
            /// with other options (whose state would not fit) is refused.
            pub fn options(&self) -> Value {
                let value = match self {
                    $( Builtin::$variant(c, _) => serde_json::to_value(c), )*
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
                    $( Builtin::$variant(c, _) => same(saved, c), )*
                }
            }

            /// The detector's state as JSON (`null` for stateless observers).
            pub fn state(&self) -> Value {
                let value = match self {
                    $( Builtin::$variant(_, s) => serde_json::to_value(s), )*
                };
                value.unwrap_or(Value::Null)
            }

            pub fn restore_state(&mut self, v: Value, who: &str) -> Result<()> {
                let bad = |e: String| Error::invalid_argument(format!("{who}: snapshot state: {e}"));
                match self {
                    $( Builtin::$variant(_, s) => *s = read(v, "state").map_err(bad)?, )*
                }
                Ok(())
            }
        }
    };
}

builtins! {
    Resources(Resources),
    Stall(Stall),
    ErrorCascade(ErrorCascade),
    Drift(Drift),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_named_once_and_documented() {
        let docs = builtin_docs();
        assert_eq!(docs.iter().map(|d| d.kind).collect::<Vec<_>>(), BUILTIN_NAMES);
        for (i, d) in docs.iter().enumerate() {
            assert!(!BUILTIN_NAMES[..i].contains(&d.kind), "{} twice", d.kind);
            assert!(d.reports.len() > 20, "{} reports nothing", d.kind);
            // Every option has a default the docs show (the name aside).
            assert!(d.defaults.as_object().is_some_and(|o| o.contains_key("name")), "{}", d.kind);
            // The defaults are options it accepts (drift aside: its scope is required).
            let b = Builtin::from_config(d.kind, Some(&d.defaults), d.kind);
            assert_eq!(b.is_ok(), d.kind != "drift", "{}: {b:?}", d.kind);
        }
    }

    #[test]
    fn a_stateless_observer_saves_null_and_ignores_what_it_is_given_back() {
        let mut b = Builtin::from_config("resources", None, "resources").unwrap();
        assert_eq!(b.state(), Value::Null);
        b.restore_state(serde_json::json!({ "anything": 1 }), "resources").unwrap();
        assert_eq!(b, Builtin::from_config("resources", None, "resources").unwrap());
    }
}
