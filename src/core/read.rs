//! Reading typed values out of parsed JSON, by hand.
//!
//! serde's derived `Deserialize` is instantiated per type (and per
//! deserializer), and measured the largest share of the wasm module: the
//! payloads' readers ~9 KB gzip, the observer snapshot's ~15 KB. These
//! readers walk a `serde_json::Value` instead, one small function per type,
//! and their errors name the path in the user's words
//! (`log[3].toolName: invalid type: a number, expected a string`).
//!
//! They are lenient where a newer or older writer may differ: unknown keys
//! are ignored, an absent list reads as empty, an absent option or `Value`
//! as none / null. Everything else absent is a "missing field" error. What
//! a caller writes (a payload given to `record()`) is read from an
//! [`At::Written`] root: there a key that the payload's kind, or one of its
//! typed parts (a `checked` struct), does not have is refused, naming the
//! nearest field, instead of vanishing ([`known_fields`]).

use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::message::kind_of;
use super::number::MAX_SAFE_INTEGER;

/// Where a value sits, for errors: `observers[1].state.window[0].op`.
#[derive(Clone, Copy)]
pub enum At<'a> {
    /// The value read (`""` when errors should start at its keys).
    Root(&'a str),
    /// The value read, as a caller wrote it: its objects may hold no key
    /// their readers do not know (see [`known_fields`]).
    Written(&'a str),
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Root(name) | At::Written(name) => f.write_str(name),
            At::Key(At::Root("") | At::Written(""), key) => f.write_str(key),
            At::Key(parent, key) => write!(f, "{parent}.{key}"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

impl At<'_> {
    /// Whether the value read is one a caller wrote ([`At::Written`]).
    pub fn written(&self) -> bool {
        match self {
            At::Root(_) => false,
            At::Written(_) => true,
            At::Key(parent, _) | At::Index(parent, _) => parent.written(),
        }
    }

    /// `"payload.kind: "`, or nothing at the root (`""`).
    pub fn prefix(&self) -> String {
        match self.to_string() {
            s if s.is_empty() => s,
            s => format!("{s}: "),
        }
    }
}

/// A type read from JSON; `v` is `None` when its key is absent.
pub trait FromJson: Sized {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String>;
}

/// Reads the whole of `v`; errors start with `root` (or at its keys when `root` is `""`).
pub fn read<T: FromJson>(v: Value, root: &str) -> Result<T, String> {
    T::from_json(Some(v), &At::Root(root))
}

/// [`read`] of what a caller wrote: a key no reader knows is refused.
pub fn read_written<T: FromJson>(v: Value, root: &str) -> Result<T, String> {
    T::from_json(Some(v), &At::Written(root))
}

/// Before a reader takes its fields (`known`) out of `obj`: in what a
/// caller wrote, a key it does not know is refused, naming the nearest
/// field; elsewhere such a key is a newer writer's, and ignored.
pub fn known_fields(obj: &Map<String, Value>, known: &[&str], at: &At) -> Result<(), String> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(key) if at.written() => Err(super::options::unknown_message("field", key, known, &at.to_string()).trim_start_matches(": ").to_owned()),
        _ => Ok(()),
    }
}

pub fn present(v: Option<Value>, at: &At) -> Result<Value, String> {
    v.ok_or_else(|| format!("missing field \"{at}\""))
}

pub fn wrong(v: &Value, at: &At, expected: &str) -> String {
    // A value read at an unnamed root (the caller names it) has no place of its own to say.
    let at = match at.to_string() {
        at if at.is_empty() => at,
        at => at + ": ",
    };
    match v {
        // NaN and ±Infinity cross from JS as strings (JSON has no such numbers).
        Value::String(n) if matches!(n.as_str(), "NaN" | "Infinity" | "-Infinity") => {
            if expected.contains("number") {
                format!("{at}invalid value: the number {n}, expected {expected}")
            } else {
                format!("{at}invalid type: {n}, expected {expected}")
            }
        }
        _ => format!("{at}invalid type: {}, expected {expected}", kind_of(v)),
    }
}

pub fn object(v: Option<Value>, at: &At) -> Result<Map<String, Value>, String> {
    match present(v, at)? {
        Value::Object(obj) => Ok(obj),
        other => Err(wrong(&other, at, "an object")),
    }
}

/// `obj[key]` read as a `T` (and taken out of `obj`).
pub fn field<T: FromJson>(obj: &mut Map<String, Value>, key: &str, at: &At) -> Result<T, String> {
    T::from_json(obj.remove(key), &At::Key(at, key))
}

/// `obj[key]`, or `T::default()` when absent.
pub fn field_or_default<T: FromJson + Default>(obj: &mut Map<String, Value>, key: &str, at: &At) -> Result<T, String> {
    match obj.remove(key) {
        None => Ok(T::default()),
        v => T::from_json(v, &At::Key(at, key)),
    }
}

