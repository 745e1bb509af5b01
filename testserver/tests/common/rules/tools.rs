//! The tool contract and tasks under each revision.

use std::time::Duration;

use mcp_testserver::Revision;
use serde_json::{Value, json};

use super::{Connect, QUIET, ready};
use crate::common::{code, text};

pub(crate) async fn tools_echo_fail_and_gates(connect: Connect) {
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
                "transcript",
                "handler_log"
            ]
        );
    }
}

pub(crate) async fn ask_gets_input_per_revision(connect: Connect) {
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

pub(crate) async fn transcript_tool_elides_its_earlier_replies(connect: Connect) {
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

pub(crate) async fn tasks_2025_lifecycle(connect: Connect) {
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

pub(crate) async fn tasks_2026_extension(connect: Connect) {
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    let capabilities = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let declared = |mut params: Value| {
        params["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities": capabilities});
        params
    };
    let params = declared(json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 20}}));
    let created = conn.request(json!(1), "tools/call", params).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert!(created["result"].get("task").is_none(), "flat: {created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let get = declared(json!({"taskId": task_id}));
    loop {
        let status = conn.request(json!(2), "tasks/get", get.clone()).await;
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
    let ack = conn.request(json!(3), "tasks/cancel", get.clone()).await;
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
    assert_eq!(
        code(
            &conn
                .request(json!(5), "tasks/get", json!({"taskId": task_id}))
                .await
        ),
        -32021,
        "tasks/get from a request that does not declare the extension"
    );
    let unknown = declared(json!({"taskId": "tsk-00000000"}));
    assert_eq!(
        code(&conn.request(json!(6), "tasks/cancel", unknown).await),
        -32602,
        "-32602 only for an unknown task"
    );
}

/// Under 2025-11-25 the token of a task-augmented request stays in use after the
/// `CreateTaskResult`, until the task is terminal (basic/utilities/progress, item 3); under
/// 2026-07-28 tasks send no progress at all (SEP-2663, *Task Status Notifications*).
pub(crate) async fn task_progress_follows_the_revision(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 20},
        "task": {"ttl": 60000}, "_meta": {"progressToken": "t-1"}});
    let created = conn.request(json!(1), "tools/call", params).await;
    let task_id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let result = conn
        .request(json!(2), "tasks/result", json!({"taskId": task_id}))
        .await;
    assert_eq!(text(&result), "completed 2 steps");
    let mut progress = Vec::new();
    while let Some(message) = conn.try_recv(Duration::from_millis(200)).await {
        assert_eq!(message["method"], "notifications/progress", "{message}");
        assert_eq!(message["params"]["progressToken"], "t-1");
        progress.push(message["params"]["progress"].clone());
    }
    assert_eq!(
        progress,
        vec![json!(1), json!(2)],
        "progress until the task completed"
    );

    let mut conn = ready(connect, Revision::V2026_07_28).await;
    let capabilities = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 20},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": capabilities,
                  "progressToken": "t-2"}});
    let created = conn.request(json!(1), "tools/call", params).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let get = json!({"taskId": task_id,
        "_meta": {"io.modelcontextprotocol/clientCapabilities": capabilities}});
    for id in 2.. {
        let status = conn.request(json!(id), "tasks/get", get.clone()).await;
        if status["result"]["status"] == "completed" {
            break;
        }
        assert_eq!(status["result"]["status"], "working", "{status}");
        assert!(id < 1000, "the task never completed: {status}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        conn.try_recv(QUIET).await,
        None,
        "no progress on a 2026-07-28 task"
    );
}

/// A 2025-11-25 task's progress token is free again once the task is terminal: "The progress
/// token remains valid and associated with the task until the task reaches a terminal status"
/// (basic/utilities/progress, item 3). So a later request may reuse the token of a completed or
/// cancelled task, but not of a task still working.
pub(crate) async fn a_terminal_task_frees_its_progress_token(connect: Connect) {
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    let task = |token: &str, steps: u64| {
        json!({"name": "slow", "arguments": {"steps": steps, "step_ms": 20},
               "task": {"ttl": 60000}, "_meta": {"progressToken": token}})
    };
    let echo = |token: &str| json!({"name": "echo", "arguments": {"text": token}, "_meta": {"progressToken": token}});
    let task_id = |created: &Value| {
        created["result"]["task"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("no task: {created}"))
            .to_owned()
    };
    // Completed.
    let created = conn.request(json!(1), "tools/call", task("done", 2)).await;
    let done = task_id(&created);
    let result = conn
        .request(json!(2), "tasks/result", json!({"taskId": done}))
        .await;
    assert_eq!(text(&result), "completed 2 steps");
    let reused = conn.request(json!(3), "tools/call", echo("done")).await;
    assert_eq!(text(&reused), "done");
    // Cancelled with `tasks/cancel`.
    let created = conn
        .request(json!(4), "tools/call", task("stopped", 500))
        .await;
    let stopped = task_id(&created);
    let cancelled = conn
        .request(json!(5), "tasks/cancel", json!({"taskId": stopped}))
        .await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let reused = conn.request(json!(6), "tools/call", echo("stopped")).await;
    assert_eq!(text(&reused), "stopped");
    assert_eq!(
        conn.violation_rules(json!(7)).await,
        Vec::<String>::new(),
        "reusing the token of a terminal task"
    );
    // Still working: the token is in use.
    let created = conn
        .request(json!(8), "tools/call", task("running", 500))
        .await;
    let running = task_id(&created);
    conn.request(json!(9), "tools/call", echo("running")).await;
    assert_eq!(
        conn.violation_rules(json!(10)).await,
        ["reused-progress-token"],
        "reusing the token of a working task"
    );
    conn.request(json!(11), "tasks/cancel", json!({"taskId": running}))
        .await;
}

