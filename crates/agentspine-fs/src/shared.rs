//! Memory that a process shares with the children it forks afterwards.
//!
//! A detached child ([`crate::fork_worker`]) runs a hook's work on its one
//! thread, and its parent keeps the deadline: at the deadline the parent
//! closes the output gate, and the child prints only while the gate is
//! open. Both must agree on who was first, across the fork: the gate and
//! what the child reports of its progress live in one page mapped shared
//! (`MAP_SHARED | MAP_ANONYMOUS`) before the fork, as atomic words, so the
//! same compare-and-swap decides it in either process.
//!
//! The page is mapped once and never unmapped (a process maps at most a
//! few, each lives as long as the process).

use std::sync::atomic::AtomicU64;

/// Words in a [`SharedPage`] (one 4 KiB page).
pub const SHARED_WORDS: usize = 512;

/// A page of atomic words, shared with every child forked after it was made.
#[derive(Debug, Clone, Copy)]
pub struct SharedPage {
    words: &'static [AtomicU64; SHARED_WORDS],
}

impl SharedPage {
    /// Maps a new page, every word zero.
    pub fn new() -> std::io::Result<SharedPage> {
        let len = std::mem::size_of::<[AtomicU64; SHARED_WORDS]>();
        // SAFETY: an anonymous shared mapping with no address hint and no
        // file; the result is checked before use. The kernel returns
        // page-aligned, zero-filled memory, which is a valid, aligned
        // `[AtomicU64; SHARED_WORDS]` (all-zero bits are a valid AtomicU64).
        // It is never unmapped, so the `'static` borrow stays valid, and
        // atomics are `Sync`, so sharing it between threads and (after a
        // fork) processes is sound.
        #[allow(unsafe_code)]
        let words = unsafe {
            let at = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if at == libc::MAP_FAILED {
                return Err(std::io::Error::last_os_error());
            }
            &*at.cast::<[AtomicU64; SHARED_WORDS]>()
        };
        Ok(SharedPage { words })
    }

    /// The page's words.
    pub fn words(&self) -> &'static [AtomicU64; SHARED_WORDS] {
        self.words
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;

    #[test]
    fn a_forked_child_sees_and_changes_the_same_words() {
        let page = SharedPage::new().unwrap();
        assert!(page.words().iter().all(|w| w.load(Ordering::Relaxed) == 0), "zero-filled");
        page.words()[0].store(7, Ordering::Release);
        // The test harness runs other threads: the child does only what is
        // safe after such a fork (atomic loads and stores, then `_exit`).
        // SAFETY: fork, then in the child only atomics and _exit; the
        // parent reaps the child it made.
        #[allow(unsafe_code)]
        let status = unsafe {
            let pid = libc::fork();
            assert!(pid >= 0, "fork failed");
            if pid == 0 {
                let seen = page.words()[0].load(Ordering::Acquire);
                page.words()[1].store(seen * 6, Ordering::Release);
                libc::_exit(0);
            }
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
            status
        };
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "status {status}");
        assert_eq!(page.words()[1].load(Ordering::Acquire), 42, "the child's store reached the parent");
        // A private copy would not have: a second page is its own.
        let other = SharedPage::new().unwrap();
        assert_eq!(other.words()[1].load(Ordering::Relaxed), 0);
    }
}
