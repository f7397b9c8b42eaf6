//! agent-trajectories: observe, record, generate and replay LLM-agent
//! trajectories.
//!
//! [`core`] is the `agent-trajectories-core` crate (src/core): pure Rust,
//! no JS types, and every decision. The `wasm` module is the thin
//! wasm-bindgen binding that the npm package exposes; it only exists when
//! compiling for `wasm32`.

pub use agent_trajectories_core as core;
pub use agent_trajectories_judge as judge;

/// The JS binding. Public so wasm-bindgen-test suites can drive it from Rust.
#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// The global allocator on wasm32.
#[cfg(target_arch = "wasm32")]
mod alloc;
