//! What a snippet's hidden lines print about the server's side of a run, and the raw replay a
//! wire-level snippet uses, so that a block's visible code is only what a reader would write:
//!
//! - [`describe`]: one line for a message a peer sent (`response to 7: "once"`);
//! - [`TestServer::print_report`]: the handler log, the cancels the server received and the
//!   violations it recorded, each line starting `server`; [`TestServer::cancels_received`] and
//!   [`TestServer::requests_received`] for a snippet that prints them its own way;
//! - [`RawClient::replay`]: sends a list of JSON-RPC messages as written, one at a time;
//! - [`Driver::call_then_cancel`]: a call, a cancel of it later, and what followed.

use std::time::Duration;

use serde_json::{Value, json};

use crate::driver::Driver;
use crate::raw_client::RawClient;
use crate::test_server::TestServer;

/// How long `replay` lets the server act on one message before it sends the next (tokio time:
/// free under the paused clock, and the runtime runs every ready task before it moves on).
const STEP: Duration = Duration::from_millis(1);

/// One line for a message a peer sent: a response by its id, with a tool result's first text, a
/// task's id and status, or the error's code and message; a notification or a request by its
/// method and params.
pub fn describe(message: &Value) -> String {
    let id = &message["id"];
    match (
        message.get("method"),
        message.get("result"),
        message.get("error"),
    ) {
        (Some(method), _, _) => {
            let method = method.as_str().unwrap_or_default();
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            match message.get("id") {
                Some(id) => format!("request {method} id {id} {params}"),
                None => format!("{method} {params}"),
            }
        }
        (None, Some(result), _) => {
            let task = result.get("task").unwrap_or(result);
            match (
                result.pointer("/content/0/text"),
                task.get("taskId"),
                task.get("status"),
            ) {
                (Some(text), _, _) => format!("response to {id}: {text}"),
                (None, Some(task_id), Some(status)) => {
                    format!("response to {id}: task {task_id} {status}")
                }
                _ => format!("response to {id}: {result}"),
            }
        }
        (None, None, Some(error)) => {
            format!(
                "response to {id}: error {} {}",
                error["code"], error["message"]
            )
        }
        (None, None, None) => format!("unrecognised {message}"),
    }
}

impl TestServer {
    /// The `params` of every `notifications/cancelled` the server received, in order.
    pub fn cancels_received(&self) -> Vec<Value> {
        let wire = self.transcript().to_json();
        wire.as_array()
            .into_iter()
            .flatten()
            .filter(|entry| entry["direction"] == "in")
            .filter(|entry| entry["message"]["method"] == "notifications/cancelled")
            .map(|entry| entry["message"]["params"].clone())
            .collect()
    }

    /// Every request the server received (the whole messages), in order.
    pub fn requests_received(&self) -> Vec<Value> {
        let wire = self.transcript().to_json();
        wire.as_array()
            .into_iter()
            .flatten()
            .filter(|entry| entry["direction"] == "in")
            .map(|entry| entry["message"].clone())
            .filter(|message| message.get("method").is_some() && message.get("id").is_some())
            .collect()
    }

    /// Prints every violation the server recorded so far, one line each.
    pub fn print_violations(&self) {
        for violation in self.violations() {
            println!("server violation {}: {}", violation.rule, violation.detail);
        }
    }

