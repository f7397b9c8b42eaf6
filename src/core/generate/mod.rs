//! Generate: an AI plays the user (goal, persona), a step graph with
//! preconditions steers it, the agent under test answers, loop detection
//! and a policy stop it. The model of the behaviour is
//! `@tally-evals/trajectories`; names and shapes follow it.

pub mod batch;
pub mod concurrency;
pub mod definition;
pub mod env;
mod fields;
pub mod fork;
pub mod graph;
pub mod policy;
pub mod prompt;
pub mod reliability;
pub mod replay;
pub mod run;
pub mod simulator;
pub mod state;
pub mod trace;

pub use definition::{Trajectory, DEFAULT_MAX_TURNS};
pub use env::{Agent, AgentAnswer, Env, RunEvents};
pub use fork::Fork;
pub use graph::{Precondition, Predicate, PredicateContext, StepDefinition, StepGraph};
pub use policy::{DefaultPolicy, Policy, PolicyContext, PolicyDecision};
pub use run::run;
pub use simulator::{Issue, SimulatorChecks};
pub use state::{StepRuntimeState, StepStates, StepStatus};
pub use trace::{Candidate, End, EndError, Selection, SelectionMethod, Side, StepTrace, StopReason, TrajectoryResult, Verdict};
