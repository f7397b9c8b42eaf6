//! JSON text: every value the core writes as text (a record's JSONL line,
//! a value for JS) goes through [`json`] or [`json_into`]; and objects
//! written key by key ([`Obj`]) for results the core hands to JS: the text
//! is what crosses the boundary (the binding `JSON.parse`s it), so no
//! `Value` tree is built in between. Building `Value` maps (an ordered map
//! insert per key) cost the module several times the code of writing the
//! text, measured per function.

use serde::Serialize;
use serde_json::Value;

/// `value`'s JSON text appended to `out`: what `serde_json::to_string`
/// writes, faster.
///
/// serde_json writes a record as many small fragments (a brace, a quote, a
/// key, a colon), each through the writer's `write_all`. `Vec<u8>`'s own
/// `write_all` is a call per fragment at opt-level "s"; `Appender`'s is
/// inlined into the serializer, so a fragment is a bounds check and a copy
/// (a record's line in about 60 % of the time, measured).
pub fn json_into<T: Serialize + ?Sized>(out: &mut String, value: &T) {
    let start = out.len();
    // SAFETY: serde_json writes only UTF-8 (the &str values it is given,
    // escaped, and ASCII punctuation and numbers). If it stops part-way (a
    // map key that is not a string or a number; the core has none), the
    // partial text is cut off at `start`, a char boundary of the text
    // before it, and nothing is written.
    let bytes = unsafe { out.as_mut_vec() };
    if value.serialize(&mut serde_json::Serializer::with_formatter(Appender(bytes), JsNumbers)).is_err() {
        bytes.truncate(start);
    }
}

/// serde_json's compact text, but a whole number held as a float (a
/// clock's reading, a count) written as JS writes it: `1767225600095`,
/// not `1767225600095.0`, which a strict integer reader in another
/// language refuses.
struct JsNumbers;

impl serde_json::ser::Formatter for JsNumbers {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
        // (Finite here: serde_json writes NaN and ±Infinity as null before asking.)
        if v.fract() == 0.0 && v.abs() <= crate::number::MAX_SAFE_INTEGER as f64 {
            self.write_i64(w, v as i64)
        } else {
            serde_json::ser::CompactFormatter.write_f64(w, v)
        }
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
    serde_json::from_str(&json(value)).unwrap_or(serde_json::Value::Null)
}

struct Appender<'a>(&'a mut Vec<u8>);

impl std::io::Write for Appender<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let v = &mut *self.0;
        if v.capacity() - v.len() < bytes.len() {
            grow(v, bytes.len());
        }
        let len = v.len();
        // SAFETY: the capacity was checked (or grown) above, and the source
        // is a separate borrow, so the ranges cannot overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().add(len), bytes.len());
            v.set_len(len + bytes.len());
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cold]
#[inline(never)]
fn grow(v: &mut Vec<u8>, more: usize) {
    v.reserve(more);
}

/// A JSON object, keys in the order written. Keys are the caller's own
/// ASCII words, written as they are; values are JSON text, or written
/// through serde_json (strings escaped, numbers as JSON writes them).
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
