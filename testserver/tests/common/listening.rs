//! Starting the `mcp-testserver` binary over Streamable HTTP and learning its address from the
//! line it prints: one file, used by the tests (`common::process`) and by the `memory` bench (by
//! path).

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};

/// Spawns `command` (the binary with `--http 127.0.0.1:0` among its arguments, stdin as the
/// caller set it; stdout discarded, killed when dropped) and waits up to `limit` for its
/// `listening on` line: the child and the address. Its stderr is drained from then on, so the
/// server never blocks on it.
pub(crate) async fn spawn_listening(
    mut command: tokio::process::Command,
    limit: Duration,
) -> (tokio::process::Child, SocketAddr) {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawning mcp-testserver");
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let address = tokio::time::timeout(limit, async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("mcp-testserver: listening on http://") {
                return url.trim_end_matches("/mcp").parse().unwrap();
            }
        }
        panic!("the server exited before listening");
    })
    .await
    .expect("the server prints its address");
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });
    (child, address)
}
