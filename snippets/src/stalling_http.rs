//! `StallingHttpServer`: a deliberately minimal 2026-07-28 Streamable HTTP endpoint for one
//! question, rust-sdk#1193: can a client cancel a request whose POST has not received even the
//! head of its response? It answers `server/discover` (and accepts notifications with 202), and
//! holds every other POST open without writing a single byte back, recording each POST and the
//! moment its connection is closed by the client. It is not the test server: no sessions, no
//! tools, no checks; HTTP/1.1 with `Content-Length` bodies only, as rmcp's client sends them.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, model::ProtocolVersion};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// Caps a request head so a stray client cannot grow it without bound.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// A loopback HTTP endpoint that never answers a request other than `server/discover`.
#[derive(Clone)]
pub struct StallingHttpServer {
    address: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
    changed: Arc<Notify>,
}

impl StallingHttpServer {
    /// Binds a loopback port and serves it until the runtime ends.
    pub async fn start() -> anyhow::Result<StallingHttpServer> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .context("binding a loopback port for the stalling HTTP server")?;
        let server = StallingHttpServer {
            address: listener.local_addr().context("reading the bound address")?,
            log: Arc::default(),
            changed: Arc::default(),
        };
        let shared = server.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(shared.clone().serve(stream));
            }
        });
        Ok(server)
    }

    /// The endpoint's URL (`http://127.0.0.1:PORT/mcp`).
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// Connects rmcp's Streamable HTTP client with `server/discover` (2026-07-28), over a
    /// loopback reqwest client built as `HttpServer::connect_rmcp` builds it (no proxy).
    pub async fn connect_rmcp(&self) -> anyhow::Result<RunningService<RoleClient, ()>> {
        let http_client = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(0)
            .build()
            .context("building a loopback HTTP client")?;
        let config = StreamableHttpClientTransportConfig::with_uri(self.url());
        let transport = StreamableHttpClientTransport::with_client(http_client, config);
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        ().serve_with_lifecycle(transport, lifecycle)
            .await
            .with_context(|| format!("connecting rmcp's Streamable HTTP client to {}", self.url()))
    }

    /// What happened, in order: `POST tools/call (held)`, `tools/call: connection closed`, ...
    pub fn log(&self) -> Vec<String> {
        self.log.lock().expect("log lock").clone()
    }

    /// Resolves once the log has an entry containing `text`.
    pub async fn wait_for(&self, text: &str) {
        loop {
            let changed = self.changed.notified();
            if self.log().iter().any(|entry| entry.contains(text)) {
                return;
            }
            changed.await;
        }
    }

    fn record(&self, entry: String) {
        self.log.lock().expect("log lock").push(entry);
        self.changed.notify_waiters();
    }

    async fn serve(self, mut stream: TcpStream) {
        let Some(message) = read_request(&mut stream).await else {
            return;
        };
        let method = message["method"].as_str().unwrap_or("?").to_owned();
        if method == "server/discover" {
            let body = discover_result(&message["id"]).to_string();
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            return;
        }
        if message.get("id").is_none() {
            self.record(format!("POST {method} (a notification: 202)"));
            let _ = stream
                .write_all(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
                .await;
            return;
        }
        self.record(format!(
            "POST {method} (held: no response head is ever sent)"
        ));
        // Nothing more is expected from the client; a read of 0 bytes (or an error) is the
        // client closing the connection.
        let mut rest = [0u8; 256];
        while let Ok(read) = stream.read(&mut rest).await {
            if read == 0 {
                break;
            }
        }
        self.record(format!("{method}: connection closed by the client"));
    }
}

/// Reads one request (head and `Content-Length` body) and parses the body as JSON.
async fn read_request(stream: &mut TcpStream) -> Option<Value> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > MAX_HEAD_BYTES || stream.read(&mut byte).await.ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())?;
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await.ok()?;
    serde_json::from_slice(&body).ok()
}

fn discover_result(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "stalling", "version": "0"}},
    }})
}
