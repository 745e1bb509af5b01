//! One scenario per protocol rule, written against the wire only. Each takes a `connect`
//! function, so the same scenario runs in-process (`tests/protocol.rs`) and over stdio
//! (`tests/stdio.rs`).

use std::time::Duration;

use mcp_testserver::Revision;
use serde_json::{Value, json};

use super::{Conn, code, text};

pub type Connect = fn(Revision) -> Conn;

/// Long enough for a wrong message to show up, short enough for the stdio tests.
const QUIET: Duration = Duration::from_millis(300);

async fn ready(connect: Connect, revision: Revision) -> Conn {
    let mut conn = connect(revision);
    conn.initialize().await;
    conn
}

/// Everything that arrives within `QUIET`.
async fn drain(conn: &mut Conn) -> Vec<Value> {
    let mut messages = Vec::new();
    while let Some(message) = conn.try_recv(QUIET).await {
        messages.push(message);
    }
    messages
}

pub async fn initialize_negotiates_the_handshake_revision(connect: Connect) {
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

fn params_for(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
}

pub async fn discover_advertises_2026_07_28_without_initialize(connect: Connect) {
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

pub async fn requests_without_version_or_initialize_are_rejected(connect: Connect) {
    let mut conn = connect(Revision::V2025_11_25);
    let response = conn.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(code(&response), -32600, "{response}");
    // The connection still works, and the violation is on record.
    conn.initialize().await;
    assert_eq!(
        conn.violation_rules(json!(2)).await,
        ["missing-protocol-version"]
    );
}

pub async fn unsupported_version_gets_32022(connect: Connect) {
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

pub async fn ping_exists_only_under_2025(connect: Connect) {
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

pub async fn ids_are_echoed_with_their_json_type(connect: Connect) {
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

pub async fn null_id_is_an_invalid_request(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send(json!({"jsonrpc": "2.0", "id": null, "method": "tools/list"}))
        .await;
    let response = conn.recv().await;
    assert_eq!(code(&response), -32600);
    assert_eq!(response["id"], Value::Null);
    assert_eq!(conn.violation_rules(json!(1)).await, ["null-id"]);
}

pub async fn reused_id_is_a_violation_per_revision(connect: Connect) {
    // 2025-11-25: no reuse within the session, even after completion (still served).
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    assert_eq!(
        text(&conn.call(json!(1), "echo", json!({"text": "a"})).await),
        "a"
    );
    assert_eq!(
        text(&conn.call(json!(1), "echo", json!({"text": "b"})).await),
        "b"
    );
    assert_eq!(conn.violation_rules(json!(2)).await, ["reused-id"]);
    // 2026-07-28: reuse after completion is fine; reuse while in flight is not.
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    assert_eq!(
        text(&conn.call(json!(1), "echo", json!({"text": "a"})).await),
        "a"
    );
    assert_eq!(
        text(&conn.call(json!(1), "echo", json!({"text": "b"})).await),
        "b"
    );
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

pub async fn server_requests_use_their_own_id_space(connect: Connect) {
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

pub async fn cancel_stops_the_handler_and_no_response_follows(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        // Lines are handled in order, so the handler is running when the cancel is read.
        conn.send_request(
            json!(1),
            "tools/call",
            json!({"name": "wait_gate", "arguments": {"gate": "g"}}),
        )
        .await;
        conn.cancel(json!(1)).await;
        assert_eq!(
            text(&conn.call(json!(2), "open_gate", json!({"gate": "g"})).await),
            "opened g"
        );
        let late = drain(&mut conn).await;
        assert!(
            late.is_empty(),
            "{revision}: nothing may follow a cancel: {late:?}"
        );
        // A slow call stops between steps: no more progress, no response.
        let params = json!({"name": "slow", "arguments": {"steps": 50, "step_ms": 20}, "_meta": {"progressToken": "p"}});
        conn.send_request(json!(3), "tools/call", params).await;
        let first = conn.recv().await;
        assert_eq!(first["params"]["progress"], 1, "{first}");
        conn.cancel(json!(3)).await;
        let after = drain(&mut conn).await;
        assert!(
            after
                .iter()
                .all(|m| m["method"] == "notifications/progress"),
            "{after:?}"
        );
        assert!(
            after.len() <= 1,
            "{revision}: at most one progress can cross the cancel: {after:?}"
        );
        assert!(conn.violation_rules(json!(4)).await.is_empty());
    }
}

pub async fn cancel_of_unknown_id_is_a_violation_and_finished_ids_are_ignored(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        assert_eq!(
            text(&conn.call(json!(1), "echo", json!({"text": "done"})).await),
            "done"
        );
        conn.cancel(json!(1)).await;
        assert!(
            conn.violation_rules(json!(2)).await.is_empty(),
            "{revision}: cancel after completion is the normal race"
        );
        conn.cancel(json!(99)).await;
        assert_eq!(
            conn.violation_rules(json!(3)).await,
            ["cancel-unknown-id"],
            "{revision}"
        );
    }
}

pub async fn cancelling_initialize_is_a_violation(connect: Connect) {
    let mut conn = connect(Revision::V2025_11_25);
    conn.send_request(json!(0), "initialize", params_for("2025-11-25"))
        .await;
    conn.cancel(json!(0)).await;
    let response = conn.response(&json!(0)).await;
    assert_eq!(
        response["result"]["protocolVersion"], "2025-11-25",
        "initialize is never cancelled"
    );
    conn.notify("notifications/initialized", json!({})).await;
    assert_eq!(
        conn.violation_rules(json!(1)).await,
        ["cancelled-initialize"]
    );
}

pub async fn tasks_are_cancelled_only_with_tasks_cancel(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    let params =
        json!({"name": "slow", "arguments": {"steps": 100, "step_ms": 50}, "task": {"ttl": 60000}});
    let created = conn.request(json!(1), "tools/call", params).await;
    let task_id = created["result"]["task"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    conn.cancel(json!(1)).await;
    assert_eq!(conn.violation_rules(json!(2)).await, ["cancelled-task"]);
    let status = conn
        .request(json!(3), "tasks/get", json!({"taskId": task_id}))
        .await;
    assert_eq!(
        status["result"]["status"], "working",
        "notifications/cancelled does not cancel a task"
    );
    let cancelled = conn
        .request(json!(4), "tasks/cancel", json!({"taskId": task_id}))
        .await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let again = conn
        .request(json!(5), "tasks/cancel", json!({"taskId": task_id}))
        .await;
    assert_eq!(code(&again), -32602, "cancelling a terminal task: {again}");
}

pub async fn progress_only_with_token_strictly_increasing_never_after_response(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        let response = conn
            .call(json!(1), "slow", json!({"steps": 3, "step_ms": 10}))
            .await;
        assert_eq!(text(&response), "completed 3 steps");
        assert!(
            conn.backlog.is_empty(),
            "{revision}: progress without a token: {:?}",
            conn.backlog
        );
        let params = json!({"name": "slow", "arguments": {"steps": 4, "step_ms": 10}, "_meta": {"progressToken": 7}});
        conn.send_request(json!(2), "tools/call", params).await;
        let mut seen = Vec::new();
        loop {
            let message = conn.recv().await;
            if message.get("id") == Some(&json!(2)) {
                assert_eq!(text(&message), "completed 4 steps");
                break;
            }
            assert_eq!(message["method"], "notifications/progress");
            assert_eq!(message["params"]["progressToken"], 7);
            assert_eq!(message["params"]["total"], 4);
            seen.push(message["params"]["progress"].as_u64().unwrap());
        }
        assert_eq!(seen, [1, 2, 3, 4], "{revision}");
        assert!(
            drain(&mut conn).await.is_empty(),
            "{revision}: nothing after the response"
        );
    }
}

pub async fn reused_progress_token_is_a_violation(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    for id in [1, 2] {
        let params = json!({"name": "wait_gate", "arguments": {"gate": "t"}, "_meta": {"progressToken": "same"}});
        conn.send_request(json!(id), "tools/call", params).await;
    }
    assert_eq!(
        conn.violation_rules(json!(3)).await,
        ["reused-progress-token"]
    );
    conn.call(json!(4), "open_gate", json!({"gate": "t"})).await;
    assert_eq!(text(&conn.response(&json!(1)).await), "gate t opened");
    assert_eq!(text(&conn.response(&json!(2)).await), "gate t opened");
    // Once both finished, the token is free again.
    let params =
        json!({"name": "echo", "arguments": {"text": "x"}, "_meta": {"progressToken": "same"}});
    conn.request(json!(5), "tools/call", params).await;
    assert_eq!(
        conn.violation_rules(json!(6)).await,
        ["reused-progress-token"]
    );
}

pub async fn parse_error_answers_null_id_and_keeps_serving(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")
        .await;
    let response = conn.recv().await;
    assert_eq!(code(&response), -32700);
    assert_eq!(response["id"], Value::Null);
    assert_eq!(
        text(
            &conn
                .call(json!(2), "echo", json!({"text": "still here"}))
                .await
        ),
        "still here"
    );
}

pub async fn invalid_request_and_unknown_method(connect: Connect) {
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

pub async fn unknown_tool_and_bad_arguments_are_invalid_params(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        assert_eq!(code(&conn.call(json!(1), "nope", json!({})).await), -32602);
        assert_eq!(code(&conn.call(json!(2), "echo", json!({})).await), -32602);
        assert_eq!(
            code(&conn.call(json!(3), "echo", json!({"text": 5})).await),
            -32602
        );
        assert_eq!(
            code(
                &conn
                    .call(json!(4), "slow", json!({"steps": -1, "step_ms": 1}))
                    .await
            ),
            -32602
        );
        assert_eq!(
            code(
                &conn
                    .call(json!(5), "echo", json!({"text": "a", "extra": 1}))
                    .await
            ),
            -32602
        );
    }
}

pub async fn giant_message_is_rejected_and_serving_continues(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    let giant = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}}}",
        "x".repeat(5 * 1024 * 1024)
    );
    conn.send_line(&giant).await;
    let response = conn.recv().await;
    assert_eq!(code(&response), -32700, "{}", response["error"]);
    assert_eq!(
        text(&conn.call(json!(2), "echo", json!({"text": "ok"})).await),
        "ok"
    );
}

pub async fn truncated_message_at_eof_is_answered_and_the_connection_ends(connect: Connect) {
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

pub async fn tools_echo_fail_and_gates(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        assert_eq!(
            text(&conn.call(json!(1), "echo", json!({"text": "héllo"})).await),
            "héllo"
        );
        let failed = conn
            .call(json!(2), "fail", json!({"message": "boom"}))
            .await;
        assert_eq!(
            (text(&failed), &failed["result"]["isError"]),
            ("boom", &json!(true))
        );
        conn.send_request(
            json!(3),
            "tools/call",
            json!({"name": "wait_gate", "arguments": {"gate": "a"}}),
        )
        .await;
        assert!(
            conn.try_recv(QUIET).await.is_none(),
            "{revision}: closed gate blocks"
        );
        assert_eq!(
            text(&conn.call(json!(4), "open_gate", json!({"gate": "a"})).await),
            "opened a"
        );
        assert_eq!(text(&conn.response(&json!(3)).await), "gate a opened");
        assert_eq!(
            text(&conn.call(json!(5), "open_gate", json!({"gate": "a"})).await),
            "opened a",
            "idempotent"
        );
        assert_eq!(
            text(&conn.call(json!(6), "wait_gate", json!({"gate": "a"})).await),
            "gate a opened",
            "passes at once"
        );
        let tools = conn.request(json!(7), "tools/list", json!({})).await;
        let names: Vec<&str> = tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "echo",
                "slow",
                "wait_gate",
                "open_gate",
                "ignore_cancel",
                "fail",
                "ask",
                "violations",
                "transcript"
            ]
        );
    }
}

