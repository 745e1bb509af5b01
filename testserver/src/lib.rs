//! `mcp_testserver_core` (package `mcp-testserver`, binary `mcp-testserver`): an independent,
//! spec-strict, deterministic MCP server, and nothing else. tokio, serde_json and hyper; no MCP
//! SDK anywhere in its dependencies, so it can judge SDKs, rmcp included (`.ci/run` checks
//! `cargo tree -p mcp-testserver -e normal`). The snippet harness (package
//! `mcp-testserver-harness`, lib `mcp_testserver`, in `snippets/`) depends on it.
//!
//! - [`server`]: the protocol core over any byte stream; [`stdio`] and [`http`] are its
//!   transports.
//! - [`transcript`] records every wire message as plain data; [`violations`] what the peer did
//!   wrong; [`gates`] are named latches the tools wait on; [`revision`] the two live revisions.
//! - [`render`] (compact text) and [`svg`] (sequence diagram) present a transcript; they depend
//!   on [`transcript`], never the reverse. [`artifact_files`] names and writes both, for the
//!   harness's Rust snippets and for the binary's `--artifacts DIR` alike.
//! - [`record`]: the operator's `--record FILE`, every transcript entry as a flushed JSON line.
//! - [`context`]: the binding context (a connection, a 2025-11-25 HTTP session, or the shared
//!   stateless one) that owns transcript entries, gates and tasks.
//! - [`jsonrpc`]: framing, error codes, and `is_response_to`, the one response matcher.

pub mod artifact_files;
mod conformance;
pub mod context;
pub mod gates;
pub mod http;
pub mod jsonrpc;
pub mod record;
pub mod render;
pub mod revision;
pub mod server;
mod shutdown;
pub mod stdio;
mod summary;
pub mod svg;
pub mod transcript;
pub mod violations;

pub use render::RenderTranscript;
pub use revision::{Revision, current_revision, set_current_revision};
pub use stdio::serve_stdio;
pub use transcript::{Direction, Entry, Shutdown, Side, Transcript, TransportEvent, WireMessage};
pub use violations::{Violation, ViolationLog};
