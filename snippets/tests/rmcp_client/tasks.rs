//! Tasks through the rmcp client, as far as rmcp 3.11 reaches: the 2026-07-28 tasks extension.

use std::time::Duration;

use mcp_testserver::{Revision, TestServer};
use rmcp::model::{
    CallToolResponse, CancelTaskParams, ClientCapabilities, GetTaskParams, TaskPayload, TaskStatus,
};
use serde_json::json;

use super::{cancels, connect_recorder};
use crate::rmcp_support::{ProgressRecorder, assert_no_violations, call};

/// rmcp 3.11 speaks only the 2026-07-28 tasks extension (SEP-2663): `CallToolRequestParams` has
/// no `task` field and there is no `tasks/result` or `tasks/list`, so 2025-11-25 core tasks are
/// out of its reach. Under 2026-07-28 a client that declares the extension gets a task back.
#[tokio::test(start_paused = true)]
async fn tasks_extension_under_2026_07_28() {
    let server = TestServer::start_with(Revision::V2026_07_28);
    let mut recorder = ProgressRecorder::default();
    recorder.config.capabilities = ClientCapabilities::builder().enable_tasks().build();
    let client = connect_recorder(&server, recorder).await;

    // A task that runs to completion; the result comes inline from tasks/get.
    let response = client
        .call_tool_once(call("slow", json!({"steps": 2, "step_ms": 1000})))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = response else {
        panic!("expected a task, got {response:?}")
    };
    assert_eq!(created.task.status, TaskStatus::Working);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let done = client
        .get_task(GetTaskParams::new(created.task.task_id.clone()))
        .await
        .unwrap();
    let TaskPayload::Completed { result } = &done.task.payload else {
        panic!("expected completed, got {done:?}")
    };
    assert_eq!(result["content"][0]["text"], "completed 2 steps");

    // A task cancelled with tasks/cancel (never notifications/cancelled).
    let response = client
        .call_tool_once(call("slow", json!({"steps": 10, "step_ms": 1000})))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = response else {
        panic!("expected a task, got {response:?}")
    };
    server.in_flight("slow").await;
    client
        .cancel_task(CancelTaskParams::new(created.task.task_id.clone()))
        .await
        .unwrap();
    server.idle().await;
    let cancelled = client
        .get_task(GetTaskParams::new(created.task.task_id.clone()))
        .await
        .unwrap();
    assert_eq!(cancelled.task.task.status, TaskStatus::Cancelled);
    assert!(
        server
            .handler_log()
            .iter()
            .any(|line| line.contains("stopped by cancel")),
        "{:?}",
        server.handler_log()
    );
    assert!(
        cancels(&server).is_empty(),
        "tasks are cancelled with tasks/cancel only"
    );
    assert_no_violations(&server);
}
