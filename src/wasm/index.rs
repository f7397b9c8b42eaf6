//! `TrajectoryIndex` for JS: arguments checked and translated, answers as
//! plain values or typed arrays.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

use crate::core::index::TrajectoryIndex;
use crate::core::Error;
use crate::wasm::error::{describe, to_js, JsResult};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A run in a {@link TrajectoryIndex}: record indices, counts and how it ended. */
export interface IndexedRun {
  runId: string | null;
  parentRunId: string | null;
  depth: number;
  /** Record indices of its first and last record. */
  first: number;
  last: number;
  records: number;
  startedAt: number;
  endedAt: number;
  turns: number;
  toolCalls: number;
  /** Calls whose tool_ended says they failed, and calls the run ended without finishing. */
  failedCalls: number;
  assessments: number;
  /** Every model call's tokens (its `model_usage` records), inside a turn or not (a background run's summary). */
  tokens: number;
  /** How the run ended (readOutcome of its run_ended); null without one. */
  outcome: RunEnd | null;
  /** Record index of the parent's `tool_started` this child run ran inside (null when no call was open). */
  parentCall: number | null;
  /** Record index of the parent's last record before this child run's first. */
  parentRecord: number | null;
}

/** A turn (or a background iteration, in a run without turns). */
export interface IndexedTurn {
  turn: number;
  first: number;
  last: number;
  records: number;
  /** The step a generated turn worked on. */
  step: string | null;
  toolCalls: number;
  errors: number;
  /** Tokens from the turn's `custom` `model_usage` records. */
  tokens: number;
  startedAt: number;
  endedAt: number;
}

/** What the index keeps of a record, without parsing it. */
export interface RecordInfo {
  seq: number;
  runId: string | null;
  depth: number;
  kind: string;
  turn: number | null;
  toolName: string | null;
  /** A failed tool call, a failed model call (`model_error`), a run that did not complete, a failed iteration or a warning assessment. */
  isError: boolean;
  severity: 'info' | 'caution' | 'warning' | null;
  at: number;
  /** 1-based line in the stream. */
  line: number;
}

export interface IndexFilter {
  kind?: TrajectoryRecord['payload']['kind'] | TrajectoryRecord['payload']['kind'][];
  /** A run id, or null for the records without one. */
  runId?: string | null;
  errorsOnly?: boolean;
  minSeverity?: 'info' | 'caution' | 'warning';
  /** A turn number, or null for the records outside every turn. */
  turn?: number | null;
}

export interface IndexHits {
  /** Matches in all. */
  count: number;
  /** Records with at least one match, ascending. */
  records: Uint32Array;
  /** Matches in each of `records`. */
  counts: Uint32Array;
}

export interface IndexBudget {
  /** Per turn (not cumulative); `elapsedMs` is from the run's first record to the turn's last. */
  turns: { turn: number; first: number; tokens: number; toolCalls: number; ms: number; elapsedMs: number }[];
  /** From a `custom` record named `budget` (`maxTokens`, `maxToolCalls`, `maxMs` or `deadline`). */
  limits: { tokens: number | null; toolCalls: number | null; ms: number | null };
}

export interface IndexedStep {
  turn: number;
  record: number;
  stepId: string | null;
  method: string;
  candidates: { stepId: string; score: number; reasons?: string[] }[];
  rankerError: string | null;
}

export interface IndexedFinding {
  record: number;
  runId: string | null;
  /** The tool call it fired after (1-based, per run) and that call's `tool_ended` record. */
  callIndex: number | null;
  callRecord: number | null;
  turn: number | null;
  severity: 'info' | 'caution' | 'warning' | null;
  assessment: Assessment;
}

/** The data of a `custom` record named `step_graph` (runTrajectory records one right after `run_started` when its trajectory has steps; a harness may record its own). */
export interface IndexedStepGraph {
  /** `status` and `attempts`: the step's final state, when the run recorded a `step_states` record. */
  steps: { id: string; requires: string[]; preconditions: string[]; status?: 'idle' | 'in_progress' | 'satisfied' | 'blocked' | 'failed' | 'skipped'; attempts?: number }[];
  start: string;
  terminals: string[];
  maxTurns?: number;
}
"#;

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
        let bytes = match input.dyn_ref::<Uint8Array>() {
            Some(b) => b.to_vec(),
            None => match input.as_string() {
                Some(s) => s.into_bytes(),
                None => {
                    return Err(to_js(Error::invalid_argument(format!(
                        "TrajectoryIndex.fromJsonl(input): input must be JSONL text or a Uint8Array of it, got {}",
                        describe(&input)
                    ))))
                }
            },
        };
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