/// `impl FromJson` for a struct from its fields' JSON keys; a field written
/// `key = default` takes its `Default` when absent. `checked` before the
/// type: a part of a payload, so in what a caller wrote a key it does not
/// know is refused ([`known_fields`]); other types are never written by a
/// caller, and pay nothing for the check.
macro_rules! from_json_struct {
    (checked $ty:ident $fields:tt) => { from_json_struct!(@impl true, $ty $fields); };
    ($ty:ident $fields:tt) => { from_json_struct!(@impl false, $ty $fields); };
    (@impl $checked:literal, $ty:ident { $( $field:ident : $key:literal $(= $default:ident)? ),* $(,)? }) => {
        impl $ty {
            /// The keys its reader knows.
            pub const KEYS: &'static [&'static str] = &[$($key),*];
        }
        impl $crate::read::FromJson for $ty {
            fn from_json(v: Option<serde_json::Value>, at: &$crate::read::At) -> Result<Self, String> {
                let mut obj = $crate::read::object(v, at)?;
                if $checked {
                    $crate::read::known_fields(&obj, Self::KEYS, at)?;
                }
                Ok($ty { $( $field: from_json_struct!(@field obj, $key, at $(, $default)?), )* })
            }
        }
    };
    (@field $obj:ident, $key:literal, $at:ident) => { $crate::read::field(&mut $obj, $key, $at)? };
    (@field $obj:ident, $key:literal, $at:ident, default) => { $crate::read::field_or_default(&mut $obj, $key, $at)? };
}

/// `impl FromJson` for an options object: every key optional (an absent
/// one keeps the type's `Default`), an unknown key refused naming the
/// nearest valid one.
macro_rules! from_json_options {
    ($ty:ident { $( $field:ident : $key:literal ),* $(,)? }) => {
        impl $crate::read::FromJson for $ty {
            fn from_json(v: Option<serde_json::Value>, at: &$crate::read::At) -> Result<Self, String> {
                let mut obj = $crate::read::object(v, at)?;
                $crate::read::known_keys(&obj, &[$($key),*], at)?;
                let mut out = <$ty as Default>::default();
                $( if let Some(v) = obj.remove($key) {
                    out.$field = $crate::read::FromJson::from_json(Some(v), &$crate::read::At::Key(at, $key))?;
                } )*
                Ok(out)
            }
        }
    };
}

/// Refuses a key of `obj` that is not in `allowed`, naming the nearest.
pub fn known_keys(obj: &Map<String, Value>, allowed: &[&str], at: &At) -> Result<(), String> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => {
            let message = super::options::unknown_key_message(key, allowed, &at.to_string());
            Err(message.trim_start_matches(": ").to_owned())
        }
    }
}

/// `impl FromJson` for a fieldless enum written as strings.
macro_rules! from_json_enum {
    ($ty:ident, $expected:literal { $( $name:literal => $variant:ident ),* $(,)? }) => {
        impl $crate::read::FromJson for $ty {
            fn from_json(v: Option<serde_json::Value>, at: &$crate::read::At) -> Result<Self, String> {
                match $crate::read::present(v, at)? {
                    $( serde_json::Value::String(s) if s == $name => Ok($ty::$variant), )*
                    serde_json::Value::String(s) => Err(format!("{at}: unknown value {s}, expected {}", $expected, s = $crate::number::quoted(&s))),
                    other => Err($crate::read::wrong(&other, at, $expected)),
                }
            }
        }
    };
}

impl FromJson for String {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        match present(v, at)? {
            Value::String(s) => Ok(s),
            other => Err(wrong(&other, at, "a string")),
        }
    }
}

impl FromJson for Rc<str> {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        String::from_json(v, at).map(Rc::from)
    }
}

impl FromJson for bool {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        match present(v, at)? {
            Value::Bool(b) => Ok(b),
            other => Err(wrong(&other, at, "a boolean")),
        }
    }
}

impl FromJson for f64 {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        match present(v, at)? {
            Value::Number(n) => Ok(n.as_f64().unwrap_or(f64::NAN)),
            other => Err(wrong(&other, at, "a finite number")),
        }
    }
}

/// Whole numbers a JS number holds exactly (at most 2^53 − 1).
impl FromJson for u64 {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        match present(v, at)? {
            Value::Number(n) => match n.as_u64() {
                Some(n) if n <= MAX_SAFE_INTEGER => Ok(n),
                Some(n) => Err(format!("{at}: {n} is past the largest exact JS integer ({MAX_SAFE_INTEGER})")),
                None => Err(format!("{at}: invalid value: the number {n}, expected a whole number (0 or more)")),
            },
            other => Err(wrong(&other, at, "a whole number (0 or more)")),
        }
    }
}

impl FromJson for u32 {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        let n = u64::from_json(v, at)?;
        u32::try_from(n).map_err(|_| format!("{at}: {n} is too large (at most {})", u32::MAX))
    }
}

impl FromJson for usize {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        let n = u64::from_json(v, at)?;
        usize::try_from(n).map_err(|_| format!("{at}: {n} is too large"))
    }
}

