//! `compareBatches`: a current batch against a baseline, item by item
//! (paired by name): what regressed (passed, now fails), what improved,
//! judges that newly fail, and the change in turns, tokens and findings.
//! An item of several runs (`repeat`) passes when every run passed, each
//! read as `checkRun`'s defaults read it.

use serde_json::Value;

use agent_trajectories_core::error::{Error, Result};
use agent_trajectories_core::generate::batch::Tally;
use agent_trajectories_core::generate::Verdict;
use agent_trajectories_core::number;
use agent_trajectories_core::write::{array, strings, Obj};

use crate::facts::Judged;

/// One item of a batch: its runs taken together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item {
    pub id: String,
    pub runs: u64,
    pub passes: u64,
    pub turns: f64,
    pub tokens: f64,
    pub findings: f64,
    /// Criteria the judge's last judgement of a run failed, in any run.
    pub failed_judges: Vec<String>,
}

impl Item {
    fn passed(&self) -> bool {
        self.runs > 0 && self.passes == self.runs
    }
    fn per_run(&self, total: f64) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            total / self.runs as f64
        }
    }
}

/// A batch's items from its runs (`{ runs }`, or the runs themselves: each
/// `{ id, item?, verdict, turns?, tokens?, findings?, judgements? }`, the
/// item named by `item` when runs repeat, else `id`), in first-seen order.
pub fn read_batch(v: &Value, place: &str) -> Result<Vec<Item>> {
    let runs = match v {
        Value::Array(runs) => runs,
        Value::Object(o) => match o.get("runs") {
            Some(Value::Array(runs)) => runs,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "{place} must be a batch result {{ runs }} or an array of runs, got an object without runs"
                )))
            }
        },
        other => {
            return Err(Error::invalid_argument(format!(
                "{place} must be a batch result {{ runs }} or an array of runs, got {}",
                number::show_value(other)
            )))
        }
    };
    let mut items: Vec<Item> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let at = format!("{place}.runs[{i}]");
        let Value::Object(o) = r else {
            return Err(Error::invalid_argument(format!("{at} must be a run {{ id, verdict, ... }}, got {}", number::show_value(r))));
        };
        let id = o
            .get("item")
            .or_else(|| o.get("id"))
            .and_then(Value::as_str)
            .ok_or_else(|| Error::invalid_argument(format!("{at}.id must be a string")))?;
        // A run's verdict, turns and tokens as summarizeBatch reads them (one rule).
        let tally = Tally::read(r, &at)?;
        let num = |k: &str| o.get(k).and_then(Value::as_f64).filter(|x| x.is_finite()).unwrap_or(0.0);
        let k = match items.iter().position(|it| it.id == id) {
            Some(k) => k,
            None => {
                items.push(Item { id: id.to_owned(), ..Item::default() });
                items.len() - 1
            }
        };
        // A run passes as checkRun's defaults read it (one rule): it ended
        // with verdict `pass`, and the judge's last word (when judged) holds.
        let last = o.get("judgements").and_then(Value::as_array).and_then(|j| j.last()).map(Judged::read);
        let it = &mut items[k];
        it.runs += 1;
        it.passes += u64::from(tally.verdict == Some(Verdict::Pass) && last.as_ref().is_none_or(Judged::holds));
        it.turns += tally.turns;
        it.tokens += tally.tokens;
        it.findings += num("findings");
        for (name, _) in last.iter().flat_map(|j| &j.failed) {
            if !name.is_empty() && !it.failed_judges.contains(name) {
                it.failed_judges.push(name.clone());
            }
        }
    }
    Ok(items)
}

fn side(it: Option<&Item>) -> String {
    match it {
        None => "null".into(),
        Some(it) => Obj::new()
            .int("runs", it.runs)
            .int("passes", it.passes)
            .flag("passed", it.passed())
            .num("turns", it.per_run(it.turns))
            .num("tokens", it.per_run(it.tokens))
            .num("findings", it.per_run(it.findings))
            .raw("failedJudges", &strings(it.failed_judges.iter().map(String::as_str)))
            .end(),
    }
}

