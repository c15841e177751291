//! Language Server Protocol glue over `abidoc-ide`: documents, notebooks, conversion to and from protocol types.
//!
//! Entry points: [`run_stdio`] (what `abidoc lsp` calls) and [`serve`] (any byte streams; the
//! end-to-end tests use an in-memory duplex). The custom messages are described in `PROTOCOL.md`.

pub mod config;
pub mod documents;
pub mod framing;
mod handlers;
pub mod links;
mod memory;
pub mod model_hint;
pub mod outputs;
pub mod pool;
pub mod proto;
mod server;
pub mod to_proto;

// The panic tests drive the server through the integration tests' client, which names the crate.
#[cfg(test)]
extern crate self as abidoc_lsp;
#[cfg(test)]
mod panic_tests;

pub use config::{LogLevel, SettingType, Settings};
pub use handlers::{DEBOUNCE, capabilities};
pub use server::{Backend, run_stdio, serve};
