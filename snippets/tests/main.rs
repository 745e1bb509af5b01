//! The harness's integration tests, in one binary (`[[test]] name = "snippets"` in Cargo.toml,
//! `autotests = false`): one module per concern, each the file it was when every file was a
//! binary of its own, so rmcp, tokio, hyper and the harness are linked once instead of once per
//! file (CONTRIBUTING, "The loop's time"). `stress.rs` stays a binary of its own
//! (`[[test]] name = "stress"`): its global allocator counts the live heap of the whole process,
//! which the other tests would disturb.

// The rmcp helpers the modules share.
#[path = "common/rmcp.rs"]
mod rmcp_support;

mod harness;
mod http;
mod rmcp_client;
mod rmcp_http;
mod rmcp_server;
