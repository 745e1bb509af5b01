//! The conformance suite's tasks-extension fixtures (`conformance/task_tools.rs`) and the
//! SEP-2663 semantics under them (`server/tasks.rs`), served by a core built as
//! `mcp-testserver --conformance` builds it, over an in-process 2026-07-28 connection: a flat
//! `CreateTaskResult`; `tasks/get` inlining a completed task's result, a failed task's error and
//! a waiting task's `inputRequests`; a tool error completing the task, a JSON-RPC error failing
//! it; `tasks/update` answering input requests one at a time; `tasks/cancel` an empty ack, also
//! on a terminal task; -32602 only for an unknown task id; -32021 without the extension.

use crate::common;

use std::time::Duration;

use common::{CAPABILITIES, Conn, code, conformance, text};
use mcp_testserver::Revision;
use serde_json::{Value, json};

/// Client capabilities declaring the tasks extension.
fn with_tasks() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// `method` with `params` and the request's `_meta` client capabilities.
async fn request(
    conn: &mut Conn,
    id: i64,
    method: &str,
    capabilities: Value,
    params: Value,
) -> Value {
    let mut params = params;
    params["_meta"] = json!({CAPABILITIES: capabilities});
    conn.request(json!(id), method, params).await
}

async fn call(conn: &mut Conn, id: i64, tool: &str, arguments: Value) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    request(conn, id, "tools/call", with_tasks(), params).await
}

async fn get(conn: &mut Conn, id: i64, task_id: &str) -> Value {
    let answer = request(
        conn,
        id,
        "tasks/get",
        with_tasks(),
        json!({"taskId": task_id}),
    )
    .await;
    answer["result"].clone()
}

