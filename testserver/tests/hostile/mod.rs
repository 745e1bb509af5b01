//! Hostile or careless clients (issue 16, items 9-12): every POST gets an answer on its own
//! response, nothing a client holds (connections, sessions) outlives the limits, and the
//! transcript and stderr tell the truth when the server stops; no client reaches another's
//! tasks, gates or transcript (issue 33, item 10). The HTTP behaviour is checked
//! on an in-process endpoint (`serve_with`, real loopback sockets, real clock) with a raw
//! HTTP/1.1 client, so any header can be sent or left out; what only a process shows (file
//! descriptor exhaustion, signals, an unread stderr) through the built binary. Every wait is
//! bounded (`common::process::LIMIT`). One module per concern; this file holds the raw HTTP
//! client they share.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common;

mod clients;
mod isolation;
mod memory;
mod requests;
mod sessions;
mod signals;
mod timeouts;

use common::BINARY;
use common::loopback::serve_on_loopback;
use common::process::{LIMIT, exit_code, scratch, sigterm, spawn_http, spawn_http_with};
use mcp_testserver_core::http::Limits;
use mcp_testserver_core::server::Core;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

#[derive(Debug)]
struct Reply {
    status: u16,
    session: Option<String>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|_| panic!("not JSON ({}): {:?}", self.status, self.body))
    }

    fn code(&self) -> i64 {
        self.json()["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error: {self:?}"))
    }
}

/// Sends `method /mcp` with exactly `headers` (plus `Content-Length` and `Connection: close`)
/// and reads the whole response.
async fn raw(address: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    raw_within(LIMIT, address, method, headers, body).await
}

/// [`raw`], waiting at most `limit` for the whole response.
async fn raw_within(
    limit: Duration,
    address: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut head = format!("{method} /mcp HTTP/1.1\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let exchange = async {
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream
            .write_all(format!("{head}{body}").as_bytes())
            .await
            .unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        String::from_utf8(response).unwrap()
    };
    let response = tokio::time::timeout(limit, exchange)
        .await
        .unwrap_or_else(|_| {
            let start: String = body.chars().take(200).collect();
            panic!("no answer within {limit:?} to {method} {start}")
        });
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {response:?}"));
    let session = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    Reply {
        status,
        session,
        body: body.to_owned(),
    }
}

const JSON_HEADERS: [(&str, &str); 3] = [
    ("Host", "127.0.0.1"),
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

/// A POST with the usual headers plus `extra`.
async fn post(address: SocketAddr, extra: &[(&str, &str)], body: &str) -> Reply {
    let headers: Vec<_> = JSON_HEADERS.iter().chain(extra).copied().collect();
    raw(address, "POST", &headers, body).await
}

/// A 2026-07-28 POST of `method`.
async fn post_modern(address: SocketAddr, method: &str, body: &str) -> Reply {
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    post(address, &headers, body).await
}

fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "hostile", "version": "1"}}})
    .to_string()
}

/// A 2025-11-25 session, initialized; its id.
async fn session(address: SocketAddr) -> String {
    let reply = post(address, &[], &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let session = reply.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(
        address,
        &[("mcp-session-id", &session)],
        &initialized.to_string(),
    )
    .await;
    session
}
