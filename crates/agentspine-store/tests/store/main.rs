//! The agentspine-store integration suite: one test binary (see STYLE.md).
//!
//! `concurrency::child_worker` and `concurrency::first_open_child` are the
//! child halves of the many-process tests: they are ignored in normal runs,
//! and their parents run them again in child processes of this same binary.

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
