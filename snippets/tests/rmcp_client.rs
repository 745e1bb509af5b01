//! The rmcp 3.x client against the test server, in-process, under both revisions: calls,
//! concurrent calls completing out of order, `RequestHandle::cancel`, dropping a `call_tool`
//! future, dropping a `RequestHandle`, timeouts (plain, reset on progress, maximum total),
//! progress, and tasks where rmcp supports them. Every test asserts on what the *server* saw:
//! its transcript, its handler log and its violations. The clock is paused, so one-second steps
//! cost no real time.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_testserver::{Revision, TestServer};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    ClientCapabilities, ClientConfig, ClientRequest, GetTaskParams, ProgressNotificationParam,
    RequestMetaObject, ServerResult, TaskPayload, TaskStatus,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, PeerRequestOptions, RunningService,
    ServiceError,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

fn call_request(name: &str, arguments: Value) -> ClientRequest {
    ClientRequest::CallToolRequest(CallToolRequest::new(call(name, arguments)))
}

fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {value}"))
        .to_owned()
}

async fn connect(server: &TestServer) -> RunningService<RoleClient, ()> {
    server
        .connect_rmcp()
        .await
        .unwrap_or_else(|error| panic!("rmcp client under {}: {error:#}", server.revision()))
}

/// What the server received (client → server), in order.
fn received(server: &TestServer) -> Vec<Value> {
    server
        .transcript()
        .messages()
        .into_iter()
        .filter(|wire| wire.direction == mcp_testserver::Direction::In)
        .map(|wire| wire.message)
        .collect()
}

/// What the server sent (server → client), in order.
fn sent(server: &TestServer) -> Vec<Value> {
    server
        .transcript()
        .messages()
        .into_iter()
        .filter(|wire| wire.direction == mcp_testserver::Direction::Out)
        .map(|wire| wire.message)
        .collect()
}

/// The `notifications/cancelled` messages the server received.
fn cancels(server: &TestServer) -> Vec<Value> {
    received(server)
        .into_iter()
        .filter(|message| message["method"] == "notifications/cancelled")
        .collect()
}

/// Whether the server sent a response (result or error) for `id`.
fn answered(server: &TestServer, id: &Value) -> bool {
    sent(server)
        .iter()
        .any(|message| message.get("method").is_none() && message.get("id") == Some(id))
}

/// The id of the last `tools/call` the server received.
fn last_call_id(server: &TestServer) -> Value {
    received(server)
        .into_iter()
        .rev()
        .find(|message| message["method"] == "tools/call")
        .expect("a tools/call was received")["id"]
        .clone()
}

fn label(tool: &str, id: &Value) -> String {
    format!("{tool}#{id}")
}

/// Polls (in tokio time, free under a paused clock) until `condition` holds.
async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    for _ in 0..10_000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("timed out waiting for {what}");
}

fn assert_no_violations(server: &TestServer) {
    assert_eq!(
        server.violations(),
        [],
        "{}: violations recorded\n{}",
        server.revision(),
        server.transcript().render()
    );
}

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

