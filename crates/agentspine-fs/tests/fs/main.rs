//! The agentspine-fs integration suite: one test binary (see STYLE.md).
//!
//! Every path test runs against each backend available in this process.
//! CI runs this binary a second time under `no-openat2`, where only the
//! walk backend is available and `AGENTSPINE_EXPECT_BACKEND=walk` makes
//! `detection::detects_expected_backend` prove the filter took effect.

// Tests build fixture trees with std::fs directly: they are the world the
// reader is tested against, not code under test.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, missing_docs)]
#![allow(clippy::unwrap_used)]

mod support;

mod aliases;
mod budget;
mod counts;
mod detection;
mod guard;
mod links;
mod listing;
mod properties;
mod races;
mod refusals;
mod state;
mod torn;
mod write;
mod xfs;
