//! Unit tests of `checks.rs`.

use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::{MirroredArgument, accepts, request_metadata};

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        let name = HeaderName::from_bytes(name.as_bytes()).unwrap();
        map.append(name, HeaderValue::from_bytes(value.as_bytes()).unwrap());
    }
    map
}

#[test]
fn only_a_whole_loopback_authority_is_loopback() {
    let cases = [
        ("localhost", true),
        ("LOCALHOST:8080", true),
        ("127.0.0.1:1", true),
        ("[::1]", true),
        ("[::1]:65535", true),
        ("[::1]evil.com", false),
        ("[::1]:80evil.com", false),
        ("[::1", false),
        ("localhost:", false),
        ("localhost:80:80", false),
        ("localhost:80@evil.com", false),
        ("127.0.0.1.evil.com", false),
        ("localhost.evil.com", false),
        ("evil.com", false),
        ("", false),
    ];
    for (authority, expected) in cases {
        for arrived_at in [None, Some("127.0.0.1".parse().unwrap())] {
            let named = super::names_this_machine(authority, arrived_at);
            assert_eq!(named, expected, "{authority:?} on {arrived_at:?}");
        }
    }
}

/// On a connection that arrived at a non-loopback address (a bind allowed by
/// `--allow-non-loopback`), that address names this machine too, as an IP literal only: a
/// rebinding page's host name never does. Loopback names still do (a non-browser client can
/// send any `Host`, so refusing them would protect nobody; port forwarding sends them).
#[test]
fn a_non_loopback_connection_also_accepts_the_address_it_arrived_at() {
    let arrived_at = Some("192.0.2.2".parse().unwrap());
    let cases = [
        ("192.0.2.2", true),
        ("192.0.2.2:8080", true),
        ("localhost:8080", true),
        ("[::1]", true),
        ("192.0.2.3:8080", false),
        ("192.0.2.2.evil.com", false),
        ("evil.com:8080", false),
        ("[::ffff:192.0.2.2]:8080", true),
    ];
    for (authority, expected) in cases {
        let named = super::names_this_machine(authority, arrived_at);
        assert_eq!(named, expected, "{authority:?} on 192.0.2.2");
    }
    // Through a loopback connection, or an unknown one, the machine's other address is no name
    // of it: the old rule, unchanged.
    for arrived_at in [None, Some("127.0.0.1".parse().unwrap())] {
        assert!(!super::names_this_machine("192.0.2.2:8080", arrived_at));
    }
    let v6 = Some("2001:db8::5".parse().unwrap());
    assert!(super::names_this_machine("[2001:db8::5]:80", v6));
    assert!(!super::names_this_machine("2001:db8::5", v6), "unbracketed");
}

#[test]
fn accept_admits_media_ranges_and_refuses_q_zero() {
    let check =
        |accept: &str, media_type: &str| accepts(&headers(&[("accept", accept)]), media_type);
    let cases = [
        ("application/json", "application/json", true),
        ("APPLICATION/JSON; charset=utf-8", "application/json", true),
        ("*/*", "text/event-stream", true),
        ("application/*", "application/json", true),
        ("application/*", "text/event-stream", false),
        ("text/*;q=0.5", "text/event-stream", true),
        ("text/html, text/*", "text/event-stream", true),
        ("text/html", "text/event-stream", false),
        ("*/*;q=0", "application/json", false),
        ("application/json;q=0, */*", "application/json", true),
        ("", "application/json", false),
    ];
    for (accept, media_type, expected) in cases {
        assert_eq!(
            check(accept, media_type),
            expected,
            "Accept: {accept} for {media_type}"
        );
    }
    assert!(
        !accepts(&HeaderMap::new(), "application/json"),
        "no Accept header"
    );
    let split = headers(&[("accept", "application/json"), ("accept", "text/*")]);
    assert!(accepts(&split, "text/event-stream"), "two Accept lines");
}

fn call(arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "tool", "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
}

/// The outcome of `request_metadata` for `message` with the standard headers plus `extra`:
/// "ok" or the error code and message.
fn check(message: &Value, name: Option<&str>, extra: &[(&str, &str)]) -> String {
    let method = message["method"].as_str().unwrap();
    let mut pairs = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if let Some(name) = name {
        pairs.push(("mcp-name", name));
    }
    pairs.extend_from_slice(extra);
    let mirrored = [MirroredArgument {
        argument: "region".into(),
        header: "Region".into(),
    }];
    match request_metadata(&headers(&pairs), message, &mirrored) {
        Ok(()) => "ok".to_owned(),
        Err((code, _, message)) => format!("{code} {message}"),
    }
}

