//! `mcp_testserver` (package `mcp-testserver-harness`): the harness every book snippet runs in,
//! around the independent, spec-strict, deterministic MCP server of the `mcp-testserver` package
//! (`mcp_testserver_core`, which has no MCP SDK in its dependencies; its modules are re-exported
//! here). rmcp lives on this side only.
//!
//! - [`TestServer`] starts the server in-process and connects an rmcp client, a bare transport,
//!   or a [`RawClient`] to it over `tokio::io::duplex`.
//! - [`serve_stdio`] is the same server over stdio (the `mcp-testserver` binary).
//! - [`Transcript`] records every wire message; [`Violation`]s record what the peer did wrong.
//! - [`snippet_main`] runs a snippet body per revision under a paused clock and writes the
//!   artifacts (compact transcript, sequence diagram).
//!
//! Tools (a fixed contract): `echo`, `slow`, `wait_gate`, `open_gate`, `ignore_cancel`, `fail`,
//! `ask`, `violations`, `transcript`.

pub mod artifacts;
pub mod driver;
mod harness;
mod http_server;
mod raw_client;
mod render;
mod rmcp_http;
mod rmcp_revision;
mod svg;
mod test_server;

pub use mcp_testserver_core::{
    gates, http, jsonrpc, revision, server, stdio, transcript, violations,
};

pub use driver::Driver;
pub use harness::{ARTIFACTS_VAR, ATTRS_VAR, Attributes, snippet_main};
pub use http_server::HttpServer;
pub use raw_client::RawClient;
pub use render::RenderTranscript;
pub use revision::{Revision, current_revision, set_current_revision};
pub use rmcp_revision::RmcpRevision;
pub use stdio::serve_stdio;
pub use test_server::TestServer;
pub use transcript::{Direction, Entry, Side, Transcript, TransportEvent, WireMessage};
pub use violations::{Violation, ViolationLog};

/// Everything a snippet needs; the verifier puts `use mcp_testserver::prelude::*;` in scope.
pub mod prelude {
    pub use crate::{
        Driver, HttpServer, RawClient, RenderTranscript, Revision, RmcpRevision, TestServer,
        Transcript, Violation, current_revision, snippet_main,
    };
    pub use rmcp::model::*;
    pub use rmcp::service::{PeerRequestOptions, RequestHandle, RunningService};
    pub use rmcp::{self, ClientHandler, RoleClient, RoleServer, ServerHandler, ServiceExt};
    pub use serde_json::{Value, json};
    pub use std::time::Duration;
    pub use tokio;
}
