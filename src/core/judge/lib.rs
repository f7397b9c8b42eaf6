//! What is decided about a finished run (the crate
//! `agent-trajectories-judge`, over the core). A run is read as
//! [`facts::RunFacts`], from its records (a result through its step export,
//! [`steps`]); then: whether its tool calls match what was expected
//! ([`matching`]), whether its own facts stay within limits ([`checks`]),
//! what changed between two batches ([`compare`]), the rubric judge
//! ([`rubric`]: its prompt, its answer, the judgement; a generated run asks
//! it through the core's `RunJudge`, [`run_judge`]; [`ask`] over a recorded run), and the
//! exports of a result ([`export`]: step JSONL, Tally's `Conversation`, a
//! summary).

pub mod ask;
pub mod checks;
pub mod compare;
pub mod export;
pub mod facts;
pub mod matching;
pub mod rubric;
pub mod run_judge;
pub mod steps;

pub use agent_trajectories_core::generate::Verdict;
pub use checks::{check_run, CheckOptions, CheckResult};
pub use facts::{Call, Finding, RunFacts};
pub use matching::{match_calls, read_expected, MatchOptions, MatchResult, Mismatch};

// Its own crate, beside the core it reads, so that the build can compile it
// for size (opt-level "z", see the root Cargo.toml): judging a run is done
// once per run, never on a hot path, and its code is a tenth of the module.
