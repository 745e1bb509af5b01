//! `mcp_testserver`: an independent, spec-strict, deterministic MCP server (tokio + serde_json,
//! no MCP SDK inside) and the harness every book snippet runs in.
//!
//! - [`TestServer`] starts the server in-process and connects an rmcp client, a bare transport,
//!   or a [`RawClient`] to it over `tokio::io::duplex`.
//! - [`serve_stdio`] is the same server over stdio (the `mcp-testserver` binary).
//! - [`FakeServer`] scripts deliberately wrong servers (rewritten ids, stringified progress
//!   tokens, a connection that breaks) to show what an rmcp client does with them.
//! - [`StallingHttpServer`] answers `server/discover` and holds every other POST without a
//!   response head (rust-sdk#1193: cancelling before the response stream starts).
//! - [`Transcript`] records every wire message; [`Violation`]s record what the peer did wrong.
//! - [`snippet_main`] runs a snippet body per revision under a paused clock and writes the
//!   artifacts (compact transcript, sequence diagram).
//! - [`Driver`] drives an rmcp server handler written in the book; [`serve_rmcp_http`] serves one
//!   with rmcp's own Streamable HTTP server on loopback, and [`RawHttp`] talks to it.
//!
//! Tools (a fixed contract): `echo`, `slow`, `wait_gate`, `open_gate`, `ignore_cancel`, `fail`,
//! `ask`, `violations`, `transcript`.

pub mod artifacts;
pub mod driver;
mod fake_server;
mod gates;
mod harness;
pub mod http;
pub mod jsonrpc;
mod raw_client;
mod render;
mod revision;
pub mod rmcp_http;
pub mod server;
mod stalling_http;
mod stdio;
mod svg;
mod test_server;
mod transcript;
pub mod violations;

pub use driver::Driver;
pub use fake_server::FakeServer;
pub use harness::{ARTIFACTS_VAR, ATTRS_VAR, Attributes, snippet_main};
pub use http::HttpServer;
pub use raw_client::RawClient;
pub use revision::{Revision, current_revision, set_current_revision};
pub use rmcp_http::{RawHttp, RmcpHttpServer, serve_rmcp_http};
pub use stalling_http::StallingHttpServer;
pub use stdio::serve_stdio;
pub use test_server::TestServer;
pub use transcript::{Direction, Side, Transcript, WireMessage};
pub use violations::{Violation, ViolationLog};

/// Everything a snippet needs; the verifier puts `use mcp_testserver::prelude::*;` in scope.
pub mod prelude {
    pub use crate::{
        Driver, FakeServer, HttpServer, RawClient, Revision, StallingHttpServer, TestServer,
        Transcript, Violation, current_revision, snippet_main,
    };
    pub use crate::{RawHttp, serve_rmcp_http};
    pub use anyhow;
    pub use rmcp::model::*;
    pub use rmcp::service::{PeerRequestOptions, RequestHandle, RunningService};
    pub use rmcp::{self, ClientHandler, RoleClient, RoleServer, ServerHandler, ServiceExt};
    pub use serde_json::{Value, json};
    pub use std::time::Duration;
    pub use tokio;
    pub use tokio_util;
}
