//! Memory under large messages (issue 26, item 7; not a timed test: `cargo bench -p
//! mcp-testserver --bench memory`). Starts the binary this bench builds (the release profile)
//! over HTTP, sends each attack of the issue at its size (strings of 3.9 MB, just under the
//! 4 MiB a message may have), and prints the process's VmRSS from `/proc` before, during and
//! after, once with glibc's malloc as it is and once with `MALLOC_MMAP_THRESHOLD_=131072`
//! (glibc then maps every large block on its own and unmaps it when freed, so RSS follows what
//! the server holds; the difference is what the allocator keeps for later). Fails when an
//! attack takes the server over `LIMIT_MIB` with the default allocator. `MEMORY_BENCH_BINARY=PATH`
//! measures another build of the binary instead (an older commit's, for figures before a fix).

#[path = "../tests/common/listening.rs"]
mod listening;

use std::process::Stdio;
use std::time::{Duration, Instant};

use listening::spawn_listening;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The binary this bench builds (see `MEMORY_BENCH_BINARY` above).
const BUILT: &str = env!("CARGO_BIN_EXE_mcp-testserver");
const LARGE: usize = 3_900_000;
const COUNT: usize = 60;
/// The target for 60 calls of 3.9 MB: "under about 200 MB".
const LIMIT_MIB: u64 = 200;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(run());
}

async fn run() {
    let binary = std::env::var("MEMORY_BENCH_BINARY").unwrap_or_else(|_| BUILT.to_owned());
    println!(
        "memory: {binary}: {COUNT} x {LARGE} bytes per attack; VmRSS in MiB: start -> during -> after"
    );
    let mut over = Vec::new();
    for (allocator, threshold) in [
        ("glibc", None),
        ("glibc, mmap threshold 128 KiB", Some("131072")),
    ] {
        for attack in ATTACKS {
            let server = Server::start(attack.args, threshold).await;
            let start = server.rss();
            let (during, after) = (attack.run)(&server).await;
            println!(
                "{:<48} {allocator:<30} {start:>4} -> {during:>4} -> {after:>4}",
                attack.name
            );
            if threshold.is_none() && during > LIMIT_MIB {
                over.push(format!("{}: {during} MiB", attack.name));
            }
        }
    }
    assert!(over.is_empty(), "over {LIMIT_MIB} MiB: {over:?}");
}

/// An attack's run: RSS during it and once it is over, in MiB.
type Measured<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = (u64, u64)> + 'a>>;

struct Attack {
    name: &'static str,
    args: &'static [&'static str],
    run: for<'a> fn(&'a Server) -> Measured<'a>,
}

const ATTACKS: [Attack; 5] = [
    Attack {
        name: "60 echo calls of 3.9 MB (2026-07-28)",
        args: &[],
        run: |server| Box::pin(echo_calls(server)),
    },
    Attack {
        name: "60 gate names of 3.9 MB, --transcript-limit 10",
        args: &["--transcript-limit", "10"],
        run: |server| Box::pin(gate_names(server)),
    },
    Attack {
        name: "2025-11-25 session: 60 echo calls, then DELETE",
        args: &[],
        run: |server| Box::pin(session_then_delete(server, false)),
    },
    Attack {
        name: "2025-11-25 session: 60 ids of 3.9 MB, DELETE",
        args: &["--transcript-limit", "10"],
        run: |server| Box::pin(session_then_delete(server, true)),
    },
    Attack {
        name: "60 wait_gate calls with 3.9 MB _meta at once",
        args: &[],
        run: |server| Box::pin(waiting_calls(server)),
    },
];

fn modern(
    id: u64,
    tool: &str,
    arguments: Value,
    pad: Option<&str>,
) -> (String, Vec<(String, String)>) {
    let mut meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}});
    if let Some(pad) = pad {
        meta["pad"] = json!(pad);
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments, "_meta": meta}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    (
        body.to_string(),
        headers.map(|(n, v)| (n.to_owned(), v.to_owned())).to_vec(),
    )
}

async fn echo_calls(server: &Server) -> (u64, u64) {
    let text = "x".repeat(LARGE);
    for id in 0..COUNT as u64 {
        let (body, headers) = modern(id, "echo", json!({"text": text}), None);
        server.post(&body, &headers).await;
    }
    let during = server.rss();
    (during, server.settled_rss().await)
}

