//! The conformance suite's fixtures that carry protocol logic of their own, served by a core
//! built as `mcp-testserver --conformance` builds it (`Core::with_conformance_fixtures`), over
//! an in-process connection speaking 2026-07-28:
//! - MRTR (`conformance/mrtr.rs`): an `input_required` result first, the complete result on
//!   the retry carrying `inputResponses`; a signed `requestState` that must come back intact;
//!   several rounds; input requests only for declared capabilities (-32021 otherwise).
//! - `subscriptions/listen` (`conformance/listen.rs`): the acknowledgement, then only the
//!   list changes the filter asked for, tagged with the subscription id; `notifications/cancelled`
//!   ends the stream with no response.

use crate::common;

use std::time::Duration;

use common::{CAPABILITIES, Conn, code, conformance, text};
use mcp_testserver::Revision;
use serde_json::{Value, json};

const SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

/// `tools/call` of a fixture declaring `capabilities`, with `extra` params (inputResponses, ...).
async fn call(conn: &mut Conn, id: i64, tool: &str, capabilities: Value, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": {CAPABILITIES: capabilities}});
    for (key, value) in extra.as_object().expect("extra params object") {
        params[key] = value.clone();
    }
    conn.request(json!(id), "tools/call", params).await
}

/// Calls a `test_trigger_*` fixture (no capabilities, no extra params); returns its text.
async fn trigger(conn: &mut Conn, id: i64, tool: &str) -> String {
    text(&call(conn, id, tool, json!({}), json!({})).await).to_owned()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test(start_paused = true)]
