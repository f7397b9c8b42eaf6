//! Batches of generated runs: the id each run is known by, what a run counts
//! toward its batch, and the summary with its pass rates. The JS batch
//! runner schedules the runs; these decide what they mean.

use serde_json::Value;

use super::trace::Verdict;
use crate::error::{Error, Result};
use crate::number;
use crate::number::quoted;
use crate::write::object;

/// A fork's run id: the caller's `runId` unless it is the parent's own,
/// else `{parent}-fork-{atTurn}`. One rule for a run and for a batch that
/// names its forks before they run.
pub fn fork_run_id(parent: &str, at_turn: u64, run_id: Option<&str>) -> String {
    match run_id {
        Some(id) if id != parent => id.to_owned(),
        _ => format!("{parent}-fork-{at_turn}"),
    }
}

/// The id a batch item's run is known by: its own `id`, else a fork's run
/// id, else the trajectory's conversation id, else `run-N` (N from 1).
pub fn item_id(id: Option<&str>, fork: Option<(&str, u64, Option<&str>)>, conversation_id: Option<&str>, index: usize) -> String {
    if let Some(id) = id {
        return id.to_owned();
    }
    if let Some((parent, at_turn, run_id)) = fork {
        return fork_run_id(parent, at_turn, run_id);
    }
    conversation_id.map_or_else(|| format!("run-{}", index.saturating_add(1)), str::to_owned)
}

/// The run id of repeat `n` (from 1) of an item run `of` times: the item's
/// id alone when it runs once, else `{id}#{n}`, so that every run of a
/// batch, and its records, has an id of its own.
pub fn repeat_id(item: &str, n: u64, of: u64) -> String {
    if of <= 1 {
        item.to_owned()
    } else {
        format!("{item}#{n}")
    }
}

/// The parts of a matrix cell's id, `scenario/persona/agent`; a name may
/// not hold the `/` that separates them.
pub fn matrix_id(scenario: &str, persona: &str, agent: &str) -> String {
    format!("{scenario}/{persona}/{agent}")
}

/// Refuses a matrix entry name that holds `/`.
pub fn check_matrix_name(group: &str, name: &str, place: &str) -> Result<()> {
    if name.contains('/') {
        return Err(Error::invalid_argument(format!(
            "{place}: {group} name {name} holds \"/\", which separates the parts of an id",
            name = quoted(name)
        )));
    }
    Ok(())
}

/// What one run counts toward its batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    /// The item the run is a repeat of (runTrajectories names every run's).
    pub item: Option<String>,
    pub reason: Option<String>,
    pub verdict: Option<Verdict>,
    pub turns: f64,
    pub tokens: f64,
}

impl Tally {
    /// A run that threw before it ran (bad options, not a trajectory): the harness's doing.
    pub fn thrown() -> Tally {
        Tally { item: None, reason: Some("error".into()), verdict: Some(Verdict::Harness), turns: 0.0, tokens: 0.0 }
    }

    /// A run the batch's signal stopped before it started.
    pub fn never_started() -> Tally {
        Tally { item: None, reason: Some("aborted".into()), verdict: Some(Verdict::Aborted), turns: 0.0, tokens: 0.0 }
    }

    /// A finished run from its turns' tokens: a fork's kept turns (the
    /// first `kept`) are its parent's and cost it nothing.
    pub fn finished(reason: Option<String>, verdict: Option<Verdict>, turn_tokens: &[f64], kept: usize) -> Tally {
        let own = turn_tokens.get(kept..).unwrap_or_default();
        Tally { item: None, reason, verdict, turns: own.len() as f64, tokens: own.iter().sum() }
    }