#[tokio::test(start_paused = true)]
async fn request_handle_cancel_stops_the_handler_and_no_response_is_sent() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let handle = client
            .send_cancellable_request(
                call_request("wait_gate", json!({"gate": "never"})),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap();
        server.in_flight("wait_gate").await;
        let id = serde_json::to_value(&handle.id).unwrap();
        handle
            .cancel(Some("user pressed stop".to_owned()))
            .await
            .unwrap();
        server.idle().await;

        assert!(
            server
                .handler_log()
                .contains(&format!("{} stopped by cancel", label("wait_gate", &id))),
            "{revision}: {:?}",
            server.handler_log()
        );
        let cancels = cancels(&server);
        assert_eq!(cancels.len(), 1, "{revision}");
        assert_eq!(cancels[0]["params"]["requestId"], id, "{revision}");
        assert_eq!(
            cancels[0]["params"]["reason"], "user pressed stop",
            "{revision}"
        );
        assert!(
            !answered(&server, &id),
            "{revision}: a cancelled request got a response"
        );
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_a_call_tool_future_sends_a_cancel() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        tokio::select! {
            result = client.call_tool(call("wait_gate", json!({"gate": "never"}))) => panic!("{revision}: the gate never opens, yet got {result:?}"),
            () = server.in_flight("wait_gate") => {}
        }
        // The call future is dropped here; rmcp sends the cancel from a drop guard.
        server.idle().await;

        let id = last_call_id(&server);
        let cancels = cancels(&server);
        assert_eq!(cancels.len(), 1, "{revision}");
        assert_eq!(cancels[0]["params"]["requestId"], id, "{revision}");
        assert_eq!(
            cancels[0]["params"]["reason"], "request abandoned by the caller",
            "{revision}"
        );
        assert!(
            server
                .handler_log()
                .contains(&format!("{} stopped by cancel", label("wait_gate", &id))),
            "{revision}"
        );
        assert!(!answered(&server, &id), "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_a_request_handle_sends_nothing_and_the_server_completes() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let handle = client
            .send_cancellable_request(
                call_request("slow", json!({"steps": 3, "step_ms": 1000})),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap();
        server.in_flight("slow").await;
        let id = serde_json::to_value(&handle.id).unwrap();
        drop(handle);
        server.idle().await;

        assert!(
            cancels(&server).is_empty(),
            "{revision}: dropping a RequestHandle must not cancel"
        );
        assert!(
            server
                .handler_log()
                .contains(&format!("{} completed", label("slow", &id))),
            "{revision}"
        );
        assert!(
            answered(&server, &id),
            "{revision}: the server answers; nobody listens"
        );
        // The client is still usable afterwards.
        let result = client
            .call_tool(call("echo", json!({"text": "still here"})))
            .await
            .unwrap();
        assert_eq!(text(&result), "still here", "{revision}");
        assert_no_violations(&server);
    }
}

async fn slow_with(
    client: &RunningService<RoleClient, ()>,
    steps: u64,
    step_ms: u64,
    options: PeerRequestOptions,
) -> Result<ServerResult, ServiceError> {
    let handle = client
        .send_cancellable_request(
            call_request("slow", json!({"steps": steps, "step_ms": step_ms})),
            options,
        )
        .await
        .unwrap();
    handle.await_response().await
}

#[tokio::test(start_paused = true)]
async fn timeout_cancels_the_request() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let started = tokio::time::Instant::now();
        let outcome = slow_with(
            &client,
            10,
            1500,
            PeerRequestOptions::with_timeout(Duration::from_secs(2)),
        )
        .await;
        assert!(
            matches!(outcome, Err(ServiceError::Timeout { .. })),
            "{revision}: {outcome:?}"
        );
        assert_eq!(started.elapsed(), Duration::from_secs(2), "{revision}");
        server.idle().await;

        let id = last_call_id(&server);
        let cancels = cancels(&server);
        assert_eq!(cancels.len(), 1, "{revision}");
        assert_eq!(cancels[0]["params"]["requestId"], id, "{revision}");
        assert_eq!(
            cancels[0]["params"]["reason"], "request timeout",
            "{revision}"
        );
        assert!(
            server.handler_log().contains(&format!(
                "{} stopped by cancel after step 1",
                label("slow", &id)
            )),
            "{revision}: {:?}",
            server.handler_log()
        );
        assert!(!answered(&server, &id), "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn timeout_resets_on_progress() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        // Each step (1.5 s) is shorter than the timeout (2 s), the whole call (7.5 s) is not.
        let options =
            PeerRequestOptions::with_timeout(Duration::from_secs(2)).reset_timeout_on_progress();
        let outcome = slow_with(&client, 5, 1500, options).await;
        let Ok(ServerResult::CallToolResult(result)) = outcome else {
            panic!("{revision}: {outcome:?}")
        };
        assert_eq!(text(&result), "completed 5 steps", "{revision}");
        assert!(cancels(&server).is_empty(), "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn max_total_timeout_wins_over_progress() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let options = PeerRequestOptions::with_timeout(Duration::from_secs(2))
            .reset_timeout_on_progress()
            .with_max_total_timeout(Duration::from_secs(5));
        let started = tokio::time::Instant::now();
        let outcome = slow_with(&client, 10, 1500, options).await;
        assert!(
            matches!(outcome, Err(ServiceError::Timeout { timeout }) if timeout == Duration::from_secs(5)),
            "{revision}: {outcome:?}"
        );
        assert_eq!(started.elapsed(), Duration::from_secs(5), "{revision}");
        server.idle().await;

        let id = last_call_id(&server);
        let cancels = cancels(&server);
        assert_eq!(cancels.len(), 1, "{revision}");
        assert_eq!(cancels[0]["params"]["requestId"], id, "{revision}");
        assert_eq!(
            cancels[0]["params"]["reason"], "maximum total timeout exceeded",
            "{revision}"
        );
        assert!(
            server.handler_log().contains(&format!(
                "{} stopped by cancel after step 3",
                label("slow", &id)
            )),
            "{revision}: {:?}",
            server.handler_log()
        );
        assert_no_violations(&server);
    }
}

/// A client handler that keeps the progress notifications it receives.
#[derive(Clone, Default)]
struct ProgressRecorder {
    config: ClientConfig,
    seen: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for ProgressRecorder {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().push(params);
    }
}

/// Connects `recorder` as a custom rmcp client, forced to the server's revision.
async fn connect_recorder(
    server: &TestServer,
    mut recorder: ProgressRecorder,
) -> RunningService<RoleClient, ProgressRecorder> {
    recorder.config.protocol_version = server.revision().protocol_version();
    let transport = server.connect_transport();
    match server.revision() {
        Revision::V2025_11_25 => recorder.serve(transport).await.unwrap(),
        Revision::V2026_07_28 => {
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![server.revision().protocol_version()],
            };
            recorder
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .unwrap()
        }
    }
}