/// Polls `tasks/get` (ids from `id` on) until the task is terminal; its last state.
async fn settled(conn: &mut Conn, id: i64, task_id: &str) -> Value {
    for poll in 0..1000 {
        let task = get(conn, id + poll, task_id).await;
        if matches!(
            task["status"].as_str(),
            Some("completed" | "failed" | "cancelled")
        ) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {task_id} never settled");
}

fn created_task(created: &Value) -> String {
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert!(
        result.get("task").is_none(),
        "flat, no nested task: {created}"
    );
    for absent in [
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
        "pollInterval",
    ] {
        assert!(result.get(absent).is_none(), "no `{absent}`: {created}");
    }
    assert!(result["ttlMs"].is_null() || result["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0));
    assert!(result["pollIntervalMs"].as_u64().is_some(), "{created}");
    result["taskId"].as_str().expect("a task id").to_owned()
}

#[tokio::test(start_paused = true)]
async fn a_completed_task_inlines_its_result_and_greet_is_never_a_task() {
    let mut conn = conformance(Revision::V2026_07_28);
    let greeting = call(&mut conn, 1, "greet", json!({"name": "World"})).await;
    assert_eq!(greeting["result"]["resultType"], "complete", "{greeting}");
    assert_eq!(text(&greeting), "Hello, World!");
    let created = call(
        &mut conn,
        2,
        "slow_compute",
        json!({"seconds": 2, "label": "x"}),
    )
    .await;
    let task_id = created_task(&created);
    let working = get(&mut conn, 3, &task_id).await;
    assert_eq!(working["status"], "working");
    assert_eq!(working["resultType"], "complete");
    assert!(working.get("result").is_none(), "{working}");
    let done = settled(&mut conn, 4, &task_id).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "x: computed in 2 s");
    assert!(
        done["result"].get("_meta").is_none(),
        "no related-task _meta inline: {done}"
    );
    // Bad arguments are refused before any task exists.
    let bad = call(&mut conn, 100, "slow_compute", json!({"seconds": "soon"})).await;
    assert_eq!(code(&bad), -32602, "{bad}");
}

#[tokio::test(start_paused = true)]
async fn a_tool_error_completes_the_task_and_a_protocol_error_fails_it() {
    let mut conn = conformance(Revision::V2026_07_28);
    let failing = call(&mut conn, 1, "failing_job", json!({})).await;
    let task_id = created_task(&failing);
    let done = settled(&mut conn, 2, &task_id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true);
    let broken = call(&mut conn, 100, "protocol_error_job", json!({})).await;
    let task_id = created_task(&broken);
    let failed = settled(&mut conn, 101, &task_id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed["error"]["message"].is_string());
    assert!(failed.get("result").is_none(), "{failed}");
}

#[tokio::test(start_paused = true)]
async fn cancel_is_an_empty_ack_a_running_task_settles_cancelled_and_only_unknown_ids_fail() {
    let mut conn = conformance(Revision::V2026_07_28);
    let created = call(&mut conn, 1, "slow_compute", json!({"seconds": 60})).await;
    let task_id = created_task(&created);
    let cancel = || json!({"taskId": task_id});
    let ack = request(&mut conn, 2, "tasks/cancel", with_tasks(), cancel()).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    assert_eq!(settled(&mut conn, 3, &task_id).await["status"], "cancelled");
    // Idempotent on a terminal task, cancelled or completed.
    let again = request(&mut conn, 10, "tasks/cancel", with_tasks(), cancel()).await;
    assert_eq!(
        again["result"],
        json!({"resultType": "complete"}),
        "{again}"
    );
    let quick = call(&mut conn, 11, "slow_compute", json!({"seconds": 0})).await;
    let quick_id = created_task(&quick);
    assert_eq!(
        settled(&mut conn, 12, &quick_id).await["status"],
        "completed"
    );
    let late = request(
        &mut conn,
        20,
        "tasks/cancel",
        with_tasks(),
        json!({"taskId": quick_id}),
    )
    .await;
    assert_eq!(late["result"], json!({"resultType": "complete"}), "{late}");
    assert_eq!(get(&mut conn, 21, &quick_id).await["status"], "completed");
    for (id, method) in [
        (30, "tasks/get"),
        (31, "tasks/cancel"),
        (32, "tasks/update"),
    ] {
        let params = json!({"taskId": "tsk-00000000", "inputResponses": {}});
        let unknown = request(&mut conn, id, method, with_tasks(), params).await;
        assert_eq!(code(&unknown), -32602, "{method}: {unknown}");
    }
    for (id, method) in [(40, "tasks/result"), (41, "tasks/list")] {
        let removed = request(
            &mut conn,
            id,
            method,
            with_tasks(),
            json!({"taskId": task_id}),
        )
        .await;
        assert_eq!(code(&removed), -32601, "{method}: {removed}");
    }
}

#[tokio::test(start_paused = true)]
async fn without_the_extension_tasks_methods_and_required_task_tools_are_minus_32021() {
    let mut conn = conformance(Revision::V2026_07_28);
    for (id, method) in [(1, "tasks/get"), (2, "tasks/update"), (3, "tasks/cancel")] {
        let params = json!({"taskId": "gate-test", "inputResponses": {}});
        let refused = request(&mut conn, id, method, json!({}), params).await;
        assert_eq!(code(&refused), -32021, "{method}: {refused}");
        assert_eq!(
            refused["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
            json!({})
        );
    }
    let params = json!({"name": "failing_job", "arguments": {}});
    let required = request(&mut conn, 4, "tools/call", json!({}), params).await;
    assert_eq!(code(&required), -32021, "{required}");
    // An optional task tool runs in place; the legacy `task` parameter promotes nothing.
    let params =
        json!({"name": "slow_compute", "arguments": {"seconds": 1}, "task": {"ttl": 1000}});
    let in_place = request(&mut conn, 5, "tools/call", json!({}), params).await;
    assert_eq!(in_place["result"]["resultType"], "complete", "{in_place}");
    assert_eq!(text(&in_place), "slow_compute: computed in 1 s");
    let params = json!({"name": "greet", "arguments": {"name": "v1"}, "task": {"ttl": 1000}});
    let greeting = request(&mut conn, 6, "tools/call", with_tasks(), params).await;
    assert_eq!(greeting["result"]["resultType"], "complete", "{greeting}");
}

#[tokio::test(start_paused = true)]
async fn tasks_wait_for_input_and_take_answers_one_at_a_time() {
    let mut conn = conformance(Revision::V2026_07_28);
    let created = call(&mut conn, 1, "confirm_delete", json!({"filename": "a.txt"})).await;
    let task_id = created_task(&created);
    tokio::time::sleep(Duration::from_millis(10)).await;
    let waiting = get(&mut conn, 2, &task_id).await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    assert_eq!(
        waiting["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let answer = json!({"taskId": task_id, "inputResponses": {
        "confirm": {"action": "accept", "content": {"confirm": true}},
        "never-issued": {"action": "accept", "content": {}}
    }});
    let ack = request(&mut conn, 3, "tasks/update", with_tasks(), answer).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = settled(&mut conn, 4, &task_id).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "deleted a.txt",
        "{done}"
    );

    let created = call(&mut conn, 100, "multi_input", json!({})).await;
    let task_id = created_task(&created);
    tokio::time::sleep(Duration::from_millis(10)).await;
    let both = get(&mut conn, 101, &task_id).await;
    let keys: Vec<&String> = both["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["first", "second"], "{both}");
    let first = json!({"taskId": task_id, "inputResponses": {"first": {"action": "accept", "content": {"name": "A"}}}});
    request(&mut conn, 102, "tasks/update", with_tasks(), first).await;
    let partial = get(&mut conn, 103, &task_id).await;
    assert_eq!(partial["status"], "input_required", "{partial}");
    let keys: Vec<&String> = partial["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["second"], "only the unanswered key: {partial}");
    let second = json!({"taskId": task_id, "inputResponses": {"second": {"action": "accept", "content": {"name": "B"}}}});
    request(&mut conn, 104, "tasks/update", with_tasks(), second).await;
    let done = settled(&mut conn, 105, &task_id).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "first=A, second=B",
        "{done}"
    );

    // A task waiting for input is cancelled like any other.
    let created = call(
        &mut conn,
        200,
        "confirm_delete",
        json!({"filename": "b.txt"}),
    )
    .await;
    let task_id = created_task(&created);
    request(
        &mut conn,
        201,
        "tasks/cancel",
        with_tasks(),
        json!({"taskId": task_id}),
    )
    .await;
    let cancelled = settled(&mut conn, 202, &task_id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled.get("inputRequests").is_none(), "{cancelled}");
}

#[tokio::test(start_paused = true)]
async fn an_mrtr_round_comes_before_the_task_and_its_answer_reaches_the_result() {
    let mut conn = conformance(Revision::V2026_07_28);
    let first = call(&mut conn, 1, "test_tool_with_task", json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"].get("taskId").is_none());
    let params = json!({"name": "test_tool_with_task", "arguments": {},
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}}});
    let second = request(&mut conn, 2, "tools/call", with_tasks(), params).await;
    let task_id = created_task(&second);
    let done = settled(&mut conn, 3, &task_id).await;
    let result = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(result.contains("Alice"), "{done}");
}
