//! `matchTrajectory`: a run's tool calls against an expected list, in one
//! of five modes, with arguments compared per tool. Every mismatch names
//! its position and the nearest candidate, in words a failing test prints.

use serde_json::Value;

use super::facts::Call;
use agent_trajectories_core::error::{Error, ErrorCode, Result};
use agent_trajectories_core::number;
use agent_trajectories_core::number::quoted;
use agent_trajectories_core::options::{check_keys, nearest};
use agent_trajectories_core::value::Opts;
use agent_trajectories_core::write::{array, Obj};

/// How the calls must line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The same calls in the same order, nothing else.
    Strict,
    /// The expected calls in order; other calls may come between.
    InOrder,
    /// The same calls, each once, in any order.
    Unordered,
    /// Every actual call is one of the expected calls (an expected call may be made more than once, or not at all).
    Subset,
    /// Every expected call was made (a call listed twice, twice); other calls may come too.
    Superset,
}

pub const MODES: [(&str, Mode); 5] =
    [("strict", Mode::Strict), ("in-order", Mode::InOrder), ("unordered", Mode::Unordered), ("subset", Mode::Subset), ("superset", Mode::Superset)];

/// How a tool's arguments must agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args {
    /// Equal JSON (numbers by value).
    Exact,
    /// Not compared.
    Ignore,
    /// The expected keys only, compared the same way, to any depth.
    Subset,
    /// The caller's function decides.
    Custom,
}

pub const ARGS_MODES: [(&str, Args); 3] = [("exact", Args::Exact), ("ignore", Args::Ignore), ("subset", Args::Subset)];

/// An expected call: a tool name and, unless any will do, its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub name: String,
    pub args: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MatchOptions {
    pub mode: Mode,
    pub args: Args,
    /// Per tool, overriding `args`.
    pub per_tool: Vec<(String, Args)>,
    /// The run to read, among several.
    pub run_id: Option<String>,
}

pub const MATCH_OPTIONS: [&str; 3] = ["mode", "args", "runId"];

impl MatchOptions {
    /// `{ mode?, args?, runId? }`: `args` a mode for every tool, or an object
    /// of modes by tool name; tools in `custom` have a function there (the
    /// binding keeps it).
    pub fn read(v: &Value, custom: &[String], place: &str) -> Result<MatchOptions> {
        let o = Opts::new(v, &MATCH_OPTIONS, place, "an object { mode?, args?, runId? }")?;
        let mut opts = MatchOptions {
            mode: o.word("mode", &MODES)?.unwrap_or(Mode::Strict),
            args: Args::Exact,
            per_tool: custom.iter().map(|t| (t.clone(), Args::Custom)).collect(),
            run_id: o.string("runId")?,
        };
        match o.get("args") {
            Some(Value::Object(tools)) => {
                for (tool, m) in tools.iter().filter(|(t, _)| !custom.contains(t)) {
                    let m = m.as_str().and_then(|w| ARGS_MODES.iter().find(|(n, _)| *n == w)).map(|(_, a)| *a).ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "{place}.args[{tool}] must be one of 'exact', 'ignore', 'subset', or a function (expected, actual) => boolean, got {}",
                            number::show_value(m),
                            tool = quoted(tool)
                        ))
                    })?;
                    opts.per_tool.push((tool.clone(), m));
                }
            }
            Some(_) => {
                opts.args = o
                    .word("args", &ARGS_MODES)
                    .map_err(|e| Error::invalid_argument(format!("{}, or an object of them by tool name", e.message)))?
                    .unwrap_or(Args::Exact)
            }
            None => {}
        }
        Ok(opts)
    }

    fn args_for(&self, tool: &str) -> Args {
        self.per_tool.iter().find(|(t, _)| t == tool).map_or(self.args, |(_, m)| *m)
    }
}

