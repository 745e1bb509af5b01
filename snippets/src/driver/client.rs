//! `Driver`: the strict client itself, its handshake, requests, cancels and reads, each message
//! recorded in its transcript and checked against the ledger (`ledger.rs`).

use std::collections::VecDeque;
use std::time::Duration;

use anyhow::{Context, bail};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::artifacts::{Registration, register};
use crate::raw_client::RawClient;
use crate::render::RenderTranscript;
use crate::revision::{Revision, current_revision};
use crate::transcript::{Direction, Entry, Side, Transcript};
use crate::violations::{Violation, ViolationLog};

use super::ledger::Ledger;

/// How long (virtual time under a paused clock) `recv` waits before it gives up with context.
const RECV_TIMEOUT: Duration = Duration::from_secs(30);
/// The id of the handshake request (`initialize` or `server/discover`); snippets start at 1.
const HANDSHAKE_ID: i64 = 0;
/// Room for a few large messages in flight; a writer simply waits when the pipe is full.
const PIPE_CAPACITY: usize = 1 << 16;

/// A strict client driving an rmcp server in-process, recording the wire.
pub struct Driver {
    revision: Revision,
    /// The client capabilities announced in the handshake (and, under 2026-07-28, per request).
    capabilities: Value,
    /// The line framing (the crate's one JSON-RPC peer); the driver adds its own checks.
    wire: RawClient,
    /// Messages `request` read past while waiting for its response; `recv` returns them first.
    backlog: VecDeque<Value>,
    transcript: Transcript,
    violations: ViolationLog,
    ledger: Ledger,
    server_task: JoinHandle<()>,
}

impl Driver {
    /// Serves `handler` with rmcp over an in-process duplex pipe and performs the handshake of
    /// [`current_revision`]: `initialize` + `notifications/initialized` under 2025-11-25,
    /// `server/discover` under 2026-07-28. The handshake uses id 0.
    pub async fn start<S: ServerHandler>(handler: S) -> anyhow::Result<Driver> {
        Driver::start_with(handler, current_revision()).await
    }

    /// Like [`Driver::start`], announcing client `capabilities` (e.g. `{"sampling": {}}`) instead
    /// of none, so the server may send the requests they allow.
    pub async fn start_with_capabilities<S: ServerHandler>(
        handler: S,
        capabilities: Value,
    ) -> anyhow::Result<Driver> {
        Driver::start_inner(handler, current_revision(), capabilities).await
    }

    /// Like [`Driver::start`], under a chosen revision.
    pub async fn start_with<S: ServerHandler>(
        handler: S,
        revision: Revision,
    ) -> anyhow::Result<Driver> {
        Driver::start_inner(handler, revision, json!({})).await
    }

    async fn start_inner<S: ServerHandler>(
        handler: S,
        revision: Revision,
        capabilities: Value,
    ) -> anyhow::Result<Driver> {
        if !capabilities.is_object() {
            bail!("client capabilities must be a JSON object, not {capabilities}");
        }
        let (client_end, server_end) = tokio::io::duplex(PIPE_CAPACITY);
        let server_task = tokio::spawn(async move {
            // A failed handshake closes the pipe; the driver reports it from its side.
            if let Ok(running) = handler.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let transcript = Transcript::new(Side::Client);
        let violations = ViolationLog::new();
        register(Registration {
            kind: "driver".to_owned(),
            revision,
            transcript: transcript.clone(),
            violations: violations.clone(),
        });
        let mut driver = Driver {
            revision,
            capabilities,
            wire: RawClient::over(client_end, revision),
            backlog: VecDeque::new(),
            transcript,
            violations,
            ledger: Ledger::default(),
            server_task,
        };
        driver
            .handshake()
            .await
            .with_context(|| format!("handshake with the rmcp server under {revision}"))?;
        Ok(driver)
    }

    /// The revision this driver speaks.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Sends one message exactly as given (no `_meta` added, no id checks): for anti-pattern
    /// demos. Requests and cancels sent this way are still tracked, so responses are checked.
    pub async fn send(&mut self, message: Value) {
        self.ledger.sent(&message);
        self.transcript.record(Direction::Out, message.clone());
        // A closed pipe means the server is gone; the next `recv` reports that with context.
        let _ = self.wire.write_message(&message).await;
    }

    /// The next message from the server. Panics with the transcript tail when none arrives
    /// within 30 s (virtual time under a paused clock) or when the server closed the pipe.
    pub async fn recv(&mut self) -> Value {
        match self.try_recv(RECV_TIMEOUT).await {
            Some(message) => message,
            None => panic!(
                "Driver::recv: no message from the rmcp server within {RECV_TIMEOUT:?}\n{}",
                self.transcript_tail()
            ),
        }
    }

    /// The next message from the server, or `None` after `wait` (or when the pipe closed).
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        if let Some(message) = self.backlog.pop_front() {
            return Some(message);
        }
        let message = match self.wire.read_line(wait).await? {
            Ok(message) => {
                self.transcript.record(Direction::In, message.clone());
                message
            }
            Err(line) => {
                self.transcript
                    .record_entry(Direction::In, Entry::Unparseable(line.clone()));
                // The ledger judges it as what it is: no JSON-RPC message.
                Value::String(line)
            }
        };
        self.ledger
            .received(&message, self.revision, &self.violations);
        Some(message)
    }

    /// Sends `tools/call` with the chosen id (and, under 2026-07-28, the per-request `_meta`);
    /// does not wait. Panics when the id is null or was already used: a driver never reuses ids.
    pub async fn call_tool(&mut self, id: Value, name: &str, arguments: Value) {
        let params = json!({ "name": name, "arguments": arguments });
        self.send_request(id, "tools/call", params, None).await;
    }

    /// Like [`Driver::call_tool`], asking for progress with `_meta.progressToken`.
    pub async fn call_tool_with_progress(
        &mut self,
        id: Value,
        name: &str,
        arguments: Value,
        token: Value,
    ) {
        let params = json!({ "name": name, "arguments": arguments });
        self.send_request(id, "tools/call", params, Some(token))
            .await;
    }

    /// Sends any request with the chosen id and waits for its response; messages that arrive
    /// before it stay queued for `recv`.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_request(id.clone(), method, params, None).await;
        self.response_to(&id).await
    }

