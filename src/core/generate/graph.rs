//! A definition's step graph: its steps, their preconditions and the
//! callbacks the host attaches to them (and what a callback sees), read
//! from JSON data and checked: step and precondition keys, a precondition
//! cycle (found by a depth-first walk) and which steps the start can reach.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::fields::{invalid, Fields};
use super::state::StepStates;
use super::trace::StepTrace;
use crate::error::{Error, Result};
use crate::host::{LocalBoxFuture, MAX_TIMEOUT_MS};
use crate::number::quoted;

/// What a custom precondition or `isSatisfied` callback sees.
pub struct PredicateContext<'a> {
    pub traces: &'a [StepTrace],
    pub snapshot: &'a StepStates,
    /// The step being judged (satisfaction) or whose precondition runs.
    pub step: usize,
}

/// A host callback answering yes or no: a custom precondition's `evaluate`
/// or a step's `isSatisfied`.
pub trait Predicate {
    fn evaluate<'a>(&'a self, ctx: &'a PredicateContext<'a>) -> LocalBoxFuture<'a, Result<bool>>;
}

#[derive(Clone)]
pub enum Precondition {
    StepSatisfied(String),
    Custom { name: Option<String>, evaluate: Option<Rc<dyn Predicate>> },
}

impl Precondition {
    pub fn label(&self) -> String {
        match self {
            Precondition::StepSatisfied(id) => format!("stepSatisfied({id})"),
            Precondition::Custom { name, .. } => format!("custom({})", name.as_deref().unwrap_or("unnamed")),
        }
    }
}

#[derive(Clone)]
pub struct StepDefinition {
    pub id: String,
    pub instruction: String,
    pub hints: Vec<String>,
    pub preconditions: Vec<Precondition>,
    pub max_attempts: Option<u32>,
    pub timeout_ms: Option<f64>,
    pub is_satisfied: Option<Rc<dyn Predicate>>,
}

impl StepDefinition {
    /// Ids of the steps this one waits for.
    pub fn requires(&self) -> impl Iterator<Item = &str> {
        self.preconditions.iter().filter_map(|p| match p {
            Precondition::StepSatisfied(id) => Some(id.as_str()),
            Precondition::Custom { .. } => None,
        })
    }
}

#[derive(Clone)]
pub struct StepGraph {
    pub steps: Vec<StepDefinition>,
    pub start: usize,
    pub terminals: Vec<usize>,
    pub(super) index: HashMap<String, usize>,
    /// Per step: the steps it waits for (`stepSatisfied`), as indices.
    pub(super) deps: Vec<Vec<usize>>,
    /// Per step: the steps that wait for it.
    pub(super) dependents: Vec<Vec<usize>>,
}

impl StepGraph {
    pub fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }
    /// The steps step `i` waits for.
    pub fn deps(&self, i: usize) -> &[usize] {
        &self.deps[i]
    }
    /// The steps that wait for step `i`.
    pub fn dependents(&self, i: usize) -> &[usize] {
        &self.dependents[i]
    }
}

const STEP_KEYS: &[&str] = &["id", "instruction", "hints", "preconditions", "maxAttempts", "timeoutMs", "isSatisfied"];
const PRECONDITION_KEYS: &[&str] = &["type", "stepId", "name", "evaluate"];

pub(super) fn read_graph(v: &Value) -> Result<StepGraph> {
    let f = Fields::of(v, "steps")?;
    f.only(&["steps", "start", "terminals"])?;
    let items = match f.get("steps") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        _ => return Err(invalid("steps.steps must be a non-empty array of step definitions")),
    };
    let mut steps = Vec::with_capacity(items.len());
    let mut index = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let place = format!("steps.steps[{i}]");
        let s = Fields::of(item, &place)?;
        let id = s.required("id")?;
        s.only(STEP_KEYS).map_err(|e| e.at_step(&id))?;
        if let Some(first) = index.insert(id.clone(), i) {
            return Err(invalid(format!("duplicate step id {id} (steps.steps[{first}] and steps.steps[{i}])", id = quoted(&id))).at_step(&id));
        }
        let at = |e: Error| e.at_step(&id);
        let mut preconditions = Vec::new();
        if let Some(list) = s.get("preconditions") {
            let list = list.as_array().ok_or_else(|| at(invalid(format!("step {id}: preconditions must be an array", id = quoted(&id)))))?;
            for (j, p) in list.iter().enumerate() {
                let place = format!("step {id}: preconditions[{j}]", id = quoted(&id));
                let pf = Fields::of(p, &place).map_err(at)?;
                pf.only(PRECONDITION_KEYS).map_err(at)?;
                let pre = match pf.string("type").map_err(at)?.as_deref() {
                    Some("stepSatisfied") => Precondition::StepSatisfied(
                        pf.string("stepId")
                            .map_err(at)?
                            .ok_or_else(|| at(invalid(format!("step {id}: preconditions[{j}] needs a stepId", id = quoted(&id)))))?,
                    ),
                    Some("custom") => Precondition::Custom { name: pf.string("name").map_err(at)?, evaluate: None },
                    other => {
                        let got = other.map_or("nothing".to_owned(), quoted);
                        let hint = other
                            .and_then(|t| crate::options::nearest(t, &["stepSatisfied", "custom"]))
                            .map(|n| format!("; did you mean {n}?", n = quoted(n)))
                            .unwrap_or_default();
                        return Err(at(invalid(format!(
                            "step {id}: preconditions[{j}].type must be 'stepSatisfied' or 'custom', got {got}{hint}",
                            id = quoted(&id)
                        ))));
                    }
                };
                preconditions.push(pre);
            }
        }
        steps.push(StepDefinition {
            instruction: s.required("instruction").map_err(at)?,
            hints: s.strings("hints").map_err(at)?,
            preconditions,
            max_attempts: match s.get("maxAttempts") {
                None => None,
                Some(_) => Some(s.integer("maxAttempts", 1, 1).map_err(at)?),
            },
            // setTimeout fires at once past 2^31 - 1 ms, so longer is refused, not shortened.
            timeout_ms: s
                .number("timeoutMs", |n| n > 0.0 && n <= MAX_TIMEOUT_MS, "a positive number of milliseconds, at most 2147483647 (24.8 days)")
                .map_err(at)?,
            is_satisfied: None,
            id,
        });
    }
    let known =
        |id: &str, what: &str| index.get(id).copied().ok_or_else(|| invalid(format!("{what} names unknown step {id}", id = quoted(id))).at_step(id));
    let start = known(&f.required("start")?, "steps.start")?;
    let terminals = f.strings("terminals")?.iter().map(|t| known(t, "steps.terminals")).collect::<Result<Vec<_>>>()?;
    let mut deps = Vec::with_capacity(steps.len());
    let mut dependents = vec![Vec::new(); steps.len()];
    for (i, s) in steps.iter().enumerate() {
        let mut mine = Vec::new();
        for dep in s.requires() {
            let j = *index.get(dep).ok_or_else(|| {
                invalid(format!("step {}: precondition stepSatisfied names unknown step {dep}", quoted(&s.id), dep = quoted(dep))).at_step(&s.id)
            })?;
            mine.push(j);
            dependents[j].push(i);
        }
        deps.push(mine);
    }
    Ok(StepGraph { steps, start, terminals, index, deps, dependents })
}

