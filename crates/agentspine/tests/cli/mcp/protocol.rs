//! The handshake, the tool list as a client sees it, and the JSON-RPC
//! errors.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::Server;

#[test]
fn initialize_names_the_server_and_offers_tools() {
    let server = Server::start();
    let mut result = server.init.clone();
    assert_eq!(result["serverInfo"]["version"], json!(env!("CARGO_PKG_VERSION")));
    result["serverInfo"]["version"] = json!("[VERSION]");
    let instructions = result["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("session_briefing") && instructions.contains("absolute"), "{instructions}");
    result.as_object_mut().unwrap().remove("instructions");
    insta::assert_json_snapshot!(result, @r#"
    {
      "capabilities": {
        "logging": {},
        "tools": {}
      },
      "protocolVersion": "2025-06-18",
      "serverInfo": {
        "name": "agentspine",
        "version": "[VERSION]"
      }
    }
    "#);
    assert!(server.finish().success());
}

#[test]
fn end_of_input_before_initialize_exits_0_silently() {
    let server = Server::spawn();
    assert!(server.unsolicited(Duration::from_millis(100)).is_empty());
    assert!(server.finish().success());
}

#[test]
fn a_notification_gets_no_response() {
    let mut server = Server::start();
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    server.send(&json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": 5}}));
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    assert_eq!(server.unsolicited(Duration::from_millis(300)), Vec::<String>::new());
}

#[test]
fn tools_list_schemas() {
    let mut server = Server::start();
    let list = server.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let mut contract = serde_json::Map::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let description = tool["description"].as_str().unwrap();
        assert!(
            description.len() > 400
                && description.contains("project_root")
                && description.contains("absolute"),
            "{name}: the description teaches when and how to call it"
        );
        let schema = &tool["inputSchema"];
        let mut properties = serde_json::Map::new();
        for (field, spec) in schema["properties"].as_object().unwrap() {
            assert!(
                spec["description"].as_str().is_some_and(|d| d.len() > 20),
                "{name}.{field} has a description"
            );
            let mut spec = spec.clone();
            spec.as_object_mut().unwrap().remove("description");
            properties.insert(field.clone(), spec);
        }
        contract.insert(
            name.to_owned(),
            json!({
                "required": schema["required"],
                "additionalProperties": schema["additionalProperties"],
                "properties": properties,
            }),
        );
    }
    insta::assert_json_snapshot!(Value::Object(contract), @r#"
    {
      "delivery_knowledge_query": {
        "additionalProperties": false,
        "properties": {
          "host": {
            "default": "generic",
            "enum": [
              "codex",
              "claude",
              "gemini",
              "pi",
              "pi-0.73",
              "opencode",
              "kimi",
              "copilot",
              "desktop",
              "generic"
            ],
            "type": "string"
          },
          "k": {
            "format": "uint",
            "maximum": 50,
            "minimum": 1,
            "type": [
              "integer",
              "null"
            ]
          },
          "project_root": {
            "type": "string"
          },
          "query": {
            "maxLength": 2048,
            "minLength": 1,
            "type": "string"
          },
          "required": {
            "default": false,
            "type": "boolean"
          }
        },
        "required": [
          "project_root",
          "query"
        ]
      },
      "read_document": {
        "additionalProperties": false,
        "properties": {
          "host": {
            "default": "generic",
            "enum": [
              "codex",
              "claude",
              "gemini",
              "pi",
              "pi-0.73",
              "opencode",
              "kimi",
              "copilot",
              "desktop",
              "generic"
            ],
            "type": "string"
          },
          "project_root": {
            "type": "string"
          },
          "source_id": {
            "type": "string"
          }
        },
        "required": [
          "project_root",
          "source_id"
        ]
      },
      "resolve_context": {
        "additionalProperties": false,
        "properties": {
          "host": {
            "default": "generic",
            "enum": [
              "codex",
              "claude",
              "gemini",
              "pi",
              "pi-0.73",
              "opencode",
              "kimi",
              "copilot",
              "desktop",
              "generic"
            ],
            "type": "string"
          },
          "project_root": {
            "type": "string"
          },
          "target_path": {
            "type": "string"
          }
        },
        "required": [
          "project_root",
          "target_path"
        ]
      },
      "session_briefing": {
        "additionalProperties": false,
        "properties": {
          "budget_bytes": {
            "format": "uint",
            "maximum": 1048576,
            "minimum": 1,
            "type": [
              "integer",
              "null"
            ]
          },
          "cwd": {
            "type": [
              "string",
              "null"
            ]
          },
          "host": {
            "default": "generic",
            "enum": [
              "codex",
              "claude",
              "gemini",
              "pi",
              "pi-0.73",
              "opencode",
              "kimi",
              "copilot",
              "desktop",
              "generic"
            ],
            "type": "string"
          },
          "project_root": {
            "type": "string"
          },
          "prompt": {
            "type": [
              "string",
              "null"
            ]
          },
          "required": {
            "default": false,
            "type": "boolean"
          },
          "scope": {
            "items": {
              "type": "string"
            },
            "type": [
              "array",
              "null"
            ]
          }
        },
        "required": [
          "project_root"
        ]
      }
    }
    "#);
}

#[test]
fn protocol_errors_are_json_rpc_errors() {
    let mut server = Server::start();
    let unknown_tool = server.request("tools/call", json!({"name": "no_such_tool", "arguments": {}}));
    let no_name = server.request("tools/call", json!({"arguments": {}}));
    let unknown_method = server.request("prompts/list", json!({}));
    let errors: Vec<Value> =
        [unknown_tool, no_name, unknown_method].iter().map(|f| f["error"].clone()).collect();
    insta::assert_json_snapshot!(errors, @r#"
    [
      {
        "code": -32602,
        "message": "tool not found"
      },
      {
        "code": -32602,
        "message": "Invalid params for tools/call: missing field `name`"
      },
      {
        "code": -32601,
        "message": "prompts/list"
      }
    ]
    "#);
    assert!(server.finish().success());
}