#[tokio::test(start_paused = true)]
async fn progress_uses_rmcps_own_token() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let recorder = ProgressRecorder::default();
        let seen = recorder.seen.clone();
        let client = connect_recorder(&server, recorder).await;
        // Ask for progress with a token of our own: rmcp replaces it with one it generates.
        let mut params = call("slow", json!({"steps": 3, "step_ms": 100}));
        let mut meta = RequestMetaObject::new();
        meta.insert("progressToken".to_owned(), json!("mine"));
        params.meta = Some(meta);
        let result = client.call_tool(params).await.unwrap();
        assert_eq!(text(&result), "completed 3 steps", "{revision}");

        let request = received(&server)
            .into_iter()
            .find(|message| message["method"] == "tools/call")
            .unwrap();
        let token = request["params"]["_meta"]["progressToken"].clone();
        assert!(
            token.is_i64(),
            "{revision}: rmcp sent progressToken {token}"
        );
        let progress: Vec<Value> = sent(&server)
            .into_iter()
            .filter(|message| message["method"] == "notifications/progress")
            .collect();
        assert_eq!(progress.len(), 3, "{revision}");
        for (index, notification) in progress.iter().enumerate() {
            assert_eq!(notification["params"]["progressToken"], token, "{revision}");
            assert_eq!(
                notification["params"]["progress"].as_f64(),
                Some(index as f64 + 1.0),
                "{revision}"
            );
        }
        // rmcp hands every notification to the handler (in its own task, so wait for them).
        until("three progress callbacks", || {
            seen.lock().unwrap().len() == 3
        })
        .await;
        let values: Vec<f64> = seen
            .lock()
            .unwrap()
            .iter()
            .map(|param| param.progress)
            .collect();
        assert_eq!(values.len(), 3, "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn every_rmcp_request_carries_a_progress_token() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        client
            .call_tool(call("echo", json!({"text": "x"})))
            .await
            .unwrap();
        let request = received(&server)
            .into_iter()
            .find(|message| message["method"] == "tools/call")
            .unwrap();
        assert!(
            request["params"]["_meta"]["progressToken"].is_i64(),
            "{revision}: {request}"
        );
        assert_no_violations(&server);
    }
}

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
