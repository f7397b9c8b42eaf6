//! What the detectors compare calls by: a canonical hash of the params (the
//! same call with its keys in another order hashes the same), the call's
//! target path, the kind of file operation, and error text normalised so
//! that "line 41" and "line 42" read as the same failure.
//!
//! Hashing walks the JSON with a serde visitor instead of building a
//! `serde_json::Value`: no allocation per nested value on the per-call path.

use std::fmt;
use std::rc::Rc;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

/// splitmix64's finaliser: cheap, and spreads small differences everywhere.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_add(0x9E37_79B9_7F4A_7C15).wrapping_add(a << 6).wrapping_add(a >> 2);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub fn hash_str(s: &str) -> u64 {
    hash_bytes(s.as_bytes())
}

/// Eight bytes at a time (FxHash's step), then mixed: strings here are
/// hashed on every call, so this is on the hot path.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let word = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    mix(h, 0)
}

/// A `Hasher` over [`hash_bytes`] for the maps on the per-call path
/// (std's SipHash guards against adversarial keys, which tool names are not).
#[derive(Default)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = mix(self.0, hash_bytes(bytes));
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FastBuild = std::hash::BuildHasherDefault<FastHasher>;

/// For maps keyed by fingerprints, which are well-mixed hashes already:
/// hashing them again only costs time.
#[derive(Default)]
pub struct FpHasher(u64);

impl std::hash::Hasher for FpHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = mix(self.0, hash_bytes(bytes));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FpBuild = std::hash::BuildHasherDefault<FpHasher>;

/// Top-level params keys that name the file or resource a call works on.
const PATH_KEYS: [&str; 9] = ["path", "file_path", "filePath", "file", "filename", "target_file", "notebook_path", "dir", "directory"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileOp {
    Read,
    Write,
    Other,
}

/// What one pass over a call's params yields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamFacts {
    pub hash: u64,
    pub path: Option<Rc<str>>,
    /// A short top-level `command` / `action` string (editor tools use it to say view vs write).
    pub command: Option<String>,
}

/// Reads params JSON text once; invalid JSON hashes as its raw text.
pub fn param_facts(json: &str) -> ParamFacts {
    let mut facts = ParamFacts::default();
    let mut de = serde_json::Deserializer::from_str(json);
    match (TopSeed { facts: &mut facts }).deserialize(&mut de) {
        Ok(h) => facts.hash = h,
        Err(_) => facts = ParamFacts { hash: hash_str(json), ..ParamFacts::default() },
    }
    facts
}

struct HashSeed;

impl<'de> DeserializeSeed<'de> for HashSeed {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(HashVisitor)
    }
}

struct HashVisitor;

