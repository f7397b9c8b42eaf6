//! What a background run is given: the objective (text, context sections,
//! host mounts, the deliverable's JSON Schema) and the guardrails. Both are
//! read from JSON the binding made of the caller's objects; every refusal
//! names the option in the caller's words.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::host::{CallTimeout, MAX_TIMEOUT_MS};
use crate::message::kind_of;
use crate::number::quoted;
use crate::number::show_value as shown;
use crate::options::check_keys;
use crate::vfs::VfsLimits;

/// Longest objective, in characters after normalisation to ASCII.
pub const MAX_OBJECTIVE_CHARS: usize = 1024;

/// The guardrails of one run (`BackgroundAgentConfig`).
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub max_iterations: u64,
    /// Consecutive failed iterations that end the run.
    pub max_failures: u64,
    pub iteration_timeout_ms: Option<f64>,
    pub enable_reflection: bool,
    pub allow_plan_reset: bool,
    pub vfs: VfsLimits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_iterations: 24,
            max_failures: 8,
            iteration_timeout_ms: Some(CallTimeout::DEFAULT_MS),
            enable_reflection: true,
            allow_plan_reset: true,
            vfs: VfsLimits::default(),
        }
    }
}

const CONFIG_KEYS: &[&str] = &[
    "maxIterations",
    "maxFailures",
    "iterationTimeoutMs",
    "enableReflection",
    "allowPlanReset",
    "deliverableFactory",
    "maxFileBytes",
    "maxTotalBytes",
];

fn object<'a>(v: &'a Value, place: &str) -> Result<Option<&'a Map<String, Value>>> {
    match v {
        Value::Null => Ok(None),
        Value::Object(o) => Ok(Some(o)),
        other => Err(Error::invalid_argument(format!("{place} must be an object, got {}", kind_of(other)))),
    }
}

/// A whole number in `min..=max`, or the default when absent.
fn whole(o: &Map<String, Value>, key: &str, min: u64, max: u64, default: u64) -> Result<u64> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_f64() {
            Some(n) if n.fract() == 0.0 && n >= min as f64 && n <= max as f64 => Ok(n as u64),
            _ => Err(Error::invalid_argument(format!("config.{key} must be a whole number from {min} to {max}, got {}", shown(v)))),
        },
    }
}

fn flag(o: &Map<String, Value>, key: &str, default: bool) -> Result<bool> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(Error::invalid_argument(format!("config.{key} must be true or false, got {}", shown(v)))),
    }
}

/// The runner's own options (`new BackgroundAgentRunner({ ... })`); any
/// other key is refused, naming the nearest.
pub const RUNNER_OPTIONS: &[&str] = &["model", "clock", "tools", "config", "sink", "onSinkError", "onRecord", "observers", "signal", "runId"];

/// Of the keys given as the runner's options, the first that is a config
/// key, with the error that says where it goes (checked before the
/// unknown-key check, which would only name the nearest option).
pub fn misplaced_runner_option<'a>(keys: impl IntoIterator<Item = &'a str>) -> Option<Error> {
    keys.into_iter().filter(|k| !RUNNER_OPTIONS.contains(k)).find_map(misplaced_config_key)
}

/// A config key given among the runner's own options (`{ model,
/// maxIterations }`): the error that says where it goes, or `None` when
/// `key` is no config key.
pub fn misplaced_config_key(key: &str) -> Option<Error> {
    CONFIG_KEYS.contains(&key).then(|| {
        Error::invalid_argument(format!(
            "BackgroundAgentRunner options: {key} is a config option; give it as new BackgroundAgentRunner({{ model, config: {{ {key} }} }})"
        ))
    })
}

impl Config {
    /// Reads `config` (absent or null: every default). Out-of-range values
    /// are refused naming the option; NaN and Infinity arrive from the
    /// binding as the strings "NaN" / "Infinity" and are refused too.
    pub fn from_value(v: &Value) -> Result<Config> {
        let Some(o) = object(v, "config")? else { return Ok(Config::default()) };
        check_keys(o.keys().map(String::as_str), CONFIG_KEYS, "config")?;
        let max_iterations = whole(o, "maxIterations", 1, 1_000_000, 24)?;
        let max_failures = whole(o, "maxFailures", 1, 1_000_000, 8)?;
        // As a generated run's callTimeoutMs: a deadline by default, so a
        // model that never answers cannot hang a run without a signal.
        let iteration_timeout_ms = match o.get("iterationTimeoutMs") {
            None | Some(Value::Null) => Some(CallTimeout::DEFAULT_MS),
            Some(Value::Bool(false)) => None,
            Some(v) => match v.as_f64() {
                Some(n) if n > 0.0 && n <= MAX_TIMEOUT_MS => Some(n),
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "config.iterationTimeoutMs must be a number of milliseconds above 0 and at most {} (or false for no deadline), got {}",
                        MAX_TIMEOUT_MS as u64,
                        shown(v)
                    )))
                }
            },
        };
        let d = VfsLimits::default();
        let max_file_bytes = whole(o, "maxFileBytes", 1, 1 << 30, d.max_file_bytes as u64)? as usize;
        let max_total_bytes = whole(o, "maxTotalBytes", 1, 1 << 31, d.max_total_bytes as u64)? as usize;
        if let Some(f) = o.get("deliverableFactory").filter(|f| !f.is_null() && f.as_str() != Some("[function]")) {
            return Err(Error::invalid_argument(format!("config.deliverableFactory must be a function (snapshot) => object, got {}", shown(f))));
        }
        Ok(Config {
            max_iterations,
            max_failures,
            iteration_timeout_ms,
            enable_reflection: flag(o, "enableReflection", true)?,
            allow_plan_reset: flag(o, "allowPlanReset", true)?,
            vfs: VfsLimits { max_file_bytes, max_total_bytes, ..d },
        })
    }
}

