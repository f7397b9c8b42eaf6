//! Reliability over repeated runs, by τ-bench's definitions: of an item's
//! `n` trials with `c` passes, pass^k = C(c, k) / C(n, k) (k trials drawn
//! at random all pass) and pass@k = 1 − C(n − c, k) / C(n, k) (at least
//! one passes). Only the trials the agent decided count (verdict `pass` or
//! `agent`): the simulator's and the harness's faults and aborted runs are
//! left out, as the batch summary leaves them out of `agentPassRate`.

use serde::Serialize;

use super::trace::Verdict;

/// C(c, k) / C(n, k), as a product (no factorial overflows): 0 when c < k.
/// Each factor rounds: the fallback of [`exact`] for draws too large for it.
fn ratio(c: u64, n: u64, k: u64) -> f64 {
    (0..k).map(|i| c.saturating_sub(i) as f64 / (n - i) as f64).product()
}

/// C(c, k) / C(n, k) as a reduced fraction: c(c−1)…(c−k+1) over
/// n(n−1)…(n−k+1). `None` past what a float holds exactly (2^53), where the
/// rates fall back to [`ratio`]. A rate from the fraction is rounded once,
/// so pass@1 and pass^1 are both exactly c / n, and 1 − 1/4 is 0.75, not
/// the 0.7500000000000001 of a product of rounded factors.
fn exact(c: u64, n: u64, k: u64) -> Option<(u64, u64)> {
    let falling = |x: u64| (0..k).try_fold(1u64, |p, i| p.checked_mul(x.saturating_sub(i)));
    let (num, den) = (falling(c)?, falling(n)?);
    let g = gcd(num, den);
    let (num, den) = (num / g.max(1), den / g.max(1));
    const EXACT: u64 = 1 << 53;
    (num <= EXACT && den <= EXACT && den > 0).then_some((num, den))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// pass^k of `c` passes in `n` trials; `None` when `n < k`.
pub fn pass_hat(c: u64, n: u64, k: u64) -> Option<f64> {
    (n >= k && c <= n).then(|| match exact(c, n, k) {
        Some((num, den)) => num as f64 / den as f64,
        None => ratio(c, n, k),
    })
}

/// pass@k of `c` passes in `n` trials; `None` when `n < k`.
pub fn pass_at(c: u64, n: u64, k: u64) -> Option<f64> {
    (n >= k && c <= n).then(|| match exact(n - c, n, k) {
        Some((num, den)) => (den - num) as f64 / den as f64,
        None => 1.0 - ratio(n - c, n, k),
    })
}

fn mean(xs: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let (sum, n) = xs.flatten().fold((0.0, 0u32), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// pass@k and pass^k at one k.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AtK {
    pub k: u64,
    pub pass_at_k: Option<f64>,
    pub pass_hat_k: Option<f64>,
}

/// An item's trials.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemReliability {
    pub id: String,
    pub runs: u64,
    pub decided: u64,
    pub passes: u64,
    pub pass_at_k: Option<f64>,
    pub pass_hat_k: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reliability {
    pub k: u64,
    pub pass_at_k: Option<f64>,
    pub pass_hat_k: Option<f64>,
    pub by_k: Vec<AtK>,
    pub items: Vec<ItemReliability>,
}

/// Per item (its id and its trials' verdicts, `None` for a run with none)
/// and overall (the mean over items with at least `k` decided trials):
/// pass@k and pass^k at `k`, and at every j from 1 to `k` in `byK`. A
/// batch's `k` is its items' fewest runs (`repeat`, for runTrajectories).
pub fn reliability(items: &[(String, Vec<Option<Verdict>>)], k: u64) -> Reliability {
    let counts: Vec<(u64, u64)> = items
        .iter()
        .map(|(_, v)| {
            let decided = v.iter().filter(|v| matches!(v, Some(Verdict::Pass | Verdict::Agent))).count() as u64;
            let passes = v.iter().filter(|v| **v == Some(Verdict::Pass)).count() as u64;
            (passes, decided)
        })
        .collect();
    let at = |j: u64| AtK {
        k: j,
        pass_at_k: mean(counts.iter().map(|&(c, n)| pass_at(c, n, j))),
        pass_hat_k: mean(counts.iter().map(|&(c, n)| pass_hat(c, n, j))),
    };
    let by_k: Vec<AtK> = (1..=k).map(at).collect();
    let AtK { pass_at_k, pass_hat_k, .. } = at(k);
    let items = items
        .iter()
        .zip(&counts)
        .map(|((id, v), &(c, n))| ItemReliability {
            id: id.clone(),
            runs: v.len() as u64,
            decided: n,
            passes: c,
            pass_at_k: pass_at(c, n, k),
            pass_hat_k: pass_hat(c, n, k),
        })
        .collect();
    Reliability { k, pass_at_k, pass_hat_k, by_k, items }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    #[test]
    fn tau_bench_formulas() {
        // 4 trials, 2 passes: pass^1 = 2/4, pass^2 = C(2,2)/C(4,2) = 1/6; pass@2 = 1 - C(2,2)/C(4,2) = 5/6.
        assert_eq!(pass_hat(2, 4, 1), Some(0.5));
        assert!((pass_hat(2, 4, 2).unwrap() - 1.0 / 6.0).abs() < 1e-12);
        assert!((pass_at(2, 4, 2).unwrap() - 5.0 / 6.0).abs() < 1e-12);
        assert_eq!(pass_hat(1, 4, 2), Some(0.0));
        assert_eq!(pass_at(3, 4, 2), Some(1.0), "two fails cannot fill a draw of 2 from 1 fail");
        assert_eq!(pass_hat(4, 4, 4), Some(1.0));
        assert_eq!(pass_hat(1, 1, 2), None);
    }

    #[test]
    fn rates_are_rounded_once() {
        // At k = 1 both rates are c / n, to the last digit.
        for n in 1..=60 {
            for c in 0..=n {
                assert_eq!(pass_at(c, n, 1), Some(c as f64 / n as f64), "pass@1 of {c}/{n}");
                assert_eq!(pass_hat(c, n, 1), Some(c as f64 / n as f64), "pass^1 of {c}/{n}");
            }
        }
        // 1 − C(3,3)/C(4,3) = 3/4: the product of rounded factors made it 0.7500000000000001.
        assert_eq!(pass_at(1, 4, 3), Some(0.75));
        assert_eq!(pass_hat(3, 4, 3), Some(0.25));
        // Past 2^53 the product is used, and still near the exact value: C(60, 30) / C(100, 30).
        let big = pass_hat(60, 100, 30).unwrap();
        assert!(exact(60, 100, 30).is_none() && big > 0.0 && (big - ratio(60, 100, 30)).abs() < 1e-15);
    }

    #[test]
    fn items_and_the_mean_leave_out_faults() {
        let items =
            vec![("a".to_owned(), vec![Some(Pass), Some(Pass), Some(Agent)]), ("b".to_owned(), vec![Some(Pass), Some(Simulator), Some(Agent)])];
        let r = reliability(&items, 2);
        // a: c=2, n=3: pass^2 = 1/3, pass@2 = 1; b: c=1, n=2: pass^2 = 0, pass@2 = 1.
        assert_eq!(r.items[1].decided, 2);
        assert!((r.pass_hat_k.unwrap() - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(r.pass_at_k, Some(1.0));
        assert_eq!(r.by_k[0].pass_hat_k, Some((2.0 / 3.0 + 0.5) / 2.0));
        let r = reliability(&[("c".to_owned(), vec![Some(Harness)])], 1);
        assert_eq!((r.pass_hat_k, r.items[0].pass_hat_k), (None, None), "no decided trial: no rate");
        let json = serde_json::to_value(reliability(&items, 1)).unwrap();
        assert!(json["byK"][0]["passAtK"].is_number() && json["items"][0]["passHatK"].is_number(), "camelCase for JS");
    }
}
