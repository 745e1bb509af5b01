//! The MCP server itself: tokio + serde_json, no MCP SDK. `Core` is the state one server shares
//! across its connections (transcript, violations, gates, handlers, tasks); `serve_connection`
//! runs one newline-delimited JSON-RPC connection over any `AsyncRead`/`AsyncWrite` pair until
//! the peer closes its side. Fixtures (the conformance suite's) plug in through
//! `session::Fixtures`; nothing here imports them.

mod ask;
mod call_tool;
pub(crate) mod calls;
mod connection;
pub(crate) mod dispatch;
mod handlers;
mod lines;
pub mod mutants;
mod negotiation;
pub(crate) mod session;
mod task_id;
mod task_store;
pub(crate) mod tasks;
pub(crate) mod tools;

pub use connection::serve_connection;
pub use handlers::Handlers;
pub use lines::MAX_LINE_BYTES;
pub use mutants::Mutant;
pub use session::{
    Core, DEFAULT_HISTORY_LIMIT, DEFAULT_TRANSCRIPT_BYTES, HistoryLimits, SERVER_NAME,
};
pub use task_store::{DEFAULT_TTL_MS, MAX_FINISHED_TASKS, MAX_RUNNING_TASKS, MAX_TTL_MS};
