//! Which step a turn works on: the start step, the next eligible step with
//! preconditions in graph order, or the ranker's choice; and which steps
//! are eligible at all. A fork's kept turns take the step they recorded.

use super::{Interrupt, Runner};
use crate::error::{Error, Result};
use crate::generate::concurrency::{join_all, race, with_deadline, Either};
use crate::generate::graph::{Precondition, PredicateContext, StepDefinition};
use crate::generate::prompt::{parse_ranking, rank_request};
use crate::generate::state::StepStatus;
use crate::generate::trace::{Candidate, Selection, SelectionMethod, Side};
use crate::host::LocalBoxFuture;
use crate::number::quoted;

impl Runner<'_, '_> {
    /// Turn 0 takes `start`; later turns take the next eligible step with
    /// preconditions after the current one in graph order, else the ranker's
    /// best candidate above the threshold, else no step.
    pub(super) async fn select(&mut self, turn: u32) -> std::result::Result<(Option<usize>, Selection), Interrupt> {
        let Some(g) = self.t.steps.as_ref() else {
            return Ok((None, Selection { method: SelectionMethod::None, candidates: None, ranker_error: None }));
        };
        // From turn 1 on, eligibility moves steps between idle and blocked;
        // in a kept turn too, so a fork's step states are the parent's.
        let eligible = if turn == 0 { Vec::new() } else { self.eligible().await? };
        if turn > 0 {
            let now = self.now_iso()?;
            for (i, ok) in eligible.iter().enumerate() {
                let status = self.snapshot.states[i].status;
                match (ok, status) {
                    (false, StepStatus::Idle) => self.snapshot.set(i, StepStatus::Blocked, &now),
                    (true, StepStatus::Blocked) => self.snapshot.set(i, StepStatus::Idle, &now),
                    _ => {}
                }
            }
        }
        // A kept turn's step is the one it recorded, if this trajectory could
        // have chosen it there: the start step at turn 0; after, the next
        // eligible step with preconditions when there is one (that choice
        // asks no model), else any eligible step or none (the ranker's).
        // Otherwise the result is another trajectory's, or this one's rules
        // changed since.
        let ordered = || (self.current.unwrap_or(g.start) + 1..g.steps.len()).find(|&i| eligible[i] && !g.steps[i].preconditions.is_empty());
        if let Some(k) = self.kept.get(turn as usize) {
            let step = k.step_id.as_deref().and_then(|id| g.position(id));
            // (At turn 0 no eligibility was computed: the start step runs.)
            let (allowed, rule) = match if turn == 0 { None } else { Some(ordered()) } {
                None => (step == Some(g.start), format!("turn 0 runs the start step {}", quoted(&g.steps[g.start].id))),
                Some(Some(next)) => (step == Some(next), format!("the next eligible step in graph order was {}", quoted(&g.steps[next].id))),
                Some(None) => {
                    (step.is_none_or(|i| eligible[i]), "it was not eligible then: done, failed, or its preconditions do not hold".to_owned())
                }
            };
            if !allowed {
                let which = step.map_or("no step".to_owned(), |i| format!("step {}", quoted(&g.steps[i].id)));
                let message = format!("resumeFrom.result.steps[{turn}] ran {which}, which this trajectory would not have run there ({rule}); the result is not a run of this trajectory as it is now");
                return Err(Interrupt::Fault(Side::Precondition, Error::invalid_argument(message)));
            }
            return Ok((step, k.selection.clone()));
        }
        if turn == 0 {
            let c = Candidate { step_id: g.steps[g.start].id.clone(), score: 1.0, reasons: Some(vec!["start step, selected at turn 0".into()]) };
            return Ok((Some(g.start), Selection { method: SelectionMethod::Start, candidates: Some(vec![c]), ranker_error: None }));
        }
        if let Some(i) = ordered() {
            let c = Candidate {
                step_id: g.steps[i].id.clone(),
                score: 1.0,
                reasons: Some(vec!["next eligible step with preconditions in graph order".into()]),
            };
            return Ok((Some(i), Selection { method: SelectionMethod::PreconditionsOrdered, candidates: Some(vec![c]), ranker_error: None }));
        }
        let pool: Vec<&StepDefinition> = g.steps.iter().enumerate().filter(|(i, _)| eligible[*i]).map(|(_, s)| s).collect();
        if pool.is_empty() {
            return Ok((None, Selection { method: SelectionMethod::None, candidates: None, ranker_error: None }));
        }
        let request = rank_request(self.t, &pool, &self.traces);
        let answer = self.guard(self.env.user_model.complete(request), Side::Ranker, self.deadline(None)).await?;
        // Recorded once the turn has begun (after `turn_started`), so the tokens count in this turn.
        self.partial.ranker = answer.usage;
        let ranking = parse_ranking(&answer.text, &pool, &self.t.ranker);
        let candidates = Some(if ranking.kept.is_empty() { ranking.top } else { ranking.kept.clone() });
        Ok(match ranking.kept.first() {
            Some(best) => {
                let i = g.position(&best.step_id).expect("ranking keeps eligible ids");
                (Some(i), Selection { method: SelectionMethod::LlmRanked, candidates, ranker_error: ranking.error })
            }
            None => (None, Selection { method: SelectionMethod::None, candidates, ranker_error: ranking.error }),
        })
    }

    /// Which steps may run now: open, every step they wait for satisfied,
    /// every custom precondition true (all custom ones evaluated together).
    async fn eligible(&self) -> std::result::Result<Vec<bool>, Interrupt> {
        let g = self.t.steps.as_ref().expect("called with a graph");
        let mut ok: Vec<bool> = g
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| self.snapshot.open(i) && s.requires().all(|d| self.snapshot.satisfied(g.position(d).expect("validated"))))
            .collect();
        let contexts: Vec<PredicateContext<'_>> =
            (0..g.steps.len()).map(|i| PredicateContext { traces: &self.traces, snapshot: &self.snapshot, step: i }).collect();
        let mut owners = Vec::new();
        let mut futures = Vec::new();
        for (i, s) in g.steps.iter().enumerate().filter(|(i, _)| ok[*i]) {
            for p in &s.preconditions {
                if let Precondition::Custom { evaluate: Some(f), name } = p {
                    owners.push((i, name.clone()));
                    futures.push(f.evaluate(&contexts[i]));
                }
            }
        }
        // Together under one deadline, as any callback the run awaits.
        let joined: LocalBoxFuture<'_, Result<_>> = Box::pin(async move { Ok(join_all(futures).await) });
        let bounded = with_deadline(joined, self.env.timer, self.deadline(None));
        let answers = match self.env.abort {
            Some(a) => match race(bounded, a.wait()).await {
                Either::Left(answers) => answers,
                Either::Right(()) => return Err(Interrupt::Aborted),
            },
            None => bounded.await,
        }
        .map_err(|e| Interrupt::Fault(Side::Precondition, e))?;
        for ((i, name), answer) in owners.into_iter().zip(answers) {
            let id = &g.steps[i].id;
            let holds = answer.map_err(|e| {
                let what = format!("step {id}: precondition {}", name.as_deref().unwrap_or("custom"), id = quoted(id));
                // A host callback's error already names it (`step "s": precondition p threw: ...`).
                let e = if e.message.starts_with(&what) { e } else { e.within(&what) };
                Interrupt::Fault(Side::Precondition, e.at_step(id))
            })?;
            ok[i] &= holds;
        }
        Ok(ok)
    }
}
