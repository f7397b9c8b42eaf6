//! Observe for JS: `ObserverPipeline` and the context its JS observers get.

mod config;
mod context;
mod pipeline;
mod stop_on;

pub use context::ObserverContext;
pub(crate) use pipeline::own_pipeline;
pub use pipeline::ObserverPipeline;
