//! The MCP server's integration suite: `agentspine mcp` driven over its
//! stdio pipes with JSON lines, every tool result an inline snapshot with
//! temp paths replaced by `[TREE]` and `[HOME]`.
//!
//! A second test binary beside `tests/cli`: the MCP front end is its own
//! module (`src/mcp`), and its tests stay beside it in the same way.

// Tests copy the bundled example with std::fs: fixtures, not code under test.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, missing_docs)]
#![allow(clippy::unwrap_used)]

mod support;

mod guard;
mod protocol;
mod tools;
