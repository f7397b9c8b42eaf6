//! The `custom` records this package writes itself, one schema each: what
//! they are called and what their data holds. Generation, the background
//! loop and the integrations build them here; the index, the viewer and the
//! OpenTelemetry exporter read them through [`ModelUsage::read`] and the
//! names below, so no consumer spells a field on its own.

use serde_json::{Map, Value};

use super::payload::Payload;
use crate::number::MAX_SAFE_INTEGER as MAX_SAFE;

/// A model call's token usage: [`ModelUsage`].
pub const MODEL_USAGE: &str = "model_usage";
/// A model call that failed: `{ message }`.
pub const MODEL_ERROR: &str = "model_error";
/// A generated run's step graph: steps, start, terminals, limits.
pub const STEP_GRAPH: &str = "step_graph";
/// A generated run's final step states: `{ states: [{ stepId, status, attempts }] }`.
pub const STEP_STATES: &str = "step_states";
/// A run's budget limits, written by the caller: `{ maxTokens?, maxToolCalls?, ... }`.
pub const BUDGET: &str = "budget";
/// A fork's origin: `{ parentRunId, atTurn }`.
pub const FORK: &str = "fork";
/// A rubric judge's judgement: `{ verdict, criteria: [{ name, verdict, reasoning }], turn, final, attempts, error?, message }`.
pub const JUDGEMENT: &str = "judgement";

/// Every `custom` name this package writes.
pub const CUSTOM_NAMES: [&str; 7] = [MODEL_USAGE, MODEL_ERROR, STEP_GRAPH, STEP_STATES, BUDGET, FORK, JUDGEMENT];

/// The keys of a `model_usage` record's data, as written (camelCase), and
/// as the integrations wrote them before there was one schema
/// (snake_case). Files of both kinds exist, so both are read.
pub const USAGE_KEYS: UsageKeys = UsageKeys {
    input: ["inputTokens", "input_tokens"],
    output: ["outputTokens", "output_tokens"],
    total: ["totalTokens", "total_tokens"],
    finish_reason: ["finishReason", "finish_reason"],
};

pub struct UsageKeys {
    pub input: [&'static str; 2],
    pub output: [&'static str; 2],
    pub total: [&'static str; 2],
    pub finish_reason: [&'static str; 2],
}

/// `model_usage` data: who called the model (`source`: `agent`,
/// `user-simulator`, `ranker`, ...; absent when the caller is the agent
/// loop itself), its tokens and why it stopped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelUsage {
    pub source: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub finish_reason: Option<String>,
    /// As reported; else input + output.
    pub total_tokens: Option<u64>,
}

/// A token count as models report it: a whole number, or the AI SDK 7 form
/// `{ total }`. Anything else (negative, fractional, past 2^53 - 1, text)
/// is no count.
fn count(v: Option<&Value>) -> Option<u64> {
    let v = match v? {
        Value::Object(o) => o.get("total")?,
        v => v,
    };
    v.as_u64().filter(|&n| n <= MAX_SAFE).or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_SAFE as f64).map(|f| f as u64))
}

fn first<'a>(o: &'a Map<String, Value>, keys: [&str; 2]) -> Option<&'a Value> {
    keys.iter().find_map(|k| o.get(*k).filter(|v| !v.is_null()))
}

/// Total tokens: the reported total, else input + output (absent when
/// neither is known), a negative count being none, as [`ModelUsage::read`]
/// reads them. The index's columns use this rule.
pub fn total_tokens(total: Option<f64>, input: Option<f64>, output: Option<f64>) -> Option<f64> {
    let count = |n: Option<f64>| n.filter(|n| *n >= 0.0);
    count(total).or(match (count(input), count(output)) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    })
}

