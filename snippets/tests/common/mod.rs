//! Shared by the rule tests: a raw newline-delimited JSON-RPC connection (`Conn`) that works the
//! same over the in-process server and over the stdio binary, so every rule is checked through
//! both. Scenarios live in `rules.rs` and observe the server only through the wire (the
//! `violations` tool instead of the Rust API), which is what makes them transport-agnostic.
//! `every_rule_test!` holds the one list of scenarios each transport runs. The rmcp client tests
//! share their helpers through `rmcp.rs`.

#![allow(dead_code)]

pub mod rmcp;
pub mod rules;

use std::time::Duration;

use mcp_testserver::server::{Core, serve_connection};
use mcp_testserver::{Revision, TestServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// How long `recv` waits before failing the test (tokio time: free under a paused clock).
const RECV_LIMIT: Duration = Duration::from_secs(10);

/// A raw connection to the server under test.
pub struct Conn {
    reader: BufReader<Box<dyn AsyncRead + Unpin + Send>>,
    writer: Option<Box<dyn AsyncWrite + Unpin + Send>>,
    pub revision: Revision,
    child: Option<tokio::process::Child>,
    /// Messages read while waiting for something else.
    pub backlog: Vec<Value>,
}

/// A connection to a fresh in-process server.
pub fn in_process(revision: Revision) -> Conn {
    let server = TestServer::start_with(revision);
    let (reader, writer) = tokio::io::split(server.connect_transport());
    Conn {
        reader: BufReader::new(Box::new(reader)),
        writer: Some(Box::new(writer)),
        revision,
        child: None,
        backlog: Vec::new(),
    }
}

/// A connection to `core` (e.g. one with the conformance fixtures), served in-process.
pub fn in_process_core(core: std::sync::Arc<Core>, revision: Revision) -> Conn {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_reader, server_writer) = tokio::io::split(server_end);
    tokio::spawn(serve_connection(core, server_reader, server_writer));
    let (reader, writer) = tokio::io::split(client_end);
    Conn {
        reader: BufReader::new(Box::new(reader)),
        writer: Some(Box::new(writer)),
        revision,
        child: None,
        backlog: Vec::new(),
    }
}

/// A connection to a fresh `mcp-testserver` process over its stdin/stdout.
pub fn stdio(revision: Revision) -> Conn {
    stdio_with_args(revision, &[])
}

/// Like [`stdio`], with extra command-line arguments for the binary.
pub fn stdio_with_args(revision: Revision, args: &[&str]) -> Conn {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-testserver"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawning target/…/mcp-testserver");
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    Conn {
        reader: BufReader::new(Box::new(stdout)),
        writer: Some(Box::new(stdin)),
        revision,
        child: Some(child),
        backlog: Vec::new(),
    }
}

