//! `ObserverPipeline` options: their keys, defaults and the rules for an
//! observer entry. The binding reads values out of JS and asks these.

use super::builtin::BUILTIN_NAMES;
use crate::error::{Error, Result};
use crate::value::Arg;

/// The keys of `ObserverPipeline` options.
pub const PIPELINE_OPTIONS: [&str; 6] = ["observers", "clock", "budget", "maxAgeCalls", "recorder", "onError"];
/// The keys of one `observers[i]` entry.
pub const ENTRY_OPTIONS: [&str; 3] = ["observer", "trigger", "options"];
/// How many tool calls an assessment stays current for when `maxAgeCalls` is not given.
pub const DEFAULT_MAX_AGE_CALLS: u64 = 20;

/// `maxAgeCalls`: a whole count, [`DEFAULT_MAX_AGE_CALLS`] when absent.
pub fn max_age_calls(arg: &Arg) -> Result<u64> {
    arg.count_or(DEFAULT_MAX_AGE_CALLS, "maxAgeCalls")
}

/// What an entry's `observer` is.
pub enum ObserverKind {
    /// One of [`BUILTIN_NAMES`] (checked when its options are read).
    Builtin(String),
    /// A custom observer object.
    Custom,
}

/// Reads `observers[i]`: `not_object` (how the entry shows, when it is not
/// an object), its `observer` and, for the hint on a custom observer given
/// bare, its `observe`.
pub fn entry(at: &str, not_object: Option<&str>, observer: &Arg, observe: &Arg) -> Result<ObserverKind> {
    if let Some(shown) = not_object {
        return Err(Error::invalid_argument(format!("{at} must be {{ observer, trigger, options? }}, got {shown}")));
    }
    match (observer, observe) {
        (Arg::Absent, Arg::Function) => Err(Error::invalid_argument(format!(
            "{at} is a custom observer given bare: put it in an entry with its trigger, {{ observer: {{ name, observe }}, trigger: {{ everyNCalls: 1 }} }}"
        ))),
        (Arg::Str(name), _) => Ok(ObserverKind::Builtin(name.clone())),
        (Arg::Other(_), _) => Ok(ObserverKind::Custom),
        _ => Err(Error::invalid_argument(format!(
            "{at}.observer must be {} or a custom observer object",
            BUILTIN_NAMES.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// A custom observer's name (a non-empty string) and whether it has a
/// `shouldRun`; it must have `observe`.
pub fn custom(at: &str, name: &Arg, observe: &Arg, should_run: &Arg) -> Result<(String, bool)> {
    let name = match name {
        Arg::Str(n) if !n.trim().is_empty() => n.clone(),
        _ => return Err(Error::invalid_argument(format!("{at}: a custom observer needs a non-empty string `name`"))),
    };
    let who = format!("{at} ({name})");
    if !observe.callback(&format!("{who}: observe"))? {
        return Err(Error::invalid_argument(format!("{who}: a custom observer needs an observe(ctx) function")));
    }
    let should_run = should_run.callback(&format!("{who}: shouldRun"))?;
    Ok((name, should_run))
}

/// An entry's trigger must be given.
pub fn trigger_given(who: &str, trigger: &Arg) -> Result<()> {
    match trigger {
        Arg::Absent => Err(Error::invalid_argument(format!("{who}: trigger is required"))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_age_calls_defaults_to_twenty() {
        assert_eq!(max_age_calls(&Arg::Absent).unwrap(), DEFAULT_MAX_AGE_CALLS);
        assert_eq!(DEFAULT_MAX_AGE_CALLS, 20);
        assert_eq!(max_age_calls(&Arg::Number(5.0)).unwrap(), 5);
        assert!(max_age_calls(&Arg::Number(-1.0)).is_err());
    }

    #[test]
    fn an_entry_is_a_builtin_name_or_a_custom_object() {
        let obj = Arg::Other("an object".into());
        assert!(matches!(entry("observers[0]", None, &Arg::Str("stall".into()), &Arg::Absent), Ok(ObserverKind::Builtin(n)) if n == "stall"));
        assert!(matches!(entry("observers[0]", None, &obj, &Arg::Absent), Ok(ObserverKind::Custom)));
        let bare = entry("observers[0]", None, &Arg::Absent, &Arg::Function).err().unwrap();
        assert!(bare.message.contains("custom observer given bare"), "{}", bare.message);
        let wrong = entry("observers[1]", None, &Arg::Number(1.0), &Arg::Absent).err().unwrap();
        // Every built-in by name, then the custom object (a new built-in joins the list by itself).
        assert!(wrong.message.starts_with("observers[1].observer must be 'resources', 'stall', "), "{}", wrong.message);
        assert!(wrong.message.ends_with("' or a custom observer object"), "{}", wrong.message);
        assert!(BUILTIN_NAMES.iter().all(|n| wrong.message.contains(&format!("'{n}'"))), "{}", wrong.message);
        let not_obj = entry("observers[2]", Some("3"), &Arg::Absent, &Arg::Absent).err().unwrap();
        assert_eq!(not_obj.message, "observers[2] must be { observer, trigger, options? }, got 3");
    }

    #[test]
    fn a_custom_observer_needs_a_name_and_observe() {
        let f = Arg::Function;
        assert_eq!(custom("observers[0]", &Arg::Str("mine".into()), &f, &Arg::Absent).unwrap(), ("mine".into(), false));
        assert_eq!(custom("observers[0]", &Arg::Str("mine".into()), &f, &f).unwrap(), ("mine".into(), true));
        let unnamed = custom("observers[0]", &Arg::Str(" ".into()), &f, &Arg::Absent).unwrap_err();
        assert_eq!(unnamed.message, "observers[0]: a custom observer needs a non-empty string `name`");
        let blind = custom("observers[0]", &Arg::Str("mine".into()), &Arg::Absent, &Arg::Absent).unwrap_err();
        assert_eq!(blind.message, "observers[0] (mine): a custom observer needs an observe(ctx) function");
        let odd = custom("observers[0]", &Arg::Str("mine".into()), &f, &Arg::Number(1.0)).unwrap_err();
        assert_eq!(odd.message, "observers[0] (mine): shouldRun must be a function, got 1");
        assert!(trigger_given("observers[0] (mine)", &Arg::Absent).is_err());
    }
}
