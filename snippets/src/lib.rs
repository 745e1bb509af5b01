//! `mcp_testserver` (package `mcp-testserver-harness`): the harness every book snippet runs in,
//! around the independent, spec-strict, deterministic MCP server of the `mcp-testserver` package
//! (`mcp_testserver_core`, which has no MCP SDK in its dependencies; its modules are re-exported
//! here). rmcp lives on this side only.
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
//! - [`describe`], [`TestServer::print_report`], [`RawClient::replay`] and
//!   [`Driver::call_then_cancel`] (`show.rs`): what a snippet's hidden lines use to drive a run
//!   and print the server's side of it, so that the visible code is only what a reader writes.
//!
//! Tools (a fixed contract): `echo`, `slow`, `wait_gate`, `open_gate`, `ignore_cancel`, `fail`,
//! `ask`, `violations`, `transcript`, `handler_log`.

pub mod artifacts;
pub mod driver;
mod fake_server;
mod harness;
mod http_server;
mod raw_client;
mod rmcp_http;
pub mod rmcp_http_server;
mod rmcp_revision;
mod show;
mod stalling_http;
mod test_server;

pub use mcp_testserver_core::{
    artifact_files, gates, http, jsonrpc, render, revision, server, stdio, svg, transcript,
    violations,
};

pub use driver::Driver;
pub use fake_server::FakeServer;
pub use harness::{ARTIFACTS_VAR, ATTRS_VAR, Attributes, snippet_main};
pub use http_server::HttpServer;
pub use raw_client::RawClient;
pub use render::RenderTranscript;
pub use revision::{Revision, current_revision, set_current_revision};
pub use rmcp_http_server::{RawHttp, RmcpHttpServer, serve_rmcp_http};
pub use rmcp_revision::RmcpRevision;
pub use show::describe;
pub use stalling_http::StallingHttpServer;
pub use stdio::serve_stdio;
pub use test_server::TestServer;
pub use transcript::{Direction, Entry, Side, Transcript, TransportEvent, WireMessage};
pub use violations::{Violation, ViolationLog};

/// Everything a snippet needs; the verifier puts `use mcp_testserver::prelude::*;` in scope.
pub mod prelude {
    pub use crate::{
        Driver, FakeServer, HttpServer, RawClient, RenderTranscript, Revision, RmcpRevision,
        StallingHttpServer, TestServer, Transcript, Violation, current_revision, describe,
        snippet_main,
    };
    pub use crate::{RawHttp, serve_rmcp_http};
    pub use anyhow;
    pub use rmcp::model::*;
    pub use rmcp::service::{PeerRequestOptions, RequestContext, RequestHandle, RunningService};
    pub use rmcp::{self, ClientHandler, Peer, RoleClient, RoleServer, ServerHandler, ServiceExt};
    pub use serde_json::{self, Value, json};
    pub use std::time::Duration;
    pub use tokio;
    pub use tokio_util;
}