/// Under 2026-07-28 tasks take no progress ("not supported on tasks in general", SEP-2663), so
/// a task-augmented request's token is active only until the `CreateTaskResult` answers that
/// request ("unique across all active requests", basic/patterns/progress).
pub(crate) async fn a_2026_task_request_frees_its_progress_token_once_answered(connect: Connect) {
    let echo = |token: &str| json!({"name": "echo", "arguments": {"text": token}, "_meta": {"progressToken": token}});
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    let capabilities = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let params = json!({"name": "slow", "arguments": {"steps": 500, "step_ms": 20},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": capabilities,
                  "progressToken": "t"}});
    let created = conn.request(json!(1), "tools/call", params).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let reused = conn.request(json!(2), "tools/call", echo("t")).await;
    assert_eq!(text(&reused), "t");
    assert_eq!(
        conn.violation_rules(json!(3)).await,
        Vec::<String>::new(),
        "2026-07-28: the token of an answered task request"
    );
    let cancel = json!({"taskId": created["result"]["taskId"],
        "_meta": {"io.modelcontextprotocol/clientCapabilities": capabilities}});
    conn.request(json!(4), "tasks/cancel", cancel).await;
}

/// Task ids are the receiver's strings, never the request id that created the task: in a flow
/// where request 1 creates the first task, its id still shares nothing with `1`. Task ids are
/// `tsk-` and hex, distinct, nothing like the request ids: in-process (the
/// harness the book runs on) eight hex digits, the same on every run; the binary 32 hex digits
/// from the CSPRNG, different on every run (unguessable, see `server/task_id.rs`).
pub(crate) async fn task_ids_are_opaque_and_deterministic(connect: Connect) {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut conn = ready(connect, Revision::V2025_11_25).await;
        let mut ids = Vec::new();
        for request in 1..=3 {
            let params = json!({"name": "slow", "arguments": {"steps": 1, "step_ms": 1}, "task": {"ttl": 60000}});
            let created = conn.request(json!(request), "tools/call", params).await;
            let task_id = created["result"]["task"]["taskId"]
                .as_str()
                .unwrap_or_else(|| panic!("a task handle: {created}"))
                .to_owned();
            let hex = task_id
                .strip_prefix("tsk-")
                .filter(|hex| {
                    matches!(hex.len(), 8 | 32) && hex.bytes().all(|byte| byte.is_ascii_hexdigit())
                })
                .unwrap_or_else(|| panic!("an opaque `tsk-` id: {task_id}"));
            assert_ne!(
                hex.trim_start_matches('0'),
                request.to_string(),
                "not the request id"
            );
            ids.push(task_id);
        }
        let distinct: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), 3, "{ids:?}");
        runs.push(ids);
    }
    if runs[0][0].len() == "tsk-".len() + 8 {
        assert_eq!(runs[0], runs[1], "in-process: the same ids on every run");
    } else {
        assert!(
            runs.iter()
                .flatten()
                .all(|id| id.len() == "tsk-".len() + 32),
            "{runs:?}"
        );
        assert_ne!(
            runs[0], runs[1],
            "the binary: fresh random ids on every run"
        );
    }
}

pub(crate) async fn handler_log_tool_reports_what_the_handlers_did(connect: Connect) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        conn.send_request(
            json!(1),
            "tools/call",
            json!({"name": "wait_gate", "arguments": {"gate": "g"}}),
        )
        .await;
        conn.cancel(json!(1)).await;
        // The handler stops in its own task: ask until its stop is logged (or give up).
        let mut log = String::new();
        for id in 2..200 {
            log = text(&conn.call(json!(id), "handler_log", json!({})).await).to_owned();
            if log.contains("wait_gate#1 stopped by cancel") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Its own calls are left out, however often it was asked.
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(
            lines,
            ["wait_gate#1 started", "wait_gate#1 stopped by cancel"],
            "{revision}: {log}"
        );
        let bad = conn
            .call(json!(200), "handler_log", json!({"extra": 1}))
            .await;
        assert_eq!(code(&bad), -32602, "{revision}: {bad}");
    }
}