    /// Waits until no handler runs, then prints the server's side of the run: every line of its
    /// handler log, every cancel it received (and what it sent about that request after the
    /// cancel, a response or a cancel of its own: there should be nothing), any progress it sent
    /// for a request after answering it, every violation it recorded.
    pub async fn print_report(&self) {
        self.idle().await;
        for line in self.handler_log() {
            println!("server: {line}");
        }
        let wire = self.transcript().to_json();
        let entries = wire.as_array().cloned().unwrap_or_default();
        for (index, entry) in entries.iter().enumerate() {
            let message = &entry["message"];
            if entry["direction"] != "in" || message["method"] != "notifications/cancelled" {
                continue;
            }
            let params = &message["params"];
            println!("server received a cancel: {params}");
            let id = &params["requestId"];
            for later in &entries[index + 1..] {
                let sent = &later["message"];
                let answer = sent.get("method").is_none() && sent["id"] == *id;
                let cancel = sent["method"] == "notifications/cancelled"
                    && sent["params"]["requestId"] == *id;
                if later["direction"] == "out" && (answer || cancel) {
                    println!("server sent after the cancel: {}", describe(sent));
                }
            }
        }
        for line in progress_after_response(&entries) {
            println!("{line}");
        }
        self.print_violations();
    }
}

/// A line for every `notifications/progress` the server sent after its response to the request
/// whose token it names: progress "MUST stop after completion".
fn progress_after_response(entries: &[Value]) -> Vec<String> {
    let mut tokens: Vec<(Value, Value, bool)> = Vec::new(); // (token, request id, answered)
    let mut lines = Vec::new();
    for entry in entries {
        let message = &entry["message"];
        let incoming = entry["direction"] == "in";
        if incoming && message.get("method").is_some() && message.get("id").is_some() {
            if let Some(token) = message.pointer("/params/_meta/progressToken") {
                tokens.retain(|(known, _, _)| known != token);
                tokens.push((token.clone(), message["id"].clone(), false));
            }
        } else if !incoming && message.get("method").is_none() {
            for (_, id, answered) in tokens.iter_mut() {
                if message["id"] == *id {
                    *answered = true;
                }
            }
        } else if !incoming && message["method"] == "notifications/progress" {
            let token = &message["params"]["progressToken"];
            if let Some((_, id, true)) = tokens.iter().find(|(known, _, _)| known == token) {
                lines.push(format!(
                    "server sent after its response to {id}: {}",
                    describe(message)
                ));
            }
        }
    }
    lines
}

impl RawClient {
    /// Sends each of `messages`, letting the server act on one before the next, then reads for
    /// `wait` more; returns everything the server sent meanwhile, in order. A request gets the
    /// per-request `_meta` fields a 2026-07-28 request carries ([`RawClient::stamped`]: none
    /// under 2025-11-25, and fields already there win); nothing else is added.
    pub async fn replay(&mut self, messages: &[Value], wait: Duration) -> Vec<Value> {
        let stamped: Vec<Value> = messages
            .iter()
            .map(|message| {
                let mut message = message.clone();
                if message.get("method").is_some() && message.get("id").is_some() {
                    let params = message.get("params").cloned().unwrap_or(json!({}));
                    message["params"] = self.stamped(params);
                }
                message
            })
            .collect();
        self.replay_as_written(&stamped, wait).await
    }

    /// Like [`RawClient::replay`], the messages exactly as written (a malformed request stays
    /// malformed).
    pub async fn replay_as_written(&mut self, messages: &[Value], wait: Duration) -> Vec<Value> {
        let mut received = self.take_backlog();
        for message in messages {
            self.send(message.clone()).await;
            while let Some(reply) = self.try_recv(STEP).await {
                received.push(reply);
            }
        }
        while let Some(reply) = self.try_recv(wait).await {
            received.push(reply);
        }
        received
    }
}

impl Driver {
    /// `tools/call` of `tool` (no arguments) with id `id`, then, `after` later,
    /// `notifications/cancelled` for it (reason "user pressed stop"); returns what the server
    /// sent within two minutes of the cancel (`None`: nothing, as the rules ask).
    pub async fn call_then_cancel(
        &mut self,
        id: Value,
        tool: &str,
        after: Duration,
    ) -> Option<Value> {
        self.call_tool(id.clone(), tool, json!({})).await;
        tokio::time::sleep(after).await;
        self.cancel(id, "user pressed stop").await;
        self.try_recv(Duration::from_secs(120)).await
    }
}
