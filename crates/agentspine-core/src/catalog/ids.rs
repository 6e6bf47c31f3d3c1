//! Opaque, stable source ids: a keyed digest of the root, the relative path
//! and the scope. The key comes from the state store, so an id reveals
//! nothing about the path and cannot be forged by someone without the key.

use std::path::Path;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::resolution::Scope;

/// Makes source ids with one key.
#[derive(Clone)]
pub struct SourceIds {
    key: [u8; 32],
}

impl std::fmt::Debug for SourceIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SourceIds(..)")
    }
}

impl SourceIds {
    /// Ids keyed with `key` (from the state store; any 32 bytes).
    pub fn new(key: [u8; 32]) -> SourceIds {
        SourceIds { key }
    }

    /// Ids keyed at random, the same key for the whole process: what a
    /// resolver names sources with when no state store gave it a key
    /// (stable within the process, unforgeable, and not comparable with
    /// another process's).
    pub fn for_process() -> SourceIds {
        static KEY: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
        let key = KEY.get_or_init(|| {
            let mut key = [0u8; 32];
            if getrandom::fill(&mut key).is_err() {
                // No OS randomness through getrandom: the standard
                // library's randomly seeded hasher keys, stretched.
                use std::hash::{BuildHasher, Hasher};
                let seeded = std::collections::hash_map::RandomState::new();
                for (i, chunk) in key.chunks_mut(8).enumerate() {
                    let mut hasher = seeded.build_hasher();
                    hasher.write_usize(i);
                    chunk.copy_from_slice(&hasher.finish().to_le_bytes());
                }
            }
            key
        });
        SourceIds { key: *key }
    }

    /// The id of `rel` beneath `root`, in `scope`: `src_` and 24 hex digits.
    pub fn id(&self, root: &Path, rel: &str, scope: Scope) -> String {
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).expect("HMAC takes any key length");
        for part in [root.as_os_str().as_encoded_bytes(), rel.as_bytes(), scope.to_string().as_bytes()] {
            mac.update(&(part.len() as u64).to_le_bytes());
            mac.update(part);
        }
        let digest = mac.finalize().into_bytes();
        format!("src_{}", &hex::encode(digest)[..24])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_key_is_random_and_the_same_for_the_whole_process() {
        let id = |ids: &SourceIds| ids.id(Path::new("/repo"), "AGENTS.md", Scope::Project);
        let process = id(&SourceIds::for_process());
        assert_eq!(process, id(&SourceIds::for_process()));
        assert_ne!(process, id(&SourceIds::new([0; 32])), "not the zero key");
        assert!(process.starts_with("src_") && process.len() == 28, "{process}");
    }
}