impl FromJson for Value {
    fn from_json(v: Option<Value>, _at: &At) -> Result<Self, String> {
        Ok(v.unwrap_or(Value::Null))
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        match v {
            None | Some(Value::Null) => Ok(None),
            v => T::from_json(v, at).map(Some),
        }
    }
}

fn items(v: Option<Value>, at: &At) -> Result<Vec<Value>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(wrong(&other, at, "an array")),
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        items(v, at)?.into_iter().enumerate().map(|(i, item)| T::from_json(Some(item), &At::Index(at, i))).collect()
    }
}

impl<T: FromJson> FromJson for VecDeque<T> {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        Vec::from_json(v, at).map(VecDeque::from)
    }
}

/// A tuple is written as an array of its items.
fn tuple(v: Option<Value>, at: &At, n: usize) -> Result<std::vec::IntoIter<Value>, String> {
    let v = present(v, at)?;
    match v {
        Value::Array(items) if items.len() == n => Ok(items.into_iter()),
        other => Err(wrong(&other, at, &format!("an array of {n} items"))),
    }
}

impl<A: FromJson, B: FromJson> FromJson for (A, B) {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        let mut it = tuple(v, at, 2)?;
        Ok((A::from_json(it.next(), &At::Index(at, 0))?, B::from_json(it.next(), &At::Index(at, 1))?))
    }
}

impl<A: FromJson, B: FromJson, C: FromJson> FromJson for (A, B, C) {
    fn from_json(v: Option<Value>, at: &At) -> Result<Self, String> {
        let mut it = tuple(v, at, 3)?;
        Ok((A::from_json(it.next(), &At::Index(at, 0))?, B::from_json(it.next(), &At::Index(at, 1))?, C::from_json(it.next(), &At::Index(at, 2))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq, Default)]
    struct Call {
        name: String,
        index: u64,
        tags: Vec<String>,
        at: Option<f64>,
        retries: u32,
    }
    from_json_struct!(checked Call { name: "name", index: "callIndex", tags: "tags", at: "at", retries: "retries" = default });

    #[test]
    fn reads_and_names_the_path() {
        let c: Call = read(json!({ "name": "a", "callIndex": 3, "extra": true }), "").unwrap();
        assert_eq!(c, Call { name: "a".into(), index: 3, ..Call::default() });
        let bad = |v: Value| read::<Vec<Call>>(v, "log").unwrap_err();
        assert_eq!(bad(json!([{ "name": "a", "callIndex": 1 }, { "name": 2 }])), "log[1].name: invalid type: a number, expected a string");
        assert_eq!(bad(json!([{ "name": "a" }])), "missing field \"log[0].callIndex\"");
        assert_eq!(
            bad(json!([{ "name": "a", "callIndex": 9007199254740992u64 }])),
            "log[0].callIndex: 9007199254740992 is past the largest exact JS integer (9007199254740991)"
        );
        assert_eq!(
            bad(json!([{ "name": "a", "callIndex": -1 }])),
            "log[0].callIndex: invalid value: the number -1, expected a whole number (0 or more)"
        );
        assert_eq!(
            bad(json!([{ "name": "a", "callIndex": 1, "retries": 5000000000u64 }])),
            "log[0].retries: 5000000000 is too large (at most 4294967295)"
        );
        assert_eq!(bad(json!({})), "log: invalid type: an object, expected an array");
        // At an unnamed root the caller says where: no empty place before the colon.
        assert_eq!(read::<Vec<u64>>(json!(3), "").unwrap_err(), "invalid type: a number, expected an array");
        assert_eq!(read::<(u32, u64)>(json!([1]), "p").unwrap_err(), "p: invalid type: an array, expected an array of 2 items");
        // NaN and Infinity cross as strings: said as the numbers they were, and what is wanted is finite.
        assert_eq!(
            bad(json!([{ "name": "a", "callIndex": 1, "at": "Infinity" }])),
            "log[0].at: invalid value: the number Infinity, expected a finite number"
        );
    }

    #[test]
    fn what_a_caller_wrote_holds_no_key_its_reader_does_not_know() {
        let v = json!([{ "name": "a", "callIndex": 3, "calIndex": 4 }]);
        // Read from a file: a newer writer's key, ignored.
        assert_eq!(read::<Vec<Call>>(v.clone(), "log").unwrap()[0].index, 3);
        // Written by a caller: refused, the nearest field named, at any depth.
        assert_eq!(
            read_written::<Vec<Call>>(v, "log").unwrap_err(),
            "log[0]: unknown field \"calIndex\"; did you mean \"callIndex\"? (valid: name, callIndex, tags, at, retries)"
        );
        assert_eq!(
            read_written::<Call>(json!({ "name": "a", "callIndex": 1, "zzz": 0 }), "").unwrap_err(),
            "unknown field \"zzz\" (valid: name, callIndex, tags, at, retries)"
        );
        assert!(read_written::<Call>(json!({ "name": "a", "callIndex": 1 }), "").is_ok());
    }
}