    /// `summarizeBatch`'s `runs[i]`: `{ reason, verdict, turns?, tokens?, item? }`.
    pub fn read(v: &Value, at: &str) -> Result<Tally> {
        let bad = |what: String| Error::invalid_argument(format!("{at}{what}"));
        let Value::Object(o) = v else { return Err(bad(format!(" must be {{ reason, verdict, turns?, tokens? }}, got {}", number::show_value(v)))) };
        // A run may carry fields of its own (an attempt count), but one a
        // slip away from a field it lacks (`verdic`, `token`) would be read
        // as absent: refused, naming that field.
        crate::options::refuse_slips(o, &["reason", "verdict", "turns", "tokens", "item"], &[], at)?;
        let verdict = match o.get("verdict") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if Verdict::parse(s).is_some() => Verdict::parse(s),
            Some(other) => {
                let all = Verdict::ALL.map(Verdict::as_str).join(", ");
                return Err(bad(format!(".verdict must be one of {all} or null, got {}", number::show_value(other))));
            }
        };
        let count = |k: &str| match o.get(k) {
            None => Ok(0.0),
            Some(n) if n.as_f64().is_some_and(|n| n >= 0.0) => Ok(n.as_f64().unwrap_or(0.0)),
            Some(other) => Err(bad(format!(".{k} must be a number >= 0, got {}", number::show_value(other)))),
        };
        let item = match o.get("item") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(bad(format!(".item must be a string, got {}", number::show_value(other)))),
        };
        Ok(Tally {
            item,
            reason: o.get("reason").and_then(Value::as_str).map(str::to_owned),
            verdict,
            turns: count("turns")?,
            tokens: count("tokens")?,
        })
    }
}

/// Counts per stop reason and verdict, pass rates with and without the
/// simulator's and the harness's faults, turns and tokens; `ms` the batch's
/// wall time (`null` for runs reported elsewhere).
pub fn summarize(runs: &[Tally], ms: Option<f64>) -> Value {
    let mut by_verdict = [0u64; Verdict::ALL.len()];
    let mut by_reason = serde_json::Map::new();
    let (mut turns, mut tokens) = (0.0, 0.0);
    for r in runs {
        if let Some(v) = r.verdict {
            by_verdict[v as usize] += 1;
        }
        if let Some(reason) = &r.reason {
            let n = by_reason.get(reason).and_then(Value::as_u64).unwrap_or(0);
            by_reason.insert(reason.clone(), Value::from(n + 1));
        }
        turns += r.turns;
        tokens += r.tokens;
    }
    let count = |v: Verdict| by_verdict[v as usize];
    let rate = |n: f64, d: f64| if d > 0.0 { Value::from(n / d) } else { Value::Null };
    let n = runs.len() as f64;
    // Every run counts against the agent; then only the runs the agent decided (pass or agent).
    let judged = (count(Verdict::Pass) + count(Verdict::Agent)) as f64;
    object(vec![
        ("runs", runs.len().into()),
        ("byVerdict", Value::Object(Verdict::ALL.iter().map(|v| (v.as_str().to_owned(), count(*v).into())).collect())),
        ("byReason", Value::Object(by_reason)),
        ("passRate", rate(count(Verdict::Pass) as f64, n)),
        ("agentPassRate", rate(count(Verdict::Pass) as f64, judged)),
        (
            "excluded",
            object(vec![
                ("simulator", count(Verdict::Simulator).into()),
                ("harness", count(Verdict::Harness).into()),
                ("aborted", count(Verdict::Aborted).into()),
            ]),
        ),
        ("turns", turns.into()),
        ("tokens", tokens.into()),
        ("turnsPerRun", rate(turns, n)),
        ("tokensPerRun", rate(tokens, n)),
        ("ms", ms.into()),
        ("reliability", reliability_of(runs)),
    ])
}

