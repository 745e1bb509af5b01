//! The Streamable HTTP transport's rules through raw HTTP requests: session ids, status codes,
//! Origin, Accept, the version and mirrored `Mcp-*` headers, parse errors, a closed response
//! stream (a cancel under 2026-07-28 only) and the required per-request `_meta` fields.

use std::time::Duration;

use mcp_testserver::{RenderTranscript, Revision};
use serde_json::{Value, json};

use super::{start, within};

/// Raw HTTP: one POST with the given headers and body.
async fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = within("POST", request.send()).await.unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|value| value.to_str().unwrap().to_owned());
    let text = within("body", response.text()).await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, session, body)
}

const MODERN: &[(&str, &str)] = &[("mcp-protocol-version", "2026-07-28")];

/// A 2025-11-25 `initialize` request body (id 1) from a client named `raw`.
fn legacy_initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    .to_string()
}

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_issued_at_initialize_required_after_and_ended_by_delete() {
    let http = start(Revision::V2025_11_25).await;
    let url = http.url();
    let (status, session, body) = post(&url, &[], &legacy_initialize()).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    let session = session.expect("initialize issues Mcp-Session-Id");
    assert!(
        session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{session}"
    );

    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let (status, _, body) = post(&url, &[], &ping).await;
    assert_eq!(status, 400, "no session id: {body}");
    let with_session = [("mcp-session-id", session.as_str())];
    let (status, _, body) = post(&url, &with_session, &ping).await;
    assert_eq!((status, &body["result"]), (200, &json!({})));
    let (status, _, _) = post(&url, &[("mcp-session-id", "no-such-session")], &ping).await;
    assert_eq!(status, 404);

    let client = reqwest::Client::new();
    let deleted = client
        .delete(&url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string();
    let (status, _, _) = post(&url, &with_session, &ping).await;
    assert_eq!(status, 404, "an ended session is gone");
    let get = client
        .get(&url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status().as_u16(), 405, "no sessionless GET stream");
    let rules: Vec<String> = http.violations().into_iter().map(|v| v.rule).collect();
    assert_eq!(rules, vec![mcp_testserver::http::MISSING_SESSION_ID]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_json_is_a_parse_error_and_the_server_keeps_serving() {
    let http = start(Revision::V2026_07_28).await;
    let (status, _, body) = post(&http.url(), MODERN, "{\"jsonrpc\": ").await;
    assert_eq!(status, 400);
    assert_eq!(
        (body["error"]["code"].as_i64(), &body["id"]),
        (Some(-32700), &Value::Null)
    );
    let echo = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "still here"}, "_meta": modern_meta()}});
    let headers = [
        MODERN[0],
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];
    let (status, _, body) = post(&http.url(), &headers, &echo.to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "still here");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_rules_origin_accept_version_and_mirrored_headers() {
    let http = start(Revision::V2026_07_28).await;
    let url = http.url();
    let echo = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "x"}, "_meta": modern_meta()}})
    .to_string();
    let good = [
        MODERN[0],
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];

    let evil = [
        good[0],
        good[1],
        good[2],
        ("origin", "http://evil.example.com"),
    ];
    assert_eq!(post(&url, &evil, &echo).await.0, 403, "foreign Origin");
    let local = [
        good[0],
        good[1],
        good[2],
        ("origin", "http://localhost:3000"),
    ];
    assert_eq!(post(&url, &local, &echo).await.0, 200, "loopback Origin");

    let json_only = reqwest::Client::new()
        .post(&url)
        .header("accept", "application/json")
        .header("content-type", "application/json")
        .body(echo.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_only.status().as_u16(),
        406,
        "Accept without text/event-stream"
    );

    let (status, _, body) = post(&url, &[("mcp-protocol-version", "1999-01-01")], &echo).await;
    assert_eq!(
        (status, body["error"]["code"].as_i64()),
        (400, Some(-32022)),
        "{body}"
    );

    let wrong_name = [good[0], good[1], ("mcp-name", "fail")];
    let (status, _, body) = post(&url, &wrong_name, &echo).await;
    assert_eq!(
        (status, body["error"]["code"].as_i64()),
        (400, Some(-32020)),
        "{body}"
    );
    let encoded = [good[0], good[1], ("mcp-name", "=?base64?ZWNobw==?=")];
    assert_eq!(post(&url, &encoded, &echo).await.0, 200, "base64 Mcp-Name");

    let unknown = json!({"jsonrpc": "2.0", "id": 10, "method": "no/such", "params": {"_meta": modern_meta()}});
    let headers = [MODERN[0], ("mcp-method", "no/such")];
    let (status, _, body) = post(&url, &headers, &unknown.to_string()).await;
    assert_eq!(
        (status, body["error"]["code"].as_i64(), &body["id"]),
        (404, Some(-32601), &json!(10))
    );
    let rules: Vec<String> = http.violations().into_iter().map(|v| v.rule).collect();
    assert_eq!(rules, vec![mcp_testserver::http::HEADER_MISMATCH_RULE]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_client_closing_the_stream_cancels_under_2026_but_not_under_2025() {
    // 2026-07-28: the closed stream is the cancel.
    let http = start(Revision::V2026_07_28).await;
    let wait = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "wait_gate", "arguments": {"gate": "g"}, "_meta": modern_meta()}});
    let headers = [
        MODERN[0],
        ("mcp-method", "tools/call"),
        ("mcp-name", "wait_gate"),
    ];
    let url = http.url();
    let pending = tokio::spawn(async move { post(&url, &headers, &wait.to_string()).await });
    within("in flight", http.in_flight("wait_gate")).await;
    pending.abort();
    within("idle", http.idle()).await;
    assert_eq!(
        http.handler_log(),
        vec!["wait_gate#5 started", "wait_gate#5 stopped by cancel"]
    );
    let rendered = http.transcript().render();
    assert!(
        rendered.contains("✕ http disconnect 5 (a cancel)"),
        "{rendered}"
    );

    // 2025-11-25: a lost stream is not a cancel; the handler runs on until its gate opens.
    let http = start(Revision::V2025_11_25).await;
    let url = http.url();
    let (_, session, _) = post(&url, &[], &legacy_initialize()).await;
    let session = session.unwrap();
    let wait = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "wait_gate", "arguments": {"gate": "g"}}});
    let (url_for_task, session_for_task) = (url.clone(), session.clone());
    let pending = tokio::spawn(async move {
        post(
            &url_for_task,
            &[("mcp-session-id", &session_for_task)],
            &wait.to_string(),
        )
        .await
    });
    within("in flight", http.in_flight("wait_gate")).await;
    pending.abort();
    // The disconnect is recorded once hyper notices it; the handler keeps running meanwhile.
    within("disconnect noticed", async {
        while !http
            .transcript()
            .render()
            .contains("✕ http disconnect 2 (not a cancel)")
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    http.open_gate("g");
    within("idle", http.idle()).await;
    assert_eq!(
        http.handler_log(),
        vec!["wait_gate#2 started", "wait_gate#2 completed"]
    );
}

/// 2026-07-28 basic/index, "Per-request protocol fields": a request missing a required `_meta`
/// field gets -32602 with HTTP 400, and the violation names which field was missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_required_meta_is_invalid_params_with_400() {
    let http = start(Revision::V2026_07_28).await;
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let cases = [
        (
            json!({"io.modelcontextprotocol/clientCapabilities": {}}),
            "missing-protocol-version",
        ),
        (
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
            "missing-client-capabilities",
        ),
    ];
    for (index, (meta, rule)) in cases.into_iter().enumerate() {
        let body = json!({"jsonrpc": "2.0", "id": index, "method": "tools/list", "params": {"_meta": meta}});
        let (status, _, reply) = post(&http.url(), &headers, &body.to_string()).await;
        assert_eq!(status, 400, "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert_eq!(reply["id"], index, "{reply}");
        let rules: Vec<String> = http.violations().into_iter().map(|v| v.rule).collect();
        assert_eq!(rules.last().map(String::as_str), Some(rule), "{rules:?}");
    }
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": modern_meta()}});
    let (status, _, reply) = post(&http.url(), &headers, &body.to_string()).await;
    assert_eq!(status, 200, "both fields present: {reply}");
}
