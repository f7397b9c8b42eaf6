//! A trajectory definition: goal, persona, an optional step graph (its
//! steps and their reader are `graph.rs`'s) and the limits of a run. Read
//! from JSON data (the host attaches its callbacks afterwards) and
//! validated as a whole; every error is coded `INVALID_TRAJECTORY` and
//! names the culprit.

use serde_json::Value;

use super::fields::{invalid, Fields};
use super::graph::{find_cycle, reachable, read_graph, Precondition, StepGraph};
use super::simulator::SimulatorChecks;
use crate::error::Result;
use crate::number::quoted;

/// The only turn cap when a definition gives none.
pub const DEFAULT_MAX_TURNS: u32 = 20;

/// The keys a definition may have, per object; any other is refused,
/// naming the nearest. (`agent` and `userModel` are live objects the host
/// takes out; callbacks such as `isSatisfied` reach the core as a
/// placeholder, so their keys are checked too.)
pub(crate) const TRAJECTORY_KEYS: &[&str] = &[
    "goal",
    "persona",
    "steps",
    "maxTurns",
    "minTurns",
    "conversationId",
    "metadata",
    "loopDetection",
    "ranker",
    "simulator",
    "userContextSteps",
    "agent",
    "userModel",
];

/// The most retries of a simulated user's rejected reply.
pub const MAX_SIMULATOR_RETRIES: u32 = 10;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Persona {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub description: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub guardrails: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopDetection {
    pub max_consecutive_same_step: u32,
    pub max_cycle_length: u32,
    pub max_cycle_repetitions: u32,
}

impl Default for LoopDetection {
    fn default() -> Self {
        LoopDetection { max_consecutive_same_step: 3, max_cycle_length: 3, max_cycle_repetitions: 2 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankerConfig {
    pub threshold: f64,
    pub context_steps: u32,
    pub top_k: u32,
}

impl Default for RankerConfig {
    fn default() -> Self {
        RankerConfig { threshold: 0.5, context_steps: 1, top_k: 3 }
    }
}

#[derive(Clone)]
pub struct Trajectory {
    pub goal: String,
    pub persona: Persona,
    pub steps: Option<StepGraph>,
    pub max_turns: u32,
    /// Turns before which a reached goal does not end the run (0: none).
    pub min_turns: u32,
    pub conversation_id: Option<String>,
    pub metadata: Option<Value>,
    pub loop_detection: LoopDetection,
    pub ranker: RankerConfig,
    pub simulator: SimulatorChecks,
    pub user_context_steps: u32,
}

impl Trajectory {
    /// Reads the data part of a definition. Callbacks (custom preconditions'
    /// `evaluate`, `isSatisfied`) are attached by the host afterwards; call
    /// [`Trajectory::validate`] once they are.
    pub fn from_value(v: &Value) -> Result<Trajectory> {
        let f = Fields::of(v, "trajectory")?;
        // `agent` and `userModel` are live objects the host takes out first; listed so they are not refused.
        f.only(TRAJECTORY_KEYS)?;
        let goal = f.required("goal")?;
        let persona_v = f.get("persona").ok_or_else(|| invalid("trajectory.persona is missing; give at least { description }"))?;
        let p = Fields::of(persona_v, "persona")?;
        p.only(&["name", "description", "guardrails"])?;
        let persona = Persona { name: p.string("name")?, description: p.required("description")?, guardrails: p.strings("guardrails")? };
        let max_turns = match f.get("maxTurns") {
            None => DEFAULT_MAX_TURNS,
            Some(v) => match v.as_f64() {
                Some(n) if n.fract() == 0.0 && n >= 1.0 && n <= u32::MAX as f64 => n as u32,
                _ => {
                    return Err(invalid(format!("maxTurns must be a positive integer (at most {}), got {}", u32::MAX, crate::number::show_value(v))))
                }
            },
        };
        let min_turns = f.integer("minTurns", 0, 0)?;
        if min_turns > max_turns {
            return Err(invalid(format!("minTurns ({min_turns}) must not exceed maxTurns ({max_turns})")));
        }
        let simulator = match f.get("simulator") {
            None => SimulatorChecks::default(),
            Some(v) => {
                let s = Fields::of(v, "simulator")?;
                s.only(&["retries", "checks"])?;
                let d = SimulatorChecks::default();
                let (reasoning, role, repeat) = match s.get("checks") {
                    None => (d.reasoning, d.role, d.repeat),
                    Some(v) => {
                        let c = Fields::of(v, "simulator.checks")?;
                        c.only(&["reasoning", "role", "repeat"])?;
                        (c.boolean("reasoning", d.reasoning)?, c.boolean("role", d.role)?, c.boolean("repeat", d.repeat)?)
                    }
                };
                let retries = s.integer("retries", 0, d.retries)?;
                if retries > MAX_SIMULATOR_RETRIES {
                    return Err(invalid(format!("simulator.retries must be at most {MAX_SIMULATOR_RETRIES}, got {retries}")));
                }
                SimulatorChecks { retries, reasoning, role, repeat }
            }
        };
        let conversation_id = f.string("conversationId")?;
        if conversation_id.as_deref() == Some("") {
            return Err(invalid("conversationId must not be empty"));
        }
        let loop_detection = match f.get("loopDetection") {
            None => LoopDetection::default(),
            Some(v) => {
                let l = Fields::of(v, "loopDetection")?;
                l.only(&["maxConsecutiveSameStep", "maxCycleLength", "maxCycleRepetitions"])?;
                let d = LoopDetection::default();
                LoopDetection {
                    max_consecutive_same_step: l.integer("maxConsecutiveSameStep", 1, d.max_consecutive_same_step)?,
                    max_cycle_length: l.integer("maxCycleLength", 1, d.max_cycle_length)?,
                    max_cycle_repetitions: l.integer("maxCycleRepetitions", 1, d.max_cycle_repetitions)?,
                }
            }
        };
        let ranker = match f.get("ranker") {
            None => RankerConfig::default(),
            Some(v) => {
                let r = Fields::of(v, "ranker")?;
                r.only(&["threshold", "contextSteps", "topK"])?;
                let d = RankerConfig::default();
                RankerConfig {
                    threshold: r.number("threshold", |n| (0.0..=1.0).contains(&n), "a number from 0 to 1")?.unwrap_or(d.threshold),
                    context_steps: r.integer("contextSteps", 0, d.context_steps)?,
                    top_k: r.integer("topK", 1, d.top_k)?,
                }
            }
        };
        let user_context_steps = f.integer("userContextSteps", 0, 2)?;
        let steps = f.get("steps").map(read_graph).transpose()?;
        Ok(Trajectory {
            goal,
            persona,
            steps,
            max_turns,
            min_turns,
            conversation_id,
            metadata: f.get("metadata").cloned(),
            loop_detection,
            ranker,
            simulator,
            user_context_steps,
        })
    }

    /// The graph rules: every custom precondition has its callback, no
    /// precondition cycle, every terminal reachable from start.
    ///
    /// Reachable means: the start step is; a step without `stepSatisfied`
    /// preconditions is (the ranker may pick it at any turn); a step with
    /// them is when each step it waits for is reachable and is not a
    /// terminal, because satisfying a terminal ends the run.
    pub fn validate(&self) -> Result<()> {
        let Some(g) = &self.steps else { return Ok(()) };
        for s in &g.steps {
            for p in &s.preconditions {
                if let Precondition::Custom { evaluate: None, .. } = p {
                    return Err(invalid(format!("step {}: precondition {} has no evaluate(ctx) function", quoted(&s.id), p.label())).at_step(&s.id));
                }
            }
        }
        if let Some(cycle) = find_cycle(g) {
            let path = cycle.iter().map(|&i| g.steps[i].id.as_str()).collect::<Vec<_>>().join(" -> ");
            return Err(invalid(format!("precondition cycle: {path}")).at_step(&g.steps[cycle[0]].id));
        }
        let reachable = reachable(g);
        for &t in &g.terminals {
            if !reachable[t] {
                let step = &g.steps[t];
                let blocker = step.requires().find(|d| g.position(d).is_some_and(|i| !reachable[i] || g.terminals.contains(&i))).unwrap_or("?");
                let why = match g.position(blocker) {
                    Some(i) if g.terminals.contains(&i) => {
                        format!("it waits for terminal {blocker}, and satisfying a terminal ends the run", blocker = quoted(blocker))
                    }
                    _ => format!("it waits for {blocker}, which can never run", blocker = quoted(blocker)),
                };
                return Err(invalid(format!("terminal {} is unreachable from start {}: {why}", quoted(&step.id), quoted(&g.steps[g.start].id)))
                    .at_step(&step.id));
            }
        }
        Ok(())
    }
}
