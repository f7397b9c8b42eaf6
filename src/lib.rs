//! agent-trajectories: observe, record, generate and replay LLM-agent
//! trajectories.
//!
//! [`core`] is pure Rust (no JS types) and is what native tests exercise.
//! The `wasm` module is the thin wasm-bindgen binding that the npm package
//! exposes; it only exists when compiling for `wasm32`.

pub mod core;

/// The JS binding. Public so wasm-bindgen-test suites can drive it from Rust.
#[cfg(target_arch = "wasm32")]
pub mod wasm;
