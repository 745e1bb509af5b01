//! `RawClient`: the one newline-delimited JSON-RPC peer of the crate, with no SDK in the way, so
//! a snippet can send exactly what it wants (anti-pattern demos included) and the server's own
//! tests can check every rule through the wire. It runs over any byte stream: an in-process
//! connection to a [`crate::TestServer`] or to a bare server [`Core`], or the stdin/stdout of an
//! `mcp-testserver` process. Responses are matched by id alone ([`jsonrpc::is_response_to`]);
//! what arrives meanwhile is kept, in order, for `recv`.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::jsonrpc;
use crate::revision::Revision;
use crate::server::{Core, serve_connection};

/// How long `recv` waits (tokio time: free under a paused clock) before panicking.
const RECV_LIMIT: Duration = Duration::from_secs(60);

type Reader = BufReader<Box<dyn AsyncRead + Unpin + Send>>;
type Writer = Box<dyn AsyncWrite + Unpin + Send>;

/// A raw JSON-RPC client.
pub struct RawClient {
    reader: Reader,
    /// `None` once `close_input` closed it.
    writer: Option<Writer>,
    revision: Revision,
    /// The server process, when this client talks to one over stdio.
    child: Option<tokio::process::Child>,
    /// Messages read while `request` looked for its response, handed out by `recv` first.
    backlog: VecDeque<Value>,
}

impl std::fmt::Debug for RawClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawClient")
            .field("revision", &self.revision)
            .field("backlog", &self.backlog)
            .finish_non_exhaustive()
    }
}