pub async fn ignore_cancel_still_responds(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send_request(
        json!(1),
        "tools/call",
        json!({"name": "ignore_cancel", "arguments": {"steps": 3, "step_ms": 20}}),
    )
    .await;
    conn.cancel(json!(1)).await;
    let late = conn.response(&json!(1)).await;
    assert_eq!(
        text(&late),
        "completed 3 steps",
        "the deliberately misbehaving tool answers anyway"
    );
}

pub async fn ask_gets_input_per_revision(connect: Connect) {
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    let first = conn
        .call(json!(1), "ask", json!({"question": "name?"}))
        .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let input = &first["result"]["inputRequests"]["answer"];
    assert_eq!(input["method"], "elicitation/create");
    assert_eq!(input["params"]["message"], "name?");
    let state = first["result"]["requestState"].clone();
    let retry = json!({"name": "ask", "arguments": {"question": "name?"}, "requestState": state,
        "inputResponses": {"answer": {"action": "accept", "content": {"answer": "Ada"}}}});
    let done = conn.request(json!(2), "tools/call", retry).await;
    assert_eq!(text(&done), "answer: Ada");
    // Without the elicitation capability the server says which capability is missing.
    let bare = json!({"name": "ask", "arguments": {"question": "q"}, "_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
    assert_eq!(
        code(&conn.request(json!(3), "tools/call", bare).await),
        -32021
    );
    // 2025-11-25: a server-to-client request, declined here.
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.send_request(
        json!(1),
        "tools/call",
        json!({"name": "ask", "arguments": {"question": "q"}}),
    )
    .await;
    let request = conn.recv().await;
    conn.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}}))
        .await;
    assert_eq!(text(&conn.response(&json!(1)).await), "declined");
}

