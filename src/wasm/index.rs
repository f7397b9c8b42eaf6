//! `TrajectoryIndex` for JS: arguments checked and translated, answers as
//! plain values or typed arrays.

use wasm_bindgen::prelude::*;

use crate::core::index::TrajectoryIndex;
use crate::core::Error;
use crate::wasm::error::{to_js, IntoJs, JsResult};

/// The index's core: the stream's bytes and the per-record columns. The
/// package's `TrajectoryIndex` (src/js/trajectory-index.js) groups them
/// into runs and turns and answers the queries.
/// Fields per run and per turn in [`IndexCore::groups`]' tables (the JS layer reads them in this order).
const RUN_FIELDS: usize = 24;
const TURN_FIELDS: usize = 9;

#[wasm_bindgen(js_name = __TrajectoryIndexCore, skip_typescript)]
pub struct IndexCore {
    inner: TrajectoryIndex,
}

#[wasm_bindgen(js_class = __TrajectoryIndexCore)]
impl IndexCore {
    /// Indexes record JSONL text or UTF-8 bytes; bad lines become problems.
    #[wasm_bindgen(constructor)]
    pub fn new(input: JsValue) -> JsResult<IndexCore> {
        let bytes = crate::wasm::text::jsonl_bytes(&input, "TrajectoryIndex.fromJsonl(input): input").js()?;
        Ok(IndexCore { inner: TrajectoryIndex::from_bytes(bytes) })
    }

    #[wasm_bindgen(getter, js_name = byteLength)]
    pub fn byte_length(&self) -> f64 {
        self.inner.bytes.len() as f64
    }

    /// `COLUMNS.len()` u32 values per record (see `crate::core::index::COLUMNS`).
    pub fn columns(&self) -> Vec<u32> {
        self.inner.cols.clone()
    }

    /// `NUMBERS.len()` f64 values per record.
    pub fn numbers(&self) -> Vec<f64> {
        self.inner.nums.clone()
    }

    /// The interned strings the columns refer to.
    pub fn strings(&self) -> Vec<String> {
        self.inner.strings.names.iter().map(|s| s.to_string()).collect()
    }

    /// Lines that are not records: `[line, message, code]` triples, flattened.
    pub fn problems(&self) -> Vec<JsValue> {
        self.inner.problems.iter().flat_map(|p| [JsValue::from(p.line), JsValue::from_str(&p.message), JsValue::from_str(p.code.as_str())]).collect()
    }

    /// The line of record `i` (checked by the caller).
    pub fn text(&self, i: u32) -> String {
        String::from_utf8_lossy(self.inner.line(i as usize).unwrap_or_default()).into_owned()
    }

    /// The core's runs and turns as flat typed arrays:
    /// `[turnOf, runs (RUN_FIELDS u32 each), runTokens, turns (TURN_FIELDS f64 each), turnRecords, lists]`;
    /// a run's turns, calls, steps, findings and outside records are
    /// `[start, length]` ranges into `turns`, `lists` (and a turn's records into `turnRecords`).
    pub fn groups(&self) -> js_sys::Array {
        let g = self.inner.groups();
        let (mut runs, mut tokens, mut turns, mut turn_records, mut lists) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in &g.runs {
            let mut range = |v: &[u32]| {
                let at = lists.len() as u32;
                lists.extend_from_slice(v);
                [at, v.len() as u32]
            };
            let [calls_at, calls_len] = range(&r.calls);
            let [steps_at, steps_len] = range(&r.steps);
            let [findings_at, findings_len] = range(&r.findings);
            let [outside_at, outside_len] = range(&r.outside);
            let turn_at = (turns.len() / TURN_FIELDS) as u32;
            for t in &r.turns {
                let rec_at = turn_records.len() as f64;
                turn_records.extend_from_slice(&t.records);
                let row: [f64; TURN_FIELDS] = [
                    f64::from(t.number),
                    f64::from(t.step),
                    f64::from(t.tool_calls),
                    f64::from(t.errors),
                    t.tokens,
                    t.started_at,
                    t.ended_at,
                    rec_at,
                    t.records.len() as f64,
                ];
                turns.extend_from_slice(&row);
            }
            let row: [u32; RUN_FIELDS] = [
                r.key,
                r.parent,
                r.depth,
                r.first,
                r.last,
                r.records,
                r.tool_calls,
                r.failed_calls,
                r.ended,
                r.budget,
                r.graph,
                r.states,
                r.parent_call,
                r.parent_record,
                turn_at,
                r.turns.len() as u32,
                calls_at,
                calls_len,
                steps_at,
                steps_len,
                findings_at,
                findings_len,
                outside_at,
                outside_len,
            ];
            runs.extend_from_slice(&row);
            tokens.push(r.tokens);
        }
        let out = js_sys::Array::new();
        out.push(&js_sys::Uint32Array::from(&g.turn_of[..]));
        out.push(&js_sys::Uint32Array::from(&runs[..]));
        out.push(&js_sys::Float64Array::from(&tokens[..]));
        out.push(&js_sys::Float64Array::from(&turns[..]));
        out.push(&js_sys::Uint32Array::from(&turn_records[..]));
        out.push(&js_sys::Uint32Array::from(&lists[..]));
        out
    }

    /// Text search; `run` an interned run id or `NONE` for the records
    /// without one, `undefined` for all. Returns `[count, records, counts]`.
    pub fn search(&self, needle: &str, run: Option<u32>) -> js_sys::Array {
        let hits = self.inner.search(needle, run);
        let out = js_sys::Array::new();
        out.push(&hits.count.into());
        out.push(&js_sys::Uint32Array::from(&hits.records[..]));
        out.push(&js_sys::Uint32Array::from(&hits.counts[..]));
        out
    }
}

/// Refuses a string that is not a record kind, naming the nearest one.
#[wasm_bindgen(js_name = __checkRecordKind, skip_typescript)]
pub fn check_record_kind(kind: &str, place: &str) -> JsResult<()> {
    if crate::core::capture::KINDS.contains(&kind) {
        return Ok(());
    }
    Err(to_js(Error::invalid_argument(crate::core::capture::unknown_kind_message(kind, place))))
}