impl ModelUsage {
    /// The usage a model or framework reported (`{ inputTokens?,
    /// outputTokens?, totalTokens? }`, each a number or `{ total }`), or
    /// `None` when it reported no count at all.
    pub fn reported(usage: &Value, source: Option<&str>, finish_reason: Option<&str>) -> Option<ModelUsage> {
        let o = usage.as_object()?;
        let u = ModelUsage {
            source: source.map(str::to_owned),
            input_tokens: count(o.get("inputTokens")),
            output_tokens: count(o.get("outputTokens")),
            finish_reason: finish_reason.map(str::to_owned),
            total_tokens: count(o.get("totalTokens")),
        };
        (u.input_tokens.is_some() || u.output_tokens.is_some() || u.total_tokens.is_some()).then_some(u)
    }

    /// Reads a `model_usage` record's data in either spelling.
    pub fn read(data: &Value) -> Option<ModelUsage> {
        let o = data.as_object()?;
        let text = |keys: [&str; 2]| first(o, keys).and_then(Value::as_str).map(str::to_owned);
        let u = ModelUsage {
            source: text(["source", "source"]),
            input_tokens: count(first(o, USAGE_KEYS.input)),
            output_tokens: count(first(o, USAGE_KEYS.output)),
            finish_reason: text(USAGE_KEYS.finish_reason),
            total_tokens: count(first(o, USAGE_KEYS.total)),
        };
        (u.input_tokens.is_some() || u.output_tokens.is_some() || u.total_tokens.is_some()).then_some(u)
    }

    /// The reported total, else input + output.
    pub fn total(&self) -> u64 {
        self.total_tokens.unwrap_or_else(|| self.input_tokens.unwrap_or(0).saturating_add(self.output_tokens.unwrap_or(0)))
    }

    /// The data as written: `source?, inputTokens?, outputTokens?, totalTokens, finishReason?`.
    pub fn data(&self) -> Value {
        let mut data = Map::new();
        if let Some(s) = &self.source {
            data.insert("source".into(), s.as_str().into());
        }
        for (key, n) in [(USAGE_KEYS.input[0], self.input_tokens), (USAGE_KEYS.output[0], self.output_tokens)] {
            if let Some(n) = n {
                data.insert(key.into(), n.into());
            }
        }
        data.insert(USAGE_KEYS.total[0].into(), self.total().into());
        if let Some(r) = &self.finish_reason {
            data.insert("finishReason".into(), r.as_str().into());
        }
        data.into()
    }

    pub fn payload(&self) -> Payload {
        Payload::Custom { name: MODEL_USAGE.into(), data: self.data() }
    }
}

/// The limits a `budget` record may hold, each a whole number from 1.
pub const BUDGET_KEYS: [&str; 3] = ["maxTokens", "maxToolCalls", "maxMs"];

/// The `custom` `budget` record of a run's limits (`{ maxTokens?,
/// maxToolCalls?, maxMs? }`), which the index and the viewer chart each
/// turn against; an unknown key or a limit that is not a whole number from
/// 1 is refused, naming `place`.
pub fn budget(limits: &Value, place: &str) -> crate::error::Result<Payload> {
    use crate::error::Error;
    let o =
        limits.as_object().ok_or_else(|| Error::invalid_argument(format!("{place} must be an object {{ maxTokens?, maxToolCalls?, maxMs? }}")))?;
    crate::options::check_keys(o.keys().map(String::as_str), &BUDGET_KEYS, place)?;
    let mut data = Map::new();
    for key in BUDGET_KEYS {
        let Some(v) = o.get(key).filter(|v| !v.is_null()) else { continue };
        let n = v.as_f64().ok_or_else(|| Error::invalid_argument(format!("{place}.{key} must be a number, got {}", crate::number::show_value(v))))?;
        let n = crate::number::safe_count(n, &format!("{place}.{key}"))?;
        if n == 0 {
            return Err(Error::invalid_argument(format!("{place}.{key} must be at least 1, got 0")));
        }
        data.insert(key.into(), n.into());
    }
    Ok(Payload::Custom { name: BUDGET.into(), data: data.into() })
}