    /// Waits for the response to `id`; other messages stay queued for `recv`.
    pub async fn response_to(&mut self, id: &Value) -> Value {
        let mut skipped = Vec::new();
        let response = loop {
            let message = match self.backlog.pop_front() {
                Some(message) => message,
                None => match self.try_recv(RECV_TIMEOUT).await {
                    Some(message) => message,
                    None => panic!(
                        "Driver: no response to id {id} within {RECV_TIMEOUT:?}\n{}",
                        self.transcript_tail()
                    ),
                },
            };
            if crate::jsonrpc::is_response_to(&message, id) {
                break message;
            }
            skipped.push(message);
        };
        // Keep arrival order: the skipped messages come before anything still in the backlog.
        for message in skipped.into_iter().rev() {
            self.backlog.push_front(message);
        }
        response
    }

    /// Sends `notifications/cancelled {requestId: id, reason}`.
    pub async fn cancel(&mut self, id: Value, reason: &str) {
        self.send(json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": reason },
        }))
        .await;
    }

    /// Closes the pipe (EOF for the server) and waits until rmcp's service loop has ended.
    pub async fn close(mut self) {
        self.wire.close_input().await;
        drop(self.wire);
        let _ = (&mut self.server_task).await;
    }

    /// The wire so far, recorded from the client's side (`Out` = driver → server).
    pub fn transcript(&self) -> Transcript {
        self.transcript.clone()
    }

    /// What the server did against the protocol, as far as this client could see.
    pub fn violations(&self) -> Vec<Violation> {
        self.violations.list()
    }

    async fn send_request(
        &mut self,
        id: Value,
        method: &str,
        mut params: Value,
        progress_token: Option<Value>,
    ) {
        if let Err(problem) = self.ledger.check_new_id(&id, self.revision) {
            panic!(
                "Driver: {problem} (choose a fresh id; use Driver::send for anti-pattern demos)"
            );
        }
        let meta = params
            .as_object_mut()
            .expect("request params are an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        if self.revision == Revision::V2026_07_28 {
            meta.as_object_mut()
                .expect("_meta is an object")
                .extend(request_meta(self.revision, &self.capabilities));
        }
        if let Some(token) = progress_token {
            meta["progressToken"] = token;
        }
        if meta.as_object().is_some_and(|meta| meta.is_empty()) {
            params
                .as_object_mut()
                .expect("params object")
                .remove("_meta");
        }
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
    }

    async fn handshake(&mut self) -> anyhow::Result<()> {
        let id = json!(HANDSHAKE_ID);
        match self.revision {
            Revision::V2025_11_25 => {
                let params = json!({
                    "protocolVersion": self.revision.as_str(),
                    "capabilities": self.capabilities,
                    "clientInfo": client_info(),
                });
                let response = self.handshake_request(&id, "initialize", params).await?;
                let negotiated = &response["result"]["protocolVersion"];
                if negotiated != self.revision.as_str() {
                    bail!("the server answered initialize with protocolVersion {negotiated}");
                }
                self.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
                    .await;
            }
            Revision::V2026_07_28 => {
                let response = self
                    .handshake_request(&id, "server/discover", json!({}))
                    .await?;
                let supported = &response["result"]["supportedVersions"];
                let listed = supported.as_array().is_some_and(|versions| {
                    versions
                        .iter()
                        .any(|version| version == self.revision.as_str())
                });
                if !listed {
                    bail!(
                        "server/discover lists supportedVersions {supported}, not {}",
                        self.revision
                    );
                }
            }
        }
        Ok(())
    }

    async fn handshake_request(
        &mut self,
        id: &Value,
        method: &str,
        params: Value,
    ) -> anyhow::Result<Value> {
        self.send_request(id.clone(), method, params, None).await;
        let response = loop {
            match self.try_recv(RECV_TIMEOUT).await {
                Some(message) if crate::jsonrpc::is_response_to(&message, id) => {
                    break message;
                }
                Some(other) => self.backlog.push_back(other),
                None => {
                    bail!("no response to {method}: the server closed the pipe or stayed silent")
                }
            }
        };
        if let Some(error) = response.get("error") {
            bail!("{method} failed: {error}");
        }
        Ok(response)
    }

    fn transcript_tail(&self) -> String {
        let rendered = self.transcript.render();
        let lines: Vec<&str> = rendered.lines().collect();
        let start = lines.len().saturating_sub(12);
        format!("last messages on the wire:\n{}", lines[start..].join("\n"))
    }
}

/// The client identity the driver announces.
fn client_info() -> Value {
    json!({ "name": "mcp-testserver-driver", "version": env!("CARGO_PKG_VERSION") })
}

/// The per-request `_meta` entries 2026-07-28 requires on every request.
fn request_meta(revision: Revision, capabilities: &Value) -> serde_json::Map<String, Value> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": revision.as_str(),
        "io.modelcontextprotocol/clientInfo": client_info(),
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    match meta {
        Value::Object(map) => map,
        _ => unreachable!("a json! object literal"),
    }
}
