//! `compareBatches`: a current batch against a baseline, item by item
//! (paired by name): what regressed (passed, now fails), what improved,
//! judges that newly fail, and the change in turns, tokens and findings.
//! An item of several runs (`repeat`) passes when every run passed.

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::number;

/// One item of a batch: its runs taken together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item {
    pub id: String,
    pub runs: u64,
    pub passes: u64,
    pub turns: f64,
    pub tokens: f64,
    pub findings: f64,
    /// Criteria a judge failed in any run.
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
            _ => return Err(Error::invalid_argument(format!("{place} must be a batch result {{ runs }} or an array of runs, got an object without runs"))),
        },
        other => return Err(Error::invalid_argument(format!("{place} must be a batch result {{ runs }} or an array of runs, got {}", number::show_value(other)))),
    };
    let mut items: Vec<Item> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let at = format!("{place}.runs[{i}]");
        let Value::Object(o) = r else { return Err(Error::invalid_argument(format!("{at} must be a run {{ id, verdict, ... }}, got {}", number::show_value(r)))) };
        let id = o.get("item").or_else(|| o.get("id")).and_then(Value::as_str).ok_or_else(|| Error::invalid_argument(format!("{at}.id must be a string")))?;
        let num = |k: &str| o.get(k).and_then(Value::as_f64).filter(|x| x.is_finite()).unwrap_or(0.0);
        let k = match items.iter().position(|it| it.id == id) {
            Some(k) => k,
            None => {
                items.push(Item { id: id.to_owned(), ..Item::default() });
                items.len() - 1
            }
        };
        let it = &mut items[k];
        it.runs += 1;
        it.passes += u64::from(o.get("verdict").and_then(Value::as_str) == Some("pass"));
        it.turns += num("turns");
        it.tokens += num("tokens");
        it.findings += num("findings");
        for j in o.get("judgements").and_then(Value::as_array).into_iter().flatten() {
            for c in j.get("criteria").and_then(Value::as_array).into_iter().flatten() {
                if let (Some("fail"), Some(name)) = (c.get("verdict").and_then(Value::as_str), c.get("name").and_then(Value::as_str)) {
                    if !it.failed_judges.iter().any(|n| n == name) {
                        it.failed_judges.push(name.to_owned());
                    }
                }
            }
        }
    }
    Ok(items)
}

fn side(it: Option<&Item>) -> Value {
    match it {
        None => Value::Null,
        Some(it) => json!({
            "runs": it.runs, "passes": it.passes, "passed": it.passed(),
            "turns": it.per_run(it.turns), "tokens": it.per_run(it.tokens), "findings": it.per_run(it.findings),
            "failedJudges": it.failed_judges,
        }),
    }
}

fn signed(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r > 0.0 {
        format!("+{}", number::show(r))
    } else {
        number::show(r)
    }
}

