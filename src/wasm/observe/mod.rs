//! Observe for JS: `ObserverPipeline` and the context its JS observers get.

mod config;
mod context;
mod pipeline;

pub use context::ObserverContext;
pub use pipeline::ObserverPipeline;