async fn gate_names(server: &Server) -> (u64, u64) {
    for id in 0..COUNT as u64 {
        let gate = format!("{id}{}", "g".repeat(LARGE));
        let (body, headers) = modern(id, "open_gate", json!({"gate": gate}), None);
        server.post(&body, &headers).await;
    }
    let during = server.rss();
    (during, server.settled_rss().await)
}

async fn session_then_delete(server: &Server, long_ids: bool) -> (u64, u64) {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}});
    let (_, head) = server.post(&initialize.to_string(), &[]).await;
    let session = head
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("mcp-session-id:")
                .map(|v| v.trim().to_owned())
        })
        .expect("a session id");
    let in_session = [("mcp-session-id".to_owned(), session.clone())];
    let text = "x".repeat(LARGE);
    for n in 1..=COUNT {
        let message = if long_ids {
            json!({"jsonrpc": "2.0", "id": format!("{n}{text}"), "method": "ping"})
        } else {
            json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                   "params": {"name": "echo", "arguments": {"text": text}}})
        };
        server.post(&message.to_string(), &in_session).await;
    }
    let during = server.rss();
    server.request("DELETE", "", &in_session).await;
    (during, server.settled_rss().await)
}

async fn waiting_calls(server: &Server) -> (u64, u64) {
    let pad = "p".repeat(LARGE);
    let mut calls = Vec::new();
    for id in 0..COUNT as u64 {
        let (body, headers) = modern(id, "wait_gate", json!({"gate": "g"}), Some(&pad));
        let port = server.port;
        calls.push(tokio::spawn(async move {
            Server::post_to(port, &body, &headers).await
        }));
    }
    // Every call is in once the handler log shows 60 starts.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (body, headers) = modern(999, "handler_log", json!({}), None);
        let (log, _) = server.post(&body, &headers).await;
        if log.matches("wait_gate#").count() >= COUNT {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the calls did not all start: {log}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let during = server.settled_rss().await;
    let (body, headers) = modern(1000, "open_gate", json!({"gate": "g"}), None);
    server.post(&body, &headers).await;
    for call in calls {
        call.await.expect("a call");
    }
    (during, server.settled_rss().await)
}

struct Server {
    child: tokio::process::Child,
    port: u16,
}

impl Server {
    async fn start(args: &[&str], mmap_threshold: Option<&str>) -> Server {
        let binary = std::env::var("MEMORY_BENCH_BINARY").unwrap_or_else(|_| BUILT.to_owned());
        let mut command = tokio::process::Command::new(binary);
        command.args(["--http", "127.0.0.1:0"]).args(args);
        if let Some(threshold) = mmap_threshold {
            command.env("MALLOC_MMAP_THRESHOLD_", threshold);
        }
        command.stdin(Stdio::null());
        let (child, address) = spawn_listening(command, Duration::from_secs(60)).await;
        let port = address.port();
        Server { child, port }
    }

    fn rss(&self) -> u64 {
        let pid = self.child.id().expect("running");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.split_whitespace().next()?.parse().ok())
            .unwrap();
        kib / 1024
    }

    /// RSS once it stopped changing (sampled every 200 ms, at most 10 s).
    async fn settled_rss(&self) -> u64 {
        let mut last = self.rss();
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let now = self.rss();
            if now == last {
                return now;
            }
            last = now;
        }
        last
    }

    async fn post(&self, body: &str, headers: &[(String, String)]) -> (String, String) {
        Server::post_to(self.port, body, headers).await
    }

    async fn request(
        &self,
        method: &str,
        body: &str,
        headers: &[(String, String)],
    ) -> (String, String) {
        Server::exchange(self.port, method, body, headers).await
    }

    async fn post_to(port: u16, body: &str, headers: &[(String, String)]) -> (String, String) {
        Server::exchange(port, "POST", body, headers).await
    }

    /// One request on its own connection; the response's head and body.
    async fn exchange(
        port: u16,
        method: &str,
        body: &str,
        headers: &[(String, String)],
    ) -> (String, String) {
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        tokio::time::timeout(Duration::from_secs(120), stream.read_to_end(&mut response))
            .await
            .expect("an answer within 120 s")
            .unwrap();
        let response = String::from_utf8_lossy(&response).into_owned();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        (body.to_owned(), head.to_owned())
    }
}
