//! The MCP server itself: tokio + serde_json, no MCP SDK. `Core` is the state one server shares
//! across its connections (transcript, violations, gates, handlers, tasks); `serve_connection`
//! runs one newline-delimited JSON-RPC connection over any `AsyncRead`/`AsyncWrite` pair until
//! the peer closes its side.

mod ask;
pub(crate) mod calls;
mod handlers;
mod lines;
pub mod mutants;
mod negotiation;
pub(crate) mod session;
mod task_id;
pub(crate) mod tasks;
pub(crate) mod tools;

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::gates::Gates;
use crate::transcript::{Direction, Side, Transcript};
use crate::violations::ViolationLog;

pub use handlers::Handlers;
pub use lines::MAX_LINE_BYTES;
pub use mutants::Mutant;

/// How many transcript messages and handler log lines the `mcp-testserver` binary keeps by
/// default (`--transcript-limit`); in-process servers keep everything.
pub const DEFAULT_HISTORY_LIMIT: usize = 10_000;

/// The name the server gives in `serverInfo`.
pub const SERVER_NAME: &str = "mcp-testserver";

/// What one server shares across its connections.
#[derive(Debug)]
pub struct Core {
    /// Every message in both directions, as the server saw them.
    pub transcript: Transcript,
    /// What the peers did wrong.
    pub violations: ViolationLog,
    /// Named latches for `wait_gate` / `open_gate`.
    pub gates: Gates,
    /// Running tool handlers and their log.
    pub handlers: Handlers,
    tasks: tasks::TaskStore,
    /// Response ids of earlier `transcript` tool calls, elided from later transcript replies.
    transcript_replies: std::sync::Mutex<std::collections::HashSet<String>>,
    /// Whether the conformance suite's fixtures (`test_*` tools, resources, prompts) are served.
    pub(crate) conformance_fixtures: bool,
    /// Open `subscriptions/listen` streams (fixtures only).
    pub(crate) listeners: crate::conformance::listen::Listeners,
    /// The one rule this server breaks on purpose, if any (see `mutants`).
    mutant: Option<Mutant>,
}

impl Default for Core {
    fn default() -> Core {
        Core {
            transcript: Transcript::new(Side::Server),
            violations: ViolationLog::new(),
            gates: Gates::default(),
            handlers: Handlers::default(),
            tasks: tasks::TaskStore::default(),
            transcript_replies: Default::default(),
            conformance_fixtures: false,
            listeners: Default::default(),
            mutant: mutants::process_mutant(),
        }
    }
}

impl Core {
    /// Bounds what the core remembers to the last `limit` transcript messages and handler log
    /// lines, so a long-running server (the binary) keeps flat memory; in-process servers keep
    /// everything.
    pub fn limit_history(&self, limit: usize) {
        self.transcript.set_limit(limit);
        self.handlers.set_log_limit(limit);
    }

    /// This core, breaking `mutant`'s rule (`None`: no rule broken), whatever the process
    /// installed (see [`mutants::install_for_process`]).
    pub fn with_mutant(self, mutant: Option<Mutant>) -> Core {
        Core { mutant, ..self }
    }

    /// The mutant this core runs, if any.
    pub fn mutant(&self) -> Option<Mutant> {
        self.mutant
    }

    /// Whether this core breaks `mutant`'s rule: the one question the hooks ask.
    pub(crate) fn breaks(&self, mutant: Mutant) -> bool {
        self.mutant == Some(mutant)
    }

    /// A core that also serves the official conformance suite's fixtures (see `conformance`).
    pub fn with_conformance_fixtures() -> Core {
        Core {
            conformance_fixtures: true,
            ..Core::default()
        }
    }
}

/// Serves one connection until `reader` reaches end of file. On EOF every running handler is
/// cancelled (nobody is left to read its answer), pending output is flushed, and this returns;
/// it never panics on bad input.
pub async fn serve_connection<R, W>(core: Arc<Core>, reader: R, writer: W)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (outbox, inbox) = mpsc::unbounded_channel();
    let writer_task = tokio::spawn(write_loop(inbox, writer));
    let session = session::Session::new(core, outbox);
    let mut lines = lines::LineReader::new(reader);
    loop {
        match lines.next_line().await {
            lines::Line::Complete(bytes) => session.handle_line(&bytes),
            lines::Line::TooLong(length) => session.handle_oversized(length),
            lines::Line::Truncated(bytes) => {
                // The peer closed mid-line: judge what arrived, then stop.
                session.handle_line(&bytes);
                break;
            }
            lines::Line::Eof => break,
        }
    }
    // The `eof-keeps-handlers` mutant stops sending but leaves the handlers running.
    if session.core.breaks(Mutant::EofKeepsHandlers) {
        session.stop_sending();
    } else {
        session.close();
    }
    drop(session);
    let _ = writer_task.await;
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut inbox: mpsc::UnboundedReceiver<serde_json::Value>,
    mut writer: W,
) {
    while let Some(message) = inbox.recv().await {
        let mut line = serde_json::to_vec(&message).expect("a JSON value serializes");
        line.push(b'\n');
        if writer.write_all(&line).await.is_err() || writer.flush().await.is_err() {
            // The peer is gone; nothing more can be delivered.
            break;
        }
    }
    let _ = writer.shutdown().await;
}

/// Records an incoming message in the core's transcript.
fn record_in(core: &Core, message: serde_json::Value) {
    core.transcript.record(Direction::In, message);
}
