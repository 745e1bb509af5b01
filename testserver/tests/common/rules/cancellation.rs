//! Cancellation and progress: what stops, what is a violation, what may follow.

use mcp_testserver::Revision;
use serde_json::json;

use super::{Connect, drain, params_for, ready};
use crate::common::{code, text};

pub(crate) async fn cancel_stops_the_handler_and_no_response_follows(connect: Connect) {
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

pub(crate) async fn cancel_of_unknown_id_is_a_violation_and_finished_ids_are_ignored(
    connect: Connect,
) {
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

pub(crate) async fn cancelling_initialize_is_a_violation(connect: Connect) {
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

pub(crate) async fn tasks_are_cancelled_only_with_tasks_cancel(connect: Connect) {
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

pub(crate) async fn progress_only_with_token_strictly_increasing_never_after_response(
    connect: Connect,
) {
    for revision in Revision::ALL {
        let mut conn = ready(connect, revision).await;
        let response = conn
            .call(json!(1), "slow", json!({"steps": 3, "step_ms": 10}))
            .await;
        assert_eq!(text(&response), "completed 3 steps");
        let unasked = conn.take_backlog();
        assert!(
            unasked.is_empty(),
            "{revision}: progress without a token: {unasked:?}"
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

pub(crate) async fn reused_progress_token_is_a_violation(connect: Connect) {
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

pub(crate) async fn ignore_cancel_still_responds(connect: Connect) {
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