impl Conn {
    pub async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let writer = self.writer.as_mut().expect("not closed");
        writer
            .write_all(bytes)
            .await
            .expect("the server closed its input");
        writer.flush().await.expect("the server closed its input");
    }

    pub async fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_bytes(&bytes).await;
    }

    /// Closes our sending side (EOF for the server).
    pub async fn close_input(&mut self) {
        if let Some(mut writer) = self.writer.take() {
            let _ = writer.shutdown().await;
        }
    }

    /// The next message not yet consumed, or `None` after `wait` or at EOF.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        if !self.backlog.is_empty() {
            return Some(self.backlog.remove(0));
        }
        let mut line = String::new();
        match tokio::time::timeout(wait, self.reader.read_line(&mut line)).await {
            Ok(Ok(read)) if read > 0 => Some(
                serde_json::from_str(&line)
                    .unwrap_or_else(|error| panic!("server sent non-JSON ({error}): {line:?}")),
            ),
            _ => None,
        }
    }

    pub async fn recv(&mut self) -> Value {
        self.try_recv(RECV_LIMIT)
            .await
            .expect("a message from the server")
    }

    /// Reads until the response with `id`; other messages go to the backlog.
    pub async fn response(&mut self, id: &Value) -> Value {
        if let Some(index) = self.backlog.iter().position(|m| is_response_to(m, id)) {
            return self.backlog.remove(index);
        }
        loop {
            let mut line = String::new();
            let read = tokio::time::timeout(RECV_LIMIT, self.reader.read_line(&mut line)).await;
            assert!(
                matches!(read, Ok(Ok(n)) if n > 0),
                "no response with id {id} (backlog: {:?})",
                self.backlog
            );
            let message: Value = serde_json::from_str(&line).expect("JSON from the server");
            if is_response_to(&message, id) {
                return message;
            }
            self.backlog.push(message);
        }
    }

    /// `params` with the 2026-07-28 `_meta` stamp when this connection speaks 2026-07-28.
    pub fn stamped(&self, mut params: Value) -> Value {
        if self.revision == Revision::V2026_07_28 {
            let meta = params
                .as_object_mut()
                .unwrap()
                .entry("_meta")
                .or_insert_with(|| json!({}));
            let meta = meta.as_object_mut().unwrap();
            meta.entry("io.modelcontextprotocol/protocolVersion")
                .or_insert(json!("2026-07-28"));
            meta.entry("io.modelcontextprotocol/clientInfo")
                .or_insert(json!({"name": "rule-test", "version": "1"}));
            meta.entry("io.modelcontextprotocol/clientCapabilities")
                .or_insert(json!({"elicitation": {}}));
        }
        params
    }

    /// Sends a (stamped) request without waiting.
    pub async fn send_request(&mut self, id: Value, method: &str, params: Value) {
        let params = self.stamped(params);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
    }

    /// Sends a (stamped) request and returns its response.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_request(id.clone(), method, params).await;
        self.response(&id).await
    }

    /// The revision's handshake (2025-11-25 only), declaring elicitation support.
    pub async fn initialize(&mut self) {
        if self.revision == Revision::V2025_11_25 {
            let params = json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "rule-test", "version": "1"}});
            let response = self.request(json!("init"), "initialize", params).await;
            assert_eq!(
                response["result"]["protocolVersion"], "2025-11-25",
                "{response}"
            );
            self.notify("notifications/initialized", json!({})).await;
        }
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    pub async fn call(&mut self, id: Value, tool: &str, arguments: Value) -> Value {
        self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        )
        .await
    }

    pub async fn cancel(&mut self, id: Value) {
        self.notify(
            "notifications/cancelled",
            json!({"requestId": id, "reason": "test"}),
        )
        .await;
    }

    /// The rules of the violations recorded so far, through the `violations` tool.
    pub async fn violation_rules(&mut self, id: Value) -> Vec<String> {
        let response = self.call(id, "violations", json!({})).await;
        let text = response["result"]["content"][0]["text"]
            .as_str()
            .expect("violations text");
        let list: Vec<Value> = serde_json::from_str(text).expect("violations JSON");
        list.iter()
            .map(|violation| violation["rule"].as_str().unwrap().to_owned())
            .collect()
    }

    /// For stdio: closes stdin and returns the exit code (None in-process).
    pub async fn finish(mut self) -> Option<i32> {
        self.close_input().await;
        let mut child = self.child.take()?;
        let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
            .await
            .expect("exits after stdin closes");
        status.expect("wait").code()
    }
}

fn is_response_to(message: &Value, id: &Value) -> bool {
    message.get("method").is_none() && message.get("id") == Some(id)
}

/// The text of the first content block of a `tools/call` response.
pub fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

/// The error code of an error response.
pub fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

/// Declares one test per rule scenario for a transport: `rule_tests!(connect_fn, #[attr]; a, b)`.
#[macro_export]
macro_rules! rule_tests {
    ($connect:path, #[$attr:meta]; $($name:ident),* $(,)?) => {
        $(
            #[$attr]
            async fn $name() {
                common::rules::$name($connect).await;
            }
        )*
    };
}

/// Declares the test of every rule scenario for a transport: `every_rule_test!(connect_fn,
/// #[attr])`. The one list of scenarios, so each transport's binary runs all of them.
#[macro_export]
macro_rules! every_rule_test {
    ($connect:path, #[$attr:meta]) => {
        $crate::rule_tests!($connect, #[$attr];
            initialize_negotiates_the_handshake_revision,
            discover_advertises_2026_07_28_without_initialize,
            requests_without_version_or_initialize_are_rejected,
            requests_without_client_capabilities_are_invalid_params,
            unsupported_version_gets_32022,
            ping_exists_only_under_2025,
            ids_are_echoed_with_their_json_type,
            null_id_is_an_invalid_request,
            reused_id_is_a_violation_per_revision,
            server_requests_use_their_own_id_space,
            cancel_stops_the_handler_and_no_response_follows,
            cancel_of_unknown_id_is_a_violation_and_finished_ids_are_ignored,
            cancelling_initialize_is_a_violation,
            tasks_are_cancelled_only_with_tasks_cancel,
            progress_only_with_token_strictly_increasing_never_after_response,
            reused_progress_token_is_a_violation,
            parse_error_answers_null_id_and_keeps_serving,
            invalid_request_and_unknown_method,
            unknown_tool_and_bad_arguments_are_invalid_params,
            giant_message_is_rejected_and_serving_continues,
            truncated_message_at_eof_is_answered_and_the_connection_ends,
            tools_echo_fail_and_gates,
            ignore_cancel_still_responds,
            ask_gets_input_per_revision,
            transcript_tool_elides_its_earlier_replies,
            tasks_2025_lifecycle,
            tasks_2026_extension,
            task_progress_follows_the_revision,
            task_ids_are_opaque_and_deterministic,
        );
    };
}
