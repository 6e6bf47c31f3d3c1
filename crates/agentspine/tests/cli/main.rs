//! The agentspine binary's integration suite: one test binary (see
//! STYLE.md). Every JSON surface has an inline snapshot with temp paths
//! replaced by `[TREE]` and `[HOME]`.

// Tests copy the bundled example with std::fs: fixtures, not code under test.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, missing_docs)]
#![allow(clippy::unwrap_used)]

mod support;

mod audit_bound;
mod bind_hosts;
mod catalog;
mod check;
mod continuity;
mod doctor;
mod drift;
mod errors;
mod generated;
mod guard;
mod guide;
mod hook;
mod hook_install;
mod hook_pi;
mod install;
mod install_command;
mod install_copilot;
mod install_kimi;
mod install_opencode;
mod install_pi;
mod mcp;
mod memory;
mod plurals;
mod records;
mod reliability;
mod resolve;
mod roots;
mod serve;
mod state_damage;
