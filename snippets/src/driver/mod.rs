//! The reverse role: `Driver` is a strict harness client that drives an rmcp server handler
//! (a `ServerHandler` written in the book) in-process over `tokio::io::duplex`. It speaks raw
//! newline-delimited JSON-RPC (framed by the crate's one peer, `RawClient`), so the snippet
//! chooses every id and the exact moment of every cancel, and it records both directions in a
//! [`Transcript`](crate::transcript::Transcript) registered for the snippet's artifacts. What the server does wrong (a response
//! nobody asked for, progress after the response, …) lands in the driver's violation log, which
//! fails the snippet like the test server's does. The client is `client.rs`; the bookkeeping
//! of what the server owes, `ledger.rs`.

mod client;
mod ledger;

pub use client::Driver;

/// The rule ids the driver records against the rmcp server it drives (besides the shared
/// `unknown-response-id`).
pub mod rules {
    pub use super::ledger::{
        DUPLICATE_RESPONSE, INVALID_MESSAGE, PROGRESS_AFTER_RESPONSE, PROGRESS_NOT_INCREASING,
        SERVER_TO_CLIENT_REQUEST, UNKNOWN_PROGRESS_TOKEN,
    };
}
