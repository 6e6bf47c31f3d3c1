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
//! A pending connection keeps its slot until its socket is closed, not
//! just until it is told to go: at the cap, the accept loop evicts the
//! oldest and waits for that slot, which comes back as soon as the
//! evicted connection's task has run (it writes its farewell only if the
//! socket takes it at once, then closes). So the descriptors held for
//! pending connections never exceed [`PENDING`], however fast new ones
//! arrive, and the accept loop never waits on a peer.

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
    /// One per pending connection's socket, evicted ones included until
    /// they have closed.
    slots: Arc<Semaphore>,
    hosts: Arc<Semaphore>,
    sidecars: Arc<Semaphore>,
}

#[derive(Default)]
struct Pending {
    next: u64,
    queue: VecDeque<(u64, oneshot::Sender<()>)>,
}

/// A pending connection's place: its deadline, the signal that it was
/// evicted, and its slot until it authenticates or is dropped.
pub struct Ticket {
    admission: Arc<Admission>,
    number: u64,
    pub deadline: Instant,
    evicted: oneshot::Receiver<()>,
    slot: Option<OwnedSemaphorePermit>,
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
            slots: Arc::new(Semaphore::new(PENDING)),
            hosts: Arc::new(Semaphore::new(HOSTS)),
            sidecars: Arc::new(Semaphore::new(SIDECARS)),
        })
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records a new connection as pending. At the cap, the oldest pending
    /// one is told to close, and this waits for its slot (for that
    /// connection's own farewell, never for a peer). Only the accept loop
    /// admits.
    pub async fn admit(self: &Arc<Self>) -> Ticket {
        {
            let mut pending = self.pending();
            if pending.queue.len() >= PENDING {
                // Dropping its sender is the signal; the connection closes itself.
                pending.queue.pop_front();
            }
        }
        let slot = self.slots.clone().acquire_owned().await.expect("the slots are never closed");
        let (tell, evicted) = oneshot::channel();
        let mut pending = self.pending();
        pending.next += 1;
        let number = pending.next;
        pending.queue.push_back((number, tell));
        drop(pending);
        Ticket {
            admission: self.clone(),
            number,
            deadline: Instant::now() + PENDING_TIMEOUT,
            evicted,
            slot: Some(slot),
        }
    }
}

impl Ticket {
    /// Resolves when a newer connection took this one's place.
    pub async fn evicted(&mut self) {
        let _ = (&mut self.evicted).await;
    }

    /// A place in `pool`, giving this connection's pending slot back; or
    /// `None` when the pool is full (the connection is still pending, and
    /// closes).
    pub fn authenticate(&mut self, pool: Pool) -> Option<Place> {
        let semaphore = match pool {
            Pool::Host => &self.admission.hosts,
            Pool::Sidecar => &self.admission.sidecars,
        };
        let place = semaphore.clone().try_acquire_owned().ok()?;
        self.leave();
        self.slot = None;
        Some(place)
    }

    fn leave(&self) {
        let mut pending = self.admission.pending();
        if let Some(at) = pending.queue.iter().position(|(number, _)| *number == self.number) {
            pending.queue.remove(at);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.leave();
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
        let closed =
            |t: &mut Ticket| t.evicted.try_recv().is_err_and(|e| e == oneshot::error::TryRecvError::Closed);
        tickets.iter_mut().enumerate().filter_map(|(i, t)| closed(t).then_some(i)).collect()
    }

    #[test]
    fn past_the_cap_the_oldest_is_evicted_and_its_slot_awaited() {
        run(async {
            let admission = Admission::new();
            let mut tickets = Vec::new();
            for _ in 0..PENDING {
                tickets.push(admission.admit().await);
            }
            assert_eq!(evicted(&mut tickets), Vec::<usize>::new());
            let mut next = std::pin::pin!(admission.admit());
            // The oldest is told at once; the newcomer waits until it is gone.
            assert!(tokio::time::timeout(Duration::from_millis(50), &mut next).await.is_err());
            assert_eq!(evicted(&mut tickets), [0]);
            drop(tickets.remove(0));
            tickets.push(tokio::time::timeout(Duration::from_secs(1), next).await.unwrap());
            assert_eq!(admission.slots.available_permits(), 0);

            // One that authenticates or closes gives its slot back: no eviction.
            let mut host = tickets.remove(0);
            assert!(host.authenticate(Pool::Host).is_some());
            drop(tickets.remove(0));
            tickets.push(admission.admit().await);
            tickets.push(admission.admit().await);
            assert_eq!(evicted(&mut tickets), Vec::<usize>::new());
            assert_eq!(admission.pending().queue.len(), PENDING);
            // The next to go is the oldest still pending: the fourth admitted.
            let mut next = std::pin::pin!(admission.admit());
            assert!(tokio::time::timeout(Duration::from_millis(50), &mut next).await.is_err());
            assert_eq!(evicted(&mut tickets), [0]);
        });
    }

    #[test]
    fn each_pool_holds_its_own_number_and_pending_ones_take_none() {
        run(async {
            let admission = Admission::new();
            let mut hosts = Vec::new();
            for _ in 0..HOSTS {
                hosts.push(admission.admit().await.authenticate(Pool::Host).unwrap());
            }
            let mut refused = admission.admit().await;
            assert!(refused.authenticate(Pool::Host).is_none());
            assert_eq!(admission.slots.available_permits(), PENDING - 1, "still pending until it closes");
            drop(refused);
            let mut sidecars = Vec::new();
            for _ in 0..SIDECARS {
                sidecars.push(admission.admit().await.authenticate(Pool::Sidecar).unwrap());
            }
            assert!(admission.admit().await.authenticate(Pool::Sidecar).is_none());
            // A full set of pending connections leaves both pools as they are.
            let mut crowd = Vec::new();
            for _ in 0..PENDING {
                crowd.push(admission.admit().await);
            }
            drop(hosts.pop());
            crowd.pop();
            assert!(admission.admit().await.authenticate(Pool::Host).is_some());
            drop(sidecars);
            assert_eq!(admission.sidecars.available_permits(), SIDECARS);
        });
    }
}
