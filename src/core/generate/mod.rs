//! Generate: an AI plays the user (goal, persona), a step graph with
//! preconditions steers it, the agent under test answers, loop detection
//! and a policy stop it. The model of the behaviour is
//! `@tally-evals/trajectories`; names and shapes follow it.

pub mod batch;
pub mod concurrency;
pub mod definition;
pub mod env;
pub mod export;
pub mod fork;
mod graph;
pub mod prompt;
pub mod replay;
pub mod run;
pub mod simulator;
pub mod state;
pub mod trace;

pub use definition::{Precondition, Predicate, PredicateContext, StepDefinition, StepGraph, Trajectory, DEFAULT_MAX_TURNS};
pub use env::{Agent, AgentAnswer, Env, RunEvents};
pub use fork::Fork;
pub use run::run;
pub use simulator::{Issue, SimulatorChecks};
pub use state::{DefaultPolicy, Policy, PolicyContext, PolicyDecision, Snapshot, StepRuntimeState, StepStatus};
pub use trace::{Candidate, End, EndError, Selection, SelectionMethod, Side, StepTrace, StopReason, TrajectoryResult, Verdict};
