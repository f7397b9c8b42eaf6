//! Runs and turns from the index's rows, in one pass: which run a record
//! belongs to, which turn, and what each run and turn adds up to. This is
//! the one place a stream's turns are decided; the index's queries, the
//! viewer and its charts read them from here.
//!
//! The rules: a record belongs to the run its `run_id` names; records
//! without one belong to the run named after them that carries their seq
//! on (the seq check's rule: a recorder given no runId before
//! `run_started`), or else form one run of their own. A turn opens on
//! `turn_started` (numbered by its `turn_index`, else one past the last)
//! or, in a run without turns, on a background `iteration_started`; a
//! record names its turn by `turn_index`, or joins the open one;
//! `turn_ended` (or the iteration's `iteration_completed`) closes it. A
//! tool call counts at its `tool_started`, or at its `tool_ended` when no
//! call is open (a stream that lost the start). Every `model_usage` record
//! adds to its run's tokens, and to its turn's when it is inside one.

use std::collections::HashMap;

use super::{column, Interner, TrajectoryIndex, COLUMNS, ERROR, NONE, NUMBERS};

const W: usize = COLUMNS.len();
const N: usize = NUMBERS.len();
const LINE: usize = column(&COLUMNS, "line");
const RUN: usize = column(&COLUMNS, "run");
const PARENT: usize = column(&COLUMNS, "parent");
const KIND: usize = column(&COLUMNS, "kind");
const STEP: usize = column(&COLUMNS, "step");
const NAME: usize = column(&COLUMNS, "name");
const TURN: usize = column(&COLUMNS, "turnIndex");
const ITER: usize = column(&COLUMNS, "iteration");
const DEPTH: usize = column(&COLUMNS, "depth");
const FLAGS: usize = column(&COLUMNS, "flags");
const AT: usize = column(&NUMBERS, "at");
const TOKENS: usize = column(&NUMBERS, "tokens");

/// One turn of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub number: u32,
    /// Interned step id, or [`NONE`].
    pub step: u32,
    pub tool_calls: u32,
    /// Error records in it (failed calls, model errors, failed iterations, warnings, a failed end).
    pub errors: u32,
    pub tokens: f64,
    pub started_at: f64,
    pub ended_at: f64,
    pub records: Vec<u32>,
}

/// One run: its identity, counts and the records queries look up.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Interned run id, or [`NONE`] for the records without one.
    pub key: u32,
    pub parent: u32,
    pub depth: u32,
    pub first: u32,
    pub last: u32,
    pub records: u32,
    pub tool_calls: u32,
    /// Calls whose `tool_ended` says they failed, and, once the run ended,
    /// the calls it ended without finishing.
    pub failed_calls: u32,
    pub tokens: f64,
    /// Record indices of its `run_ended`, `custom` budget, step_graph and step_states, or [`NONE`].
    pub ended: u32,
    pub budget: u32,
    pub graph: u32,
    pub states: u32,
    /// The parent's `tool_started` this child run began inside, and the
    /// parent's last record before it (or [`NONE`]).
    pub parent_call: u32,
    pub parent_record: u32,
    pub turns: Vec<Turn>,
    /// `tool_ended` records in order (a finding's `call_index` is 1-based into them).
    pub calls: Vec<u32>,
    pub steps: Vec<u32>,
    pub findings: Vec<u32>,
    /// Records outside every turn.
    pub outside: Vec<u32>,
}

/// Every run, in order of first record, and each record's turn number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Groups {
    pub runs: Vec<Run>,
    /// Per record, its turn's number or [`NONE`].
    pub turn_of: Vec<u32>,
}

/// Interned ids of the kinds and names the grouping looks at ([`NONE`] when absent).
struct Ids {
    turn_started: u32,
    turn_ended: u32,
    iteration_started: u32,
    iteration_completed: u32,
    tool_started: u32,
    tool_ended: u32,
    assessment_produced: u32,
    step_selected: u32,
    run_ended: u32,
    custom: u32,
    budget: u32,
    step_graph: u32,
    step_states: u32,
    model_usage: u32,
}