/// A caller's prompt section, rendered after the behaviour rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub title: String,
    pub body: String,
}

/// Read-only files mounted at `path`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mount {
    pub path: String,
    pub files: Vec<(String, String)>,
}

/// The one objective of a run (`AgentObjective`).
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    /// Normalised to ASCII, 1 to [`MAX_OBJECTIVE_CHARS`] characters.
    pub objective: String,
    pub sections: Vec<Section>,
    pub mounts: Vec<Mount>,
    /// The deliverable's JSON Schema (the binding converts a Standard Schema).
    pub deliverable_schema: Option<Value>,
}

const OBJECTIVE_KEYS: &[&str] = &["objective", "deliverableSchema", "contextSections", "hostMounts"];

/// A string field, refused naming `place` when absent or not a string.
pub(super) fn text<'a>(v: Option<&'a Value>, place: &str) -> Result<&'a str> {
    match v {
        Some(Value::String(s)) => Ok(s),
        other => Err(Error::invalid_argument(format!("{place} must be a string, got {}", other.map_or("undefined", kind_of)))),
    }
}

/// An array field (absent or null: empty), refused naming `place` otherwise.
pub(super) fn list<'a>(v: Option<&'a Value>, place: &str) -> Result<&'a [Value]> {
    match v {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(Error::invalid_argument(format!("{place} must be an array, got {}", kind_of(other)))),
    }
}

impl Objective {
    /// Reads an objective: a string, or `{ objective, ... }`. `schema` is
    /// the deliverable's JSON Schema when the caller gave one.
    pub fn from_value(v: &Value, schema: Option<Value>) -> Result<Objective> {
        let o = match v {
            Value::String(_) => &Map::from_iter([("objective".to_owned(), v.clone())]),
            Value::Object(o) => o,
            other => {
                return Err(Error::invalid_argument(format!(
                    "run(objective): objective must be a string or {{ objective, ... }}, got {}",
                    kind_of(other)
                )))
            }
        };
        check_keys(o.keys().map(String::as_str), OBJECTIVE_KEYS, "objective")?;
        let objective = ascii_objective(text(o.get("objective"), "objective.objective")?)?;
        if objective.is_empty() {
            return Err(Error::invalid_argument("objective.objective is empty (after normalising to ASCII and trimming)"));
        }
        let n = objective.chars().count();
        if n > MAX_OBJECTIVE_CHARS {
            return Err(Error::invalid_argument(format!(
                "objective.objective is {n} characters after normalising to ASCII; the limit is {MAX_OBJECTIVE_CHARS} (it is never cut)"
            )));
        }
        let mut sections = Vec::new();
        for (i, s) in list(o.get("contextSections"), "objective.contextSections")?.iter().enumerate() {
            let place = format!("objective.contextSections[{i}]");
            let s = object(s, &place)?.ok_or_else(|| Error::invalid_argument(format!("{place} must be {{ title, body }}, got null")))?;
            check_keys(s.keys().map(String::as_str), &["title", "body"], &place)?;
            sections.push(Section {
                title: to_ascii(text(s.get("title"), &format!("{place}.title"))?),
                body: text(s.get("body"), &format!("{place}.body"))?.to_owned(),
            });
        }
        let mut mounts = Vec::new();
        for (i, m) in list(o.get("hostMounts"), "objective.hostMounts")?.iter().enumerate() {
            let place = format!("objective.hostMounts[{i}]");
            let m = object(m, &place)?.ok_or_else(|| Error::invalid_argument(format!("{place} must be {{ path, files }}, got null")))?;
            check_keys(m.keys().map(String::as_str), &["path", "files"], &place)?;
            let path = text(m.get("path"), &format!("{place}.path"))?.to_owned();
            let files = match m.get("files") {
                Some(Value::Object(f)) => f
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), text(Some(v), &format!("{place}.files[{k}]", k = quoted(k)))?.to_owned())))
                    .collect::<Result<Vec<_>>>()?,
                other => {
                    return Err(Error::invalid_argument(format!(
                        "{place}.files must be an object of path -> text, got {}",
                        other.map_or("undefined", kind_of)
                    )))
                }
            };
            mounts.push(Mount { path, files });
        }
        Ok(Objective { objective, sections, mounts, deliverable_schema: schema })
    }
}