/// The comparison as JSON text: `items` (every item, regressions first,
/// then added and removed, improved, the same; each group in first-seen
/// order), the ids that `regressed`, `improved`, were `added` or
/// `removed`, and `newlyFailedJudges`. (Its markdown is written in the JS
/// layer, from this.)
pub fn compare(baseline: &[Item], current: &[Item]) -> String {
    const STATUSES: [&str; 5] = ["regressed", "added", "removed", "improved", "same"];
    let mut groups: [Vec<(&str, String)>; 5] = Default::default();
    let mut judges = Vec::new();
    let only_baseline = baseline.iter().filter(|b| !current.iter().any(|c| c.id == b.id));
    for (b, c) in current.iter().map(|c| (baseline.iter().find(|b| b.id == c.id), Some(c))).chain(only_baseline.map(|b| (Some(b), None))) {
        let id = c.or(b).map_or("", |i| i.id.as_str());
        let k = match (b, c) {
            (Some(b), Some(c)) if b.passed() && !c.passed() => 0,
            (Some(b), Some(c)) if !b.passed() && c.passed() => 3,
            (Some(_), Some(_)) => 4,
            (None, _) => 1,
            (_, None) => 2,
        };
        let mut new_judges = Vec::new();
        for n in c.map_or(&[][..], |c| &c.failed_judges) {
            if !b.is_some_and(|b| b.failed_judges.contains(n)) {
                judges.push(Obj::new().text("id", id).text("criterion", n).end());
                new_judges.push(n.as_str());
            }
        }
        let delta = |f: fn(&Item) -> f64| b.zip(c).map(|(b, c)| c.per_run(f(c)) - b.per_run(f(b)));
        let item = Obj::new()
            .text("id", id)
            .text("status", STATUSES[k])
            .raw("baseline", &side(b))
            .raw("current", &side(c))
            .num("turns", delta(|i| i.turns).unwrap_or(f64::NAN))
            .num("tokens", delta(|i| i.tokens).unwrap_or(f64::NAN))
            .num("findings", delta(|i| i.findings).unwrap_or(f64::NAN))
            .raw("newlyFailedJudges", &strings(new_judges))
            .end();
        groups[k].push((id, item));
    }
    let ids = |k: usize| strings(groups[k].iter().map(|(id, _)| *id));
    Obj::new()
        .raw("regressed", &ids(0))
        .raw("improved", &ids(3))
        .raw("added", &ids(1))
        .raw("removed", &ids(2))
        .raw("newlyFailedJudges", &array(judges))
        .raw("items", &array(groups.iter().flatten().map(|(_, item)| item.clone())))
        .end()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn batch(runs: Value) -> Vec<Item> {
        read_batch(&json!({ "runs": runs }), "baseline").unwrap()
    }

    #[test]
    fn regressions_first_then_the_rest() {
        let base = batch(json!([
            { "id": "a", "verdict": "pass", "turns": 2, "tokens": 100 },
            { "id": "b", "verdict": "agent", "turns": 5 },
            { "id": "c", "verdict": "pass" },
            { "id": "gone", "verdict": "pass" },
        ]));
        let cur = batch(json!([
            { "id": "a", "verdict": "agent", "turns": 4, "tokens": 150, "findings": 1,
              "judgements": [{ "criteria": [{ "name": "polite", "verdict": "fail" }] }] },
            { "id": "b", "verdict": "pass", "turns": 3 },
            { "id": "c", "verdict": "pass" },
            { "id": "new", "verdict": "agent" },
        ]));
        let r: Value = serde_json::from_str(&compare(&base, &cur)).unwrap();
        assert_eq!(r["regressed"], json!(["a"]));
        assert_eq!(r["improved"], json!(["b"]));
        assert_eq!((r["added"].clone(), r["removed"].clone()), (json!(["new"]), json!(["gone"])));
        assert_eq!(r["newlyFailedJudges"], json!([{ "id": "a", "criterion": "polite" }]));
        assert_eq!(
            r["items"].as_array().unwrap().iter().map(|i| i["status"].as_str().unwrap()).collect::<Vec<_>>(),
            ["regressed", "added", "removed", "improved", "same"]
        );
        assert_eq!((r["items"][0]["turns"].as_f64(), r["items"][0]["tokens"].as_f64()), (Some(2.0), Some(50.0)));
    }

    #[test]
    fn a_run_passes_as_check_run_reads_it() {
        let judged = |verdict: &str, failed: &[&str]| {
            let criteria: Vec<Value> = failed.iter().map(|n| json!({ "name": n, "verdict": "fail" })).collect();
            json!({ "verdict": verdict, "criteria": criteria })
        };
        // Each run ended with verdict pass; its judgements, whether it passes, and what its judge failed.
        for (judgements, passed, failed) in [
            (vec![judged("pass", &[]), judged("fail", &["polite"])], false, vec!["polite"]),
            (vec![judged("fail", &["brief"]), judged("pass", &[])], true, vec![]),
            (vec![judged("inconclusive", &[])], true, vec![]),
        ] {
            let item = &batch(json!([{ "id": "a", "verdict": "pass", "judgements": judgements }]))[0];
            assert_eq!((item.passed(), item.failed_judges.iter().map(String::as_str).collect::<Vec<_>>()), (passed, failed), "{judgements:?}");
            // checkRun, on a run with those judgements, says the same.
            let mut f = crate::facts::tests::facts();
            f.judgements = judgements.iter().map(Judged::read).collect();
            let checked = crate::checks::check_run(&f, &crate::CheckOptions::read(&json!({ "verdict": null }), "o").unwrap());
            assert_eq!(checked.pass, passed, "{judgements:?}");
        }
    }

    #[test]
    fn repeats_group_by_item() {
        let items = batch(json!([{ "id": "a#1", "item": "a", "verdict": "pass" }, { "id": "a#2", "item": "a", "verdict": "agent" }]));
        assert_eq!((items.len(), items[0].runs, items[0].passes, items[0].passed()), (1, 2, 1, false));
        assert!(read_batch(&json!(3), "current").unwrap_err().message.starts_with("current must be a batch result"));
        assert_eq!(read_batch(&json!([{ "verdict": "pass" }]), "current").unwrap_err().message, "current.runs[0].id must be a string");
        // A run's verdict, turns and tokens by summarizeBatch's rules: a word that is no verdict is refused, not counted as a fail.
        for (run, message) in [
            (
                json!({ "id": "a", "verdict": "ok" }),
                "current.runs[0].verdict must be one of pass, agent, simulator, harness, aborted or null, got \"ok\"",
            ),
            (json!({ "id": "a", "verdict": "pass", "turns": -5 }), "current.runs[0].turns must be a number >= 0, got -5"),
        ] {
            assert_eq!(read_batch(&json!([run]), "current").unwrap_err().message, message);
        }
    }
}
