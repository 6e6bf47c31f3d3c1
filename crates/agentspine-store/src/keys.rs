//! The keys derived from the state directory's key: the digest that stands
//! for a project root, and one key per purpose (source ids), the same for
//! the database and the copy a hook reads beside it.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use hmac::{KeyInit, Mac};

/// [`Store::root_digest`] under `key` (the database's, or the copy a hook
/// reads beside it).
pub(crate) fn root_digest_with(key: &[u8; 32], canonical_root: &Path) -> String {
    let mut mac =
        <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(b"agentspine root v1\0");
    mac.update(canonical_root.as_os_str().as_bytes());
    let mut digest = hex::encode(mac.finalize().into_bytes());
    digest.truncate(32);
    digest
}

/// The key for one purpose, derived from the state directory's key.
pub(crate) fn derive(key: &[u8; 32], purpose: &str) -> [u8; 32] {
    let mut mac =
        <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(b"agentspine derived key v1\0");
    mac.update(purpose.as_bytes());
    mac.finalize().into_bytes().into()
}
