//! The trajectory record: one event of a run, stamped with a schema
//! version, a per-run monotonic `seq`, the run's identity and a time from
//! the injected clock. Payloads are typed and tagged by `kind`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::payload::Payload;
use crate::error::{Error, ErrorCode, Result};
use crate::read::{At, FromJson};

/// The schema this build writes. A reader refuses anything newer rather
/// than guessing at fields it does not know.
pub const TRAJECTORY_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrajectoryRecord {
    /// Missing on records written before versioning: they read as 0.
    pub schema_version: u32,
    /// Per run, from 0, no gaps: a consumer that sees seq N has seen every seq < N.
    pub seq: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// 0 for a top-level run, parent's depth + 1 for a child run.
    pub depth: u32,
    pub recorded_at_unix_ms: u64,
    pub payload: Payload,
}

impl TrajectoryRecord {
    /// A copy of the record. The derived `clone` (every payload kind) is a
    /// few KB of module: callers copy through this one function, never
    /// inlined, so the module holds that code once.
    #[inline(never)]
    pub fn copy(&self) -> TrajectoryRecord {
        self.clone()
    }

    /// Reads a record from JSON text, checking the schema version before
    /// the rest, so a newer writer's unknown kinds report as a version
    /// problem rather than a confusing shape error.
    pub fn from_json(text: &str) -> Result<TrajectoryRecord> {
        let Slots(mut s) = serde_json::from_str(text).map_err(|e| json_error(&e))?;
        check_version(s[0].as_ref())?;
        let root = At::Root("");
        let at = |i: usize| At::Key(&root, RECORD_KEYS[i]);
        let bad = |e: String| Error::new(ErrorCode::InvalidRecord, e);
        Ok(TrajectoryRecord {
            schema_version: Option::from_json(s[0].take(), &at(0)).map_err(bad)?.unwrap_or(0),
            seq: u64::from_json(s[1].take(), &at(1)).map_err(bad)?,
            run_id: Option::from_json(s[2].take(), &at(2)).map_err(bad)?,
            parent_run_id: Option::from_json(s[3].take(), &at(3)).map_err(bad)?,
            depth: Option::from_json(s[4].take(), &at(4)).map_err(bad)?.unwrap_or(0),
            recorded_at_unix_ms: u64::from_json(s[5].take(), &at(5)).map_err(bad)?,
            payload: Payload::from_json(s[6].take(), &at(6)).map_err(bad)?,
        })
    }

    pub fn to_json(&self) -> String {
        crate::write::json(self)
    }
}

const RECORD_KEYS: [&str; 7] = ["schema_version", "seq", "run_id", "parent_run_id", "depth", "recorded_at_unix_ms", "payload"];

/// A record's top-level values by [`RECORD_KEYS`] (others skipped), read
/// without building a map: this runs for every line of a JSONL file, and a
/// map would hash every key.
struct Slots([Option<Value>; 7]);

impl<'de> Deserialize<'de> for Slots {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Key(Option<usize>);
        impl<'de> Deserialize<'de> for Key {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                d.deserialize_str(KeyVisitor)
            }
        }
        struct KeyVisitor;
        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Key, E> {
                Ok(Key(RECORD_KEYS.iter().position(|k| *k == v)))
            }
        }
        struct SlotsVisitor;
        impl<'de> serde::de::Visitor<'de> for SlotsVisitor {
            type Value = Slots;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a record (a JSON object)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Slots, A::Error> {
                let mut slots = Slots(Default::default());
                while let Some(Key(i)) = map.next_key()? {
                    match i {
                        Some(i) => slots.0[i] = Some(map.next_value()?),
                        None => drop(map.next_value::<serde::de::IgnoredAny>()?),
                    }
                }
                Ok(slots)
            }
            // Any other JSON value is refused here rather than by serde's
            // defaults: those name the value's type through a message that
            // links float printing into the module (~14 KB).
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<Slots, E> {
                Err(not_object("a boolean"))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<Slots, E> {
                Err(not_object("a number"))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<Slots, E> {
                Err(not_object("a number"))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<Slots, E> {
                Err(not_object("a number"))
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<Slots, E> {
                Err(not_object("a string"))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Slots, E> {
                Err(not_object("null"))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> std::result::Result<Slots, A::Error> {
                Err(not_object("an array"))
            }
        }
        fn not_object<E: serde::de::Error>(got: &str) -> E {
            E::custom(format_args!("invalid type: {got}, expected a record (a JSON object)"))
        }
        d.deserialize_any(SlotsVisitor)
    }
}

/// Syntax errors are JSONL_PARSE; well-formed JSON of the wrong shape is
/// INVALID_RECORD. The text is one line, so a syntax error says its column
/// (the caller says which line), never the parser's own "line 1".
fn json_error(e: &serde_json::Error) -> Error {
    use serde_json::error::Category;
    let what = crate::error::plain_serde(e);
    match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => {
            Error::new(ErrorCode::JsonlParse, format!("invalid JSON at column {}: {what}", e.column()))
        }
        Category::Data => Error::new(ErrorCode::InvalidRecord, what),
    }
}

/// A record of a schema newer than this reader's: the parser's error, and
/// the index's problem.
pub fn newer_version(ver: u64) -> Error {
    Error::new(
        ErrorCode::UnsupportedSchemaVersion,
        format!("schema_version {ver} is newer than this reader's {TRAJECTORY_SCHEMA_VERSION}; upgrade agent-trajectories to read it"),
    )
}

/// Refuses versions newer than [`TRAJECTORY_SCHEMA_VERSION`]; a missing version is 0.
pub fn check_version(v: Option<&Value>) -> Result<()> {
    match v {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(ver) if ver <= u64::from(TRAJECTORY_SCHEMA_VERSION) => Ok(()),
            Some(ver) => Err(newer_version(ver)),
            None => Err(Error::new(ErrorCode::InvalidRecord, format!("schema_version must be a non-negative integer, got {n}"))),
        },
        Some(other) => Err(Error::new(
            ErrorCode::InvalidRecord,
            format!("schema_version must be a non-negative integer, got {}", crate::message::kind_of(other)),
        )),
    }
}
