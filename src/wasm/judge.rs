//! Judging for JS: the run, the expected calls and the options cross as
//! JSON; the judging crate (`agent-trajectories-judge`) reads and decides. A per-tool arguments
//! function stays in JS and is called through `custom`.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::core::Error;
use crate::judge::ask::{self, JudgeRunOptions};
use crate::judge::{check_run, compare, facts::read_run, match_calls, read_expected, CheckOptions, MatchOptions};
use crate::wasm::error::{describe, from_callback, IntoJs, JsResult};
use crate::wasm::generate::host::CallSignals;
use crate::wasm::generate::model::JsModel;
use crate::wasm::generate::signal::JsTimer;
use crate::wasm::{json_of, options_json, property, to_js};

fn value(v: &JsValue, what: &str) -> Result<Value, Error> {
    if v.is_undefined() {
        return Ok(Value::Null);
    }
    Ok(serde_json::from_str(&json_of(v, what)?).unwrap_or(Value::Null))
}

fn options(v: &JsValue, what: &str) -> Result<Value, Error> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    required(v, what)
}

/// A value that must be given: undefined is "missing", not null.
fn required(v: &JsValue, what: &str) -> Result<Value, Error> {
    Ok(serde_json::from_str(&options_json(v, what)?).unwrap_or(Value::Null))
}

/// The synchronous judging functions, one export (each costs the module
/// its own glue): `op` `"match"` is `matchTrajectory(a: run, b: expected,
/// c: options)`, `custom_tools` naming the tools whose `args` entry is a
/// function, called as `custom(tool, expected, actual)`; `"check"` is
/// `checkRun(a: run, b: options)`; `"compare"` is `compareBatches(a:
/// baseline, b: current)`.
#[wasm_bindgen(js_name = __judging, skip_typescript)]
pub fn judging(
    op: &str,
    a: JsValue,
    b: JsValue,
    c: JsValue,
    custom_tools: Option<Vec<String>>,
    custom: Option<js_sys::Function>,
) -> JsResult<JsValue> {
    let text = match op {
        "match" => {
            let place = "matchTrajectory: options";
            let o = MatchOptions::read(&options(&c, place).js()?, custom_tools.as_deref().unwrap_or_default(), place).js()?;
            let expected = read_expected(&value(&b, "matchTrajectory: expected").js()?, "matchTrajectory: expected").js()?;
            let facts = read_run(&value(&a, "matchTrajectory: run").js()?, o.run_id.as_deref(), "matchTrajectory: run").js()?;
            let r = match_calls(&facts.calls, &expected, &o, place, &mut |tool, what, e, a| {
                // Plain JSON values: parsing serde_json's own text cannot fail.
                let json = |v: &Value| js_sys::JSON::parse(&crate::core::write::json(v)).unwrap_or(JsValue::NULL);
                let f = custom.as_ref().ok_or_else(|| Error::new(crate::core::ErrorCode::Internal, "no arguments function was passed"))?;
                match f.call3(&JsValue::NULL, &tool.into(), &json(e), &json(a)) {
                    Ok(b) => Ok(b.as_bool().ok_or_else(|| describe(&b))),
                    Err(thrown) => Err(from_callback(what, &thrown)),
                }
            });
            r.js()?.to_json(&facts.calls)
        }
        "check" => {
            let o = CheckOptions::read(&options(&b, "checkRun: options").js()?, "checkRun: options").js()?;
            let facts = read_run(&value(&a, "checkRun: run").js()?, o.run_id.as_deref(), "checkRun: run").js()?;
            check_run(&facts, &o).to_json()
        }
        _ => {
            // (Read as options are: a NaN of the caller's is said as NaN, not as the null JSON makes it.)
            let baseline = compare::read_batch(&required(&a, "compareBatches: baseline").js()?, "compareBatches: baseline").js()?;
            let current = compare::read_batch(&required(&b, "compareBatches: current").js()?, "compareBatches: current").js()?;
            compare::compare(&baseline, &current)
        }
    };
    js_sys::JSON::parse(&text)
}

/// `judge(run, options)`: the rubric judge over a recorded run. `options.model`
/// is a Model function (the JS layer adapts an AI SDK model); `host` is the
/// JS layer's `{ macrotask, callSignal }`, as for a run.
#[wasm_bindgen(js_name = __judge, skip_typescript)]
pub async fn judge_run(run: JsValue, opts: JsValue, host: JsValue) -> JsResult<JsValue> {
    let place = "judge: options";
    let o = JudgeRunOptions::read(&options(&opts, place).js()?, place).js()?;
    let model = property(&opts, "model").dyn_into::<js_sys::Function>().map_err(|_| {
        crate::wasm::error::to_js(Error::invalid_argument(format!("{place}.model must be a Model function or an AI SDK language model")))
    })?;
    let facts = read_run(&value(&run, "judge: run").js()?, o.run_id.as_deref(), "judge: run").js()?;
    let model = JsModel::new(model, "judge.model", CallSignals::of(&host));
    let timer = JsTimer::of(&host);
    let j = ask::judge_run(&facts, &o.criteria, &model, Some(&timer), o.timeout_ms.map(|ms| (ms, "timeoutMs")))
        .await
        // A call past its deadline says whose it was, as the judge's other errors do.
        .map_err(|e| if e.code == crate::core::ErrorCode::Timeout { Error { message: format!("judge: {}", e.message), ..e } } else { e })
        .js()?;
    to_js(&j)
}
