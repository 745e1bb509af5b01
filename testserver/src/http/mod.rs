//! Streamable HTTP for the test server (hyper 1): `mcp-testserver --http ADDR`, and [`serve`]
//! for any `Core` on a listener (the harness's `HttpServer` serves a `TestServer`'s core with
//! it, so its transcript, violations, handler log and gates work exactly as over stdio or
//! duplex). Both revisions: 2025-11-25 with sessions (`Mcp-Session-Id` from `initialize`, required
//! afterwards, `DELETE` ends it, `GET` opens the standalone SSE stream), and 2026-07-28
//! stateless, where closing a request's response stream cancels that request (recorded in the
//! transcript as a transport event, see [`events`]). [`Limits`] bound what a client can hold:
//! read timeouts for heads and bodies, the number and idle life of sessions; [`serve_with`]
//! takes them, the binary from its flags.

mod body;
mod checks;
mod endpoint;
pub mod events;
mod legacy;
mod limits;
mod serve;
mod sessions;
mod stateless;

pub use endpoint::{HEADER_MISMATCH_RULE, MISSING_SESSION_ID, PATH};
pub use limits::Limits;
pub use serve::{serve, serve_address, serve_with};
