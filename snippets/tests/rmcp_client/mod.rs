//! The rmcp 3.x client against the test server, in-process, under both revisions: calls,
//! concurrent calls completing out of order, `RequestHandle::cancel`, dropping a `call_tool`
//! future, dropping a `RequestHandle`, timeouts (plain, reset on progress, maximum total),
//! progress, and tasks where rmcp supports them. Every test asserts on what the *server* saw:
//! its transcript, its handler log and its violations. The clock is paused, so one-second steps
//! cost no real time. This file holds the helpers the concern modules share.

use crate::rmcp_support;

mod calls;
mod cancellation;
mod progress;
mod tasks;
mod timeouts;

use std::time::Duration;

use mcp_testserver::{RmcpRevision, TestServer};
use rmcp::RoleClient;
use rmcp::service::RunningService;
use serde_json::Value;

use rmcp_support::{ProgressRecorder, received, serve_as};

async fn connect(server: &TestServer) -> RunningService<RoleClient, ()> {
    server
        .connect_rmcp()
        .await
        .unwrap_or_else(|error| panic!("rmcp client under {}: {error:#}", server.revision()))
}

/// Connects `recorder` as a custom rmcp client, forced to the server's revision.
async fn connect_recorder(
    server: &TestServer,
    mut recorder: ProgressRecorder,
) -> RunningService<RoleClient, ProgressRecorder> {
    recorder.config.protocol_version = server.revision().protocol_version();
    serve_as(recorder, server.connect_transport(), server.revision())
        .await
        .unwrap()
}

/// The `notifications/cancelled` messages the server received.
fn cancels(server: &TestServer) -> Vec<Value> {
    received(server)
        .into_iter()
        .filter(|message| message["method"] == "notifications/cancelled")
        .collect()
}

/// Asserts the server received exactly one `notifications/cancelled`, for `id` with `reason`.
fn assert_cancelled_once(server: &TestServer, id: &Value, reason: &str) {
    let revision = server.revision();
    let cancels = cancels(server);
    assert_eq!(cancels.len(), 1, "{revision}");
    assert_eq!(cancels[0]["params"]["requestId"], *id, "{revision}");
    assert_eq!(cancels[0]["params"]["reason"], reason, "{revision}");
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
