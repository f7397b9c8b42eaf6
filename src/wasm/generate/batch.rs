//! Batches for JS: the JS runner schedules runs and asks the core
//! (`core::generate::batch`) what each is called and what it counts.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::core::generate::batch::{self, Tally};
use crate::core::generate::Verdict;
use crate::core::write::{self, Obj};
use crate::core::Error;
use crate::wasm::error::{IntoJs, JsResult};
use crate::wasm::{options_json, text_to_js, to_js};

fn tally_to_js(t: &Tally) -> JsResult<JsValue> {
    let verdict = t.verdict.map(Verdict::as_str);
    let tally =
        Obj::new().raw("reason", &write::json(&t.reason)).raw("verdict", &write::json(&verdict)).num("turns", t.turns).num("tokens", t.tokens);
    text_to_js(&tally.end())
}

/// A batch item's run id (see `batch::item_id`); `fork_parent` and
/// `at_turn` only when the item resumes a run.
#[wasm_bindgen(js_name = __batchItemId, skip_typescript)]
pub fn item_id(
    id: Option<String>,
    fork_parent: Option<String>,
    at_turn: Option<f64>,
    run_id: Option<String>,
    conversation_id: Option<String>,
    index: u32,
) -> String {
    let fork = match (&fork_parent, at_turn) {
        (Some(p), Some(t)) if t >= 0.0 && t.fract() == 0.0 && t <= crate::core::number::MAX_SAFE_INTEGER as f64 => {
            Some((p.as_str(), t as u64, run_id.as_deref()))
        }
        _ => None,
    };
    batch::item_id(id.as_deref(), fork, conversation_id.as_deref(), index as usize)
}

/// Repeat `n` of `of` of an item's run id (see `batch::repeat_id`).
#[wasm_bindgen(js_name = __repeatId, skip_typescript)]
pub fn repeat_id(item: &str, n: u32, of: u32) -> String {
    batch::repeat_id(item, u64::from(n), u64::from(of))
}

/// What a run counts: `"thrown"`, `"unstarted"`, or a finished run's
/// reason, verdict and per-turn tokens with the turns a fork kept.
#[wasm_bindgen(js_name = __batchTally, skip_typescript)]
pub fn tally(how: &str, reason: Option<String>, verdict: Option<String>, turn_tokens: Vec<f64>, kept: f64) -> JsResult<JsValue> {
    let t = match how {
        "thrown" => Tally::thrown(),
        "unstarted" => Tally::never_started(),
        _ => {
            let kept = if kept.is_finite() && kept > 0.0 { kept.min(turn_tokens.len() as f64) as usize } else { 0 };
            Tally::finished(reason, verdict.as_deref().and_then(Verdict::parse), &turn_tokens, kept)
        }
    };
    tally_to_js(&t)
}

/// The summary of `runs` (each `{ reason, verdict, turns?, tokens? }`),
/// checked and named by `place`; `ms` the batch's time or null.
#[wasm_bindgen(js_name = __batchSummary, skip_typescript)]
pub fn summary(runs: JsValue, ms: Option<f64>, place: &str) -> JsResult<JsValue> {
    if !crate::wasm::is_array(&runs) {
        return Err(crate::wasm::error::to_js(Error::invalid_argument(format!(
            "{place}: runs must be an array of {{ reason, verdict, turns?, tokens? }}, got {}",
            crate::wasm::error::describe(&runs)
        ))));
    }
    let v: Value = serde_json::from_str(&options_json(&runs, place).js()?).unwrap_or(Value::Null);
    let items = v.as_array().map(Vec::as_slice).unwrap_or_default();
    let tallies = items.iter().enumerate().map(|(i, r)| Tally::read(r, &format!("{place}: runs[{i}]"))).collect::<Result<Vec<_>, _>>().js()?;
    to_js(&batch::summarize(&tallies, ms))
}

/// A matrix cell's id, its names checked (`/` separates the parts).
#[wasm_bindgen(js_name = __matrixId, skip_typescript)]
pub fn matrix_id(scenario: &str, persona: &str, agent: &str, place: &str) -> JsResult<String> {
    for (group, name) in [("scenarios", scenario), ("personas", persona), ("agents", agent)] {
        batch::check_matrix_name(group, name, place).js()?;
    }
    Ok(batch::matrix_id(scenario, persona, agent))
}
