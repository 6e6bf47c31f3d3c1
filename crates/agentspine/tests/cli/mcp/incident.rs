//! A damaged state database is told to the MCP client's user as one
//! warning log per connection, never in a tool result (model context).

use std::time::Duration;

use serde_json::{Value, json};

use super::support::Server;

#[test]
fn a_damaged_store_is_one_warning_log_after_initialize_and_never_in_a_result() {
    let mut server = Server::start_damaged();
    assert_eq!(server.init["capabilities"]["logging"], json!({}), "{}", server.init);
    let frames: Vec<Value> = server
        .unsolicited(Duration::from_millis(1500))
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(frames.len(), 1, "{frames:?}");
    let log = &frames[0];
    assert_eq!(
        (&log["method"], &log["params"]["level"], &log["params"]["logger"]),
        (&json!("notifications/message"), &json!("warning"), &json!("agentspine")),
        "{log}"
    );
    let incidents = log["params"]["data"]["state_incidents"].as_array().unwrap();
    assert_eq!(incidents.len(), 1, "{log}");
    let copy = std::path::PathBuf::from(incidents[0]["damaged_copy"].as_str().unwrap());
    assert_eq!(std::fs::read(&copy).unwrap(), b"this is not a database", "the damaged copy is kept");
    let message = log["params"]["data"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("agentspine: the state database was damaged (")
            && message.contains(&copy.display().to_string())
            && message.ends_with("`agentspine doctor --acknowledge` once you have read this."),
        "{message}"
    );

    // The tools' results carry none of it, and nothing more is logged.
    let root = server.root();
    let briefing = server.call("session_briefing", json!({ "project_root": root, "host": "claude" }));
    assert_eq!(briefing["isError"], json!(false), "{briefing}");
    let text = briefing.to_string();
    assert!(!text.contains("damaged") && !text.contains(&copy.display().to_string()), "{text}");
    assert_eq!(server.request("logging/setLevel", json!({ "level": "error" }))["result"], json!({}));
    assert_eq!(server.unsolicited(Duration::from_millis(300)), Vec::<String>::new());
    assert!(server.finish().success());
}
