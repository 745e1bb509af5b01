//! A core served over Streamable HTTP in-process, on an ephemeral loopback port, and the
//! 2026-07-28 `tools/call` POST the tests send to it (or to the binary's `--http` port).

use std::net::SocketAddr;
use std::sync::Arc;

use mcp_testserver::http::{Limits, serve_with};
use mcp_testserver::server::Core;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::tools_call_2026::tools_call_2026_with;

/// `core` on a loopback port; stopped by [`Loopback::stop`] or when dropped.
pub(crate) struct Loopback {
    pub(crate) address: SocketAddr,
    stop: CancellationToken,
}

impl Loopback {
    /// The endpoint's URL (`http://127.0.0.1:PORT/mcp`).
    pub(crate) fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// Stops serving: every session ends and running handlers are cancelled.
    pub(crate) fn stop(&self) {
        self.stop.cancel();
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Serves `core` with `limits` (`Limits::in_process()` is what `http::serve` uses).
pub(crate) async fn serve_on_loopback(core: Arc<Core>, limits: Limits) -> Loopback {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(serve_with(core, listener, stop.clone(), limits));
    Loopback { address, stop }
}

/// A 2026-07-28 `tools/call` of `tool` with `arguments` (request id `id`) as a POST to `url`,
/// on a client of its own (see [`tools_call_2026_with`]). Ready to send.
pub(crate) fn tools_call_2026(
    url: &str,
    id: u64,
    tool: &str,
    arguments: Value,
) -> reqwest::RequestBuilder {
    tools_call_2026_with(&reqwest::Client::new(), url, json!(id), tool, arguments)
}
