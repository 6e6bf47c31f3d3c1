//! The MCP server: `agentspine mcp` driven over its stdio pipes with JSON
//! lines, every tool result an inline snapshot with temp paths replaced by
//! `[TREE]` and `[HOME]`. Its own fixture ([`support::Server`]) runs one
//! server process per test.

mod support;

mod incident;
mod protocol;
mod tools;
