//! The wasm-bindgen binding: JS values in, core types, JS values out. It
//! translates and never decides; every rule lives in `crate::core`.

pub mod background;
pub mod capture;
pub mod error;
pub mod generate;
mod host;
pub mod index;
pub mod judge;
pub mod message;
pub mod observe;
mod text;
pub mod types;
pub mod waiting;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::{Error, ErrorCode};

// Values cross the boundary as JSON text: V8's JSON.stringify / JSON.parse
// plus serde_json. Measured on this toolchain: reading a small object this
// way costs ~0.85 us against ~2.3 us for serde-wasm-bindgen's field-by-field
// walk, and JSON.parse builds objects ~3x faster than it does.

/// A Rust value as a plain JS value (`JSON.parse` of its serde_json text).
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    text_to_js(&crate::core::write::json(value))
}

/// JSON text the core wrote, as a JS value; not generic, so `to_js`'s
/// copies for each type are a call each.
fn text_to_js(text: &str) -> Result<JsValue, JsValue> {
    if text.is_empty() {
        return Err(error::to_js(Error::new(ErrorCode::Internal, "could not convert a value for JS")));
    }
    js_sys::JSON::parse(text)
}

/// A property descriptor for `value`: writable and configurable, enumerable or not.
pub(crate) fn data_property(value: &JsValue, enumerable: bool) -> js_sys::Object {
    let descriptor = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&descriptor, &key("value"), value);
    let _ = js_sys::Reflect::set(&descriptor, &key("configurable"), &true.into());
    let _ = js_sys::Reflect::set(&descriptor, &key("writable"), &true.into());
    if enumerable {
        let _ = js_sys::Reflect::set(&descriptor, &key("enumerable"), &true.into());
    }
    descriptor
}

/// A value's own string keys, for a hint in a message; none when it is no
/// object or its keys cannot be read (a Proxy's throwing trap).
pub(crate) fn hint_keys(v: &JsValue) -> Vec<String> {
    if !v.is_object() {
        return Vec::new();
    }
    js_sys::Reflect::own_keys(v).map(|k| string_keys(&k)).unwrap_or_default()
}

/// The strings of `Reflect.ownKeys`' answer (symbols left out).
pub(crate) fn string_keys(keys: &js_sys::Array) -> Vec<String> {
    keys.iter().filter_map(|k| k.as_string()).collect()
}

/// A JS value as JSON text. `undefined`, functions and symbols have no JSON
/// form; BigInts and cycles make `JSON.stringify` throw: all are refused.
/// A lone half of a UTF-16 pair is read as U+FFFD ([`crate::core::value::well_formed`]).
pub(crate) fn json_of(value: &JsValue, what: &str) -> Result<String, Error> {
    let text = js_sys::JSON::stringify(value).map_err(|e| not_json(what, &e))?;
    text.as_string().map(whole).ok_or_else(|| Error::invalid_argument(format!("{what} is missing or not JSON data")))
}

/// JSON text from JS (`JSON.stringify`'s) with a string cut inside an emoji
/// (`\ud83d` alone) read with its half as U+FFFD, or it would not read. Not
/// inlined: every reader of a JS value calls it.
#[inline(never)]
pub(crate) fn whole(text: String) -> String {
    if text.contains("\\ud") {
        crate::core::value::well_formed(text)
    } else {
        text
    }
}

/// `JSON.stringify(value)` threw `e` (a BigInt, a cycle, a `toJSON` that throws).
fn not_json(what: &str, e: &JsValue) -> Error {
    let why = error::message_of(e).unwrap_or_else(|| error::describe(e));
    // One line: V8 says where a cycle closes on lines of their own.
    let why = why.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    Error::invalid_argument(format!("{what} is not JSON data: {why}")).caused_by(error::cause(e))
}

