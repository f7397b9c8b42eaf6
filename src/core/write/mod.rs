//! JSON text: every value the core writes as text (a record's JSONL line,
//! a value for JS) goes through [`json`] or [`json_into`]; and objects
//! written key by key ([`Obj`]) for results the core hands to JS: the text
//! is what crosses the boundary (the binding `JSON.parse`s it), so no
//! `Value` tree is built in between. Building `Value` maps (an ordered map
//! insert per key) cost the module several times the code of writing the
//! text, measured per function.

use serde::Serialize;
use serde_json::Value;

mod map_key;
mod serializer;

/// `value`'s JSON text appended to `out`: what `serde_json::to_string`
/// writes, faster, but for a whole number held as a float (a clock's
/// reading, a count), written as JS writes it: `1767225600095`, not
/// `1767225600095.0`, which a strict integer reader in another language
/// refuses.
///
/// Written by the core's own serde serializer ([`serializer`]), the same
/// text as serde_json's (a native test compares them on random values):
/// serde_json's escapes strings a byte at a time, and strings are most of
/// what the core writes. Measured against it (Node 20, alternating
/// builds, 2026-11-26): a generated turn with tools, a sink and observers
/// 1.6-5.1 us faster (about 72 against 75 us), `record()` to a JsonlSink
/// 0.1-0.5 us faster (about 5.0 against 5.3 us), and the module 2.1 KB
/// gzip smaller.
pub fn json_into<T: Serialize + ?Sized>(out: &mut String, value: &T) {
    let start = out.len();
    // SAFETY: the serializer writes only UTF-8 (the &str values it is
    // given, escaped, and ASCII punctuation and numbers). If it stops
    // part-way (a map key that is not a string or a number; the core has
    // none), the partial text is cut off at `start`, a char boundary of the
    // text before it, and nothing is written.
    let bytes = unsafe { out.as_mut_vec() };
    if value.serialize(&mut serializer::Writer(bytes)).is_err() {
        bytes.truncate(start);
    }
}

/// `value`'s JSON text (see [`json_into`]).
pub fn json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = String::with_capacity(256);
    json_into(&mut out, value);
    out
}

/// `value` as a JSON value, through its JSON text: `serde_json::to_value`
/// would build a second copy of each type's serialiser in the module (one
/// for text, one for values) where this reuses the text one. (A whole
/// number held as a float comes back as an integer, as JS would read it.)
pub fn value<T: Serialize + ?Sized>(value: &T) -> serde_json::Value {
    read(&json(value))
}

/// A JSON object of `fields`, in their order: what `json!({ .. })` builds,
/// without its conversion of each field through `serde_json::to_value`
/// (which links that serialiser, and its `unwrap`'s panic message with
/// the formatting it needs, into the module).
pub fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// Not generic: `value`'s copy for each type is a write and a call.
fn read(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or(serde_json::Value::Null)
}

/// Appends each piece. Prompts are built so rather than with `format!`,
/// which made a string per line through the formatting machinery: about
/// 5 % of a plain generated turn's time, and 6 % of a background
/// iteration's, went to it (profiled).
pub fn put(out: &mut String, pieces: &[&str]) {
    for p in pieces {
        out.push_str(p);
    }
}

