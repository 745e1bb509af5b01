//! Streamable HTTP, in-process on an ephemeral loopback port: rmcp's own Streamable HTTP client
//! under both revisions (`rmcp_over_http`), raw HTTP requests for the transport's rules
//! (`transport_rules`), and concurrent calls on one 2025-11-25 session whose messages must stay
//! on their own request's stream (`related_streams`). Real time, real sockets: every wait is
//! bounded by a gate or by the server's own `in_flight`/`idle`. This file holds what they share.

mod related_streams;
mod rmcp_over_http;
mod transport_rules;

use std::time::Duration;

use mcp_testserver::{HttpServer, Revision, TestServer};

/// How long any single wait in these tests may take before the test fails.
const LIMIT: Duration = Duration::from_secs(20);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, future)
        .await
        .unwrap_or_else(|_| panic!("{what}: not done within {LIMIT:?}"))
}

async fn start(revision: Revision) -> HttpServer {
    TestServer::start_with(revision)
        .serve_http()
        .await
        .expect("serving HTTP")
}