impl<'de> Visitor<'de> for HashVisitor {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<u64, E> {
        Ok(mix(1, u64::from(v)))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
        Ok(mix(2, (v as f64).to_bits()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(mix(2, (v as f64).to_bits()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u64, E> {
        Ok(mix(2, v.to_bits()))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
        Ok(mix(3, hash_str(v)))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<u64, E> {
        Ok(mix(4, 0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let mut h = 5;
        while let Some(e) = seq.next_element_seed(HashSeed)? {
            h = mix(h, e);
        }
        Ok(h)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        // Entries combine by addition, so key order does not matter.
        let (mut acc, mut n) = (0u64, 0u64);
        while let Some(k) = map.next_key_seed(HashSeed)? {
            let v = map.next_value_seed(HashSeed)?;
            acc = acc.wrapping_add(mix(k, v));
            n += 1;
        }
        Ok(mix(6, acc ^ n))
    }
}

/// The top level: like [`HashVisitor`], and also picks out the path and command.
struct TopSeed<'f> {
    facts: &'f mut ParamFacts,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<u64, E> {
        HashVisitor.visit_bool(v)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
        HashVisitor.visit_i64(v)
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
        HashVisitor.visit_u64(v)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u64, E> {
        HashVisitor.visit_f64(v)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
        HashVisitor.visit_str(v)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<u64, E> {
        HashVisitor.visit_unit()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<u64, A::Error> {
        HashVisitor.visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let (mut acc, mut n) = (0u64, 0u64);
        while let Some((k, role)) = map.next_key_seed(KeySeed)? {
            let v = if role == KeyRole::Other {
                map.next_value_seed(HashSeed)?
            } else {
                match map.next_value::<StrOrOther>()? {
                    StrOrOther::Str(s) => {
                        let h = mix(3, hash_str(&s));
                        if role == KeyRole::Path {
                            self.facts.path.get_or_insert(s);
                        } else if s.len() <= 32 {
                            self.facts.command.get_or_insert_with(|| s.to_string());
                        }
                        h
                    }
                    StrOrOther::Other(h) => h,
                }
            };
            acc = acc.wrapping_add(mix(k, v));
            n += 1;
        }
        Ok(mix(6, acc ^ n))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyRole {
    Path,
    Command,
    Other,
}

/// A top-level key: its hash and what it names, read without allocating.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = (u64, KeyRole);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(u64, KeyRole), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = (u64, KeyRole);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<(u64, KeyRole), E> {
        let role = if PATH_KEYS.contains(&key) {
            KeyRole::Path
        } else if key == "command" || key == "action" {
            KeyRole::Command
        } else {
            KeyRole::Other
        };
        Ok((mix(3, hash_str(key)), role))
    }
}

/// A value that is kept when it is a string and only hashed otherwise.
enum StrOrOther {
    Str(Rc<str>),
    Other(u64),
}

impl<'de> Deserialize<'de> for StrOrOther {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrOrOther;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<StrOrOther, E> {
                Ok(StrOrOther::Str(Rc::from(v)))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<StrOrOther, E> {
                HashVisitor.visit_bool(v).map(StrOrOther::Other)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<StrOrOther, E> {
                HashVisitor.visit_i64(v).map(StrOrOther::Other)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<StrOrOther, E> {
                HashVisitor.visit_u64(v).map(StrOrOther::Other)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<StrOrOther, E> {
                HashVisitor.visit_f64(v).map(StrOrOther::Other)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<StrOrOther, E> {
                HashVisitor.visit_unit().map(StrOrOther::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<StrOrOther, A::Error> {
                HashVisitor.visit_seq(seq).map(StrOrOther::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StrOrOther, A::Error> {
                HashVisitor.visit_map(map).map(StrOrOther::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// Classifies a call as a read or a write of its target, by the tool's name
/// or, for editor tools that take a `command`, by that command.
pub fn file_op(tool_name: &str, command: Option<&str>) -> FileOp {
    let classify = |s: &str| {
        let s = s.to_ascii_lowercase();
        const WRITES: [&str; 10] = ["write", "edit", "replace", "create", "insert", "patch", "save", "update", "append", "delete"];
        const READS: [&str; 6] = ["read", "view", "cat", "open", "get", "show"];
        if WRITES.iter().any(|w| s.contains(w)) {
            FileOp::Write
        } else if READS.iter().any(|r| s.contains(r)) {
            FileOp::Read
        } else {
            FileOp::Other
        }
    };
    match command.map(classify) {
        Some(op) if op != FileOp::Other => op,
        _ => classify(tool_name),
    }
}

/// Normalises error text so that the same failure reads the same: paths
/// become `<path>`, numbers `<n>`, ids and other letter-digit tokens `<id>`.
pub fn normalize_error(msg: &str) -> String {
    const EDGE: &[char] = &['"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', ':', '.', '!', '?'];
    let mut out = String::with_capacity(msg.len());
    for (i, word) in msg.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let start = word.len() - word.trim_start_matches(EDGE).len();
        let core_end = word.trim_end_matches(EDGE).len().max(start);
        let (lead, core, trail) = (&word[..start], &word[start..core_end], &word[core_end..]);
        out.push_str(lead);
        let has_digit = core.bytes().any(|b| b.is_ascii_digit());
        if core.contains('/') || core.contains('\\') {
            out.push_str("<path>");
        } else if has_digit && core.bytes().all(|b| b.is_ascii_digit() || b"-:.,T+".contains(&b)) {
            out.push_str("<n>");
        } else if has_digit && core.len() >= 4 && core.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            out.push_str("<id>");
        } else if has_digit {
            let mut in_num = false;
            let mut chars = core.chars().peekable();
            while let Some(c) = chars.next() {
                // A decimal point between digits stays inside the number.
                let joins = in_num && (c == '.' || c == ',') && chars.peek().is_some_and(char::is_ascii_digit);
                if c.is_ascii_digit() || joins {
                    if !in_num {
                        out.push_str("<n>");
                    }
                    in_num = true;
                } else {
                    in_num = false;
                    out.push(c);
                }
            }
        } else {
            out.push_str(core);
        }
        out.push_str(trail);
    }
    out
}

from_json_enum!(FileOp, "read, write or other" { "read" => Read, "write" => Write, "other" => Other });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_hash_ignores_key_order_but_not_values() {
        let a = param_facts(r#"{"path":"a.txt","opts":{"x":1,"y":[1,2]}}"#);
        let b = param_facts(r#"{"opts":{"y":[1,2],"x":1},"path":"a.txt"}"#);
        assert_eq!(a.hash, b.hash);
        assert_eq!(a.path.as_deref(), Some("a.txt"));
        assert_ne!(a.hash, param_facts(r#"{"path":"a.txt","opts":{"x":1,"y":[2,1]}}"#).hash, "array order matters");
        assert_ne!(a.hash, param_facts(r#"{"path":"b.txt","opts":{"x":1,"y":[1,2]}}"#).hash);
        assert_ne!(param_facts(r#"{"a":"1"}"#).hash, param_facts(r#"{"a":1}"#).hash);
        assert_eq!(param_facts("not json").hash, hash_str("not json"));
    }

    #[test]
    fn picks_command_and_classifies_ops() {
        let f = param_facts(r#"{"command":"str_replace","path":"/w/src/a.rs","old_str":"x"}"#);
        assert_eq!((f.command.as_deref(), f.path.as_deref()), (Some("str_replace"), Some("/w/src/a.rs")));
        assert_eq!(file_op("str_replace_editor", Some("view")), FileOp::Read);
        assert_eq!(file_op("str_replace_editor", Some("str_replace")), FileOp::Write);
        assert_eq!(file_op("read_file", None), FileOp::Read);
        assert_eq!(file_op("edit_file", None), FileOp::Write);
        assert_eq!(file_op("execute_bash", Some("ls -la")), FileOp::Other);
    }

    #[test]
    fn error_normalisation_strips_the_varying_parts() {
        assert_eq!(
            normalize_error("AssertionError: expected 'a,b' at tests/test_parser.py:41 (took 0.52s)"),
            "AssertionError: expected 'a,b' at <path> (took <n>s)"
        );
        assert_eq!(normalize_error("Reservation XEWRD9 not found"), normalize_error("Reservation ABC123 not found"));
        assert_eq!(normalize_error("timeout at 2025-04-30T16:32:57.821635"), "timeout at <n>");
        assert_eq!(normalize_error("object 0x7f3a9c not found"), "object <id> not found");
        assert_eq!(normalize_error("Error: file not found"), "Error: file not found");
    }
}
