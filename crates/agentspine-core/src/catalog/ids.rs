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