impl Ids {
    fn of(s: &Interner) -> Ids {
        use crate::capture::well_known::{BUDGET, MODEL_USAGE, STEP_GRAPH, STEP_STATES};
        let id = |n: &str| s.id(n).unwrap_or(NONE);
        Ids {
            turn_started: id("turn_started"),
            turn_ended: id("turn_ended"),
            iteration_started: id("iteration_started"),
            iteration_completed: id("iteration_completed"),
            tool_started: id("tool_started"),
            tool_ended: id("tool_ended"),
            assessment_produced: id("assessment_produced"),
            step_selected: id("step_selected"),
            run_ended: id("run_ended"),
            custom: id("custom"),
            budget: id(BUDGET),
            step_graph: id(STEP_GRAPH),
            step_states: id(STEP_STATES),
            model_usage: id(MODEL_USAGE),
        }
    }
}

/// A run while it is being read: where its turns are and what is open.
#[derive(Default)]
struct Open {
    by_number: HashMap<u32, usize>,
    current: Option<usize>,
    next_turn: u32,
    saw_turns: bool,
    open_calls: u32,
    open_call: Option<u32>,
}

impl TrajectoryIndex {
    /// Groups the indexed records into runs and turns (see the module doc).
    pub fn groups(&self) -> Groups {
        let ids = Ids::of(&self.strings);
        let n = self.len();
        let mut g = Groups { runs: Vec::new(), turn_of: vec![NONE; n] };
        let mut by_key: HashMap<u32, usize> = HashMap::new();
        let mut open: Vec<Open> = Vec::new();
        for i in 0..n {
            let c = &self.cols[i * W..(i + 1) * W];
            let at = self.nums[i * N + AT];
            let (kind, key) = (c[KIND], c[RUN]);
            let ri = match by_key.get(&key) {
                Some(&ri) => ri,
                None => {
                    let parent = (c[PARENT] != NONE).then(|| by_key.get(&c[PARENT]).copied()).flatten();
                    let parent_call = parent.and_then(|p| open[p].open_call).unwrap_or(NONE);
                    let parent_record = parent.map_or(NONE, |p| g.runs[p].last);
                    g.runs.push(Run {
                        key,
                        parent: c[PARENT],
                        depth: c[DEPTH],
                        first: i as u32,
                        last: i as u32,
                        records: 0,
                        tool_calls: 0,
                        failed_calls: 0,
                        tokens: 0.0,
                        ended: NONE,
                        budget: NONE,
                        graph: NONE,
                        states: NONE,
                        parent_call,
                        parent_record,
                        turns: Vec::new(),
                        calls: Vec::new(),
                        steps: Vec::new(),
                        findings: Vec::new(),
                        outside: Vec::new(),
                    });
                    open.push(Open::default());
                    by_key.insert(key, g.runs.len() - 1);
                    g.runs.len() - 1
                }
            };
            let (run, o) = (&mut g.runs[ri], &mut open[ri]);
            run.records += 1;
            run.last = i as u32;
            let error = c[FLAGS] & ERROR;
            let opens = if kind == ids.turn_started {
                o.saw_turns = true;
                Some(c[TURN])
            } else if kind == ids.iteration_started && !o.saw_turns {
                Some(c[ITER])
            } else {
                None
            };
            let turn = match opens {
                Some(t) => {
                    let number = if t == NONE { o.next_turn } else { t };
                    o.next_turn = number.saturating_add(1);
                    let ti = *o.by_number.entry(number).or_insert_with(|| {
                        run.turns.push(Turn {
                            number,
                            step: NONE,
                            tool_calls: 0,
                            errors: 0,
                            tokens: 0.0,
                            started_at: at,
                            ended_at: 0.0,
                            records: Vec::new(),
                        });
                        run.turns.len() - 1
                    });
                    o.current = Some(ti);
                    Some(ti)
                }
                None if c[TURN] != NONE => o.by_number.get(&c[TURN]).copied().or(o.current),
                None => o.current,
            };
            if kind == ids.turn_ended || (kind == ids.iteration_completed && !o.saw_turns) {
                o.current = None;
            }
            let call = kind == ids.tool_started || (kind == ids.tool_ended && o.open_calls == 0);
            if kind == ids.tool_started {
                o.open_call = Some(i as u32);
                o.open_calls += 1;
                run.tool_calls += 1;
            } else if kind == ids.tool_ended {
                o.open_call = None;
                run.calls.push(i as u32);
                run.failed_calls += error;
                if o.open_calls > 0 {
                    o.open_calls -= 1;
                } else {
                    run.tool_calls += 1;
                }
            } else if kind == ids.assessment_produced {
                run.findings.push(i as u32);
            } else if kind == ids.step_selected {
                run.steps.push(i as u32);
            } else if kind == ids.run_ended {
                run.ended = i as u32;
            } else if kind == ids.custom {
                let name = c[NAME];
                if name == ids.budget {
                    run.budget = i as u32;
                } else if name == ids.step_graph {
                    run.graph = i as u32;
                } else if name == ids.step_states {
                    run.states = i as u32;
                } else if name == ids.model_usage {
                    let tokens = self.nums[i * N + TOKENS];
                    if !tokens.is_nan() {
                        run.tokens += tokens;
                        if let Some(t) = turn {
                            run.turns[t].tokens += tokens;
                        }
                    }
                }
            }
            let Some(t) = turn else {
                run.outside.push(i as u32);
                continue;
            };
            let t = &mut run.turns[t];
            t.records.push(i as u32);
            g.turn_of[i] = t.number;
            t.ended_at = at;
            t.tool_calls += u32::from(call);
            t.errors += error;
            if c[STEP] != NONE && (kind == ids.step_selected || t.step == NONE) {
                t.step = c[STEP];
            }
        }
        // A call a run ended without finishing failed with it.
        for (run, o) in g.runs.iter_mut().zip(&open) {
            if run.ended != NONE {
                run.failed_calls += o.open_calls;
            }
        }
        g
    }

