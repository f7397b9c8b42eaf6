//! JSON text written key by key, for results the core hands to JS: the
//! text is what crosses the boundary (the binding `JSON.parse`s it), so no
//! `Value` tree is built in between. Building `Value` maps (an ordered map
//! insert per key) cost the module several times the code of writing the
//! text, measured per function.

use serde_json::Value;

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
        self.raw(k, &v.to_string())
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
    array(items.into_iter().map(|s| Value::from(s).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_json_text_in_order() {
        let o = Obj::new().text("s", "a\"b\n").int("n", 3).num("f", 0.5).num("nan", f64::NAN).flag("b", true).opt("none", None::<u64>, Obj::int);
        let text = o.raw("list", &strings(["x", "y"])).raw("empty", &array(Vec::new())).end();
        assert_eq!(text, r#"{"s":"a\"b\n","n":3,"f":0.5,"nan":null,"b":true,"list":["x","y"],"empty":[]}"#);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["s"], "a\"b\n");
    }
}
