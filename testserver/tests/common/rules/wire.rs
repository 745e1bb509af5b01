//! Lifecycle, ids and errors: negotiation per revision, id rules, malformed input.

use mcp_testserver::Revision;
use serde_json::{Value, json};

use super::{Connect, QUIET, ready};
use crate::common::{Conn, code, text};

pub(crate) async fn initialize_negotiates_the_handshake_revision(connect: Connect) {
    for requested in ["2025-11-25", "2026-07-28", "1999-01-01"] {
        let mut conn = connect(Revision::V2025_11_25);
        let params = json!({"protocolVersion": requested, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        let response = conn.request(json!(1), "initialize", params).await;
        assert_eq!(
            response["result"]["protocolVersion"], "2025-11-25",
            "asked {requested}: {response}"
        );
        assert!(
            response["result"].get("resultType").is_none(),
            "2025-11-25 results carry no resultType"
        );
        conn.notify("notifications/initialized", json!({})).await;
        let again = conn
            .request(json!(2), "initialize", params_for("2025-11-25"))
            .await;
        assert_eq!(
            code(&again),
            -32600,
            "a second initialize is refused: {again}"
        );
        assert_eq!(conn.finish().await.unwrap_or(0), 0);
    }
}

pub(super) fn params_for(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
}

pub(crate) async fn discover_advertises_2026_07_28_without_initialize(connect: Connect) {
    let mut conn = connect(Revision::V2026_07_28);
    let response = conn.request(json!("d"), "server/discover", json!({})).await;
    let result = &response["result"];
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28"]),
        "{response}"
    );
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-testserver"
    );
    let echo = conn.call(json!(1), "echo", json!({"text": "hi"})).await;
    assert_eq!(text(&echo), "hi");
    assert_eq!(echo["result"]["resultType"], "complete");
}

/// 2026-07-28 basic/index, "Per-request protocol fields": a request missing a required `_meta`
/// field is malformed and rejected with -32602 (Invalid params); before `initialize`, a request
/// without the version is such a request.
pub(crate) async fn requests_without_version_or_initialize_are_rejected(connect: Connect) {
    let mut conn = connect(Revision::V2025_11_25);
    let response = conn.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(code(&response), -32602, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("io.modelcontextprotocol/protocolVersion")),
        "the error names the missing field: {response}"
    );
    // The connection still works, and the violation is on record.
    conn.initialize().await;
    assert_eq!(
        conn.violation_rules(json!(2)).await,
        ["missing-protocol-version"]
    );
}

/// 2026-07-28 basic/index, "Per-request protocol fields": `clientCapabilities` is as required
/// as the version (`{}` declares none); without it (or not an object) the request is malformed:
/// -32602, a violation on record, and nothing of the request runs.
pub(crate) async fn requests_without_client_capabilities_are_invalid_params(connect: Connect) {
    let mut conn = connect(Revision::V2026_07_28);
    let version = "io.modelcontextprotocol/protocolVersion";
    let bare = [
        json!({"_meta": {version: "2026-07-28"}}),
        json!({"_meta": {version: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": null}}),
    ];
    for (id, params) in bare.into_iter().enumerate() {
        let mut params = params;
        params["name"] = json!("echo");
        params["arguments"] = json!({"text": "must not run"});
        let id = json!(format!("bare-{id}"));
        conn.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
        let response = conn.response(&id).await;
        assert_eq!(code(&response), -32602, "{response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .is_some_and(|message| message.contains("clientCapabilities")),
            "the error names the missing field: {response}"
        );
    }
    // `{}` is a complete declaration: the same call, stamped, runs.
    let echo = conn.call(json!(1), "echo", json!({"text": "ran"})).await;
    assert_eq!(text(&echo), "ran");
    assert_eq!(
        conn.violation_rules(json!(2)).await,
        ["missing-client-capabilities", "missing-client-capabilities"]
    );
}

pub(crate) async fn unsupported_version_gets_32022(connect: Connect) {
    let mut conn = connect(Revision::V2026_07_28);
    let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "1900-01-01"}});
    let response = conn.request(json!(1), "tools/list", params).await;
    assert_eq!(code(&response), -32022, "{response}");
    assert_eq!(
        response["error"]["data"]["supported"],
        json!(["2026-07-28"])
    );
    assert_eq!(response["error"]["data"]["requested"], "1900-01-01");
}

pub(crate) async fn ping_exists_only_under_2025(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    assert_eq!(
        conn.request(json!(1), "ping", json!({})).await["result"],
        json!({})
    );
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    assert_eq!(
        code(&conn.request(json!(1), "ping", json!({})).await),
        -32601
    );
}

pub(crate) async fn ids_are_echoed_with_their_json_type(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        conn.send_request(
            json!("4"),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "string"}}),
        )
        .await;
        conn.send_request(
            json!(4),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "number"}}),
        )
        .await;
        let by_string = conn.response(&json!("4")).await;
        let by_number = conn.response(&json!(4)).await;
        assert_eq!(text(&by_string), "string", "{revision}");
        assert_eq!(
            text(&by_number),
            "number",
            "{revision}: \"4\" and 4 are different ids"
        );
        assert!(
            conn.violation_rules(json!(5)).await.is_empty(),
            "{revision}"
        );
    }
}

pub(crate) async fn null_id_is_an_invalid_request(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send(json!({"jsonrpc": "2.0", "id": null, "method": "tools/list"}))
        .await;
    let response = conn.recv().await;
    assert_eq!(code(&response), -32600);
    assert_eq!(response["id"], Value::Null);
    assert_eq!(conn.violation_rules(json!(1)).await, ["null-id"]);
}

