//! Host profiles, instruction chains, the memory index, the catalog and the
//! briefing: pure logic over `agentspine-fs`. Nothing here touches the disk
//! except through an `agentspine_fs::Root`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