/// The objective as ASCII ([`to_ascii`]), refused when a character has no
/// ASCII form (CJK, emoji, ...): replacing it would change the objective
/// without saying so.
fn ascii_objective(s: &str) -> Result<String> {
    let out = to_ascii(s);
    if out.contains('\u{FFFD}') {
        let odd: String = s.chars().filter(|c| to_ascii(&c.to_string()).contains('\u{FFFD}')).take(5).collect();
        return Err(Error::invalid_argument(format!(
            "objective.objective holds characters with no ASCII form ({odd}); the objective is normalised to ASCII, so write it in ASCII",
            odd = quoted(&odd)
        )));
    }
    Ok(out)
}

/// Text as ASCII: typographic punctuation and spaces become their ASCII
/// forms, Latin-1 letters lose their accents, combining accents and
/// zero-width characters are dropped, runs of whitespace become one space,
/// and the ends are trimmed. Any other character becomes U+FFFD, which
/// callers refuse (a background objective) or keep visible.
pub fn to_ascii(s: &str) -> String {
    // U+00C0..=U+00FF without their accents ('x' and '/' for × and ÷).
    const LATIN1: &[u8; 64] = b"AAAAAAACEEEEIIIIDNOOOOOxOUUUUYPsaaaaaaaceeeeiiiidnooooo/ouuuuypy";
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if c.is_ascii() && !c.is_ascii_whitespace() => out.push(c),
            c if c.is_whitespace() => {
                if !out.ends_with(' ') {
                    out.push(' ')
                }
            }
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' => out.push('\''),
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' | '\u{AB}' | '\u{BB}' => out.push('"'),
            '\u{2010}'..='\u{2015}' | '\u{2212}' => out.push('-'),
            '\u{2026}' => out.push_str("..."),
            '\u{2022}' | '\u{B7}' => out.push('*'),
            '\u{C6}' => out.push_str("AE"),
            '\u{E6}' => out.push_str("ae"),
            '\u{DF}' => out.push_str("ss"),
            '\u{C0}'..='\u{FF}' => out.push(LATIN1[c as usize - 0xC0] as char),
            '\u{300}'..='\u{36F}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => {}
            _ => out.push('\u{FFFD}'),
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ascii() {
        assert_eq!(to_ascii("  Review   “café” — now…\n"), "Review \"cafe\" - now...");
        assert_eq!(to_ascii("cafe\u{301}\u{200B}"), "cafe");
        let e = Objective::from_value(&json!("検査 this"), None).unwrap_err();
        assert!(e.message.contains("no ASCII form (\"検査\")"), "{}", e.message);
    }

    #[test]
    fn config_ranges_name_the_option() {
        assert_eq!(Config::from_value(&Value::Null).unwrap(), Config::default());
        let e = Config::from_value(&json!({ "maxIterations": 0 })).unwrap_err();
        assert!(e.message.contains("config.maxIterations"), "{}", e.message);
        let e = Config::from_value(&json!({ "maxIteration": 3 })).unwrap_err();
        assert!(e.message.contains("did you mean \"maxIterations\""), "{}", e.message);
        let e = Config::from_value(&json!({ "iterationTimeoutMs": "NaN" })).unwrap_err();
        assert!(e.message.contains("got NaN"), "{}", e.message);
        assert!(Config::from_value(&json!({ "maxFailures": 1.5 })).is_err());
        assert!(Config::from_value(&json!({ "enableReflection": 1 })).is_err());
    }

    #[test]
    fn objective_limits() {
        let long = "a".repeat(1025);
        let e = Objective::from_value(&json!(long), None).unwrap_err();
        assert!(e.message.contains("1025 characters"), "{}", e.message);
        assert!(Objective::from_value(&json!("a".repeat(1024)), None).is_ok());
        assert!(Objective::from_value(&json!(" \n "), None).unwrap_err().message.contains("empty"));
        let o =
            Objective::from_value(&json!({ "objective": "x", "hostMounts": [{ "path": "diff", "files": { "a.rs": "fn a() {}" } }] }), None).unwrap();
        assert_eq!(o.mounts[0].files[0].0, "a.rs");
        let e = Objective::from_value(&json!({ "objective": "x", "hostMounts": [{ "path": "diff", "files": { "a": 1 } }] }), None).unwrap_err();
        assert!(e.message.contains("objective.hostMounts[0].files[\"a\"]"), "{}", e.message);
    }
}
