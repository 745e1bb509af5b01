//! The server over stdio: one JSON-RPC message per line on stdin and stdout, logs on stderr.
//! When a signal stops it, the transcript says so, and keeps the line the client had begun.

use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

use crate::artifact_files::write_at_end;
use crate::record::Record;
use crate::server::{Core, HistoryLimits, serve_connection};
use crate::shutdown::{Termination, record_shutdown, report_violations, say};
use crate::transcript::{Direction, Entry};

/// Serves MCP on this process's stdin/stdout until stdin closes (or SIGTERM or SIGINT arrives),
/// then writes the artifacts into `artifacts` when given (see [`crate::artifact_files`]) and
/// reports the violations it saw on stderr (bounded). The transcript and handler log keep what
/// `history` allows (see [`HistoryLimits`]; a plain number is the message limit). On a signal
/// the transcript ends with the server's shutdown, after the line the client had begun, if any,
/// as unparseable. With `record`, every transcript entry also goes to that file (`--record`).
pub async fn serve_stdio(
    history: impl Into<HistoryLimits>,
    artifacts: Option<&Path>,
    record: Option<Record>,
) -> anyhow::Result<()> {
    let core = Arc::new(Core::default().with_random_task_ids());
    core.limit_history_to(history.into());
    if let Some(record) = record {
        core.transcript.set_record(record);
    }
    let mut termination = Termination::listen()?;
    eprintln!(
        "mcp-testserver {}: serving MCP 2025-11-25 and 2026-07-28 on stdio",
        env!("CARGO_PKG_VERSION")
    );
    let pending = Arc::new(Mutex::new(PendingLine::default()));
    let stdin = TrackedInput {
        input: tokio::io::stdin(),
        pending: pending.clone(),
    };
    tokio::select! {
        _ = serve_connection(core.clone(), stdin, tokio::io::stdout()) => {}
        signal = termination.wait() => {
            say(format_args!("{signal}: stopping"));
            let pending = pending.lock().unwrap_or_else(|poison| poison.into_inner());
            let partial = (pending.length > 0).then_some(pending.length);
            if partial.is_some() {
                let shown = String::from_utf8_lossy(&pending.start).into_owned();
                core.transcript
                    .record_entry(Direction::In, Entry::Unparseable(shown));
            }
            record_shutdown(&core.transcript, "stdio", signal, partial);
        }
    }
    let written = write_at_end(artifacts, &core.transcript);
    report_violations(&core.violations);
    written
}

/// How much of a cut-off line the transcript shows, as for any unparseable line.
const SHOWN_BYTES: usize = 200;

/// The bytes read after the last newline: the line the client has begun but not finished.
/// Every complete line before it was handled already (the connection reads and handles the
/// lines of a read without yielding), so at a signal this is all that would be lost.
#[derive(Default)]
struct PendingLine {
    /// Its first [`SHOWN_BYTES`] bytes.
    start: Vec<u8>,
    /// Its whole length so far.
    length: usize,
}

impl PendingLine {
    fn extend(&mut self, bytes: &[u8]) {
        let after_newline = match bytes.iter().rposition(|byte| *byte == b'\n') {
            Some(newline) => {
                self.start.clear();
                self.length = 0;
                &bytes[newline + 1..]
            }
            None => bytes,
        };
        let room = SHOWN_BYTES.saturating_sub(self.start.len());
        self.start
            .extend_from_slice(&after_newline[..after_newline.len().min(room)]);
        self.length += after_newline.len();
    }
}

/// Stdin, noting the unfinished line as bytes arrive.
struct TrackedInput<R> {
    input: R,
    pending: Arc<Mutex<PendingLine>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for TrackedInput<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buffer.filled().len();
        let polled = Pin::new(&mut self.input).poll_read(context, buffer);
        if let Poll::Ready(Ok(())) = polled {
            let read = &buffer.filled()[before..];
            self.pending
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .extend(read);
        }
        polled
    }
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
