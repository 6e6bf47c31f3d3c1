//! Who may hold a connection, and for how long.
//!
//! Every process of the user can connect, so a connection proves nothing
//! until it authenticates: the host with `host.authenticate` and the
//! control token, a sidecar with a `project.instructions.resolve` that
//! names a bound session and carries its token. Until then it is
//! *pending*:
//!
//! - it has [`PENDING_TIMEOUT`] from the moment it was accepted to
//!   authenticate, then it is closed (`auth-timeout`);
//! - at most [`PENDING`] are held: a new connection beyond that closes the
//!   oldest pending one (`evicted`), so a crowd of idle connections can
//!   delay nobody by more than one round trip, and the newest, the host's
//!   when it connects, is always accepted.
//!
//! An authenticated connection takes a place in its own pool,
//! [`HOSTS`] for the host and [`SIDECARS`] for sidecars, which pending
//! connections never use; a full pool answers `busy` and closes. So the
//! server holds at most `PENDING + HOSTS + SIDECARS` connections, and no
//! number of unauthenticated ones keeps the host or a sidecar out.
//!
//! The accept loop only records a connection and drops the oldest one's
//! eviction handle: it never waits on a peer.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio::time::Instant;

/// Unauthenticated connections held at once; one more closes the oldest.
pub const PENDING: usize = 64;

/// How long a connection may take, from its accept, to authenticate.
pub const PENDING_TIMEOUT: Duration = Duration::from_secs(3);

/// Connections authenticated as the host, at once.
pub const HOSTS: usize = 16;

/// Connections authenticated as a sidecar, at once.
pub const SIDECARS: usize = 256;

/// The connections the server holds, by what they have proved.
pub struct Admission {
    /// Pending connections, oldest first: their number and the handle whose
    /// drop tells one it was evicted.
    pending: Mutex<Pending>,
    hosts: Arc<Semaphore>,
    sidecars: Arc<Semaphore>,
}

#[derive(Default)]
struct Pending {
    next: u64,
    queue: VecDeque<(u64, oneshot::Sender<()>)>,
}

/// A pending connection's place: its deadline, and the signal that it was
/// evicted. Dropping it gives the place back.
pub struct Ticket {
    admission: Arc<Admission>,
    number: u64,
    pub deadline: Instant,
    evicted: oneshot::Receiver<()>,
}

/// What an authenticated connection holds while it is open.
pub type Place = OwnedSemaphorePermit;

/// The pool an authenticated connection joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    Host,
    Sidecar,
}

impl Pool {
    pub fn capacity(self) -> usize {
        match self {
            Pool::Host => HOSTS,
            Pool::Sidecar => SIDECARS,
        }
    }
}

impl Admission {
    pub fn new() -> Arc<Admission> {
        Arc::new(Admission {
            pending: Mutex::default(),
            hosts: Arc::new(Semaphore::new(HOSTS)),
            sidecars: Arc::new(Semaphore::new(SIDECARS)),
        })
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records a new connection as pending; at the cap, the oldest pending
    /// one is told to close. Never waits.
    pub fn admit(self: &Arc<Self>) -> Ticket {
        let (tell, evicted) = oneshot::channel();
        let mut pending = self.pending();
        if pending.queue.len() >= PENDING {
            // Dropping its sender is the signal; the connection closes itself.
            pending.queue.pop_front();
        }
        pending.next += 1;
        let number = pending.next;
        pending.queue.push_back((number, tell));
        drop(pending);
        Ticket { admission: self.clone(), number, deadline: Instant::now() + PENDING_TIMEOUT, evicted }
    }
}

impl Ticket {
    /// Resolves when a newer connection took this one's place.
    pub async fn evicted(&mut self) {
        let _ = (&mut self.evicted).await;
    }

    /// Leaves the pending connections for a place in `pool`, or `None` when
    /// the pool is full (the ticket is given back either way).
    pub fn authenticate(self, pool: Pool) -> Option<Place> {
        let semaphore = match pool {
            Pool::Host => &self.admission.hosts,
            Pool::Sidecar => &self.admission.sidecars,
        };
        semaphore.clone().try_acquire_owned().ok()
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut pending = self.admission.pending();
        if let Some(at) = pending.queue.iter().position(|(number, _)| *number == self.number) {
            pending.queue.remove(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
    }

    /// The positions of the tickets whose connection was told to close.
    fn evicted(tickets: &mut [Ticket]) -> Vec<usize> {
        let closed = |t: &mut Ticket| {
            t.evicted.try_recv().is_err_and(|e| e == oneshot::error::TryRecvError::Closed)
        };
        tickets.iter_mut().enumerate().filter_map(|(i, t)| closed(t).then_some(i)).collect()
    }

    #[test]
    fn past_the_cap_the_oldest_pending_connection_is_evicted() {
        run(async {
            let admission = Admission::new();
            let mut tickets: Vec<Ticket> = (0..PENDING).map(|_| admission.admit()).collect();
            assert_eq!(evicted(&mut tickets), Vec::<usize>::new());
            tickets.push(admission.admit());
            assert_eq!(evicted(&mut tickets), [0]);
            // One that authenticates or closes frees its place: no eviction.
            let first_live = tickets.remove(1);
            assert!(first_live.authenticate(Pool::Host).is_some());
            drop(tickets.remove(1));
            tickets.push(admission.admit());
            tickets.push(admission.admit());
            assert_eq!(evicted(&mut tickets), [0], "only the first");
            assert_eq!(admission.pending().queue.len(), PENDING);
            tickets.push(admission.admit());
            // The oldest still pending: the fourth admitted.
            assert_eq!(evicted(&mut tickets), [0, 1]);
        });
    }

    #[test]
    fn each_pool_holds_its_own_number_and_pending_ones_take_none() {
        run(async {
            let admission = Admission::new();
            let hosts: Vec<Place> =
                (0..HOSTS).map(|_| admission.admit().authenticate(Pool::Host).unwrap()).collect();
            assert!(admission.admit().authenticate(Pool::Host).is_none());
            let sidecars: Vec<Place> =
                (0..SIDECARS).map(|_| admission.admit().authenticate(Pool::Sidecar).unwrap()).collect();
            assert!(admission.admit().authenticate(Pool::Sidecar).is_none());
            // A full set of pending connections leaves both pools as they are.
            let _pending: Vec<Ticket> = (0..PENDING * 2).map(|_| admission.admit()).collect();
            drop(hosts.into_iter().next());
            assert!(admission.admit().authenticate(Pool::Host).is_some());
            drop(sidecars);
            assert_eq!(admission.sidecars.available_permits(), SIDECARS);
        });
    }
}
