//! Memory bounded by bytes, not only by counts (issue 26, item 7), through the binary over HTTP
//! with its default limits, measured as the process's VmRSS from `/proc`: large messages, many
//! large calls held open at once, and large request ids in one 2025-11-25 session. The figures
//! with a release build, and the allocator's part, are in `testserver/README.md`
//! (`cargo bench -p mcp-testserver --bench memory`).

use super::*;

/// The size of each large string: just under the 4 MiB the server reads in one message.
const LARGE: usize = 3_900_000;
/// The most RSS any of these attacks may leave the server at (the target: about 200 MB).
const RSS_LIMIT_MIB: u64 = 200;

/// The resident set of process `pid`, in MiB.
pub(crate) fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("reading /proc");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .expect("a VmRSS line");
    kib / 1024
}

fn modern_call(id: u64, tool: &str, arguments: Value, meta_extra: Option<&str>) -> String {
    let mut meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}});
    if let Some(extra) = meta_extra {
        meta["pad"] = json!(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments, "_meta": meta}})
    .to_string()
}

async fn post_call(address: SocketAddr, tool: &str, body: &str) -> Reply {
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    post(address, &headers, body).await
}

/// 60 `tools/call echo` of 3.9 MB each: before, the transcript kept every one (twice: the
/// request and its echo), about 500 MB; now it keeps 32 MiB of them and says how many it
/// dropped.
#[tokio::test]
async fn sixty_calls_of_3_9_mb_stay_under_200_mb() {
    let (mut child, address) = spawn_http(&[], &[], Stdio::null()).await;
    let pid = child.id().unwrap();
    let text = "x".repeat(LARGE);
    for id in 0..60 {
        let reply = post_call(
            address,
            "echo",
            &modern_call(id, "echo", json!({"text": text}), None),
        )
        .await;
        assert_eq!(
            reply.status,
            200,
            "call {id}: {}",
            &reply.body[..200.min(reply.body.len())]
        );
        assert!(
            reply.body.len() > LARGE,
            "call {id}: the echo came back whole"
        );
    }
    let rss = rss_mib(pid);
    assert!(
        rss < RSS_LIMIT_MIB,
        "RSS {rss} MiB after 60 calls of 3.9 MB"
    );
    let reply = post_call(
        address,
        "transcript",
        &modern_call(60, "transcript", json!({}), None),
    )
    .await;
    assert!(
        reply.body.contains("earlier messages dropped"),
        "the transcript says it dropped messages: {}",
        &reply.body[..300.min(reply.body.len())]
    );
    child.kill().await.unwrap();
}

/// 60 `wait_gate` calls held open at once, each carrying 3.9 MB in `_meta`: before, each call
/// kept its body, its parsed copy and its whole `params` while it waited (about 810 MB); now
/// only what the handler needs.
#[tokio::test]
async fn sixty_waiting_calls_of_3_9_mb_stay_under_200_mb() {
    let (mut child, address) = spawn_http(&[], &[], Stdio::null()).await;
    let pid = child.id().unwrap();
    let pad = "p".repeat(LARGE);
    let mut waiting = Vec::new();
    for id in 0..60 {
        let body = modern_call(id, "wait_gate", json!({"gate": "g"}), Some(&pad));
        waiting.push(tokio::spawn(async move {
            post_call(address, "wait_gate", &body).await
        }));
    }
    // Every call is in: the handler log shows 60 starts.
    let deadline = Instant::now() + LIMIT;
    loop {
        let reply = post_call(
            address,
            "handler_log",
            &modern_call(1000, "handler_log", json!({}), None),
        )
        .await;
        let started = reply.body.matches("started").count();
        if started >= 60 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "only {started} calls started: {}",
            reply.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rss = rss_mib(pid);
    let reply = post_call(
        address,
        "open_gate",
        &modern_call(1001, "open_gate", json!({"gate": "g"}), None),
    )
    .await;
    assert_eq!(reply.status, 200);
    for call in waiting {
        assert_eq!(call.await.unwrap().status, 200);
    }
    assert!(
        rss < RSS_LIMIT_MIB,
        "RSS {rss} MiB with 60 calls of 3.9 MB waiting"
    );
    child.kill().await.unwrap();
}

/// 60 requests of one 2025-11-25 session with ids of 3.9 MB: the session keeps every id it saw
/// (to flag reuse), so before it held all 60 (about 390 MB); now a long id is kept as its
/// SHA-256, and reuse is still flagged.
#[tokio::test]
async fn sixty_ids_of_3_9_mb_in_one_session_stay_under_200_mb() {
    let (mut child, address) = spawn_http(&[], &[], Stdio::null()).await;
    let pid = child.id().unwrap();
    let session = session(address).await;
    let in_session = [("mcp-session-id", session.as_str())];
    let long_id = |n: u32| format!("{n}{}", "i".repeat(LARGE));
    for n in 0..60 {
        let body = json!({"jsonrpc": "2.0", "id": long_id(n), "method": "ping"}).to_string();
        let reply = post(address, &in_session, &body).await;
        assert_eq!(reply.status, 200, "ping {n}");
    }
    let rss = rss_mib(pid);
    assert!(rss < RSS_LIMIT_MIB, "RSS {rss} MiB after 60 ids of 3.9 MB");
    // The third id again: still flagged as reused, and no other id is.
    let body = json!({"jsonrpc": "2.0", "id": long_id(2), "method": "ping"}).to_string();
    assert_eq!(post(address, &in_session, &body).await.status, 200);
    let violations = json!({"jsonrpc": "2.0", "id": 9999, "method": "tools/call",
                            "params": {"name": "violations", "arguments": {}}});
    let reply = post(address, &in_session, &violations.to_string()).await;
    assert_eq!(reply.body.matches("reused-id").count(), 1, "{}", reply.body);
    assert!(
        reply.body.contains("2iiiiii"),
        "the key shows the id's start: {}",
        reply.body
    );
    child.kill().await.unwrap();
}
