//! Every POST gets an answer on its own response: an id that is no string or integer, an empty
//! body, an id without a method, a call running when its session is deleted, `Host` and `Origin`
//! that are not exactly loopback.

use super::*;

const BAD_IDS: [&str; 6] = [
    "{\"a\":1}",
    "[1]",
    "1.5",
    "true",
    "18446744073709551616",
    "1e30",
];

#[tokio::test]
async fn an_id_that_is_no_string_or_integer_is_answered_400_on_its_own_post() {
    let server = serve_on_loopback(Arc::new(Core::default()), Limits::in_process()).await;
    let session = session(server.address).await;
    for bad in BAD_IDS {
        let legacy = format!(r#"{{"jsonrpc":"2.0","id":{bad},"method":"tools/list"}}"#);
        let reply = post(server.address, &[("mcp-session-id", &session)], &legacy).await;
        assert_eq!(
            (reply.status, reply.code()),
            (400, -32600),
            "2025-11-25 id {bad}: {reply:?}"
        );
        assert_eq!(reply.json()["id"], Value::Null);
        let modern = format!(
            r#"{{"jsonrpc":"2.0","id":{bad},"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        );
        let reply = post_modern(server.address, "tools/list", &modern).await;
        assert_eq!(
            (reply.status, reply.code()),
            (400, -32600),
            "2026-07-28 id {bad}: {reply:?}"
        );
    }
}

#[tokio::test]
async fn an_empty_body_or_an_id_without_method_is_answered_400() {
    let server = serve_on_loopback(Arc::new(Core::default()), Limits::in_process()).await;
    let session = session(server.address).await;
    let in_session = [("mcp-session-id", session.as_str())];
    for body in ["", " \r\n\t "] {
        let reply = post(server.address, &in_session, body).await;
        assert_eq!(
            (reply.status, reply.code()),
            (400, -32700),
            "{body:?}: {reply:?}"
        );
        let reply = post_modern(server.address, "ping", body).await;
        assert_eq!(
            (reply.status, reply.code()),
            (400, -32700),
            "{body:?}: {reply:?}"
        );
    }
    let reply = post(server.address, &in_session, r#"{"jsonrpc":"2.0","id":5}"#).await;
    assert_eq!((reply.status, reply.code()), (400, -32600), "{reply:?}");
    assert_eq!(reply.json()["id"], 5, "the id is echoed");
    let reply = post_modern(server.address, "ping", r#"{"jsonrpc":"2.0","id":"x"}"#).await;
    assert_eq!((reply.status, reply.code()), (400, -32600), "{reply:?}");
    assert_eq!(reply.json()["id"], "x");
}

#[tokio::test]
async fn a_call_running_when_its_session_is_deleted_is_answered_404() {
    let server = serve_on_loopback(Arc::new(Core::default()), Limits::in_process()).await;
    let session = session(server.address).await;
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "wait_gate", "arguments": {"gate": "never"}}});
    let address = server.address;
    let in_flight = {
        let session = session.clone();
        tokio::spawn(async move {
            post(address, &[("mcp-session-id", &session)], &call.to_string()).await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let headers = [("Host", "localhost"), ("mcp-session-id", session.as_str())];
    let deleted = raw(address, "DELETE", &headers, "").await;
    assert_eq!(deleted.status, 200);
    let reply = tokio::time::timeout(LIMIT, in_flight)
        .await
        .expect("answered")
        .unwrap();
    assert_eq!(reply.status, 404, "{reply:?}");
    assert_eq!(reply.json()["id"], 9, "{reply:?}");
    assert_eq!(reply.code(), -32600, "{reply:?}");
}

#[tokio::test]
async fn host_and_origin_must_be_exactly_loopback_and_host_present() {
    let server = serve_on_loopback(Arc::new(Core::default()), Limits::in_process()).await;
    let body = initialize_body();
    for (name, value) in [
        ("Origin", "http://[::1]evil.com"),
        ("Origin", "http://localhost:80@evil.com"),
        ("Origin", "http://127.0.0.1.evil.com"),
    ] {
        let reply = post(server.address, &[(name, value)], &body).await;
        assert_eq!(reply.status, 403, "{name}: {value}: {reply:?}");
    }
    let without_host = &JSON_HEADERS[1..];
    for host in ["[::1]evil.com", "[::1]:80evil.com", "localhost:x"] {
        let headers: Vec<_> = without_host
            .iter()
            .copied()
            .chain([("Host", host)])
            .collect();
        let reply = raw(server.address, "POST", &headers, &body).await;
        assert_eq!(reply.status, 403, "Host: {host}: {reply:?}");
    }
    let reply = raw(server.address, "POST", without_host, &body).await;
    assert_eq!(
        (reply.status, reply.code()),
        (400, -32600),
        "no Host: {reply:?}"
    );
    let two: Vec<_> = JSON_HEADERS
        .iter()
        .copied()
        .chain([("Host", "localhost")])
        .collect();
    let reply = raw(server.address, "POST", &two, &body).await;
    assert_eq!(reply.status, 400, "two Host headers: {reply:?}");
    let reply = post(server.address, &[("Origin", "http://[::1]:3000")], &body).await;
    assert_eq!(reply.status, 200, "loopback still served: {reply:?}");
}

/// A 2026-07-28 notification POST without `Mcp-Method` (the TypeScript SDK 2.4.0's `close()`
/// sends one) is accepted with 202 and no violation: "header requirements for notification
/// POSTs are not defined by this revision" (basic/transports/streamable-http, *Sending
/// Messages*). A header it does carry that contradicts the body is still a mismatch
/// (*Server Validation*).
#[tokio::test]
async fn a_2026_notification_post_without_mcp_method_is_accepted_without_a_violation() {
    let core = Arc::new(Core::default());
    let server = serve_on_loopback(core.clone(), Limits::in_process()).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1, "reason": "closing"}})
    .to_string();
    let version = ("mcp-protocol-version", "2026-07-28");
    let reply = post(server.address, &[version], &cancel).await;
    assert_eq!((reply.status, reply.body.as_str()), (202, ""), "{reply:?}");
    assert_eq!(
        core.violations.list(),
        [],
        "no violation for a bare notification"
    );
    let reply = post_modern(server.address, "notifications/cancelled", &cancel).await;
    assert_eq!(reply.status, 202, "with a matching Mcp-Method: {reply:?}");
    assert_eq!(core.violations.list(), []);
    let reply = post_modern(server.address, "tools/call", &cancel).await;
    assert_eq!((reply.status, reply.code()), (400, -32020), "{reply:?}");
    let rules: Vec<_> = core.violations.list().into_iter().map(|v| v.rule).collect();
    assert_eq!(rules, ["http-header-mismatch"], "a contradicting header");
}
