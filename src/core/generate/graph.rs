//! A definition's step graph, read from its JSON data and checked: step
//! and precondition keys, a precondition cycle (found by a depth-first
//! walk) and which steps the start can reach.

use std::collections::HashMap;

use serde_json::Value;

use super::definition::{invalid, Fields, Precondition, StepDefinition, StepGraph, MAX_TIMEOUT_MS};
use crate::error::{Error, Result};

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
            return Err(invalid(format!("duplicate step id {id:?} (steps.steps[{first}] and steps.steps[{i}])")).at_step(&id));
        }
        let at = |e: Error| e.at_step(&id);
        let mut preconditions = Vec::new();
        if let Some(list) = s.get("preconditions") {
            let list = list.as_array().ok_or_else(|| at(invalid(format!("step {id:?}: preconditions must be an array"))))?;
            for (j, p) in list.iter().enumerate() {
                let place = format!("step {id:?}: preconditions[{j}]");
                let pf = Fields::of(p, &place).map_err(at)?;
                pf.only(PRECONDITION_KEYS).map_err(at)?;
                let pre = match pf.string("type").map_err(at)?.as_deref() {
                    Some("stepSatisfied") => Precondition::StepSatisfied(
                        pf.string("stepId").map_err(at)?.ok_or_else(|| at(invalid(format!("step {id:?}: preconditions[{j}] needs a stepId"))))?,
                    ),
                    Some("custom") => Precondition::Custom { name: pf.string("name").map_err(at)?, evaluate: None },
                    other => {
                        let got = other.map_or("nothing".to_owned(), |t| format!("{t:?}"));
                        let hint = other
                            .and_then(|t| crate::options::nearest(t, &["stepSatisfied", "custom"]))
                            .map(|n| format!("; did you mean {n:?}?"))
                            .unwrap_or_default();
                        return Err(at(invalid(format!(
                            "step {id:?}: preconditions[{j}].type must be 'stepSatisfied' or 'custom', got {got}{hint}"
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
    let known = |id: &str, what: &str| index.get(id).copied().ok_or_else(|| invalid(format!("{what} names unknown step {id:?}")).at_step(id));
    let start = known(&f.required("start")?, "steps.start")?;
    let terminals = f.strings("terminals")?.iter().map(|t| known(t, "steps.terminals")).collect::<Result<Vec<_>>>()?;
    let mut deps = Vec::with_capacity(steps.len());
    let mut dependents = vec![Vec::new(); steps.len()];
    for (i, s) in steps.iter().enumerate() {
        let mut mine = Vec::new();
        for dep in s.requires() {
            let j = *index
                .get(dep)
                .ok_or_else(|| invalid(format!("step {:?}: precondition stepSatisfied names unknown step {dep:?}", s.id)).at_step(&s.id))?;
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

/// Which steps a run can ever select (see [`Trajectory::validate`]), in
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
