//! Test-only fault injection. Built with the `fault-injection` feature (never
//! in a release), `AGENTSPINE_FAULT_WRITE_DELAY_MS` makes every write of a
//! learning record or binding event pause inside its transaction, after
//! its first change and before its last, and say so on stderr, so that a
//! test can SIGKILL the process there and check that nothing half-written
//! survives. Without the feature this is an empty function.

/// Pauses inside the `what` transaction when the delay is set.
#[cfg(feature = "fault-injection")]
pub(crate) fn inside_write(what: &str) {
    let delay = std::env::var("AGENTSPINE_FAULT_WRITE_DELAY_MS").ok().and_then(|v| v.parse::<u64>().ok());
    if let Some(ms) = delay {
        eprintln!("agentspine fault-injection: inside the {what} transaction");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Does nothing (built without the `fault-injection` feature).
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn inside_write(_what: &str) {}
