//! What one client can do to the server and to other clients (issue 26, item 7): gate names
//! bounded in length and count and freed with the 2025-11-25 session that opened them; a POSTed
//! `notifications/cancelled` under 2026-07-28 that never stops another client's request; a
//! non-loopback bind only with `--allow-non-loopback`, where `Host` may name a loopback address
//! or the address the connection arrived at, and nothing else.

use mcp_testserver_core::gates::{MAX_GATE_NAME_BYTES, MAX_OPEN_GATES};

use super::*;

fn call(id: Value, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

/// A 2025-11-25 `tools/call` in `session`; the JSON-RPC response.
async fn call_in(
    address: SocketAddr,
    session: &str,
    id: u64,
    tool: &str,
    arguments: Value,
) -> Value {
    let reply = post(
        address,
        &[("mcp-session-id", session)],
        &call(json!(id), tool, arguments),
    )
    .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let data = reply
        .body
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&reply.body);
    serde_json::from_str(data).unwrap_or_else(|_| panic!("not JSON: {reply:?}"))
}

/// `open_gate` of `gate` in `session`, and its answer.
async fn open_gate_in(address: SocketAddr, session: &str, id: u64, gate: &str) -> Value {
    call_in(address, session, id, "open_gate", json!({"gate": gate})).await
}

#[tokio::test]
async fn an_over_long_gate_name_is_refused_with_invalid_params() {
    let core = Arc::new(Core::default());
    let server = serve_on_loopback(core.clone(), Limits::in_process()).await;
    let session = session(server.address).await;
    let longest = "g".repeat(MAX_GATE_NAME_BYTES);
    let answer = open_gate_in(server.address, &session, 1, &longest).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        format!("opened {longest}")
    );
    let too_long = "g".repeat(MAX_GATE_NAME_BYTES + 1);
    for (id, tool) in [(2, "open_gate"), (3, "wait_gate")] {
        let answer = call_in(
            server.address,
            &session,
            id,
            tool,
            json!({"gate": too_long}),
        )
        .await;
        assert_eq!(answer["error"]["code"], -32602, "{tool}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert_eq!(
            message,
            format!(
                "Invalid params: `{tool}.gate`: a gate name is at most 256 bytes; this one has 257"
            ),
        );
    }
    assert_eq!(core.gates.len(), 1, "the refused name was not kept");
}

/// Each session has its own cap of open gates: one at the cap is refused another, while a
/// second session still opens its own (before, the cap was the server's, so one client's 1000
/// gates refused every other client's `open_gate`). A session's gates close, and its cap is
/// free again, when it ends.
#[tokio::test]
async fn gates_are_bounded_in_count_per_session_and_freed_with_it() {
    let core = Arc::new(Core::default());
    let server = serve_on_loopback(core.clone(), Limits::in_process()).await;
    let first = session(server.address).await;
    for n in 0..MAX_OPEN_GATES as u64 {
        let answer = open_gate_in(server.address, &first, n + 1, &format!("gate-{n}")).await;
        assert!(answer.get("result").is_some(), "gate {n}: {answer}");
    }
    assert_eq!(core.gates.len(), MAX_OPEN_GATES);
    let answer = open_gate_in(
        server.address,
        &first,
        MAX_OPEN_GATES as u64 + 1,
        "one-too-many",
    )
    .await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "Invalid params: `open_gate.gate`: 1000 gates are open already (the limit); reuse a gate name, or end the session that opened them"
    );
    // Reopening an open gate is no new gate: still served.
    let answer = open_gate_in(server.address, &first, MAX_OPEN_GATES as u64 + 2, "gate-7").await;
    assert!(answer.get("result").is_some(), "{answer}");
    // Another session's cap is its own.
    let second = session(server.address).await;
    let answer = open_gate_in(server.address, &second, 1, "one-too-many").await;
    assert!(
        answer.get("result").is_some(),
        "the second session's: {answer}"
    );
    assert_eq!(core.gates.len(), MAX_OPEN_GATES + 1);
    // The first session ends: its gates close, and its names and its cap are freed.
    let reply = raw(
        server.address,
        "DELETE",
        &[("Host", "127.0.0.1"), ("mcp-session-id", &first)],
        "",
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(core.gates.len(), 1, "the second session's gate is left");
    assert!(core.gates.is_open("one-too-many"));
    // Gates opened without a session (the harness, a 2026-07-28 request) stay.
    core.gates.open("the server's");
    let reply = raw(
        server.address,
        "DELETE",
        &[("Host", "127.0.0.1"), ("mcp-session-id", &second)],
        "",
    )
    .await;
    assert_eq!(reply.status, 200);
    assert!(!core.gates.is_open("one-too-many"));
    assert!(core.gates.is_open("the server's"));
}

