//! A definition's JSON objects, read field by field: every refusal is coded
//! `INVALID_TRAJECTORY` and says where (the object's place, the key).

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::message::kind_of;

pub(super) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidTrajectory, message)
}

pub(super) struct Fields<'a> {
    obj: &'a Map<String, Value>,
    place: &'a str,
}

impl<'a> Fields<'a> {
    pub(super) fn of(v: &'a Value, place: &'a str) -> Result<Fields<'a>> {
        v.as_object().map(|obj| Fields { obj, place }).ok_or_else(|| invalid(format!("{place} must be an object, got {}", kind_of(v))))
    }
    /// Refuses keys the library does not read (a misspelt `maxturns` would
    /// otherwise silently run with the default), naming the nearest valid one.
    pub(super) fn only(&self, allowed: &[&str]) -> Result<()> {
        crate::options::check_keys(self.obj.keys().map(String::as_str), allowed, self.place).map_err(|e| invalid(e.message))
    }
    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }
    pub(super) fn string(&self, key: &str) -> Result<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(invalid(format!("{}.{key} must be a string, got {}", self.place, kind_of(v)))),
        }
    }
    pub(super) fn required(&self, key: &str) -> Result<String> {
        match self.string(key)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            _ => Err(invalid(format!("{}.{key} must be a non-empty string", self.place))),
        }
    }
    pub(super) fn strings(&self, key: &str) -> Result<Vec<String>> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| v.as_str().map(str::to_owned).ok_or_else(|| invalid(format!("{}.{key}[{i}] must be a string", self.place))))
                .collect(),
            Some(v) => Err(invalid(format!("{}.{key} must be an array of strings, got {}", self.place, kind_of(v)))),
        }
    }
    pub(super) fn boolean(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(invalid(format!("{}.{key} must be true or false, got {}", self.place, kind_of(v)))),
        }
    }
    /// An integer >= `min`; `default` when absent.
    pub(super) fn integer(&self, key: &str, min: u32, default: u32) -> Result<u32> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.as_f64() {
                Some(n) if n.fract() == 0.0 && n >= min as f64 && n <= u32::MAX as f64 => Ok(n as u32),
                _ => Err(invalid(format!("{}.{key} must be an integer >= {min}, got {}", self.place, crate::number::show_value(v)))),
            },
        }
    }
    pub(super) fn number(&self, key: &str, ok: impl Fn(f64) -> bool, rule: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if ok(n) => Ok(Some(n)),
                _ => Err(invalid(format!("{}.{key} must be {rule}, got {}", self.place, crate::number::show_value(v)))),
            },
        }
    }
}
