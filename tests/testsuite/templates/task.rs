//! The rmcp task template driven by rmcp's client, which declares the tasks extension: an export
//! that runs to completion, polled with `tasks/get`, and one stopped with `tasks/cancel`, whose
//! acknowledgement is read off the recorded wire; and a client without the extension refused
//! before any part of the work starts.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, GetTaskResult, Implementation, TaskPayload, TaskStatus,
};
use serde_json::Value;

use super::build::rust_template;
use super::served::{Direction, Served};
use super::shown::check_shown;

/// `tools/call export`, which the server answers with a task; its id.
async fn start_export(served: &Served<ClientConfig>) -> String {
    let response = served
        .client
        .call_tool_once(CallToolRequestParams::new("export"))
        .await
        .expect("tools/call export");
    let CallToolResponse::Task(created) = response else {
        panic!("export should answer with a task: {response:?}")
    };
    assert_eq!(created.task.status, TaskStatus::Working);
    created.task.task_id
}

/// `tasks/get` until the task ends (every 0.2 s, at most 60 s).
async fn poll_until_ended(served: &Served<ClientConfig>, task_id: &str) -> GetTaskResult {
    for _ in 0..300 {
        let got = served
            .client
            .get_task(GetTaskParams::new(task_id.to_owned()))
            .await
            .expect("tasks/get");
        if !matches!(
            got.task.payload,
            TaskPayload::Working | TaskPayload::InputRequired { .. }
        ) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("task {task_id} did not end within 60 s")
}

/// The result of the last response the client received.
fn last_result(served: &Served<ClientConfig>) -> Value {
    served
        .messages()
        .into_iter()
        .rev()
        .find(|(direction, message)| {
            *direction == Direction::ToClient && message.get("id").is_some()
        })
        .map(|(_, message)| message["result"].clone())
        .expect("a response")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rmcp_task_ends_cancelled_after_tasks_cancel() {
    let capabilities = ClientCapabilities::builder().enable_tasks().build();
    let client = ClientConfig::new(capabilities, Implementation::new("templates-test", "1.0.0"));
    let mut served = Served::start(rust_template("rmcp-task"), client).await;
    let mut shown = Vec::new();

    shown.push("→ tools/call export".to_owned());
    let task_id = start_export(&served).await;
    shown.push("← a task, status \"working\"".to_owned());
    let log = served.log_until("export: part 5").await;
    shown.extend(log.iter().map(|line| format!("    {line}")));
    shown.push("→ tasks/get, every 0.2 s until the task ends".to_owned());
    let done = poll_until_ended(&served, &task_id).await;
    let TaskPayload::Completed { result } = &done.task.payload else {
        panic!("the export should complete: {done:?}")
    };
    let text = &result["content"][0]["text"];
    assert_eq!(text, "exported", "{result:?}");
    shown.push(format!("← status \"completed\", {text}"));

    shown.push(String::new());
    shown.push("→ tools/call export".to_owned());
    let task_id = start_export(&served).await;
    shown.push("← a task, status \"working\"".to_owned());
    let log = served.log_until("export: part 2").await;
    shown.extend(log.iter().map(|line| format!("    {line}")));
    served
        .client
        .cancel_task(CancelTaskParams::new(task_id.clone()))
        .await
        .expect("tasks/cancel is acknowledged");
    let ack = last_result(&served);
    assert_eq!(
        ack,
        serde_json::json!({"resultType": "complete"}),
        "the empty acknowledgement"
    );
    shown.push("→ tasks/cancel".to_owned());
    shown.push(format!("← {ack}"));
    let log = served.log_until("export: cancelled in part 2").await;
    shown.extend(log.iter().map(|line| format!("    {line}")));
    shown.push("→ tasks/get".to_owned());
    let ended = poll_until_ended(&served, &task_id).await;
    assert_eq!(ended.task.task.status, TaskStatus::Cancelled, "{ended:?}");
    shown.push("← status \"cancelled\"".to_owned());
    let cancels = served
        .messages()
        .into_iter()
        .filter(|(direction, message)| {
            *direction == Direction::ToServer && message["method"] == "notifications/cancelled"
        });
    assert_eq!(
        cancels.count(),
        0,
        "a task is cancelled with tasks/cancel only"
    );
    let rest = served.close().await;
    assert!(rest.is_empty(), "{rest:?}");
    check_shown("rmcp-task", &(shown.join("\n") + "\n"));
}

/// A client that did not declare the tasks extension is refused before any work starts: the
/// error the specification names (-32021), and no part of the export ever logged.
#[tokio::test(flavor = "multi_thread")]
async fn the_rmcp_task_refuses_a_client_without_the_extension_before_any_work() {
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("templates-test", "1.0.0"),
    );
    let served = Served::start(rust_template("rmcp-task"), client).await;
    let refused = served
        .client
        .call_tool_once(CallToolRequestParams::new("export"))
        .await
        .expect_err("export is refused");
    assert!(
        refused.to_string().contains("-32021"),
        "the missing-capability error: {refused}"
    );
    // Longer than a part takes (0.4 s): work started for the call would have logged by now.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let log = served.close().await;
    assert!(
        !log.iter().any(|line| line.starts_with("export: part")),
        "work started for a refused call: {log:?}"
    );
}
