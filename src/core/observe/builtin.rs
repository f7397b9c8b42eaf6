//! The built-in observers by name, each with its options and its state.
//!
//! A built-in is a module of `builtin/` with a type implementing
//! [`Detector`] (its name, what it reports, its options and their checks,
//! its state, what it does after a call and at a check), and one line in
//! `builtins!` below, which declares the module: the enum, the list of
//! names, the option and snapshot handling and the docs' table follow from
//! those two places.

use serde_json::Value;

use super::budget::Budget;
use super::detector::{Detector, Usage};
use super::log::CallFacts;
use super::Outcome;
use crate::error::{Error, Result};
use crate::number::quoted;
use crate::read::{read, FromJson};

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
    ($( $variant:ident($module:ident::$name:ident) ),* $(,)?) => {
        // Each detector's module, in builtin/.
        $( pub mod $module; )*
        builtins!(@list $( $variant($module::$name) ),*);
    };
    (@list $( $variant:ident($detector:ty) ),*) => {
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
                defaults: crate::write::value(&<<$detector as Detector>::Config as Default>::default()),
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
                let near = crate::options::nearest(kind, BUILTIN_NAMES).map(|n| format!("did you mean {}? ", quoted(n))).unwrap_or_default();
                Err(Error::invalid_argument(format!(
                    "{who}: unknown observer {}; {near}expected one of {} or a custom observer object",
                    quoted(kind),
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
                match self {
                    $( Builtin::$variant(c, _) => crate::write::value(c), )*
                }
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
                match self {
                    $( Builtin::$variant(_, s) => crate::write::value(s), )*
                }
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
    Resources(resources::Resources),
    Stall(stall::Stall),
    ErrorCascade(cascade::ErrorCascade),
    Drift(drift::Drift),
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