/// Appends `n` in decimal.
pub fn put_int(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// A JSON object, keys in the order written. Keys are the caller's own
/// ASCII words, written as they are; values are JSON text, or written
/// by [`json`] (strings escaped, numbers as JSON writes them).
pub struct Obj(String);

impl Default for Obj {
    fn default() -> Self {
        Obj::new()
    }
}

impl Obj {
    pub fn new() -> Obj {
        Obj(String::from("{"))
    }

    /// `"k":` followed by `text`, which must be JSON.
    pub fn raw(mut self, k: &str, text: &str) -> Obj {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push('"');
        self.0.push_str(k);
        self.0.push_str("\":");
        self.0.push_str(text);
        self
    }

    pub fn val(self, k: &str, v: &Value) -> Obj {
        self.raw(k, &json(v))
    }

    pub fn text(self, k: &str, s: &str) -> Obj {
        self.val(k, &Value::from(s))
    }

    /// A number (NaN and infinities as `null`, as JSON.stringify writes them).
    pub fn num(self, k: &str, n: f64) -> Obj {
        self.val(k, &Value::from(n))
    }

    pub fn int(self, k: &str, n: u64) -> Obj {
        self.raw(k, &n.to_string())
    }

    pub fn flag(self, k: &str, b: bool) -> Obj {
        self.raw(k, if b { "true" } else { "false" })
    }

    /// The key only when there is a value.
    pub fn opt<T>(self, k: &str, v: Option<T>, write: impl FnOnce(Obj, &str, T) -> Obj) -> Obj {
        match v {
            Some(v) => write(self, k, v),
            None => self,
        }
    }

    pub fn end(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

/// A JSON array of JSON texts.
pub fn array(items: impl IntoIterator<Item = String>) -> String {
    let mut out = String::from("[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&item);
    }
    out.push(']');
    out
}

/// A JSON array of strings.
pub fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    array(items.into_iter().map(json))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_floats_are_written_as_js_writes_them() {
        assert_eq!(json(&[1_767_225_600_095.0, 0.5, -0.0, 1e300, -3.0, f64::NAN]), "[1767225600095,0.5,0,1e+300,-3,null]");
        assert_eq!(json(&9_007_199_254_740_993.0_f64), serde_json::to_string(&9_007_199_254_740_993.0_f64).unwrap(), "past 2^53: serde's own form");
    }

    #[test]
    fn a_value_through_its_text_is_the_value_serde_makes() {
        #[derive(Serialize)]
        struct S {
            big: u64,
            neg: i64,
            f: f64,
            tiny: f64,
            nan: f64,
            text: &'static str,
            list: Vec<Option<u32>>,
        }
        let s = S { big: u64::MAX, neg: i64::MIN, f: 0.1 + 0.2, tiny: 5e-324, nan: f64::NAN, text: "a\"\u{1}é", list: vec![Some(1), None] };
        assert_eq!(value(&s), serde_json::to_value(&s).unwrap());
        assert_eq!(serde_json::to_string(&value(&s)).unwrap(), serde_json::to_string(&s).unwrap(), "same keys in the same order");
    }

    #[test]
    fn writes_json_text_in_order() {
        let o = Obj::new().text("s", "a\"b\n").int("n", 3).num("f", 0.5).num("nan", f64::NAN).flag("b", true).opt("none", None::<u64>, Obj::int);
        let text = o.raw("list", &strings(["x", "y"])).raw("empty", &array(Vec::new())).end();
        assert_eq!(text, r#"{"s":"a\"b\n","n":3,"f":0.5,"nan":null,"b":true,"list":["x","y"],"empty":[]}"#);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["s"], "a\"b\n");
    }

    /// serde_json's compact writer with the one rule the core's adds (a
    /// whole float as JS writes it): what `json` must write, byte for byte.
    /// (Native only: serde_json's writer is public with its std feature,
    /// which only the native tests build.)
    #[cfg(not(target_arch = "wasm32"))]
    fn reference<T: Serialize + ?Sized>(value: &T) -> Option<String> {
        struct JsNumbers;
        impl serde_json::ser::Formatter for JsNumbers {
            fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
                if v.fract() == 0.0 && v.abs() <= crate::number::MAX_SAFE_INTEGER as f64 {
                    self.write_i64(w, v as i64)
                } else {
                    serde_json::ser::CompactFormatter.write_f64(w, v)
                }
            }
        }
        let mut out = Vec::new();
        value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, JsNumbers)).ok()?;
        String::from_utf8(out).ok()
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn every_shape_serde_writes_is_the_text_serde_json_writes() {
        use std::collections::BTreeMap;
        #[derive(Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(i32, &'static str),
            Struct { a: Option<f32>, b: () },
        }
        #[derive(Serialize)]
        struct Unit;
        #[derive(Serialize)]
        struct New(i128);
        #[derive(Serialize)]
        struct Tuple(u128, char, bool);
        #[derive(Serialize)]
        struct S<'a> {
            e: Vec<E>,
            unit: Unit,
            new: New,
            tuple: Tuple,
            #[serde(with = "serde_bytes_as_slice")]
            bytes: &'a [u8],
            #[serde(skip_serializing_if = "Option::is_none")]
            skipped: Option<u8>,
            ints: BTreeMap<i64, u8>,
            bools: BTreeMap<bool, u8>,
            chars: BTreeMap<char, u8>,
            floats: Vec<(f32, f64)>,
            empty: (Vec<u8>, BTreeMap<String, u8>),
        }
        mod serde_bytes_as_slice {
            pub fn serialize<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(b)
            }
        }
        let s = S {
            e: vec![E::Unit, E::New(7), E::Tuple(-1, "t\u{7f}"), E::Struct { a: Some(1.5), b: () }, E::Struct { a: Some(f32::NAN), b: () }],
            unit: Unit,
            new: New(i128::MIN),
            tuple: Tuple(u128::MAX, '"', false),
            bytes: &[0, 255],
            skipped: None,
            ints: [(-3, 1), (i64::MAX, 2)].into(),
            bools: [(true, 1), (false, 0)].into(),
            chars: [('\n', 1), ('é', 2)].into(),
            floats: vec![(0.1, 0.1), (1e-40, -2.5e-308), (3.0, 1e21), (f32::INFINITY, f64::NEG_INFINITY), (-0.0, 9_007_199_254_740_993.0)],
            empty: (vec![], BTreeMap::new()),
        };
        assert_eq!(Some(json(&s)), reference(&s));
        // Keys that are no string, number or boolean: nothing is written, as serde_json fails.
        let mut out = String::from("kept");
        json_into(&mut out, &BTreeMap::from([(vec![1], 2)]));
        json_into(&mut out, &BTreeMap::from([(None::<u8>, 2)]));
        assert_eq!(out, "kept");
        assert_eq!(reference(&BTreeMap::from([(vec![1], 2)])), None);
        // Float keys: quoted, a whole one as JS writes it; a NaN key is refused.
        struct FloatKeys(Vec<f64>);
        impl Serialize for FloatKeys {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|k| (k, 1)))
            }
        }
        assert_eq!(json(&FloatKeys(vec![1.5, 2.0, -0.0])), r#"{"1.5":1,"2":1,"0":1}"#);
        assert_eq!(Some(json(&FloatKeys(vec![1.5, 2.0]))), reference(&FloatKeys(vec![1.5, 2.0])));
        assert_eq!((json(&FloatKeys(vec![f64::NAN])), reference(&FloatKeys(vec![f64::NAN]))), (String::new(), None));
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Any JSON value, strings with every kind of character: the same text as serde_json's.
        #[test]
        fn any_value_is_the_text_serde_json_writes(v in any_value()) {
            proptest::prop_assert_eq!(Some(json(&v)), reference(&v));
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        // Strings of ASCII controls, quotes, backslashes, plain runs longer than 16 bytes and non-ASCII.
        let text = proptest::collection::vec(
            prop_oneof![any::<char>().prop_map(String::from), "[\\x00-\\x1f\"\\\\\\x7f]", "[a-z ]{0,40}", Just("é€😀".to_owned())],
            0..8,
        )
        .prop_map(|parts| parts.concat());
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            (-1e6_f64..1e6).prop_map(|f| Value::from(f.trunc())),
            text.clone().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::vec((text.clone(), inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn json_into_appends_what_serde_json_writes() {
        let text = format!(r#"{{"a":[1,2.5,"x\u0001é\"",null,{{"b":true}}],"long":"{}"}}"#, "y".repeat(300));
        let v: Value = serde_json::from_str(&text).unwrap();
        let mut out = String::from("before:");
        json_into(&mut out, &v);
        assert_eq!(out, format!("before:{}", serde_json::to_string(&v).unwrap()));
        assert_eq!(json(&v), serde_json::to_string(&v).unwrap());
    }
}