async fn mrtr_elicitation_asks_first_and_completes_on_the_retry() {
    let mut conn = conformance(Revision::V2026_07_28);
    let tool = "test_input_required_result_elicitation";
    let first = call(&mut conn, 1, tool, json!({"elicitation": {}}), json!({})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(
        result["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    assert!(result.get("requestState").is_none(), "stateless: {first}");
    let responses = json!({"inputResponses": {"user_name": accept(json!({"name": "Ada"}))}});
    let retry = call(&mut conn, 2, tool, json!({"elicitation": {}}), responses).await;
    assert_eq!(retry["result"]["resultType"], "complete", "{retry}");
    assert_eq!(text(&retry), "Hello, Ada!");
    // A declined elicitation is no answer: the server asks again.
    let declined = json!({"inputResponses": {"user_name": {"action": "decline"}}});
    let again = call(&mut conn, 3, tool, json!({"elicitation": {}}), declined).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
}

#[tokio::test(start_paused = true)]
async fn mrtr_without_the_capability_is_missing_required_client_capability() {
    let mut conn = conformance(Revision::V2026_07_28);
    let response = call(
        &mut conn,
        1,
        "test_input_required_result_multiple_inputs",
        json!({"elicitation": {}}),
        json!({}),
    )
    .await;
    assert_eq!(code(&response), -32021, "{response}");
    assert_eq!(
        response["error"]["data"]["requiredCapabilities"],
        json!({"roots": {}, "sampling": {}}),
        "names exactly the undeclared ones"
    );
}

#[tokio::test(start_paused = true)]
async fn mrtr_request_state_must_come_back_intact() {
    let mut conn = conformance(Revision::V2026_07_28);
    let tool = "test_input_required_result_request_state";
    let caps = json!({"elicitation": {}});
    let first = call(&mut conn, 1, tool, caps.clone(), json!({})).await;
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("a signed requestState: {first}"))
        .to_owned();
    // The retry's params: the confirmation, and `state` as the client sends it back.
    let confirm = json!({"confirm": accept(json!({"ok": true}))});
    let confirmed = |state: &str| json!({"inputResponses": confirm, "requestState": state});
    let retry = call(&mut conn, 2, tool, caps.clone(), confirmed(&state)).await;
    assert_eq!(
        text(&retry),
        "state-ok: requestState validated (integrity-ok), ok=true"
    );
    // The payload's first character changed (six significant bits): the MAC no longer matches.
    let mut tampered = state.clone().into_bytes();
    tampered[0] = if tampered[0] == b'e' { b'f' } else { b'e' };
    let tampered = String::from_utf8(tampered).unwrap();
    let rejected = call(&mut conn, 3, tool, caps.clone(), confirmed(&tampered)).await;
    assert_eq!(code(&rejected), -32602, "{rejected}");
    // State signed for one tool is not accepted by another.
    let other_tool = "test_input_required_result_tampered_state";
    let other = call(&mut conn, 4, other_tool, caps, confirmed(&state)).await;
    assert_eq!(code(&other), -32602, "{other}");
}

#[tokio::test(start_paused = true)]
async fn mrtr_multi_round_carries_its_progress_in_the_state() {
    let mut conn = conformance(Revision::V2026_07_28);
    let tool = "test_input_required_result_multi_round";
    let caps = json!({"elicitation": {}});
    let round1 = call(&mut conn, 1, tool, caps.clone(), json!({})).await;
    assert!(
        round1["result"]["inputRequests"].get("step1").is_some(),
        "{round1}"
    );
    let state1 = round1["result"]["requestState"].clone();
    let round2 = call(
        &mut conn,
        2,
        tool,
        caps.clone(),
        json!({"requestState": state1, "inputResponses": {"step1": accept(json!({"name": "Ada"}))}}),
    )
    .await;
    assert!(
        round2["result"]["inputRequests"].get("step2").is_some(),
        "{round2}"
    );
    let state2 = round2["result"]["requestState"].clone();
    assert_ne!(state1, state2, "the state evolves");
    let done = call(
        &mut conn,
        3,
        tool,
        caps,
        json!({"requestState": state2, "inputResponses": {"step2": accept(json!({"color": "blue"}))}}),
    )
    .await;
    assert_eq!(text(&done), "Multi-round complete for Ada who likes blue");
}

#[tokio::test(start_paused = true)]
async fn mrtr_asks_only_for_declared_capabilities_and_checks_input_responses() {
    let mut conn = conformance(Revision::V2026_07_28);
    let tool = "test_input_required_result_capabilities";
    let sampling_only = call(&mut conn, 1, tool, json!({"sampling": {}}), json!({})).await;
    let requests = sampling_only["result"]["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("input requests: {sampling_only}"));
    assert_eq!(
        requests.keys().collect::<Vec<_>>(),
        ["sample_input"],
        "{sampling_only}"
    );
    let none = call(&mut conn, 2, tool, json!({}), json!({})).await;
    assert_eq!(none["result"]["isError"], true, "{none}");
    let malformed = call(
        &mut conn,
        3,
        tool,
        json!({"sampling": {}}),
        json!({"inputResponses": {"sample_input": "not an object"}}),
    )
    .await;
    assert_eq!(code(&malformed), -32602, "{malformed}");
}

/// Everything that arrives within `wait` (tokio time: free under the paused clock).
async fn drain(conn: &mut Conn, wait: Duration) -> Vec<Value> {
    let mut messages = conn.take_backlog();
    while let Some(message) = conn.try_recv(wait).await {
        messages.push(message);
    }
    messages
}

#[tokio::test(start_paused = true)]
async fn listen_acknowledges_then_delivers_only_the_filtered_changes_until_cancelled() {
    let mut conn = conformance(Revision::V2026_07_28);
    let filter = json!({"notifications": {"toolsListChanged": true, "resourcesListChanged": true}});
    conn.send_request(json!("sub"), "subscriptions/listen", filter)
        .await;
    let ack = conn.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION], "sub");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "only what is served is honored"
    );
    let tools = trigger(&mut conn, 1, "test_trigger_tool_change").await;
    assert_eq!(tools, "notified 1 subscription(s)");
    let prompts = trigger(&mut conn, 2, "test_trigger_prompt_change").await;
    assert_eq!(prompts, "notified 0 subscription(s)", "not in the filter");
    let delivered = drain(&mut conn, Duration::from_millis(100)).await;
    assert_eq!(
        delivered,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {SUBSCRIPTION: "sub"}}})
        ],
    );
    conn.cancel(json!("sub")).await;
    let after = drain(&mut conn, Duration::from_millis(100)).await;
    assert!(
        after.is_empty(),
        "no response to a cancelled listen: {after:?}"
    );
    let tools = trigger(&mut conn, 3, "test_trigger_tool_change").await;
    assert_eq!(tools, "notified 0 subscription(s)", "the stream is closed");
    assert!(
        drain(&mut conn, Duration::from_millis(100))
            .await
            .is_empty()
    );
    assert!(conn.violation_rules(json!(4)).await.is_empty());
}

#[tokio::test(start_paused = true)]
async fn listen_needs_a_filter_and_2026_07_28() {
    let mut conn = conformance(Revision::V2026_07_28);
    let response = conn
        .request(json!(1), "subscriptions/listen", json!({}))
        .await;
    assert_eq!(code(&response), -32602, "{response}");
    let mut legacy = conformance(Revision::V2025_11_25);
    legacy.initialize().await;
    let filter = json!({"notifications": {"toolsListChanged": true}});
    let response = legacy
        .request(json!(1), "subscriptions/listen", filter)
        .await;
    assert_eq!(code(&response), -32601, "{response}");
}
