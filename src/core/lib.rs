//! The pure core. Nothing here reads a clock, randomness, network or files:
//! the host injects a [`host::Clock`] and [`host::Model`]s.
//!
//! # Layering
//!
//! Modules import one way: each uses only modules on lines above its own,
//! and modules on one line do not use each other.
//!
//! - `error`
//! - `message`, `options`, `vfs`
//! - `number`, `write`: JSON numbers; JSON text (records' lines, values
//!   for JS)
//! - `read`, `value`: reading JSON, the host's values (a caller's
//!   [`value::Arg`], a clock reading)
//! - `observe`: observers, the pipeline and its assessments
//! - `capture`: records and the recorder (a payload may carry assessments)
//! - `host`: what the core asks of its host (clock, models, timer, abort,
//!   tool observers, a place for records), in capture's and observe's types
//! - `generate`: generated runs
//! - `background`, `index`, `vocabulary`: the objective loop, reading record
//!   streams, the closed sets of words
//!
//! Judging runs (their calls, their facts, batches of them) is the crate
//! `agent-trajectories-judge` (src/core/judge), above all of these.

// First: its macros are used by the modules below (textual scope).
#[macro_use]
pub mod read;

pub mod background;
pub mod capture;
pub mod error;
pub mod generate;
pub mod host;
pub mod index;
pub mod message;
pub mod number;
pub mod observe;
pub mod options;
pub mod value;
pub mod vfs;
pub mod vocabulary;
pub mod write;

pub use error::{Error, ErrorCode};