/// A property name as a JS string, made once per name: a `&str` crosses
/// into JS as a new string each time (a decode), and a run reads the same
/// few dozen names every turn. Names are the binding's own literals, so
/// the list stays that short.
pub(crate) fn key(name: &'static str) -> JsValue {
    thread_local!(static KEYS: std::cell::RefCell<Vec<(&'static str, JsValue)>> = const { std::cell::RefCell::new(Vec::new()) });
    KEYS.with_borrow_mut(|keys| match keys.iter().find(|(n, _)| std::ptr::eq(*n, name)) {
        Some((_, v)) => v.clone(),
        None => {
            let v = JsValue::from_str(name);
            keys.push((name, v.clone()));
            v
        }
    })
}

/// `obj[key]`, or `undefined` when `obj` is not an object (options are optional).
pub(crate) fn property(obj: &JsValue, name: &'static str) -> JsValue {
    if obj.is_object() {
        js_sys::Reflect::get(obj, &key(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// An optional callback: `None` for undefined/null; anything else but a
/// function is refused by the core's rule (`Arg::callback`), naming `what`.
pub(crate) fn optional_function(v: JsValue, what: &str) -> Result<Option<js_sys::Function>, Error> {
    Ok(arg(&v).callback(what)?.then(|| v.unchecked_into()))
}

/// An options object as JSON text that keeps every key: functions and
/// symbols, which JSON would drop with their keys, are written as
/// `"[function]"` / `"[symbol]"`, so a misspelt key is refused, not lost;
/// NaN and ±Infinity as `"NaN"` / `"Infinity"`, so they are refused rather
/// than read as absent; a key whose value is `undefined` as `null` (not
/// given, to every reader), so a misspelt one (`maTxurns: undefined`) is
/// refused, not lost with its value.
pub(crate) fn options_json(value: &JsValue, what: &str) -> Result<String, Error> {
    let replacer = wasm_bindgen::closure::Closure::<dyn FnMut(JsValue, JsValue) -> JsValue>::new(|key: JsValue, v: JsValue| {
        if v.is_undefined() && key.as_string().is_some_and(|k| !k.is_empty()) {
            JsValue::NULL
        } else if v.is_function() {
            JsValue::from_str("[function]")
        } else if v.is_symbol() {
            JsValue::from_str("[symbol]")
        } else if v.as_f64().is_some_and(|n| !n.is_finite()) {
            // JSON would write null, which reads as "not given": say what was given.
            JsValue::from_str(&crate::core::number::show(v.as_f64().unwrap_or_default()))
        } else {
            v
        }
    });
    let text = js_sys::JSON::stringify_with_replacer(value, replacer.as_ref().unchecked_ref()).map_err(|e| not_json(what, &e))?;
    text.as_string().ok_or_else(|| Error::invalid_argument(format!("{what} is missing or not JSON data")))
}

/// An options object read into a Rust type, every key kept (see [`options_json`]).
pub(crate) fn options_from_js<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, Error> {
    let text = options_json(value, what)?;
    serde_json::from_str(&text).map_err(|e| not_read(&e, what, ErrorCode::InvalidArgument))
}

/// An options object read by its hand reader ([`crate::core::read`]);
/// errors start with `what` (`"budget: maxTokens: ..."`).
pub(crate) fn read_options<T: crate::core::read::FromJson>(value: &JsValue, what: &str) -> Result<T, Error> {
    let v: serde_json::Value = options_from_js(value, what)?;
    crate::core::read::read(v, "").map_err(|e| Error::invalid_argument(format!("{what}: {e}")))
}

/// A callback's usage object (`{ inputTokens?, outputTokens? }`) as a
/// value, NaN and ±Infinity kept as `"NaN"` / `"Infinity"` (see
/// [`options_json`]), so the core refuses them as it refuses -5 or 1.5,
/// where JSON's null would read as no count. Only a usage whose JSON text
/// holds a null is written again that slower way (an agent's usage comes
/// every turn).
pub(crate) fn usage_from_js(value: &JsValue, what: &str) -> Result<serde_json::Value, Error> {
    let code = ErrorCode::CallbackFailed;
    let mut text = json_of(value, what).map_err(|e| Error { code, ..e })?;
    if text.contains("null") {
        text = options_json(value, what).map_err(|e| Error { code, ..e })?;
    }
    parsed(&text, what, code)
}

/// A JS value read into a Rust type through its JSON text.
pub(crate) fn from_js<T: DeserializeOwned>(value: &JsValue, what: &str, code: ErrorCode) -> Result<T, Error> {
    // A value JSON cannot hold (a BigInt, a cycle) is `code`'s fault as any other bad value is.
    let text = json_of(value, what).map_err(|e| Error { code, ..e })?;
    parsed(&text, what, code)
}

/// JSON text of a JS value (`what`) read into a Rust type; a value of the
/// wrong shape is `code`'s fault.
fn parsed<T: DeserializeOwned>(text: &str, what: &str, code: ErrorCode) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| not_read(&e, what, code))
}

/// JSON text from JS (`what`) that could not be read: one copy of the
/// message's code for every reader.
pub(crate) fn not_read(e: &serde_json::Error, what: &str, code: ErrorCode) -> Error {
    Error::new(code, format!("{what}: {}", crate::core::error::plain_serde(e)))
}

/// `obj[key]` where `obj` is an options object the caller passed: a getter
/// that throws becomes a coded error naming the option, with the thrown
/// value as its cause.
pub(crate) fn option(obj: &JsValue, name: &'static str, place: &str) -> Result<JsValue, Error> {
    if !obj.is_object() && !obj.is_function() {
        return Ok(JsValue::UNDEFINED);
    }
    js_sys::Reflect::get(obj, &key(name))
        .map_err(|e| Error::invalid_argument(format!("{place}.{name}: reading it threw: {}", error::describe(&e))).caused_by(error::cause(&e)))
}

/// Refuses keys of an options object that the library does not read (a
/// typo would silently fall back to a default), naming the nearest valid one.
/// `undefined`/`null` pass; anything else that is not an object is refused.
pub(crate) fn check_options(obj: &JsValue, allowed: &[&str], place: &str) -> Result<(), Error> {
    let keys = option_keys(obj, place)?;
    crate::core::options::check_keys(keys.iter().map(String::as_str), allowed, place)
}

/// The own string keys of an options object, for the core to check;
/// `undefined`/`null` have none; anything else that is not an object is refused.
pub(crate) fn option_keys(obj: &JsValue, place: &str) -> Result<Vec<String>, Error> {
    if obj.is_undefined() || obj.is_null() {
        return Ok(Vec::new());
    }
    if !obj.is_object() || is_array(obj) {
        return Err(Error::invalid_argument(format!("{place} must be an object, got {}", error::describe(obj))));
    }
    let keys = js_sys::Reflect::own_keys(obj)
        .map_err(|e| Error::invalid_argument(format!("{place}: its keys could not be read: {}", error::describe(&e))).caused_by(error::cause(&e)))?;
    let keys: Vec<String> = keys.iter().filter_map(|k| k.as_string()).collect();
    // One of this package's own objects where its options go: say so, never the binding's field name.
    if keys.iter().any(|k| k == PACKAGE_OBJECT_KEY) {
        return Err(Error::invalid_argument(format!(
            "{place} must be an options object, got {PACKAGE_OBJECT}: pass it under its option name, e.g. {{ recorder }}"
        )));
    }
    Ok(keys)
}

/// The own key every object of this package's classes has (wasm-bindgen's
/// pointer to its Rust half), and what a message calls such an object.
const PACKAGE_OBJECT_KEY: &str = "__wbg_ptr";
pub(crate) const PACKAGE_OBJECT: &str = "one of this package's objects (a recorder, a sink or a pipeline)";

/// Whether `v` is an object of this package's classes (a sink, a recorder, a pipeline, an index).
pub(crate) fn is_package_object(v: &JsValue) -> bool {
    v.is_object() && js_sys::Reflect::get(v, &key(PACKAGE_OBJECT_KEY)).is_ok_and(|p| p.as_f64().is_some())
}

/// Refuses keys of `obj` not in `allowed`, naming the nearest (for the JS layer's options).
#[wasm_bindgen(js_name = __checkOptions, skip_typescript)]
pub fn check_options_js(obj: JsValue, allowed: Vec<String>, place: String) -> error::JsResult<()> {
    use error::IntoJs;
    let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
    check_options(&obj, &allowed, &place).js()
}

/// What the caller gave, for the core's rules ([`crate::core::value::Arg`]).
pub(crate) fn arg(v: &JsValue) -> crate::core::value::Arg {
    use crate::core::value::Arg;
    if v.is_undefined() {
        Arg::Absent
    } else if v.is_null() {
        Arg::Null
    } else if let Some(b) = v.as_bool() {
        Arg::Bool(b)
    } else if let Some(n) = v.as_f64() {
        Arg::Number(n)
    } else if let Some(s) = v.as_string() {
        Arg::Str(s)
    } else if v.is_function() {
        Arg::Function
    } else {
        Arg::Other(error::describe(v))
    }
}

/// A number argument, refused (naming it) when it is not a JS number.
pub(crate) fn number_arg(v: &JsValue, what: &str) -> Result<f64, Error> {
    v.as_f64().ok_or_else(|| Error::invalid_argument(format!("{what} must be a number, got {}", error::describe(v))))
}

/// A string argument, refused (naming it) when it is not a JS string.
pub(crate) fn string_arg(v: &JsValue, what: &str) -> Result<String, Error> {
    v.as_string().ok_or_else(|| Error::invalid_argument(format!("{what} must be a string, got {}", error::describe(v))))
}

/// An optional string argument: `undefined`/`null` are `None`.
pub(crate) fn optional_string_arg(v: &JsValue, what: &str) -> Result<Option<String>, Error> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    string_arg(v, what).map(Some)
}

// JS operations on a caller's values that can throw (a revoked Proxy, a
// trap, a getter) are imported with `catch`: a throw that crossed a wasm
// frame would escape uncoded, and inside a run never settle its promise.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn is_array_or_throw(v: &JsValue) -> Result<bool, JsValue>;

    /// A Promise, for `catch` with a plain function (js-sys takes closures).
    type Catchable;
    #[wasm_bindgen(method, js_name = catch)]
    fn catch_fn(this: &Catchable, f: &js_sys::Function) -> JsValue;
}

/// `Promise.resolve(thenable).catch(f)`.
pub(crate) fn catch_with(thenable: &JsValue, f: &js_sys::Function) {
    js_sys::Promise::resolve(thenable).unchecked_ref::<Catchable>().catch_fn(f);
}

/// For a reporting callback (`onError`) that answered with a Promise: its
/// rejection has nowhere further to go but the console, so it is said
/// there (`said`, what was being reported, and the reason), as a throw of
/// the same callback is, instead of surfacing as an unhandled rejection.
pub(crate) fn warn_if_rejected(answer: &JsValue, said: String, reported: JsValue) {
    if is_thenable(answer) {
        // `console.warn` bound to its message: no closure of ours to keep.
        let console = js_sys::Reflect::get(&js_sys::global(), &key("console")).unwrap_or(JsValue::UNDEFINED);
        if let Ok(warn) = property(&console, "warn").dyn_into::<js_sys::Function>() {
            catch_with(answer, warn.bind2(&console, &said.into(), &reported).unchecked_ref());
        }
    }
}

/// Whether a callback answered with a Promise (or any thenable). An object
/// first: reading a property of `undefined` throws, and an exception per
/// record costs ~20 µs.
pub(crate) fn is_thenable(v: &JsValue) -> bool {
    v.is_object() && property(v, "then").is_function()
}

/// Marks a Promise's rejection as handled, for a Promise whose failure is
/// reported another way (a synchronous callback that answered with one).
/// The handler is the global `Boolean`: a plain function, no closure to keep.
pub(crate) fn settle_quietly(thenable: &JsValue) {
    if let Ok(f) = js_sys::Reflect::get(&js_sys::global(), &"Boolean".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
        catch_with(thenable, &f);
    }
}

/// `Array.isArray`; false for a value it throws on (a revoked Proxy).
pub(crate) fn is_array(v: &JsValue) -> bool {
    is_array_or_throw(v).unwrap_or(false)
}

/// The items of a JS array, read one by one through `Reflect` (a Proxy or
/// a getter that throws is named, with its cause, instead of escaping).
pub(crate) fn items(v: &JsValue, what: &str) -> Result<Vec<JsValue>, Error> {
    // The place is named only when a read fails: formatting it for every
    // item cost a generated turn measurably.
    let read = |key: JsValue, at: &dyn Fn() -> String| {
        js_sys::Reflect::get(v, &key)
            .map_err(|e| Error::invalid_argument(format!("{}: reading it threw: {}", at(), error::describe(&e))).caused_by(error::cause(&e)))
    };
    let len = read(key("length"), &|| format!("{what}.length"))?.as_f64().filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX));
    let len = len.ok_or_else(|| Error::invalid_argument(format!("{what} must be an array")))? as u32;
    (0..len).map(|i| read(i.into(), &|| format!("{what}[{i}]"))).collect()
}
