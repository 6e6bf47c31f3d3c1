//! Host profiles, instruction chains, the memory index, the catalog and the
//! briefing: pure logic over `agentspine-fs`. Nothing here touches the disk
//! except through an `agentspine_fs::Root`, and nothing here reads process
//! variables: the [`Environment`] is passed in.
//!
//! Every front end asks one [`Resolver`] (see [`resolver`]): root finding,
//! the never-a-project rule ([`policy`]), target to directory, the memory
//! directory, the snapshot cache, completeness and gaps, and what each host
//! loads natively are decided there, once.
//!
//! ```no_run
//! use agentspine_core::{Environment, Host, Request, Resolver, render_native};
//! use agentspine_fs::{Budget, Reader};
//! let env = Environment::from_vars(|name| std::env::var_os(name));
//! let reader = Reader::new(Budget::with_timeout(std::time::Duration::from_secs(2)));
//! let resolver = Resolver::new(env, reader);
//! let resolution = resolver.chain(&Request::new(Host::Codex, "/repo/pkg")).expect("a resolvable request");
//! print!("{}", render_native(&resolution));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod catalog;
mod chain;
pub mod check;
mod config;
pub mod context;
pub mod delta;
mod env;
mod error;
mod gather;
mod host;
pub mod hosts;
mod locate;
pub mod memory;
pub mod mentions;
mod paths;
pub mod policy;
pub mod report;
mod resolution;
pub mod resolver;
pub mod text;

pub use env::Environment;
pub use error::ResolveError;
pub use host::{Host, Request};
pub use paths::{PathOutside, lexical, names_within};
pub use policy::{NamedRoots, RootKind};
pub use resolution::{Cause, Cut, Part, Probe, Resolution, Scope, TableRow, Verdict, Warning};
pub use resolver::{CacheProvider, MemoryOutcome, REQUEST_DEADLINE, Resolver};

use agentspine_fs::Reader;

/// Resolves the chain `request` asks for under its host's rules, with a
/// resolver made for this one call (see [`Resolver::chain`]).
pub fn resolve(request: &Request, env: &Environment, reader: &Reader) -> Result<Resolution, ResolveError> {
    Resolver::new(env.clone(), reader.clone()).chain(request)
}

/// The exact text the host would put in its model request for this chain
/// (empty when it would send none).
pub fn render_native(resolution: &Resolution) -> String {
    hosts::render(resolution)
}
