//! The agentspine-store integration suite: one test binary (see STYLE.md).
//!
//! `concurrency::child_worker` is the child half of the many-process test:
//! it is ignored in normal runs, and the parent runs it again in 32 child
//! processes of this same binary.

// Tests look at the state directory with std::fs directly and drive SQLite
// by hand to play an attacker: they are the world the store is tested
// against, not code under test.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, missing_docs)]
#![allow(clippy::unwrap_used)]

mod support;

mod append_only;
mod audit_bounds;
mod bindings;
mod cache;
mod check;
mod concurrency;
mod corrupt;
mod guard;
mod no_cache_no_scopes;
mod no_continuity;
mod open;
mod quick;
mod records;
mod reports;
mod salvage;
mod scope;
mod session;
mod state_dir;
