//! The agentspine state directory: the SQLite cache, the bindings registry
//! and the audit log.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