impl RawClient {
    /// A client over any byte stream.
    pub fn over<S>(stream: S, revision: Revision) -> RawClient
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (reader, writer) = tokio::io::split(stream);
        RawClient::from_halves(Box::new(reader), Box::new(writer), None, revision)
    }

    /// A client of a fresh connection to `core`, served in-process (a server with the
    /// conformance fixtures, say, or any `Core` a test builds).
    pub fn serve(core: Arc<Core>, revision: Revision) -> RawClient {
        let (client_end, server_end) = tokio::io::duplex(64 * 1024);
        let (server_reader, server_writer) = tokio::io::split(server_end);
        tokio::spawn(serve_connection(core, server_reader, server_writer));
        RawClient::over(client_end, revision)
    }

    /// A client of a fresh `program` process (the `mcp-testserver` binary) over its
    /// stdin/stdout, started with `args`; its stderr is discarded. Panics if it cannot start.
    /// The child does not inherit `$MDBOOK_SNIPPETS_ARTIFACTS`: in a Rust snippet that directory
    /// is `snippet_main`'s, so the binary writes artifacts only when `args` has `--artifacts`.
    pub fn spawn(program: &str, args: &[&str], revision: Revision) -> RawClient {
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .env_remove(crate::ARTIFACTS_VAR)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| panic!("RawClient: spawning {program}: {error}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        RawClient::from_halves(Box::new(stdout), Box::new(stdin), Some(child), revision)
    }

    fn from_halves(
        reader: Box<dyn AsyncRead + Unpin + Send>,
        writer: Writer,
        child: Option<tokio::process::Child>,
        revision: Revision,
    ) -> RawClient {
        RawClient {
            reader: BufReader::new(reader),
            writer: Some(writer),
            revision,
            child,
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
        self.send_bytes(&bytes).await;
    }

    /// Sends bytes exactly as given (no newline added). Panics if the server closed the
    /// connection or `close_input` closed this side.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let writer = self
            .writer
            .as_mut()
            .expect("RawClient: sending after close_input");
        writer
            .write_all(bytes)
            .await
            .expect("the test server closed the connection");
        writer
            .flush()
            .await
            .expect("the test server closed the connection");
    }

    /// Closes the sending side: the server reads end of file.
    pub async fn close_input(&mut self) {
        if let Some(mut writer) = self.writer.take() {
            let _ = writer.shutdown().await;
        }
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
        self.read(wait).await
    }

    /// Takes the messages read while waiting for responses and not handed out yet.
    pub fn take_backlog(&mut self) -> Vec<Value> {
        self.backlog.drain(..).collect()
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
        self.notify("notifications/initialized", json!({})).await;
        response.get("result").cloned().unwrap_or(response)
    }

    /// Sends a request (stamped for 2026-07-28, see [`RawClient::stamped`]) without waiting.
    pub async fn send_request(&mut self, id: Value, method: &str, params: Value) {
        let params = self.stamped(params);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
    }

    /// Sends a request (stamped for 2026-07-28) and returns the whole response message with
    /// the same id; other messages read meanwhile stay queued for `recv`.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_request(id.clone(), method, params).await;
        self.response(&id).await
    }

    /// Reads until the response to the request `id` (or takes it from the messages already
    /// read); other messages stay queued, in order. Panics if none comes within 60 s.
    pub async fn response(&mut self, id: &Value) -> Value {
        if let Some(index) = self
            .backlog
            .iter()
            .position(|message| jsonrpc::is_response_to(message, id))
        {
            return self.backlog.remove(index).expect("the index is in range");
        }
        loop {
            let Some(message) = self.read(RECV_LIMIT).await else {
                panic!(
                    "RawClient: no response with id {id} within {RECV_LIMIT:?} (tokio time), or the server closed the connection (read meanwhile: {:?})",
                    self.backlog
                );
            };
            if jsonrpc::is_response_to(&message, id) {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// `tools/call` of `tool` with `arguments`, and its response.
    pub async fn call(&mut self, id: Value, tool: &str, arguments: Value) -> Value {
        let params = json!({"name": tool, "arguments": arguments});
        self.request(id, "tools/call", params).await
    }

    /// `notifications/cancelled` for the request `id`.
    pub async fn cancel(&mut self, id: Value) {
        let params = json!({"requestId": id, "reason": "cancelled by the raw client"});
        self.notify("notifications/cancelled", params).await;
    }

    /// The rules of the violations the server recorded so far, through its `violations` tool
    /// (a request with id `id`).
    pub async fn violation_rules(&mut self, id: Value) -> Vec<String> {
        let response = self.call(id, "violations", json!({})).await;
        let text = response["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("RawClient: no violations text in {response}"));
        let list: Vec<Value> = serde_json::from_str(text).expect("violations JSON");
        list.iter()
            .filter_map(|violation| violation["rule"].as_str().map(str::to_owned))
            .collect()
    }

    /// Closes the sending side and, for a server process, waits (10 s at most) for it to exit:
    /// its exit code; `None` in-process.
    pub async fn finish(mut self) -> Option<i32> {
        self.close_input().await;
        let mut child = self.child.take()?;
        let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
            .await
            .expect("RawClient: the server process did not exit within 10 s of EOF");
        status.expect("waiting for the server process").code()
    }

    async fn read(&mut self, wait: Duration) -> Option<Value> {
        match self.read_line(wait).await? {
            Ok(message) => Some(message),
            Err(line) => panic!("RawClient: the peer sent a line that is not JSON: {line}"),
        }
    }

    /// The next line from the peer, parsed (`Err`: the line, without its newline, when it is
    /// not JSON), or `None` after `wait` or at end of file. For a caller with its own policy
    /// for bad lines (`Driver` records them); ignores the backlog.
    pub(crate) async fn read_line(&mut self, wait: Duration) -> Option<Result<Value, String>> {
        let mut line = String::new();
        match tokio::time::timeout(wait, self.reader.read_line(&mut line)).await {
            Ok(Ok(read)) if read > 0 => {
                let line = line.trim_end_matches(['\r', '\n']);
                Some(serde_json::from_str(line).map_err(|_| line.to_owned()))
            }
            _ => None,
        }
    }

    /// Writes one message as one line; an error when the peer is gone (no panic), for a caller
    /// that reports that later with more context (`Driver`).
    pub(crate) async fn write_message(&mut self, message: &Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message).expect("a JSON value serializes");
        line.push(b'\n');
        let writer = self.writer.as_mut().ok_or(std::io::ErrorKind::BrokenPipe)?;
        writer.write_all(&line).await?;
        writer.flush().await
    }
}
