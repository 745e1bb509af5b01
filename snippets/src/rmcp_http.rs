//! rmcp's own Streamable HTTP client, connected to an [`HttpServer`] under the snippet's
//! revision, so the book can show what rmcp puts on the wire over HTTP (a dropped call closing
//! its response stream, a `RequestHandle::cancel`) with the same one-line set-up as in-process.
//!
//! The reqwest client behind it is built for loopback: no proxy from the environment (a
//! loopback request must never leave the machine), no redirects (the test server sends none),
//! no idle connection pool (as rmcp's default client), and no TLS (reqwest without default
//! features).

use anyhow::Context;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use crate::http_server::HttpServer;
use crate::revision::Revision;
use crate::rmcp_revision::RmcpRevision;

impl HttpServer {
    /// Connects rmcp's Streamable HTTP client to this endpoint with rmcp's defaults for the
    /// server's revision (the snippet's): `initialize` and an `Mcp-Session-Id` for 2025-11-25,
    /// `server/discover` and stateless requests for 2026-07-28.
    pub async fn connect_rmcp(&self) -> anyhow::Result<RunningService<RoleClient, ()>> {
        self.connect_rmcp_with(()).await
    }

    /// [`HttpServer::connect_rmcp`] with a custom client handler (to see progress, answer
    /// elicitations, ...).
    pub async fn connect_rmcp_with<H: ClientHandler>(
        &self,
        handler: H,
    ) -> anyhow::Result<RunningService<RoleClient, H>> {
        let http_client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(0)
            .build()
            .context("building a loopback HTTP client")?;
        let config = StreamableHttpClientTransportConfig::with_uri(self.url());
        let transport = StreamableHttpClientTransport::with_client(http_client, config);
        let revision = self.revision();
        let client = match revision {
            Revision::V2025_11_25 => handler.serve(transport).await,
            Revision::V2026_07_28 => {
                let lifecycle = ClientLifecycleMode::Discover {
                    preferred_versions: vec![revision.protocol_version()],
                };
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
        };
        client.with_context(|| {
            format!(
                "connecting rmcp's Streamable HTTP client to {} ({revision})",
                self.url()
            )
        })
    }
}