/// A model call that failed, as the integrations and generation record it.
pub fn model_error(message: &str) -> Payload {
    let mut data = Map::new();
    data.insert("message".into(), message.into());
    Payload::Custom { name: MODEL_ERROR.into(), data: data.into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_one_spelling_and_reads_both() {
        let u = ModelUsage::reported(&json!({ "inputTokens": { "total": 12 }, "outputTokens": 3 }), None, Some("stop")).unwrap();
        let data = u.data();
        assert_eq!(data, json!({ "inputTokens": 12, "outputTokens": 3, "totalTokens": 15, "finishReason": "stop" }));
        assert_eq!(ModelUsage::read(&data), Some(ModelUsage { total_tokens: Some(15), ..u.clone() }));
        // What observeAISdk, observeMastra and trajectoryMiddleware wrote before.
        let old = json!({ "input_tokens": 12, "output_tokens": 3, "finish_reason": "stop" });
        let read = ModelUsage::read(&old).unwrap();
        assert_eq!((read.input_tokens, read.output_tokens, read.total(), read.finish_reason.as_deref()), (Some(12), Some(3), 15, Some("stop")));
    }

    #[test]
    fn generated_runs_keep_their_bytes() {
        let u = ModelUsage { source: Some("agent".into()), input_tokens: Some(5), output_tokens: Some(7), ..Default::default() };
        assert_eq!(serde_json::to_string(&u.data()).unwrap(), r#"{"source":"agent","inputTokens":5,"outputTokens":7,"totalTokens":12}"#);
    }

    #[test]
    fn a_budget_refused_shows_what_was_given() {
        // NaN and Infinity cross from JS as the strings the binding writes.
        for (given, shown) in [(json!("NaN"), "NaN"), (json!("Infinity"), "Infinity"), (json!("5"), "\"5\""), (json!(true), "true")] {
            let e = budget(&json!({ "maxMs": given }), "o.budget").unwrap_err();
            assert_eq!(e.message, format!("o.budget.maxMs must be a number, got {shown}"));
        }
        assert!(budget(&json!({ "maxMs": 0 }), "o.budget").unwrap_err().message.ends_with("must be at least 1, got 0"));
    }

    #[test]
    fn no_count_is_no_usage() {
        assert_eq!(ModelUsage::reported(&json!({}), None, None), None);
        assert_eq!(ModelUsage::reported(&json!({ "inputTokens": -1, "outputTokens": 1.5 }), None, None), None);
        assert_eq!(ModelUsage::reported(&json!(null), None, None), None);
        assert_eq!(ModelUsage::read(&json!({ "inputTokens": "12" })), None);
        assert_eq!(ModelUsage::reported(&json!({ "inputTokens": 9007199254740992u64 }), None, None), None);
    }

    #[test]
    fn a_budget_names_its_bad_limit() {
        let ok = budget(&json!({ "maxTokens": 5000, "maxMs": 60000 }), "budget").unwrap();
        assert_eq!(ok, Payload::Custom { name: "budget".into(), data: json!({ "maxTokens": 5000, "maxMs": 60000 }) });
        let e = budget(&json!({ "maxToken": 5 }), "observeAISdk options.budget").unwrap_err();
        assert!(e.message.contains("unknown option \"maxToken\"") && e.message.contains("maxTokens"), "{}", e.message);
        assert!(budget(&json!({ "maxTokens": -1 }), "budget").is_err());
        assert!(budget(&json!({ "maxTokens": 0 }), "budget").unwrap_err().message.contains("at least 1"));
        assert!(budget(&json!(7), "budget").is_err());
    }

    #[test]
    fn total_prefers_the_reported_one() {
        assert_eq!(total_tokens(Some(10.0), Some(1.0), Some(2.0)), Some(10.0));
        assert_eq!(total_tokens(None, Some(1.0), None), Some(1.0));
        assert_eq!(total_tokens(None, None, None), None);
    }
}
