//! `agentspine install|uninstall pi` and `doctor --host pi`: the extension
//! lands in pi's agent directory with this binary's path, the MCP server in
//! its `mcp.json` beside the user's own servers, twice is once, uninstall
//! takes out exactly that, and doctor tells the states apart.

use serde_json::Value;

use crate::support::Example;

const BIN: &str = env!("CARGO_BIN_EXE_agentspine");

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn doctor(ex: &Example) -> Value {
    let out = ex.run(".", &["doctor", "--host", "pi", "--json"]);
    ex.json_any(&out)["install"].clone()
}

#[test]
fn pi_install_writes_the_extension_and_mcp_server_and_uninstall_takes_out_only_those() {
    let ex = Example::new();
    let refused = ex.run(".", &["install", "pi"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pi's agent directory cannot be opened"));
    assert!(!ex.home.join(".pi").exists(), "nothing is created when pi never ran");

    let user_mcp = "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"other-server\"\n    }\n  },\n  \"z\": 1\n}\n";
    ex.home_file(".pi/agent/mcp.json", user_mcp);
    assert_eq!(doctor(&ex)["extension"]["state"], "missing");
    for _ in 0..2 {
        ok(&ex.run(".", &["install", "pi"]));
    }
    let agent = ex.home.join(".pi/agent");
    let names: Vec<String> = std::fs::read_dir(agent.join("extensions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec!["agentspine.js"]);
    let extension = std::fs::read_to_string(agent.join("extensions/agentspine.js")).unwrap();
    let line = format!(
        "const AGENTSPINE = {}; // written by `agentspine install pi`",
        serde_json::to_string(BIN).unwrap()
    );
    assert_eq!(extension.matches(&line).count(), 1);
    assert!(extension.contains("[\"hook\", HOST]"));
    let mcp: Value = serde_json::from_str(&std::fs::read_to_string(agent.join("mcp.json")).unwrap()).unwrap();
    assert_eq!(
        mcp["mcpServers"]["agentspine"],
        serde_json::json!({ "type": "stdio", "command": BIN, "args": ["mcp"] })
    );
    assert_eq!(mcp["mcpServers"]["other"]["command"], "other-server");
    assert_eq!(mcp["z"], 1);
    let report = doctor(&ex);
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["extension"]["state"], "current");
    // The same extension serves pi 0.73, which reads no mcp.json.
    std::fs::write(agent.join("mcp.json"), user_mcp).unwrap();
    let old = ex.json_any(&ex.run(".", &["doctor", "--host", "pi-0.73", "--json"]))["install"].clone();
    assert_eq!(old["ok"], true, "{old}");
    assert_eq!(doctor(&ex)["ok"], false, "pi 1.x misses its MCP server");
    ok(&ex.run(".", &["install", "pi"]));

    let older = "const AGENTSPINE = \"/old/agentspine\"; // an older copy\n";
    std::fs::write(agent.join("extensions/agentspine.js"), older).unwrap();
    assert_eq!(doctor(&ex)["extension"]["state"], "stale");

    ok(&ex.run(".", &["uninstall", "pi"]));
    assert!(!agent.join("extensions/agentspine.js").exists());
    let after = std::fs::read_to_string(agent.join("mcp.json")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&after).unwrap(),
        serde_json::from_str::<Value>(user_mcp).unwrap()
    );
    assert_eq!(doctor(&ex)["ok"], false);
}

#[test]
fn pi_install_follows_pi_coding_agent_dir_and_refuses_project_scope() {
    let ex = Example::new();
    let alt = ex.dir.path().join("alt-agent");
    std::fs::create_dir_all(&alt).unwrap();
    let out = ex.command(".", &["install", "pi"]).env("PI_CODING_AGENT_DIR", &alt).output().unwrap();
    ok(&out);
    assert!(alt.join("extensions/agentspine.js").is_file());
    assert!(alt.join("mcp.json").is_file());
    assert!(!ex.home.join(".pi").exists());
    let scoped = ex
        .command(".", &["install", "pi", "--settings", "project"])
        .env("PI_CODING_AGENT_DIR", &alt)
        .output()
        .unwrap();
    assert_eq!(scoped.status.code(), Some(2));
}
