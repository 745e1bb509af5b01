//! `RawClient`: newline-delimited JSON-RPC over an in-process connection, with no SDK in the
//! way, so a snippet can send exactly what it wants (anti-pattern demos included). The server
//! records every line in its transcript.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

use crate::revision::Revision;

/// How long `recv` waits (tokio time: free under a paused clock) before panicking.
const RECV_LIMIT: Duration = Duration::from_secs(60);

/// A raw JSON-RPC client connected to a [`crate::TestServer`].
#[derive(Debug)]
pub struct RawClient {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    revision: Revision,
    /// Messages read while `request` looked for its response, handed out by `recv` first.
    backlog: VecDeque<Value>,
}

impl RawClient {
    pub(crate) fn new(stream: DuplexStream, revision: Revision) -> RawClient {
        let (reader, writer) = tokio::io::split(stream);
        RawClient {
            reader: BufReader::new(reader),
            writer,
            revision,
            backlog: VecDeque::new(),
        }
    }

    /// The revision this client speaks.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Sends one message as one line, unchanged.
    pub async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Sends raw text followed by a newline (for parse-error demos). Panics if the server
    /// closed the connection.
    pub async fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.writer
            .write_all(&bytes)
            .await
            .expect("the test server closed the connection");
        self.writer
            .flush()
            .await
            .expect("the test server closed the connection");
    }

    /// The next message from the server. Panics with context if none comes within 60 s of
    /// tokio time or the connection closed.
    pub async fn recv(&mut self) -> Value {
        match self.try_recv(RECV_LIMIT).await {
            Some(message) => message,
            None => panic!(
                "RawClient: no message from the server within {RECV_LIMIT:?} (tokio time), or it closed the connection"
            ),
        }
    }

    /// The next message, or `None` if none arrives within `wait` (tokio time) or the
    /// connection closed.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        if let Some(message) = self.backlog.pop_front() {
            return Some(message);
        }
        let mut line = String::new();
        match tokio::time::timeout(wait, self.reader.read_line(&mut line)).await {
            Ok(Ok(read)) if read > 0 => Some(serde_json::from_str(&line).unwrap_or_else(|error| {
                panic!("RawClient: the server sent a line that is not JSON ({error}): {line}")
            })),
            _ => None,
        }
    }

    /// `params` with the 2026-07-28 `_meta` stamp (protocol version, client info, capabilities)
    /// (declaring `elicitation`, as `initialize` does under 2025-11-25) added when this client
    /// speaks 2026-07-28; unchanged otherwise. Existing keys win.
    pub fn stamped(&self, mut params: Value) -> Value {
        if self.revision != Revision::V2026_07_28 {
            return params;
        }
        if !params.is_object() {
            params = json!({});
        }
        let meta = params
            .as_object_mut()
            .expect("an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.entry("io.modelcontextprotocol/protocolVersion")
                .or_insert_with(|| json!(Revision::V2026_07_28.as_str()));
            meta.entry("io.modelcontextprotocol/clientInfo")
                .or_insert_with(|| json!({"name": "raw-client", "version": "1.0.0"}));
            meta.entry("io.modelcontextprotocol/clientCapabilities")
                .or_insert_with(|| json!({"elicitation": {}}));
        }
        params
    }

    /// The revision's handshake: under 2025-11-25, `initialize` (id `0`) and
    /// `notifications/initialized`, returning the `initialize` result; under 2026-07-28
    /// nothing (there is no handshake), returning `null`.
    pub async fn initialize(&mut self) -> Value {
        if self.revision != Revision::V2025_11_25 {
            return Value::Null;
        }
        let params = json!({
            "protocolVersion": Revision::V2025_11_25.as_str(),
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "raw-client", "version": "1.0.0"}
        });
        let response = self.request(json!(0), "initialize", params).await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response.get("result").cloned().unwrap_or(response)
    }

    /// Sends a request (stamped for 2026-07-28, see [`RawClient::stamped`]) and returns the
    /// whole response message with the same id; other messages read meanwhile stay queued
    /// for `recv`.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        let params = self.stamped(params);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut skipped = VecDeque::new();
        loop {
            let message = match self.backlog.pop_front() {
                Some(message) => message,
                None => self.recv_fresh().await,
            };
            let is_response = message.get("method").is_none() && message.get("id") == Some(&id);
            if is_response {
                skipped.extend(self.backlog.drain(..));
                self.backlog = skipped;
                return message;
            }
            skipped.push_back(message);
        }
    }

    async fn recv_fresh(&mut self) -> Value {
        let mut line = String::new();
        match tokio::time::timeout(RECV_LIMIT, self.reader.read_line(&mut line)).await {
            Ok(Ok(read)) if read > 0 => serde_json::from_str(&line).unwrap_or_else(|error| {
                panic!("RawClient: the server sent a line that is not JSON ({error}): {line}")
            }),
            _ => panic!(
                "RawClient: no response within {RECV_LIMIT:?} (tokio time), or the server closed the connection"
            ),
        }
    }
}
