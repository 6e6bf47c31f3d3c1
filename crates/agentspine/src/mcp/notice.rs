//! Telling the user, never the model, that the state database was damaged.
//!
//! An unacknowledged incident of the store (what `doctor`, `record list`
//! and `audit` show) becomes one MCP `notifications/message` log at level
//! `warning`, sent once per connection right after the client's
//! `notifications/initialized`. A log message is the client's to show to
//! its user (MCP: "clients MAY present log messages"); a tool result is
//! model context, whatever field it sits in, so the incident is never put
//! in one. The server declares the `logging` capability for it and accepts
//! `logging/setLevel`; it logs nothing else, so a level set later changes
//! nothing that is sent.
//!
//! rmcp marks MCP logging deprecated (SEP-2577, a newer protocol draft);
//! the protocol versions the clients our users run negotiate still define
//! it, and it is the one channel MCP gives a server to its client's user,
//! so it is used here with `allow(deprecated)` (as the client roots are).
#![allow(deprecated)]

use std::time::Duration;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use serde_json::json;

/// How long the store may take to say whether it holds an incident before
/// the server goes on without telling.
const STORE_TIMEOUT: Duration = Duration::from_secs(1);

/// The logger name the message carries.
pub const LOGGER: &str = "agentspine";

/// The warning for the store's unacknowledged incidents, read afresh on
/// the blocking pool; `None` when there is none or the store does not
/// answer within [`STORE_TIMEOUT`].
pub async fn incidents() -> Option<LoggingMessageNotificationParam> {
    let read = tokio::task::spawn_blocking(|| crate::state::State::open().incidents());
    match tokio::time::timeout(STORE_TIMEOUT, read).await {
        Ok(Ok(incidents)) => warning(&incidents),
        Ok(Err(e)) => {
            tracing::warn!("mcp: reading the store's incidents stopped: {e}");
            None
        }
        Err(_) => {
            tracing::warn!(
                "mcp: the state store did not say within {} ms whether it was damaged",
                STORE_TIMEOUT.as_millis()
            );
            None
        }
    }
}

/// One warning for `incidents`: `message` says what happened, where the
/// damaged copy is, what was recovered and how to stop being told (as the
/// hook's `systemMessage` does); `state_incidents` is the record as the
/// `--json` surfaces show it.
fn warning(incidents: &[agentspine_store::Incident]) -> Option<LoggingMessageNotificationParam> {
    if incidents.is_empty() {
        return None;
    }
    let message = incidents.iter().map(crate::state::incident_notice).collect::<Vec<_>>().join(" ");
    let data = json!({ "message": message, "state_incidents": crate::state::incidents_json(incidents) });
    Some(LoggingMessageNotificationParam::new(LoggingLevel::Warning, data).with_logger(LOGGER))
}
