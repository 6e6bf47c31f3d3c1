//! The agentspine-core integration suite: one test binary (see STYLE.md).

// Tests build fixture trees with std::fs directly: they are the world the
// resolver is tested against, not code under test.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, missing_docs)]
#![allow(clippy::unwrap_used)]

mod support;

mod aliases;
mod bad_input;
mod catalog;
mod check;
mod check_measured;
mod copilot;
mod counts;
mod differences;
mod gemini;
mod guard;
mod links;
mod memory;
mod opencode;
mod profiles;
mod rules;
mod targets;