/// Two 2026-07-28 clients each have a request with id 1 running. One POSTs
/// `notifications/cancelled` naming 1: it is accepted (202) and dropped, so neither call stops
/// (before, the server cancelled whichever request was the only one with that id, another
/// client's included). Each client's own cancel, its closed stream, still works.
#[tokio::test]
async fn a_posted_cancel_never_stops_another_clients_request() {
    let core = Arc::new(Core::default());
    let server = serve_on_loopback(core.clone(), Limits::in_process()).await;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let waiting = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "wait_gate", "arguments": {"gate": "g"}, "_meta": meta}})
    .to_string();
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "wait_gate"),
    ];
    let address = server.address;
    let victim = {
        let waiting = waiting.clone();
        tokio::spawn(async move { post(address, &headers, &waiting).await })
    };
    core.handlers.wait_in_flight("wait_gate").await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1, "reason": "not yours"}})
    .to_string();
    let reply = post_modern(address, "notifications/cancelled", &cancel).await;
    assert_eq!((reply.status, reply.body.as_str()), (202, ""), "{reply:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!victim.is_finished(), "the other client's call was stopped");
    let log = core.handlers.entries();
    assert!(
        !log.iter().any(|line| line.contains("stopped by cancel")),
        "{log:?}"
    );
    assert_eq!(
        log.last().map(String::as_str),
        Some(
            "cancel for 1 POSTed over Streamable HTTP ignored: under 2026-07-28 only closing the request's response stream cancels it"
        )
    );
    assert_eq!(
        core.violations.list(),
        [],
        "no violation: real clients send it"
    );
    core.gates.open("g");
    let reply = tokio::time::timeout(LIMIT, victim).await.unwrap().unwrap();
    assert!(reply.body.contains("gate g opened"), "{reply:?}");
}

/// `--http 0.0.0.0:0` (any address that is not loopback) is refused at start-up, exit 2,
/// naming the flag; before, it only printed a warning and served.
#[tokio::test]
async fn a_non_loopback_bind_needs_allow_non_loopback() {
    for address in ["0.0.0.0:0", "[::]:0", "192.0.2.2:0"] {
        let output = tokio::process::Command::new(BINARY)
            .args(["--http", address])
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(LIMIT, output).await.unwrap().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{address}: {stderr}");
        assert!(
            stderr.contains("not a loopback address") && stderr.contains("--allow-non-loopback"),
            "{address}: {stderr}"
        );
        assert!(!stderr.contains("listening"), "{stderr}");
    }
    let output = tokio::process::Command::new(BINARY)
        .args(["--allow-non-loopback"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(LIMIT, output).await.unwrap().unwrap();
    assert_eq!(output.status.code(), Some(2), "the flag alone is no server");
}

/// With the flag, the server serves on `0.0.0.0`; through a loopback connection the loopback
/// names are served and any other `Host` refused, as on a loopback bind (the rule for a
/// connection that arrives at a non-loopback address is checked in `checks_tests.rs`).
#[tokio::test]
async fn with_allow_non_loopback_host_must_still_name_this_machine() {
    let (program, args) = (BINARY, ["--http", "0.0.0.0:0", "--allow-non-loopback"]);
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    let port: u16 = tokio::time::timeout(LIMIT, async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            said.push(line.clone());
            if let Some(url) = line.strip_prefix("mcp-testserver: listening on http://0.0.0.0:") {
                return url.trim_end_matches("/mcp").parse().unwrap();
            }
        }
        panic!("no address: {said:?}");
    })
    .await
    .unwrap();
    assert!(
        said.iter()
            .any(|line| line.contains("serving beyond loopback")),
        "{said:?}"
    );
    let address: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let body = initialize_body();
    for host in ["localhost", "127.0.0.1:1", "[::1]"] {
        let headers = [
            ("Host", host),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        let reply = raw(address, "POST", &headers, &body).await;
        assert_eq!(reply.status, 200, "Host {host}: {reply:?}");
    }
    for host in ["evil.com", "192.0.2.2.evil.com", "localhost.evil.com"] {
        let headers = [
            ("Host", host),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        let reply = raw(address, "POST", &headers, &body).await;
        assert_eq!(reply.status, 403, "Host {host}: {reply:?}");
    }
    child.kill().await.unwrap();
}