    /// The record kinds of the stream that no reader of this build knows,
    /// as problems of the lines that carry them (the records are kept).
    pub(super) fn unknown_kinds(&mut self) {
        let known: Vec<bool> = self.strings.names.iter().map(|s| crate::capture::KINDS.contains(&&**s)).collect();
        let mut found = Vec::new();
        for row in self.cols.chunks_exact(W) {
            let kind = row[KIND] as usize;
            if !known.get(kind).copied().unwrap_or(true) {
                let name = &self.strings.names[kind];
                found.push(super::Problem {
                    line: row[LINE],
                    message: format!("{}; the record is kept as it is", crate::capture::unknown_kind_message(name, "payload.kind")),
                    code: crate::ErrorCode::InvalidRecord,
                });
            }
        }
        // Both lists are in line order (the stream is read in order): merged,
        // a line's earlier problems first. A stable sort did the same with
        // 5 KB of sorting code in the module for this one call.
        let earlier = std::mem::take(&mut self.problems);
        let mut found = found.into_iter().peekable();
        for p in earlier {
            while let Some(f) = found.next_if(|f| f.line < p.line) {
                self.problems.push(f);
            }
            self.problems.push(p);
        }
        self.problems.extend(found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seq: u32, run: &str, payload: &str) -> String {
        format!(r#"{{"schema_version":1,"seq":{seq},"run_id":"{run}","depth":0,"recorded_at_unix_ms":{},"payload":{payload}}}"#, 100 + seq)
    }

    #[test]
    fn turns_calls_tokens_and_the_end() {
        let text = [
            line(0, "r", r#"{"kind":"run_started","identity":{"run_id":"r"}}"#),
            line(1, "r", r#"{"kind":"turn_started","turn_index":0}"#),
            line(2, "r", r#"{"kind":"custom","name":"model_usage","data":{"input_tokens":5,"output_tokens":2}}"#),
            line(3, "r", r#"{"kind":"tool_started","tool_call_id":"a","tool_name":"t","args":{}}"#),
            line(4, "r", r#"{"kind":"tool_ended","tool_call_id":"a","tool_name":"t","result":1,"is_error":true}"#),
            line(5, "r", r#"{"kind":"turn_ended","turn_index":0,"assistant":{"role":"assistant","content":""},"tool_results":[]}"#),
            line(6, "r", r#"{"kind":"turn_started"}"#),
            line(7, "r", r#"{"kind":"tool_started","tool_call_id":"b","tool_name":"t","args":{}}"#),
            line(8, "r", r#"{"kind":"custom","name":"model_usage","data":{"totalTokens":10}}"#),
            line(9, "r", r#"{"kind":"run_ended","outcome":{"status":"error"}}"#),
        ]
        .join("\n");
        let ix = TrajectoryIndex::from_bytes(text.into_bytes());
        let g = ix.groups();
        assert_eq!(g.runs.len(), 1);
        let r = &g.runs[0];
        assert_eq!((r.records, r.tool_calls, r.failed_calls, r.tokens, r.ended), (10, 2, 2, 17.0, 9), "the unfinished call failed with the run");
        assert_eq!(
            r.turns.iter().map(|t| (t.number, t.tool_calls, t.tokens, t.records.len())).collect::<Vec<_>>(),
            [(0, 1, 7.0, 5), (1, 1, 10.0, 4)]
        );
        assert_eq!(r.outside, [0]);
        assert_eq!(g.turn_of, [NONE, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn a_runs_tokens_are_what_read_model_usage_reads() {
        // One rule: a model_usage record counts in the index what readModelUsage reads of it.
        let bad = [r#"{"inputTokens":-3,"outputTokens":1}"#, r#"{"totalTokens":-7,"input_tokens":2}"#, r#"{"inputTokens":"ten","outputTokens":1.5}"#];
        for data in [r#"{"inputTokens":10,"outputTokens":5}"#, r#"{"totalTokens":7,"inputTokens":3}"#].iter().chain(&bad) {
            let usage = format!(r#"{{"kind":"custom","name":"model_usage","data":{data}}}"#);
            let text = [line(0, "r", r#"{"kind":"run_started","identity":{"run_id":"r"}}"#), line(1, "r", &usage)].join("\n");
            let ix = TrajectoryIndex::from_bytes(text.into_bytes());
            let read = crate::capture::well_known::ModelUsage::read(&serde_json::from_str(data).unwrap()).map_or(0, |u| u.total());
            assert_eq!(ix.groups().runs[0].tokens, read as f64, "{data}");
        }
    }

    #[test]
    fn records_before_a_late_run_id_are_that_runs() {
        let unnamed =
            |seq: u32, payload: &str| format!(r#"{{"schema_version":1,"seq":{seq},"depth":0,"recorded_at_unix_ms":1,"payload":{payload}}}"#);
        let text = [
            unnamed(0, r#"{"kind":"custom","name":"setup","data":1}"#),
            line(1, "late", r#"{"kind":"run_started","identity":{"run_id":"late"}}"#),
            line(2, "late", r#"{"kind":"run_ended","outcome":{"status":"completed"}}"#),
            unnamed(0, r#"{"kind":"custom","name":"after","data":1}"#),
        ]
        .join("\n");
        let ix = TrajectoryIndex::from_bytes(text.into_bytes());
        assert!(ix.problems.is_empty());
        let g = ix.groups();
        let runs: Vec<(Option<&str>, u32)> =
            g.runs.iter().map(|r| ((r.key != NONE).then(|| &*ix.strings.names[r.key as usize]), r.records)).collect();
        // The last record starts a sequence of its own, which no run carries on.
        assert_eq!(runs, [(Some("late"), 3), (None, 1)]);
    }

    #[test]
    fn a_background_run_has_a_turn_per_iteration_and_its_summary_outside() {
        let text = [
            line(0, "b", r#"{"kind":"run_started","identity":{"run_id":"b"}}"#),
            line(1, "b", r#"{"kind":"iteration_started","iteration":0}"#),
            line(2, "b", r#"{"kind":"custom","name":"model_usage","data":{"source":"agent","totalTokens":5}}"#),
            line(3, "b", r#"{"kind":"iteration_completed","iteration":0,"decision":"text","tools":[],"failed":false}"#),
            line(4, "b", r#"{"kind":"custom","name":"model_usage","data":{"source":"summarize","totalTokens":3}}"#),
        ]
        .join("\n");
        let g = TrajectoryIndex::from_bytes(text.into_bytes()).groups();
        let r = &g.runs[0];
        assert_eq!((r.turns.len(), r.turns[0].tokens, r.tokens, r.outside.clone()), (1, 5.0, 8.0, vec![0, 4]));
    }

    #[test]
    fn a_child_run_knows_the_call_it_began_inside() {
        let child = |seq: u32, payload: &str| {
            format!(r#"{{"schema_version":1,"seq":{seq},"run_id":"c","parent_run_id":"p","depth":1,"recorded_at_unix_ms":1,"payload":{payload}}}"#)
        };
        let text = [
            line(0, "p", r#"{"kind":"run_started","identity":{"run_id":"p"}}"#),
            line(1, "p", r#"{"kind":"tool_started","tool_call_id":"d","tool_name":"delegate","args":{}}"#),
            child(0, r#"{"kind":"run_started","identity":{"run_id":"c","parent_run_id":"p"}}"#),
            line(2, "p", r#"{"kind":"tool_ended","tool_call_id":"d","tool_name":"delegate","result":1,"is_error":false}"#),
        ]
        .join("\n");
        let g = TrajectoryIndex::from_bytes(text.into_bytes()).groups();
        assert_eq!((g.runs[1].parent_call, g.runs[1].parent_record, g.runs[1].depth), (1, 1, 1));
    }

    #[test]
    fn problems_are_in_line_order_whichever_check_found_them() {
        let text = [
            "{not json".to_owned(),
            line(0, "r", r#"{"kind":"run_started","identity":{"run_id":"r"}}"#),
            line(1, "r", r#"{"kind":"turn_startd"}"#),
            "[1]".to_owned(),
            line(2, "r", r#"{"kind":"tool_startd"}"#),
            line(3, "r", r#"{"kind":"turn_started"}"#),
            "{\"seq\":".to_owned(),
        ]
        .join("\n");
        let ix = TrajectoryIndex::from_bytes(text.into_bytes());
        let seen: Vec<(u32, &str)> = ix.problems.iter().map(|p| (p.line, p.code.as_str())).collect();
        // `[1]` is JSON, but not a record: the parser's code, as its words.
        assert_eq!(seen, [(1, "JSONL_PARSE"), (3, "INVALID_RECORD"), (4, "INVALID_RECORD"), (5, "INVALID_RECORD"), (7, "JSONL_PARSE")]);
    }

    #[test]
    fn a_field_of_the_wrong_kind_is_refused_as_the_parser_refuses_it() {
        let ended =
            |is_error: &str| line(1, "r", &format!(r#"{{"kind":"tool_ended","tool_call_id":"c","tool_name":"t","result":1,"is_error":{is_error}}}"#));
        let start = line(0, "r", r#"{"kind":"run_started","identity":{"run_id":"r"}}"#);
        for bad in [
            ended(r#""yes""#),
            line(1, "r", r#"{"kind":"turn_started","turn_index":-5}"#),
            line(1, "r", r#"{"kind":"turn_started","turn_index":"2"}"#),
            r#"{"schema_version":1,"seq":1,"run_id":"r","depth":"deep","recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}"#.to_owned(),
        ] {
            let text = format!("{start}\n{bad}");
            let ix = TrajectoryIndex::from_bytes(text.clone().into_bytes());
            let parsed = crate::capture::jsonl::parse_lenient(&text).1;
            assert_eq!(ix.len(), 1, "{bad}: not indexed");
            assert_eq!(ix.problems.len(), 1, "{bad}");
            assert_eq!((ix.problems[0].line, ix.problems[0].code.as_str()), (2, "INVALID_RECORD"), "{bad}");
            // The parser's own words, without its line prefix.
            assert_eq!(format!("line 2: {}", ix.problems[0].message), parsed[0].message, "{bad}");
        }
        // A field a kind does not have is ignored by both; a good value is read.
        let good = line(2, "r", r#"{"kind":"tool_ended","tool_call_id":"c","tool_name":"t","result":1,"is_error":true}"#);
        let text = format!("{start}\n{}\n{good}", line(1, "r", r#"{"kind":"turn_started","is_error":"n/a"}"#));
        let ix = TrajectoryIndex::from_bytes(text.into_bytes());
        assert_eq!((ix.len(), ix.problems.len()), (3, 0));
    }

    #[test]
    fn an_unknown_kind_is_reported_and_kept() {
        let text = [line(0, "r", r#"{"kind":"run_started","identity":{"run_id":"r"}}"#), line(1, "r", r#"{"kind":"turn_startd"}"#)].join("\n");
        let ix = TrajectoryIndex::from_bytes(text.into_bytes());
        assert_eq!(ix.len(), 2);
        assert_eq!(ix.problems.len(), 1);
        assert_eq!(ix.problems[0].line, 2);
        assert!(
            ix.problems[0].message.contains(r#"kind "turn_startd" is not a record kind (did you mean "turn_started"?); the record is kept"#),
            "{}",
            ix.problems[0].message
        );
    }
}
