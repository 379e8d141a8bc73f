//! Scripted client sessions: the handshake, the tool list and its schemas, every tool against
//! the real service, errors as tool results, and the activity log showing `source: mcp`.

use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;

use crate::harness::{McpProcess, spawn_app};

/// RFC 3339 in UTC, whole seconds, `ago` before now.
fn rfc3339_ago(ago: time::Duration) -> String {
    (time::OffsetDateTime::now_utc() - ago)
        .replace_nanosecond(0)
        .unwrap()
        .format(&Rfc3339)
        .unwrap()
}

/// The `field`s named by an error's details.
fn detail_fields(error: &Value) -> Vec<&str> {
    error["error"]["details"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d["field"].as_str()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_scripted_session_reaches_the_key_owners_data_and_is_logged_as_mcp() {
    let app = spawn_app().await;
    let person = app.person("mia@example.org").await;
    let mut mcp = McpProcess::spawn(
        &[("DISCOVERY_API_KEY", &person.api_key)],
        &["--url", &app.address],
    );

    // The handshake.
    let init = mcp.initialize().await;
    assert_eq!(init["protocolVersion"], "2025-06-18", "{init}");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    assert_eq!(init["serverInfo"]["name"], "discovery-mcp", "{init}");

    // The five tools and the contract's limits in their schemas.
    let list = mcp.result("tools/list", json!({})).await;
    let tools = list["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "get_profile",
            "get_work_patterns",
            "log_time",
            "list_checkins",
            "respond_to_checkin"
        ]
    );
    let schema =
        |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone();
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(!tool["description"].as_str().unwrap().is_empty(), "{tool}");
    }
    let log_time = schema("log_time");
    assert_eq!(
        log_time["properties"]["foundation"]["enum"],
        json!([
            "love",
            "strength",
            "mission",
            "vocation",
            "short_term",
            "long_term"
        ])
    );
    assert_eq!(log_time["properties"]["minutes"]["minimum"], 0);
    assert_eq!(log_time["properties"]["minutes"]["maximum"], 1440);
    assert_eq!(log_time["properties"]["external_task_id"]["maxLength"], 200);
    assert_eq!(
        log_time["required"],
        json!(["external_task_id", "foundation", "minutes", "occurred_at"])
    );
    let days = &schema("get_work_patterns")["properties"]["days"];
    assert_eq!(
        (days["minimum"].as_i64(), days["maximum"].as_i64()),
        (Some(1), Some(365))
    );
    assert_eq!(
        schema("respond_to_checkin")["required"],
        json!(["id", "still_valid"])
    );
    assert_eq!(schema("get_profile")["properties"], json!({}));

    // get_profile: the owner's own profile, as the API gives it.
    let (is_error, profile) = mcp.call_tool("get_profile", json!({})).await;
    assert!(!is_error, "{profile}");
    assert_eq!(profile, person.profile, "the affirmed profile, unchanged");
    assert_eq!(profile["enneagram_type"], 8);

    // log_time, then the minutes show in the work patterns.
    let (is_error, mapping) = mcp
        .call_tool(
            "log_time",
            json!({
                "external_task_id": "mcp-task-1",
                "foundation": "mission",
                "minutes": 95,
                "occurred_at": rfc3339_ago(time::Duration::hours(2)),
                "label": "Lesson plans for the reading club"
            }),
        )
        .await;
    assert!(!is_error, "{mapping}");
    assert_eq!(mapping["external_task_id"], "mcp-task-1");
    assert_eq!(mapping["task_label"], "Lesson plans for the reading club");
    assert_eq!(mapping["user_id"], person.user_id.as_str());
    let (is_error, patterns) = mcp
        .call_tool("get_work_patterns", json!({ "days": 7 }))
        .await;
    assert!(!is_error, "{patterns}");
    assert_eq!(patterns["days"], 7);
    assert_eq!(patterns["total_minutes"], 95, "{patterns}");
    let mission = patterns["foundations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["foundation"] == "mission")
        .unwrap();
    assert_eq!(mission["minutes"], 95, "{patterns}");
    assert_eq!(mission["share"], 1.0, "{patterns}");

    // A bad foundation: the service's validation_failed as a tool error, not a protocol error.
    let (is_error, error) = mcp
        .call_tool(
            "log_time",
            json!({
                "external_task_id": "mcp-task-2",
                "foundation": "leisure",
                "minutes": 10,
                "occurred_at": rfc3339_ago(time::Duration::hours(1))
            }),
        )
        .await;
    assert!(is_error, "{error}");
    assert_eq!(error["error"]["code"], "validation_failed", "{error}");
    assert_eq!(error["status"], 422, "the service judged it: {error}");
    assert!(detail_fields(&error).contains(&"foundation"), "{error}");
    assert!(!error["error"]["message"].as_str().unwrap().is_empty());

    // A wrongly typed argument is caught before any request, in the same shape.
    let (is_error, error) = mcp
        .call_tool(
            "log_time",
            json!({
                "external_task_id": "mcp-task-3", "foundation": "love", "minutes": "ten",
                "occurred_at": rfc3339_ago(time::Duration::hours(1))
            }),
        )
        .await;
    assert!(is_error, "{error}");
    assert_eq!(error["error"]["code"], "validation_failed");
    assert_eq!(detail_fields(&error), ["minutes"]);
    assert!(
        error.get("status").is_none(),
        "not sent to the service: {error}"
    );

    // list_checkins, then respond_to_checkin; a second response is the service's 409.
    let (is_error, checkins) = mcp.call_tool("list_checkins", json!({})).await;
    assert!(!is_error, "{checkins}");
    let items = checkins["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{checkins}");
    assert_eq!(items[0]["id"], person.checkin_id.as_str());
    assert!(items[0]["responded_at"].is_null());
    let (is_error, answered) = mcp
        .call_tool(
            "respond_to_checkin",
            json!({ "id": person.checkin_id, "still_valid": true, "note": "Still my direction." }),
        )
        .await;
    assert!(!is_error, "{answered}");
    assert_eq!(answered["id"], person.checkin_id.as_str());
    assert_eq!(answered["still_valid"], true);
    assert_eq!(answered["response_note"], "Still my direction.");
    assert!(answered["responded_at"].is_string(), "{answered}");
    let (is_error, again) = mcp
        .call_tool(
            "respond_to_checkin",
            json!({ "id": person.checkin_id, "still_valid": false }),
        )
        .await;
    assert!(is_error, "{again}");
    assert_eq!(again["error"]["code"], "already_responded", "{again}");
    assert_eq!(again["status"], 409);

    let ended = mcp.finish().await;
    assert!(
        ended.success,
        "exits cleanly when stdin closes: {}",
        ended.stderr
    );
    assert!(
        ended.leftover_stdout.is_empty(),
        "{:?}",
        ended.leftover_stdout
    );
    assert!(
        !ended.stderr.contains(&person.api_key),
        "the key appears in the logs: {}",
        ended.stderr
    );
    assert!(
        ended.stderr.contains("serving MCP"),
        "logs go to stderr: {}",
        ended.stderr
    );

    // Every request the tools made is in the owner's activity with source "mcp"; the set-up
    // requests (Bearer) say "api", so the check can tell them apart.
    let response_path = format!("/coaching/checkins/{}/response", person.checkin_id);
    let expected: Vec<(&str, &str, u16)> = vec![
        ("GET", "/discovery/profile/me", 200),
        ("POST", "/integration/task-mappings", 201),
        ("GET", "/integration/work-patterns", 200),
        ("POST", "/integration/task-mappings", 422),
        ("GET", "/coaching/checkins", 200),
        ("POST", &response_path, 200),
        ("POST", &response_path, 409),
    ];
    let matches = |entry: &Value, (method, path, status): &(&str, &str, u16)| {
        entry["method"] == *method && entry["path"] == *path && entry["status"] == *status
    };
    let activity = app
        .activity_until(&person.user_id, |items| {
            expected.iter().all(|e| items.iter().any(|i| matches(i, e)))
        })
        .await;
    for wanted in &expected {
        let entries: Vec<&Value> = activity.iter().filter(|i| matches(i, wanted)).collect();
        assert_eq!(entries.len(), 1, "{wanted:?}: {entries:#?}");
        assert_eq!(entries[0]["source"], "mcp", "{wanted:?}: {}", entries[0]);
    }
    let mcp_entries = activity.iter().filter(|i| i["source"] == "mcp").count();
    assert_eq!(
        mcp_entries,
        expected.len(),
        "one request per tool call: {activity:#?}"
    );
    let setup = activity
        .iter()
        .find(|i| i["method"] == "POST" && i["path"] == "/coaching/checkins")
        .unwrap();
    assert_eq!(setup["source"], "api", "{setup}");
    // The same through the owner's own summary.
    let summary = crate::harness::json_of(
        app.with_bearer(
            &person.jwt,
            reqwest::Method::GET,
            "/api/activity/summary?days=1",
        )
        .send()
        .await
        .unwrap(),
        200,
    )
    .await;
    assert_eq!(summary["by_source"]["mcp"], expected.len(), "{summary}");
}

#[tokio::test]
async fn a_wrong_key_is_an_unauthenticated_tool_error() {
    let app = spawn_app().await;
    let wrong = "ds_live_this-key-does-not-exist-0123456789";
    let mut mcp = McpProcess::spawn(
        &[
            ("DISCOVERY_API_KEY", wrong),
            ("DISCOVERY_URL", &app.address),
        ],
        &[],
    );
    mcp.initialize().await;
    let (is_error, error) = mcp.call_tool("get_profile", json!({})).await;
    assert!(is_error, "{error}");
    assert_eq!(error["error"]["code"], "unauthenticated", "{error}");
    assert_eq!(error["status"], 401);
    assert!(!error["error"]["message"].as_str().unwrap().is_empty());
    let ended = mcp.finish().await;
    assert!(ended.success);
    assert!(!ended.stderr.contains(wrong), "{}", ended.stderr);
}

#[tokio::test]
async fn the_protocol_answers_ping_unknown_methods_and_unknown_tools() {
    // No service: nothing here reaches it except the last call, which finds no one listening.
    let mut mcp = McpProcess::spawn(
        &[
            ("DISCOVERY_API_KEY", "ds_anything"),
            ("DISCOVERY_URL", "http://127.0.0.1:9"),
        ],
        &[],
    );
    mcp.initialize().await;

    let pong = mcp.request("ping", None).await;
    assert_eq!(pong["result"], json!({}), "{pong}");

    let unknown = mcp
        .request("resources/subscribe_everything", Some(json!({})))
        .await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");

    let no_tool = mcp
        .request(
            "tools/call",
            Some(json!({ "name": "delete_account", "arguments": {} })),
        )
        .await;
    assert_eq!(
        no_tool["error"]["code"], -32602,
        "a protocol error: {no_tool}"
    );

    let (is_error, error) = mcp
        .call_tool(
            "respond_to_checkin",
            json!({ "id": "../../api/me", "still_valid": "yes" }),
        )
        .await;
    assert!(is_error);
    assert_eq!(error["error"]["code"], "validation_failed");
    assert_eq!(detail_fields(&error), ["id", "still_valid"]);

    let (is_error, error) = mcp.call_tool("get_profile", json!({})).await;
    assert!(is_error, "{error}");
    assert_eq!(error["error"]["code"], "service_unreachable", "{error}");
    assert!(mcp.finish().await.success);
}

#[tokio::test]
async fn without_a_key_it_refuses_to_start_and_writes_nothing_on_stdout() {
    let mcp = McpProcess::spawn(&[("DISCOVERY_URL", "http://127.0.0.1:9")], &[]);
    let ended = mcp.finish().await;
    assert!(!ended.success);
    assert!(
        ended.leftover_stdout.is_empty(),
        "{:?}",
        ended.leftover_stdout
    );
    assert!(
        ended.stderr.contains("DISCOVERY_API_KEY is not set"),
        "{}",
        ended.stderr
    );
}