/// The expected list: tool names, or `{ toolName, input? }` (no `input`: any arguments).
pub fn read_expected(v: &Value, place: &str) -> Result<Vec<Expected>> {
    let Value::Array(items) = v else {
        return Err(Error::invalid_argument(format!(
            "{place} must be an array of tool names or {{ toolName, input? }}, got {}",
            number::show_value(v)
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(name) => Ok(Expected { name: name.clone(), args: None }),
            Value::Object(o) => {
                let at = format!("{place}[{i}]");
                check_keys(o.keys().map(String::as_str), &["toolName", "input"], &at)?;
                let name = o.get("toolName").and_then(Value::as_str).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "{at}.toolName must be a string, got {}",
                        o.get("toolName").map_or("nothing".into(), number::show_value)
                    ))
                })?;
                Ok(Expected { name: name.to_owned(), args: o.get("input").cloned() })
            }
            other => {
                Err(Error::invalid_argument(format!("{place}[{i}] must be a tool name or {{ toolName, input? }}, got {}", number::show_value(other))))
            }
        })
        .collect()
}

/// One way the run differs from the expected list.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// `missing` (an expected call not made), `unexpected` (a call not
    /// expected), `different` (strict: another call at this position).
    pub kind: &'static str,
    pub expected_index: Option<usize>,
    pub actual_index: Option<usize>,
    /// The actual call closest to a missing one (same tool, else none).
    pub nearest: Option<usize>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MatchResult {
    pub pass: bool,
    /// Matched calls over the calls the mode counts (1 when there are none).
    pub score: f64,
    pub matched: usize,
    pub mismatches: Vec<Mismatch>,
    pub message: String,
}

impl MatchResult {
    /// The result as JSON text, as JS reads it, with the run's `calls` (in
    /// order: each one's tool, arguments, and, when known, whether it
    /// succeeded and its turn), which the positions refer to.
    pub fn to_json(&self, calls: &[Call]) -> String {
        let mismatches = self.mismatches.iter().map(|m| {
            Obj::new()
                .text("kind", m.kind)
                .opt("expectedIndex", m.expected_index, |o, k, v| o.int(k, v as u64))
                .opt("actualIndex", m.actual_index, |o, k, v| o.int(k, v as u64))
                .opt("nearest", m.nearest, |o, k, v| o.int(k, v as u64))
                .text("message", &m.message)
                .end()
        });
        let calls = calls
            .iter()
            .map(|c| Obj::new().text("toolName", &c.name).val("input", &c.args).opt("ok", c.ok, Obj::flag).opt("turn", c.turn, Obj::int).end());
        Obj::new()
            .flag("pass", self.pass)
            .num("score", self.score)
            .int("matched", self.matched as u64)
            .raw("mismatches", &array(mismatches))
            .raw("calls", &array(calls))
            .text("message", &self.message)
            .end()
    }
}

/// Equal JSON, numbers by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// `expected`'s keys agree with `actual`'s, to any depth.
fn within(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e.iter().all(|(k, v)| a.get(k).is_some_and(|w| within(v, w))),
        _ => same(expected, actual),
    }
}

/// The first place `actual` differs from `expected`, in words.
fn difference(expected: &Value, actual: &Value, subset: bool, path: &str) -> Option<String> {
    let at = |p: &str| if p.is_empty() { "the arguments".to_owned() } else { format!("argument {p}") };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, v) in e {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match a.get(k) {
                    None => return Some(format!("{} is missing (expected {})", at(&p), clip(v))),
                    Some(w) => {
                        if let Some(d) = difference(v, w, subset, &p) {
                            return Some(d);
                        }
                    }
                }
            }
            let extra = a.keys().find(|k| !e.contains_key(*k)).filter(|_| !subset)?;
            let p = if path.is_empty() { extra.clone() } else { format!("{path}.{extra}") };
            Some(format!("{} was not expected (got {})", at(&p), clip(&a[extra])))
        }
        _ if same(expected, actual) => None,
        _ => Some(format!("{}: expected {}, got {}", at(path), clip(expected), clip(actual))),
    }
}

