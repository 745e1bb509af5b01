//! `HttpServer`: a [`TestServer`]'s core served over Streamable HTTP on an ephemeral loopback
//! port (the transport itself is the server package's `http` module), so a snippet sees the
//! same transcript, violations, handler log and gates as over stdio or duplex.
//! `rmcp_http.rs` connects rmcp's own Streamable HTTP client to it.

use std::net::SocketAddr;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::http::{PATH, serve};
use crate::test_server::TestServer;

/// The test server listening for Streamable HTTP on loopback. Dereferences to the
/// [`TestServer`] it serves, so `transcript()`, `handler_log()`, `open_gate()`, `in_flight()`
/// and the rest work as for in-process clients. Dropping it stops listening and ends every
/// session.
#[derive(Debug)]
pub struct HttpServer {
    server: TestServer,
    address: SocketAddr,
    stop: CancellationToken,
}

impl HttpServer {
    /// The MCP endpoint, e.g. `http://127.0.0.1:43123/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.address)
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The in-process server behind the endpoint.
    pub fn server(&self) -> &TestServer {
        &self.server
    }

    /// Bounds the transcript and the handler log to their last `limit` entries, as the binary
    /// does, for long runs such as a load test (see [`crate::server::Core::limit_history`]).
    pub fn limit_history(&self, limit: usize) {
        self.server.core().limit_history(limit);
    }
}

impl std::ops::Deref for HttpServer {
    type Target = TestServer;

    fn deref(&self) -> &TestServer {
        &self.server
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl TestServer {
    /// Starts a server under [`crate::current_revision`] and serves it over Streamable HTTP on
    /// an ephemeral loopback port.
    pub async fn start_http() -> anyhow::Result<HttpServer> {
        TestServer::start().serve_http().await
    }

    /// Serves this server (its core, shared with every other connection) over Streamable HTTP
    /// on an ephemeral loopback port, until the returned handle is dropped.
    pub async fn serve_http(&self) -> anyhow::Result<HttpServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .context("binding an ephemeral loopback port")?;
        let address = listener.local_addr().context("reading the bound address")?;
        let stop = CancellationToken::new();
        tokio::spawn(serve(self.core().clone(), listener, stop.clone()));
        Ok(HttpServer {
            server: self.clone(),
            address,
            stop,
        })
    }
}
