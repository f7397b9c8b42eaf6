//! The pure core. Nothing here reads a clock, randomness, network or files:
//! the host injects a [`host::Clock`] and [`host::Model`]s.

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
pub mod vfs;
pub mod vocabulary;

pub use error::{Error, ErrorCode};