pub(crate) async fn reused_id_is_a_violation_per_revision(connect: Connect) {
    // 2025-11-25: no reuse within the session, even after completion (still served).
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    assert_eq!(echo(&mut conn, json!(1), "a").await, "a");
    assert_eq!(echo(&mut conn, json!(1), "b").await, "b");
    assert_eq!(conn.violation_rules(json!(2)).await, ["reused-id"]);
    // 2026-07-28: reuse after completion is fine; reuse while in flight is not.
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    assert_eq!(echo(&mut conn, json!(1), "a").await, "a");
    assert_eq!(echo(&mut conn, json!(1), "b").await, "b");
    assert!(conn.violation_rules(json!(2)).await.is_empty());
    conn.send_request(
        json!(3),
        "tools/call",
        json!({"name": "wait_gate", "arguments": {"gate": "g"}}),
    )
    .await;
    let duplicate = conn.call(json!(3), "echo", json!({"text": "c"})).await;
    assert_eq!(code(&duplicate), -32600, "{duplicate}");
    assert_eq!(conn.violation_rules(json!(4)).await, ["reused-id"]);
}

pub(crate) async fn server_requests_use_their_own_id_space(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send_request(
        json!(1),
        "tools/call",
        json!({"name": "ask", "arguments": {"question": "name?"}}),
    )
    .await;
    let request = conn.recv().await;
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(
        request["id"],
        json!(1),
        "the server numbers its own requests from 1 too"
    );
    conn.send(json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"answer": "Ada"}}})).await;
    let response = conn.response(&json!(1)).await;
    assert_eq!(text(&response), "answer: Ada");
    assert!(conn.violation_rules(json!(2)).await.is_empty());
}

pub(crate) async fn parse_error_answers_null_id_and_keeps_serving(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")
        .await;
    let response = conn.recv().await;
    assert_eq!(code(&response), -32700);
    assert_eq!(response["id"], Value::Null);
    assert_eq!(echo(&mut conn, json!(2), "still here").await, "still here");
}

/// A client that floods violations cannot make the server hold every one: its context's log
/// keeps the first 100 in full (`KEPT_VIOLATIONS_PER_CONTEXT`) and counts the rest by rule, and
/// the `violations` tool still names every rule, with how many were not kept.
pub(crate) async fn a_violation_flood_is_kept_bounded(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    for batch in 0..12 {
        for line in 0..100 {
            conn.send_line(&format!("not json {batch}.{line}")).await;
        }
        for _ in 0..100 {
            assert_eq!(code(&conn.recv().await), -32700);
        }
    }
    let response = conn.call(json!(1), "violations", json!({})).await;
    let list: Vec<Value> = serde_json::from_str(text(&response)).unwrap();
    assert_eq!(list.len(), 101, "100 kept and one count");
    assert!(
        list[..100]
            .iter()
            .all(|violation| violation["rule"] == "parse-error"),
        "{:?}",
        &list[..3]
    );
    assert_eq!(
        list[100],
        json!({"rule": "parse-error",
               "detail": "and 1100 more, not kept (the log keeps the first 100 in full)"})
    );
}

pub(crate) async fn invalid_request_and_unknown_method(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send(json!({"jsonrpc": "2.0", "id": 1})).await;
    let missing = conn.recv().await;
    assert_eq!(
        (code(&missing), missing["id"].clone()),
        (-32600, json!(1)),
        "{missing}"
    );
    conn.send(json!([{"jsonrpc": "2.0", "id": 2, "method": "ping"}]))
        .await;
    assert_eq!(code(&conn.recv().await), -32600, "batches are gone");
    assert_eq!(
        code(&conn.request(json!(3), "no/such/method", json!({})).await),
        -32601
    );
}

pub(crate) async fn unknown_tool_and_bad_arguments_are_invalid_params(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        let bad_calls = [
            ("nope", json!({})),
            ("echo", json!({})),
            ("echo", json!({"text": 5})),
            ("slow", json!({"steps": -1, "step_ms": 1})),
            ("echo", json!({"text": "a", "extra": 1})),
        ];
        for (id, (tool, arguments)) in (1..).zip(bad_calls) {
            let response = conn.call(json!(id), tool, arguments).await;
            assert_eq!(code(&response), -32602, "{revision} {tool}: {response}");
        }
    }
}

pub(crate) async fn giant_message_is_rejected_and_serving_continues(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    let giant = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}}}",
        "x".repeat(5 * 1024 * 1024)
    );
    conn.send_line(&giant).await;
    let response = conn.recv().await;
    assert_eq!(code(&response), -32700, "{}", response["error"]);
    assert_eq!(echo(&mut conn, json!(2), "ok").await, "ok");
}

pub(crate) async fn truncated_message_at_eof_is_answered_and_the_connection_ends(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send_request(
        json!(1),
        "tools/call",
        json!({"name": "wait_gate", "arguments": {"gate": "never"}}),
    )
    .await;
    conn.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"meth")
        .await;
    conn.close_input().await;
    let response = conn.recv().await;
    assert_eq!(code(&response), -32700, "{response}");
    assert!(
        conn.try_recv(QUIET).await.is_none(),
        "the pending call is dropped, the stream ends"
    );
    assert_eq!(
        conn.finish().await.unwrap_or(0),
        0,
        "the stdio server exits 0"
    );
}

/// The text the `echo` tool answers request `id` with.
async fn echo(conn: &mut Conn, id: Value, text_to_echo: &str) -> String {
    let response = conn.call(id, "echo", json!({"text": text_to_echo})).await;
    text(&response).to_owned()
}
