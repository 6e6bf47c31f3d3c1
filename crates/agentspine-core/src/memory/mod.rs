//! Indexed lazy memory: `MEMORY.md` is the only index, a fact file is
//! opened only when a marker or the prompt proves it relevant, and the
//! memory directory is never listed.

pub mod claude_dir;
pub mod index;
pub mod load;
pub mod relevance;
pub mod session;

pub use load::{
    CachedSnapshot, Fact, HeldVersion, MemoryLoad, MemoryReport, MemoryRequest, MemoryStatus, SnapshotCache,
    load,
};
pub use relevance::ScopeIds;