/// The comparison: `items` (every item, regressions first), the ids that
/// `regressed`, `improved`, were `added` or `removed`, `newlyFailedJudges`,
/// and `markdown` for a pull request comment.
pub fn compare(baseline: &[Item], current: &[Item]) -> Value {
    let mut rows: Vec<(u8, Value, String)> = Vec::new();
    let (mut regressed, mut improved, mut added, mut removed, mut judges) = (vec![], vec![], vec![], vec![], vec![]);
    let ids = current.iter().map(|c| &c.id).chain(baseline.iter().map(|b| &b.id).filter(|id| !current.iter().any(|c| &c.id == *id)));
    for id in ids {
        let (b, c) = (baseline.iter().find(|b| &b.id == id), current.iter().find(|c| &c.id == id));
        let (rank, status) = match (b, c) {
            (Some(b), Some(c)) if b.passed() && !c.passed() => (0, "regressed"),
            (Some(b), Some(c)) if !b.passed() && c.passed() => (2, "improved"),
            (Some(_), Some(_)) => (3, "same"),
            (None, _) => (1, "added"),
            (_, None) => (1, "removed"),
        };
        match status {
            "regressed" => regressed.push(id.clone()),
            "improved" => improved.push(id.clone()),
            "added" => added.push(id.clone()),
            "removed" => removed.push(id.clone()),
            _ => {}
        }
        let new_judges: Vec<&String> = c.map(|c| c.failed_judges.iter().filter(|n| !b.is_some_and(|b| b.failed_judges.contains(n))).collect()).unwrap_or_default();
        for n in &new_judges {
            judges.push(json!({ "id": id, "criterion": n }));
        }
        let delta = |f: fn(&Item) -> f64| match (b, c) {
            (Some(b), Some(c)) => json!(c.per_run(f(c)) - b.per_run(f(b))),
            _ => Value::Null,
        };
        let (dt, dk, df) = (delta(|i| i.turns), delta(|i| i.tokens), delta(|i| i.findings));
        let verdict = |i: Option<&Item>| i.map_or("–".to_owned(), |i| format!("{} ({}/{})", if i.passed() { "pass" } else { "fail" }, i.passes, i.runs));
        let d = |v: &Value| v.as_f64().map_or("–".to_owned(), signed);
        let judges_md = if new_judges.is_empty() { String::new() } else { format!(" · newly failed: {}", new_judges.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")) };
        let md = format!("| {status} | `{id}` | {} | {}{judges_md} | {} | {} | {} |", verdict(b), verdict(c), d(&dt), d(&dk), d(&df));
        let row = json!({ "id": id, "status": status, "baseline": side(b), "current": side(c), "turns": dt, "tokens": dk, "findings": df, "newlyFailedJudges": new_judges });
        rows.push((rank, row, md));
    }
    rows.sort_by_key(|(rank, _, _)| *rank);
    let head = format!(
        "**{} regressed**, {} improved, {} added, {} removed, {} newly failed judge(s) — {} item(s)",
        regressed.len(),
        improved.len(),
        added.len(),
        removed.len(),
        judges.len(),
        rows.len()
    );
    let mut markdown = format!("## Batch comparison\n\n{head}\n\n| change | item | baseline | current | turns/run | tokens/run | findings/run |\n|---|---|---|---|---:|---:|---:|\n");
    for (_, _, md) in &rows {
        markdown += md;
        markdown.push('\n');
    }
    json!({
        "regressed": regressed, "improved": improved, "added": added, "removed": removed,
        "newlyFailedJudges": judges,
        "items": rows.into_iter().map(|(_, r, _)| r).collect::<Vec<_>>(),
        "markdown": markdown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let r = compare(&base, &cur);
        assert_eq!(r["regressed"], json!(["a"]));
        assert_eq!(r["improved"], json!(["b"]));
        assert_eq!((r["added"].clone(), r["removed"].clone()), (json!(["new"]), json!(["gone"])));
        assert_eq!(r["newlyFailedJudges"], json!([{ "id": "a", "criterion": "polite" }]));
        assert_eq!(r["items"].as_array().unwrap().iter().map(|i| i["status"].as_str().unwrap()).collect::<Vec<_>>(), ["regressed", "added", "removed", "improved", "same"]);
        assert_eq!((r["items"][0]["turns"].clone(), r["items"][0]["tokens"].clone()), (json!(2.0), json!(50.0)));
        let md = r["markdown"].as_str().unwrap();
        assert!(md.contains("**1 regressed**, 1 improved, 1 added, 1 removed, 1 newly failed judge(s) — 5 item(s)"), "{md}");
        assert!(md.contains("| regressed | `a` | pass (1/1) | fail (0/1) · newly failed: polite | +2 | +50 | +1 |"), "{md}");
    }

    #[test]
    fn repeats_group_by_item() {
        let items = batch(json!([{ "id": "a#1", "item": "a", "verdict": "pass" }, { "id": "a#2", "item": "a", "verdict": "agent" }]));
        assert_eq!((items.len(), items[0].runs, items[0].passes, items[0].passed()), (1, 2, 1, false));
        assert!(read_batch(&json!(3), "current").unwrap_err().message.starts_with("current must be a batch result"));
        assert_eq!(read_batch(&json!([{ "verdict": "pass" }]), "current").unwrap_err().message, "current.runs[0].id must be a string");
    }
}