/// pass@k and pass^k of runs that name their items (every one does, or
/// `null`), `k` the fewest runs of an item.
fn reliability_of(runs: &[Tally]) -> Value {
    let mut items: Vec<(String, Vec<Option<Verdict>>)> = Vec::new();
    for r in runs {
        let Some(item) = &r.item else { return Value::Null };
        match items.iter_mut().find(|(id, _)| id == item) {
            Some((_, v)) => v.push(r.verdict),
            None => items.push((item.clone(), vec![r.verdict])),
        }
    }
    match items.iter().map(|(_, v)| v.len()).min() {
        Some(k) => crate::write::value(&super::reliability::reliability(&items, k as u64)),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_come_from_the_item_the_fork_the_conversation_or_the_position() {
        assert_eq!(item_id(Some("mine"), Some(("p", 2, None)), Some("c"), 0), "mine");
        assert_eq!(item_id(None, Some(("p", 2, None)), Some("c"), 0), "p-fork-2");
        assert_eq!(item_id(None, Some(("p", 2, Some("p"))), None, 0), "p-fork-2");
        assert_eq!(item_id(None, Some(("p", 2, Some("alt"))), None, 0), "alt");
        assert_eq!(item_id(None, None, Some("c"), 0), "c");
        assert_eq!(item_id(None, None, None, 6), "run-7");
        assert_eq!(matrix_id("refund", "calm", "v2"), "refund/calm/v2");
        assert_eq!((repeat_id("a", 1, 1), repeat_id("a", 2, 3)), ("a".to_owned(), "a#2".to_owned()));
        assert!(check_matrix_name("personas", "a/b", "m").unwrap_err().message.contains("holds \"/\""));
    }

    #[test]
    fn a_fork_counts_only_its_own_turns() {
        let t = Tally::finished(Some("goal-reached".into()), Some(Verdict::Pass), &[10.0, 20.0, 5.0], 2);
        assert_eq!((t.turns, t.tokens), (1.0, 5.0));
        assert_eq!(Tally::finished(None, None, &[1.0], 5).turns, 0.0);
    }

    #[test]
    fn pass_rates_leave_out_faults_not_the_agents() {
        let runs = [
            Tally::finished(Some("goal-reached".into()), Some(Verdict::Pass), &[3.0], 0),
            Tally::finished(Some("max-turns".into()), Some(Verdict::Agent), &[1.0, 1.0], 0),
            Tally::thrown(),
            Tally::never_started(),
        ];
        let s = summarize(&runs, Some(12.0));
        assert_eq!(s["passRate"], json!(0.25));
        assert_eq!(s["agentPassRate"], json!(0.5));
        assert_eq!(s["excluded"], json!({ "simulator": 0, "harness": 1, "aborted": 1 }));
        assert_eq!(s["byReason"], json!({ "goal-reached": 1, "max-turns": 1, "error": 1, "aborted": 1 }));
        assert_eq!((s["turns"].as_f64(), s["tokens"].as_f64(), s["ms"].as_f64()), (Some(3.0), Some(5.0), Some(12.0)));
        assert_eq!(summarize(&[], None)["passRate"], Value::Null);
        assert_eq!(s["reliability"], Value::Null, "runs without items");
        let repeats: Vec<Tally> = [("a", Verdict::Pass), ("a", Verdict::Agent), ("b", Verdict::Pass), ("b", Verdict::Pass), ("b", Verdict::Pass)]
            .iter()
            .map(|(item, v)| Tally { item: Some((*item).into()), ..Tally::finished(None, Some(*v), &[], 0) })
            .collect();
        let r = &summarize(&repeats, None)["reliability"];
        assert_eq!((r["k"].clone(), r["items"][1]["runs"].clone()), (json!(2), json!(3)), "k: the fewest runs of an item");
        // a: c=1, n=2: pass^2 = 0; b: c=3, n=3: pass^2 = 1.
        assert_eq!(r["passHatK"], json!(0.5));
    }

    #[test]
    fn a_reported_run_is_checked() {
        let t = Tally::read(&json!({ "reason": "max-turns", "verdict": "agent", "turns": 2 }), "runs[0]").unwrap();
        assert_eq!((t.verdict, t.turns, t.tokens), (Some(Verdict::Agent), 2.0, 0.0));
        let e = Tally::read(&json!({ "verdict": "won" }), "summarizeBatch(runs): runs[1]").unwrap_err();
        assert_eq!(e.message, "summarizeBatch(runs): runs[1].verdict must be one of pass, agent, simulator, harness, aborted or null, got \"won\"");
        assert!(Tally::read(&json!({ "verdict": null, "tokens": -1 }), "r").unwrap_err().message.contains(".tokens must be a number >= 0"));
        // A field of the run's own is kept out of the count; a slip of one it lacks is refused.
        let run = json!({ "id": "a", "reason": "goal-reached", "verdict": "pass", "tokens": 5, "attempts": 2, "tokenCount": 5, "records": 9, "result": {} });
        assert_eq!(Tally::read(&run, "r").unwrap().tokens, 5.0);
        let e = Tally::read(&json!({ "reason": "goal-reached", "verdic": "pass" }), "runs[0]").unwrap_err();
        assert_eq!(e.message, "runs[0]: unknown field \"verdic\"; did you mean \"verdict\"?");
        assert!(Tally::read(&json!({ "verdict": "pass", "token": 5 }), "r").unwrap_err().message.contains("did you mean \"tokens\"?"));
    }
}
