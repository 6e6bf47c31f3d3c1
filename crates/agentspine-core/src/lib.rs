//! Host profiles, instruction chains, the memory index, the catalog and the
//! briefing: pure logic over `agentspine-fs`. Nothing here touches the disk
//! except through an `agentspine_fs::Root`, and nothing here reads process
//! variables: the [`Environment`] is passed in.
//!
//! ```no_run
//! use agentspine_core::{Environment, Host, Request, resolve, render_native};
//! use agentspine_fs::{Budget, Reader};
//! let env = Environment::from_vars(|name| std::env::var_os(name));
//! let reader = Reader::new(Budget::with_timeout(std::time::Duration::from_secs(2)));
//! let request = Request::new(Host::Codex, "/repo/pkg");
//! let resolution = resolve(&request, &env, &reader).expect("a resolvable request");
//! print!("{}", render_native(&resolution));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod catalog;
mod chain;
mod config;
mod env;
mod error;
mod gather;
mod host;
pub mod hosts;
mod locate;
pub mod memory;
mod resolution;
pub mod text;

pub use env::Environment;
pub use error::ResolveError;
pub use host::{Host, Request};
pub use resolution::{Cut, Part, Probe, Resolution, Scope, Verdict, Warning};

use agentspine_fs::Reader;

/// Resolves the chain `request` asks for under its host's rules. Every read
/// goes through `reader` (its budget and counters).
pub fn resolve(request: &Request, env: &Environment, reader: &Reader) -> Result<Resolution, ResolveError> {
    hosts::resolve(request, env, reader)
}

/// The exact text the host would put in its model request for this chain
/// (empty when it would send none).
pub fn render_native(resolution: &Resolution) -> String {
    hosts::render(resolution)
}