fn clip(v: &Value) -> String {
    let s = agent_trajectories_core::write::json(v);
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

fn show_call(name: &str, args: Option<&Value>) -> String {
    match args {
        Some(a) => format!("{name}({})", clip(a)),
        None => format!("{name}(…)"),
    }
}

/// The caller's argument function for a tool: `(tool, what, expected,
/// actual)`, `what` naming it in errors; its answer, or a description of
/// an answer that is not a boolean.
pub type ArgsFn<'a> = dyn FnMut(&str, &str, &Value, &Value) -> Result<std::result::Result<bool, String>> + 'a;

/// Compares `actual` with `expected`. `custom` is asked for tools whose
/// arguments a function compares, once per pair of calls of that tool; its
/// error, or an answer other than a boolean, ends the match. `place` names
/// the options in errors.
pub fn match_calls(actual: &[Call], expected: &[Expected], opts: &MatchOptions, place: &str, custom: &mut ArgsFn) -> Result<MatchResult> {
    // A tool of `args` that no call names is fine (one options object may
    // serve many runs), unless it is a slip away from one that does.
    let names: Vec<&str> = expected.iter().map(|e| e.name.as_str()).chain(actual.iter().map(|a| a.name.as_str())).collect();
    for (tool, _) in opts.per_tool.iter().filter(|(t, _)| !names.contains(&t.as_str())) {
        if let Some(near) = nearest(tool, &names) {
            return Err(Error::invalid_argument(format!(
                "{place}.args[{tool}]: no call is to tool {tool}; did you mean {near}?",
                tool = quoted(tool),
                near = quoted(near)
            )));
        }
    }
    // Which expected call each actual call may stand for.
    let mut ok = vec![vec![false; actual.len()]; expected.len()];
    for (i, e) in expected.iter().enumerate() {
        for (j, a) in actual.iter().enumerate() {
            ok[i][j] = e.name == a.name
                && match (&e.args, opts.args_for(&e.name)) {
                    (None, _) | (_, Args::Ignore) => true,
                    (Some(x), Args::Exact) => same(x, &a.args),
                    (Some(x), Args::Subset) => within(x, &a.args),
                    (Some(x), Args::Custom) => {
                        let what = format!("{place}.args[{}]", quoted(&e.name));
                        custom(&e.name, &what, x, &a.args)?
                            .map_err(|got| Error::new(ErrorCode::CallbackFailed, format!("{what} must return true or false, returned {got}")))?
                    }
                };
        }
    }
    let args_mode = |name: &str| opts.args_for(name);
    let nearest_to = |i: usize, from: usize, taken: &dyn Fn(usize) -> bool| {
        let e = &expected[i];
        (from..actual.len()).chain(0..from).find(|&j| actual[j].name == e.name && !taken(j))
    };
    let missing = |i: usize, nearest: Option<usize>| {
        let e = &expected[i];
        let mut message = format!("expected call {} {} was not made", i + 1, show_call(&e.name, e.args.as_ref()));
        if let Some(j) = nearest {
            let a = &actual[j];
            message += &format!("; nearest: call {} {}", j + 1, show_call(&a.name, Some(&a.args)));
            if let Some(d) = e.args.as_ref().and_then(|x| difference(x, &a.args, args_mode(&e.name) == Args::Subset, "")) {
                message += &format!(" ({d})");
            } else if args_mode(&e.name) == Args::Custom {
                message += " (the arguments function said no)";
            }
        }
        Mismatch { kind: "missing", expected_index: Some(i), actual_index: None, nearest, message }
    };
    let unexpected = |j: usize| {
        let a = &actual[j];
        Mismatch {
            kind: "unexpected",
            expected_index: None,
            actual_index: Some(j),
            nearest: None,
            message: format!("call {} {} was not expected", j + 1, show_call(&a.name, Some(&a.args))),
        }
    };
    let mut mismatches = Vec::new();
    let (matched, counted) = match opts.mode {
        Mode::Strict => {
            let mut n = 0;
            for k in 0..expected.len().max(actual.len()) {
                match (k < expected.len(), k < actual.len()) {
                    (true, true) if ok[k][k] => n += 1,
                    (true, true) => {
                        let (e, a) = (&expected[k], &actual[k]);
                        let mut message =
                            format!("call {}: expected {}, got {}", k + 1, show_call(&e.name, e.args.as_ref()), show_call(&a.name, Some(&a.args)));
                        if let Some(d) =
                            e.args.as_ref().filter(|_| e.name == a.name).and_then(|x| difference(x, &a.args, args_mode(&e.name) == Args::Subset, ""))
                        {
                            message += &format!(" ({d})");
                        }
                        mismatches.push(Mismatch { kind: "different", expected_index: Some(k), actual_index: Some(k), nearest: Some(k), message });
                    }
                    (true, false) => mismatches.push(missing(k, None)),
                    _ => mismatches.push(unexpected(k)),
                }
            }
            (n, expected.len().max(actual.len()))
        }
        Mode::InOrder => {
            let (mut n, mut from) = (0, 0);
            for (i, row) in ok.iter().enumerate() {
                match (from..actual.len()).find(|&j| row[j]) {
                    Some(j) => {
                        n += 1;
                        from = j + 1;
                    }
                    None => mismatches.push(missing(i, nearest_to(i, from, &|_| false))),
                }
            }
            (n, expected.len())
        }
        Mode::Unordered | Mode::Superset => {
            let pair = bipartite(&ok, actual.len());
            let taken = |j: usize| pair.contains(&Some(j));
            for (i, p) in pair.iter().enumerate() {
                if p.is_none() {
                    mismatches.push(missing(i, nearest_to(i, 0, &taken)));
                }
            }
            let n = pair.iter().flatten().count();
            if opts.mode == Mode::Unordered {
                mismatches.extend((0..actual.len()).filter(|&j| !taken(j)).map(unexpected));
                (n, expected.len().max(actual.len()))
            } else {
                (n, expected.len())
            }
        }
        Mode::Subset => {
            let mut n = 0;
            for j in 0..actual.len() {
                if ok.iter().any(|row| row[j]) {
                    n += 1;
                } else {
                    mismatches.push(unexpected(j));
                }
            }
            (n, actual.len())
        }
    };
    let pass = mismatches.is_empty();
    let score = if counted == 0 { 1.0 } else { matched as f64 / counted as f64 };
    let mode = MODES.iter().find(|(_, m)| *m == opts.mode).map_or("", |(n, _)| n);
    let head = if pass {
        format!("the {} calls match the {} expected ({mode})", actual.len(), expected.len())
    } else {
        format!("the calls do not match ({mode}, score {}): {} of {} matched", number::show((score * 1000.0).round() / 1000.0), matched, counted)
    };
    let message = std::iter::once(head).chain(mismatches.iter().map(|m| format!("- {}", m.message))).collect::<Vec<_>>().join("\n");
    Ok(MatchResult { pass, score, matched, mismatches, message })
}

/// A maximum matching of expected calls to distinct actual calls (Kuhn's
/// augmenting paths: lists are short, E × A at most).
fn bipartite(ok: &[Vec<bool>], actuals: usize) -> Vec<Option<usize>> {
    fn augment(i: usize, ok: &[Vec<bool>], seen: &mut [bool], owner: &mut [Option<usize>]) -> bool {
        for j in 0..owner.len() {
            if ok[i][j] && !seen[j] {
                seen[j] = true;
                if owner[j].is_none_or(|k| augment(k, ok, seen, owner)) {
                    owner[j] = Some(i);
                    return true;
                }
            }
        }
        false
    }
    let mut owner: Vec<Option<usize>> = vec![None; actuals];
    for i in 0..ok.len() {
        augment(i, ok, &mut vec![false; actuals], &mut owner);
    }
    let mut pair = vec![None; ok.len()];
    for (j, o) in owner.iter().enumerate() {
        if let Some(i) = o {
            pair[*i] = Some(j);
        }
    }
    pair
}

#[cfg(test)]
mod tests;
