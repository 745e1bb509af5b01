//! `TestServer`: the in-process handle a snippet starts. Every connection it hands out (an rmcp
//! client, a bare duplex transport, a raw JSON-RPC client) is served by the same server core, so
//! gates, handlers, the transcript and the violations are shared.

use std::sync::Arc;

use anyhow::Context;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::DuplexStream;

use crate::artifacts::{Registration, register};
use crate::raw_client::RawClient;
use crate::revision::{Revision, current_revision};
use crate::rmcp_revision::RmcpRevision;
use crate::server::mutants::{self, MUTANT_VAR};
use crate::server::{Core, serve_connection};
use crate::transcript::Transcript;
use crate::violations::Violation;

/// Bytes buffered in each direction of an in-process connection.
const DUPLEX_BUFFER: usize = 64 * 1024;

/// An MCP test server running in this process.
///
/// ```no_run
/// # use mcp_testserver::prelude::*;
/// # async fn demo() -> anyhow::Result<()> {
/// let server = TestServer::start();
/// let client = server.connect_rmcp().await?;
/// let result = client
///     .call_tool(CallToolRequestParams::new("echo").with_arguments(json!({"text": "hi"}).as_object().unwrap().clone()))
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct TestServer {
    revision: Revision,
    core: Arc<Core>,
}

impl TestServer {
    /// Starts a server under [`current_revision`], registered for the snippet's artifacts.
    pub fn start() -> TestServer {
        TestServer::start_with(current_revision())
    }

    /// Starts a server whose clients (from [`TestServer::connect_rmcp`] and
    /// [`TestServer::connect_raw`]) use `revision`. The server itself speaks both revisions, as
    /// a dual-era server does, and answers each client in the revision it negotiated.
    ///
    /// When `$MDBOOK_SNIPPETS_MUTANT` names a mutant (the verifier's `--mutants` mode), the
    /// server breaks that rule (see `mcp-testserver --list-mutants`).
    ///
    /// # Panics
    ///
    /// When `$MDBOOK_SNIPPETS_MUTANT` names no known mutant; the message lists the known ones.
    pub fn start_with(revision: Revision) -> TestServer {
        let mutant = match mutants::from_env() {
            Ok(mutant) => mutant,
            Err(error) => panic!("{MUTANT_VAR}: {error}"),
        };
        let core = Arc::new(Core::default().with_mutant(mutant));
        register(Registration {
            kind: "server".to_owned(),
            revision,
            transcript: core.transcript.clone(),
            violations: core.violations.clone(),
        });
        TestServer { revision, core }
    }

    /// The server core every connection of this server shares (the HTTP endpoint serves it).
    pub(crate) fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// The revision this server's clients use.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Connects an rmcp client with rmcp's defaults for the revision: the `initialize` handshake
    /// for 2025-11-25 (`().serve(transport)`), `server/discover` for 2026-07-28.
    pub async fn connect_rmcp(&self) -> anyhow::Result<RunningService<RoleClient, ()>> {
        self.connect_rmcp_with(()).await
    }

    /// [`TestServer::connect_rmcp`] with a custom client handler (to see progress, answer
    /// elicitations, ...).
    pub async fn connect_rmcp_with<H: ClientHandler>(
        &self,
        handler: H,
    ) -> anyhow::Result<RunningService<RoleClient, H>> {
        let transport = self.connect_transport();
        let client = match self.revision {
            Revision::V2025_11_25 => handler.serve(transport).await,
            Revision::V2026_07_28 => {
                let lifecycle = ClientLifecycleMode::Discover {
                    preferred_versions: vec![self.revision.protocol_version()],
                };
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
        };
        client.with_context(|| {
            format!(
                "connecting an rmcp client to the test server ({})",
                self.revision
            )
        })
    }

    /// A fresh connection's client end, for a custom rmcp client (`handler.serve(transport)`).
    /// Must be called inside a tokio runtime.
    pub fn connect_transport(&self) -> DuplexStream {
        let (client_end, server_end) = tokio::io::duplex(DUPLEX_BUFFER);
        let (reader, writer) = tokio::io::split(server_end);
        tokio::spawn(serve_connection(self.core.clone(), reader, writer));
        client_end
    }

    /// A raw JSON-RPC client on a fresh connection, for anti-pattern demos.
    pub fn connect_raw(&self) -> RawClient {
        RawClient::over(self.connect_transport(), self.revision)
    }

    /// Opens a gate: `wait_gate` calls on it finish, later ones pass at once.
    pub fn open_gate(&self, gate: &str) {
        self.core.gates.open(gate);
    }

    /// Resolves once a handler of `tool` is running (so a call is provably in flight).
    pub async fn in_flight(&self, tool: &str) {
        self.core.handlers.wait_in_flight(tool).await;
    }

    /// Resolves once no tool handler is running.
    pub async fn idle(&self) {
        self.core.handlers.wait_idle().await;
    }

    /// What the handlers did, e.g. `slow#3 started`, `slow#3 stopped by cancel after step 2`.
    pub fn handler_log(&self) -> Vec<String> {
        self.core.handlers.entries()
    }

    /// The wire transcript (a live handle).
    pub fn transcript(&self) -> Transcript {
        self.core.transcript.clone()
    }

    /// The violations recorded from clients so far.
    pub fn violations(&self) -> Vec<Violation> {
        self.core.violations.list()
    }
}