#[test]
fn mcp_name_ignores_surrounding_whitespace_and_routes_tasks_by_task_id() {
    let plain = call(json!({}));
    assert_eq!(check(&plain, Some("  tool\t"), &[]), "ok");
    assert_eq!(
        check(&plain, Some("other"), &[]),
        "-32020 Header mismatch: Mcp-Name header value 'other' does not match body value 'tool'"
    );
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "tsk-1",
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    assert_eq!(check(&get, Some("tsk-1"), &[]), "ok");
    assert_eq!(
        check(&get, None, &[]),
        "-32020 Header mismatch: the Mcp-Name header is missing"
    );
    assert_eq!(
        check(&get, Some("tsk-2"), &[]),
        "-32020 Header mismatch: Mcp-Name header value 'tsk-2' does not match body value 'tsk-1'"
    );
}

#[test]
fn mirrored_arguments_must_match_their_mcp_param_headers() {
    let hello = call(json!({"region": "Hello"}));
    let with = |value: &str| check(&hello, Some("tool"), &[("mcp-param-region", value)]);
    assert_eq!(with("Hello"), "ok");
    assert_eq!(with("=?base64?SGVsbG8=?="), "ok", "Base64 decoded");
    assert!(
        with("=?base64?SGVsbG8?=").starts_with("-32020 "),
        "bad padding"
    );
    assert!(
        with("=?base64?SGVs!!!bG8=?=").starts_with("-32020 "),
        "not Base64"
    );
    assert!(with("Goodbye").starts_with("-32020 "), "another value");
    assert_eq!(
        check(&hello, Some("tool"), &[]),
        "-32020 Header mismatch: the Mcp-Param-Region header is missing (argument `region` is in the body)"
    );
    // Without the sentinel's both ends, a value is literal.
    let literal = call(json!({"region": "=?base64?SGVsbG8="}));
    let header = [("mcp-param-region", "=?base64?SGVsbG8=")];
    assert_eq!(check(&literal, Some("tool"), &header), "ok");
    // Null or absent: no header expected.
    assert_eq!(
        check(&call(json!({"region": null})), Some("tool"), &[]),
        "ok"
    );
    assert_eq!(check(&call(json!({})), Some("tool"), &[]), "ok");
}

#[test]
fn mirrored_arguments_come_from_x_mcp_header_annotations() {
    let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}, "query": {"type": "string"}}}});
    assert_eq!(
        super::mirrored_arguments(&tool),
        [MirroredArgument {
            argument: "region".into(),
            header: "Region".into()
        }]
    );
    assert!(super::mirrored_arguments(&json!({"name": "bare"})).is_empty());
}

/// The outcome of `request_metadata` for `message` with exactly `pairs` as headers.
fn outcome(message: &Value, pairs: &[(&str, &str)]) -> String {
    match request_metadata(&headers(pairs), message, &[]) {
        Ok(()) => "ok".to_owned(),
        Err((code, rule, message)) => format!("{code} {rule} {message}"),
    }
}

/// 2026-07-28 defines the metadata headers for requests only ("header requirements for
/// notification POSTs are not defined by this revision"), so a notification without them is
/// accepted; one it does carry must still match the body (*Server Validation*).
#[test]
fn a_notification_needs_no_metadata_headers_but_those_it_has_must_match() {
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1}});
    let version = ("mcp-protocol-version", "2026-07-28");
    assert_eq!(outcome(&cancel, &[version]), "ok", "no Mcp-Method");
    assert_eq!(
        outcome(
            &cancel,
            &[version, ("mcp-method", "notifications/cancelled")]
        ),
        "ok"
    );
    assert_eq!(
        outcome(&cancel, &[version, ("mcp-method", "tools/call")]),
        "-32020 http-header-mismatch Header mismatch: Mcp-Method header value 'tools/call' does not match body value 'notifications/cancelled'"
    );
    let stamped = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1,
                   "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
    assert_eq!(outcome(&stamped, &[]), "ok", "no header at all");
    assert_eq!(
        outcome(&stamped, &[("mcp-protocol-version", "2025-11-25")]),
        "-32020 http-header-mismatch Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'"
    );
    // A request still needs both.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    assert_eq!(
        outcome(&list, &[version]),
        "-32020 http-header-mismatch Header mismatch: the Mcp-Method header is missing"
    );
    assert_eq!(
        outcome(&list, &[("mcp-method", "tools/list")]),
        "-32020 http-header-mismatch Header mismatch: the MCP-Protocol-Version header is missing"
    );
}
