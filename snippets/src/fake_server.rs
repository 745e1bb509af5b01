//! `FakeServer`: scripted, deliberately wrong MCP servers for the few snippets that show what an
//! rmcp client does with a peer the test server will never imitate (it is spec-strict). Each
//! speaks newline-delimited JSON-RPC over `tokio::io::duplex`, answers `initialize` for
//! 2025-11-25, and misbehaves in one way on `tools/call`. Not a server to learn from.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// Bytes buffered in each direction of the pipe.
const PIPE_CAPACITY: usize = 1 << 16;

/// Constructors for fake servers; each returns the client end of a fresh pipe.
pub struct FakeServer;

/// What the fake server does wrong when a `tools/call` arrives.
#[derive(Clone, Copy)]
enum Misbehaviour {
    /// Answers with the request's id rewritten: every `{}` in the pattern is the id.
    RewriteId(&'static str),
    /// Sends five progress notifications 2 s apart with the request's token turned into a
    /// string (`0` becomes `"0"`), then the result.
    StringifyProgressToken,
    /// Closes the connection instead of answering.
    CloseOnCall,
}

impl FakeServer {
    /// Answers each `tools/call` with its id rewritten by `pattern` (`"+{}"` turns `1` into
    /// `"+1"`); the result is a text `hello`.
    pub fn rewriting_ids(pattern: &'static str) -> DuplexStream {
        start(Misbehaviour::RewriteId(pattern))
    }

    /// Reports progress on each `tools/call` five times, 2 s apart, with the integer progress
    /// token echoed as a string, then answers with the text `done`.
    pub fn stringifying_progress_tokens() -> DuplexStream {
        start(Misbehaviour::StringifyProgressToken)
    }

    /// Closes the connection when a `tools/call` arrives: the call's connection breaks.
    pub fn closing_on_call() -> DuplexStream {
        start(Misbehaviour::CloseOnCall)
    }
}

fn start(misbehaviour: Misbehaviour) -> DuplexStream {
    let (client_end, server_end) = tokio::io::duplex(PIPE_CAPACITY);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(request) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let replies = match request["method"].as_str() {
                Some("initialize") => vec![initialize_result(&request["id"])],
                Some("tools/call") => match misbehaviour {
                    Misbehaviour::CloseOnCall => return,
                    Misbehaviour::RewriteId(pattern) => {
                        let id = pattern.replace("{}", &request["id"].to_string());
                        vec![text_result(json!(id), "hello")]
                    }
                    Misbehaviour::StringifyProgressToken => {
                        let token = request["params"]["_meta"]["progressToken"].to_string();
                        for step in 1..=5 {
                            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                            let progress = json!({"jsonrpc": "2.0",
                                "method": "notifications/progress",
                                "params": {"progressToken": token, "progress": step}});
                            if send(&mut write, &progress).await.is_err() {
                                return;
                            }
                        }
                        vec![text_result(request["id"].clone(), "done")]
                    }
                },
                _ => Vec::new(),
            };
            for reply in replies {
                if send(&mut write, &reply).await.is_err() {
                    return;
                }
            }
        }
    });
    client_end
}

async fn send(
    write: &mut tokio::io::WriteHalf<DuplexStream>,
    message: &Value,
) -> std::io::Result<()> {
    write.write_all(format!("{message}\n").as_bytes()).await
}

fn initialize_result(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "fake", "version": "0"},
    }})
}

fn text_result(id: Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
}