/// A cycle of `stepSatisfied` edges, as step indices from one step back to
/// it. Depth-first with an explicit stack: a chain of 50,000 steps must not
/// exhaust the call stack.
pub(super) fn find_cycle(g: &StepGraph) -> Option<Vec<usize>> {
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut mark = vec![0u8; g.steps.len()];
    // The current path: each step with the position of its next dependency to visit.
    let mut path: Vec<(usize, usize)> = Vec::new();
    for root in 0..g.steps.len() {
        if mark[root] != 0 {
            continue;
        }
        mark[root] = 1;
        path.push((root, 0));
        while let Some(&mut (i, ref mut next)) = path.last_mut() {
            let Some(&j) = g.deps(i).get(*next) else {
                mark[i] = 2;
                path.pop();
                continue;
            };
            *next += 1;
            match mark[j] {
                0 => {
                    mark[j] = 1;
                    path.push((j, 0));
                }
                1 => {
                    let from = path.iter().position(|&(k, _)| k == j).expect("on path");
                    let mut cycle: Vec<usize> = path[from..].iter().map(|&(k, _)| k).collect();
                    cycle.push(j);
                    return Some(cycle);
                }
                _ => {}
            }
        }
    }
    None
}

/// Which steps a run can ever select (see
/// [`Trajectory::validate`](super::Trajectory::validate)), in
/// one pass over the edges: a step becomes reachable when the last step it
/// waits for does, and only non-terminal steps pass reachability on.
pub(super) fn reachable(g: &StepGraph) -> Vec<bool> {
    let n = g.steps.len();
    let mut terminal = vec![false; n];
    for &t in &g.terminals {
        terminal[t] = true;
    }
    let mut waiting: Vec<usize> = (0..n).map(|i| g.deps(i).len()).collect();
    let mut r = vec![false; n];
    let mut queue: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0 || i == g.start).collect();
    for &i in &queue {
        r[i] = true;
    }
    while let Some(i) = queue.pop() {
        if terminal[i] {
            continue;
        }
        for &d in g.dependents(i) {
            waiting[d] -= 1;
            if waiting[d] == 0 && !r[d] {
                r[d] = true;
                queue.push(d);
            }
        }
    }
    r
}
impl StepGraph {
    /// The graph as the data of the `custom` `step_graph` record a run
    /// starts with, so a reader (the viewer) can draw every step, reached
    /// or not, with its preconditions.
    pub fn to_record_data(&self, max_turns: u32, min_turns: u32) -> Value {
        fn strings(it: impl Iterator<Item = String>) -> Value {
            Value::Array(it.map(Value::String).collect())
        }
        let steps = self.steps.iter().map(|s| {
            let mut o = Map::new();
            o.insert("id".into(), Value::String(s.id.clone()));
            o.insert("requires".into(), strings(s.requires().map(str::to_owned)));
            o.insert("preconditions".into(), strings(s.preconditions.iter().map(Precondition::label)));
            Value::Object(o)
        });
        let mut o = Map::new();
        o.insert("steps".into(), Value::Array(steps.collect()));
        o.insert("start".into(), Value::String(self.steps[self.start].id.clone()));
        o.insert("terminals".into(), strings(self.terminals.iter().map(|&i| self.steps[i].id.clone())));
        o.insert("maxTurns".into(), Value::from(max_turns));
        if min_turns > 0 {
            o.insert("minTurns".into(), Value::from(min_turns));
        }
        Value::Object(o)
    }
}
