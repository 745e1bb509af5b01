//! Shared by the rmcp client tests (in-process in `rmcp_client/`, over HTTP in `http/`, and
//! `harness.rs`): building `tools/call` requests, reading a result's text, a client handler that
//! records progress, connecting a handler forced to a revision, and reading what the server saw
//! from its transcript.

use std::sync::{Arc, Mutex};

use mcp_testserver::{Direction, RenderTranscript, Revision, RmcpRevision, TestServer};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest,
    ProgressNotificationParam,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, NotificationContext,
    RunningService,
};
use rmcp::transport::IntoTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;

/// The parameters of a `tools/call` of `name` with `arguments` (a JSON object).
pub(crate) fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

/// A `tools/call` request, for `send_cancellable_request`.
pub(crate) fn call_request(name: &str, arguments: Value) -> ClientRequest {
    ClientRequest::CallToolRequest(CallToolRequest::new(call(name, arguments)))
}

/// The text of a tool result's first content block.
pub(crate) fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {value}"))
        .to_owned()
}

/// A client handler that keeps the progress notifications it receives.
#[derive(Clone, Default)]
pub(crate) struct ProgressRecorder {
    pub config: ClientConfig,
    pub seen: Arc<Mutex<Vec<ProgressNotificationParam>>>,
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

/// Serves `handler` as an rmcp client over `transport`, speaking `revision`: the `initialize`
/// handshake for 2025-11-25, `server/discover` preferring 2026-07-28 for 2026-07-28.
pub(crate) async fn serve_as<H, T, E, A>(
    handler: H,
    transport: T,
    revision: Revision,
) -> Result<RunningService<RoleClient, H>, ClientInitializeError>
where
    H: ClientHandler,
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match revision {
        Revision::V2025_11_25 => handler.serve(transport).await,
        Revision::V2026_07_28 => {
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![revision.protocol_version()],
            };
            handler.serve_with_lifecycle(transport, lifecycle).await
        }
    }
}

/// What the server received (client → server), in order, transport events included.
pub(crate) fn received(server: &TestServer) -> Vec<Value> {
    messages(server, Direction::In)
}

/// What the server sent (server → client), in order.
pub(crate) fn sent(server: &TestServer) -> Vec<Value> {
    messages(server, Direction::Out)
}

fn messages(server: &TestServer, direction: Direction) -> Vec<Value> {
    server
        .transcript()
        .messages()
        .into_iter()
        .filter(|wire| wire.direction == direction)
        .map(|wire| wire.value())
        .collect()
}

/// Whether the server sent a response (result or error) for `id`.
pub(crate) fn answered(server: &TestServer, id: &Value) -> bool {
    sent(server)
        .iter()
        .any(|message| message.get("method").is_none() && message.get("id") == Some(id))
}

/// Fails with the transcript when the server recorded any violation.
pub(crate) fn assert_no_violations(server: &TestServer) {
    assert_eq!(
        server.violations(),
        [],
        "{}: violations recorded\n{}",
        server.revision(),
        server.transcript().render()
    );
}
