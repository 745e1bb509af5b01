//! Plain calls: one echo, two concurrent calls whose responses come back out of order, and how
//! rmcp's client matches response ids (a string `"N"` aliases its integer request `N`).

use std::time::Duration;

use mcp_testserver::{Revision, TestServer};
use rmcp::ServiceExt;
use serde_json::{Value, json};

use super::{connect, last_call_id, until};
use crate::rmcp_support::{answered, assert_no_violations, call, received, sent, text};

#[tokio::test(start_paused = true)]
async fn call_echo() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let result = client
            .call_tool(call("echo", json!({"text": "hello"})))
            .await
            .unwrap();
        assert_eq!(text(&result), "hello", "{revision}");
        assert!(answered(&server, &last_call_id(&server)), "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn concurrent_calls_complete_out_of_order() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let peer = client.peer().clone();
        let first = tokio::spawn(async move {
            peer.call_tool(call("wait_gate", json!({"gate": "first"})))
                .await
        });
        let peer = client.peer().clone();
        let second = tokio::spawn(async move {
            peer.call_tool(call("wait_gate", json!({"gate": "second"})))
                .await
        });
        until("two wait_gate handlers", || {
            server
                .handler_log()
                .iter()
                .filter(|line| line.ends_with("started"))
                .count()
                == 2
        })
        .await;

        server.open_gate("second");
        let second = second.await.unwrap().unwrap();
        assert_eq!(text(&second), "gate second opened", "{revision}");
        assert!(
            !first.is_finished(),
            "{revision}: the first call must still wait for its gate"
        );
        server.open_gate("first");
        let first = first.await.unwrap().unwrap();
        assert_eq!(text(&first), "gate first opened", "{revision}");

        // On the wire: both requests went out before either response came back, and the
        // responses came back in the opposite order.
        let responses: Vec<Value> = sent(&server)
            .into_iter()
            .filter(|message| {
                message
                    .get("result")
                    .is_some_and(|result| result.get("content").is_some())
            })
            .map(|message| message["id"].clone())
            .collect();
        let requests: Vec<Value> = received(&server)
            .into_iter()
            .filter(|message| message["method"] == "tools/call")
            .map(|message| message["id"].clone())
            .collect();
        assert_eq!(requests.len(), 2, "{revision}");
        let reversed: Vec<Value> = requests.iter().rev().cloned().collect();
        assert_eq!(responses, reversed, "{revision}");
        assert_no_violations(&server);
    }
}

/// A deviation worth a sentence in the book: the spec says `"4"` and `4` are different ids, yet
/// rmcp's client matches a response whose id is the *string* `"N"` to its pending request `N`.
/// Shown with a hand-written fake server that answers every `tools/call` with a stringified id.
#[tokio::test(start_paused = true)]
async fn rmcp_client_aliases_a_string_response_id_to_its_integer_request() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let fake_server = tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        let mut stringified = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            let request: Value = serde_json::from_str(&line).unwrap();
            let reply = match request["method"].as_str() {
                Some("initialize") => json!({"jsonrpc": "2.0", "id": request["id"], "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fake", "version": "0"}}}),
                Some("tools/call") => {
                    let id = request["id"].to_string();
                    stringified.push(id.clone());
                    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "aliased"}]}})
                }
                _ => continue,
            };
            write
                .write_all(format!("{reply}\n").as_bytes())
                .await
                .unwrap();
        }
        stringified
    });
    let client = ().serve(client_end).await.unwrap();
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        client.call_tool(call("echo", json!({"text": "x"}))),
    )
    .await;
    let result = result.expect("rmcp matched the string id").unwrap();
    assert_eq!(text(&result), "aliased");
    client.cancel().await.unwrap();
    let stringified = fake_server.await.unwrap();
    assert_eq!(
        stringified.len(),
        1,
        "exactly one call answered with a string id"
    );
}