pub async fn transcript_tool_elides_its_earlier_replies(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    conn.call(json!(1), "echo", json!({"text": "x"})).await;
    let first: Vec<Value> =
        serde_json::from_str(text(&conn.call(json!(2), "transcript", json!({})).await)).unwrap();
    assert!(
        first
            .iter()
            .all(|m| m["direction"] == "in" || m["direction"] == "out")
    );
    assert_eq!(
        first.last().unwrap()["message"]["id"],
        2,
        "ends with its own request"
    );
    let second: Vec<Value> =
        serde_json::from_str(text(&conn.call(json!(3), "transcript", json!({})).await)).unwrap();
    let earlier = second
        .iter()
        .find(|m| m["direction"] == "out" && m["message"]["id"] == 2)
        .unwrap();
    assert_eq!(
        earlier["message"]["result"]["elided"],
        "an earlier transcript reply"
    );
}

pub async fn tasks_2025_lifecycle(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    let params =
        json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 20}, "task": {"ttl": 60000}});
    let created = conn.request(json!(1), "tools/call", params).await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    let task_id = task["taskId"].as_str().unwrap().to_owned();
    let result = conn
        .request(json!(2), "tasks/result", json!({"taskId": task_id}))
        .await;
    assert_eq!(text(&result), "completed 2 steps");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        task_id.as_str()
    );
    let status = conn
        .request(json!(3), "tasks/get", json!({"taskId": task_id}))
        .await;
    assert_eq!(status["result"]["status"], "completed");
    let list = conn.request(json!(4), "tasks/list", json!({})).await;
    assert_eq!(list["result"]["tasks"][0]["taskId"], task_id.as_str());
    assert_eq!(
        code(
            &conn
                .request(json!(5), "tasks/get", json!({"taskId": "task-999"}))
                .await
        ),
        -32602
    );
    assert_eq!(
        code(
            &conn
                .request(json!(6), "tasks/update", json!({"taskId": task_id}))
                .await
        ),
        -32601
    );
}

pub async fn tasks_2026_extension(connect: Connect) {
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    let capabilities = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 20},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": capabilities}});
    let created = conn.request(json!(1), "tools/call", params).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    loop {
        let status = conn
            .request(json!(2), "tasks/get", json!({"taskId": task_id}))
            .await;
        if status["result"]["status"] == "completed" {
            assert_eq!(
                status["result"]["result"]["content"][0]["text"],
                "completed 2 steps"
            );
            break;
        }
        assert_eq!(status["result"]["status"], "working");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let ack = conn
        .request(json!(3), "tasks/cancel", json!({"taskId": task_id}))
        .await;
    assert_eq!(
        ack["result"],
        json!({"resultType": "complete"}),
        "an empty ack, even when terminal"
    );
    assert_eq!(
        code(&conn.request(json!(4), "tasks/list", json!({})).await),
        -32601,
        "no tasks/list in the extension"
    );
}
