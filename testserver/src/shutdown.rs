//! When the `mcp-testserver` binary stops serving, so that it can write its artifacts first: on
//! SIGTERM or SIGINT (both transports), at end of input (stdio), and over HTTP also when its
//! stdin is a pipe or socket and that closes, so a server started by a snippet's process never
//! outlives it. A stdin that is a terminal, `/dev/null` or a file is not watched over HTTP (the
//! conformance runner and `interop/` start it with `/dev/null`). How it stopped goes into the
//! transcript ([`record_shutdown`]); what the client did wrong goes to stderr, bounded
//! ([`report_violations`]).

use std::os::unix::fs::FileTypeExt;

use anyhow::Context;

use crate::transcript::{Direction, Entry, Shutdown, Transcript};
use crate::violations::{REPORTED_VIOLATIONS, ViolationLog};
use tokio::io::AsyncReadExt;
use tokio::signal::unix::{Signal, SignalKind, signal};

/// SIGTERM and SIGINT, listened for from [`Termination::listen`] on (so a signal that arrives
/// before anyone waits is not lost, and does not kill the process).
pub(crate) struct Termination {
    terminate: Signal,
    interrupt: Signal,
}

impl Termination {
    /// Installs the handlers; an error when the process cannot listen for the signals.
    pub(crate) fn listen() -> anyhow::Result<Termination> {
        Ok(Termination {
            terminate: signal(SignalKind::terminate()).context("listening for SIGTERM")?,
            interrupt: signal(SignalKind::interrupt()).context("listening for SIGINT")?,
        })
    }

    /// Resolves at the first SIGTERM or SIGINT, with its name.
    pub(crate) async fn wait(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
        }
    }
}

/// Resolves when stdin, a pipe or a socket, reaches end of file (what it carries is ignored);
/// never resolves for any other stdin.
pub(crate) async fn piped_stdin_closed() {
    let piped = std::fs::metadata("/dev/stdin")
        .map(|metadata| metadata.file_type())
        .is_ok_and(|kind| kind.is_fifo() || kind.is_socket());
    if !piped {
        return std::future::pending().await;
    }
    let mut stdin = tokio::io::stdin();
    let mut buffer = [0_u8; 1024];
    while let Ok(read) = stdin.read(&mut buffer).await {
        if read == 0 {
            return;
        }
    }
}

/// Records that the server itself stopped serving over `transport` (`stdio`, `http`), and why
/// (`SIGTERM`, `stdin closed`); `partial_line_bytes`: the length of a line it cut off (stdio).
/// Recorded before the streams close, so none of them reads as the client leaving.
pub(crate) fn record_shutdown(
    transcript: &Transcript,
    transport: &str,
    reason: &str,
    partial_line_bytes: Option<usize>,
) {
    let shutdown = Shutdown {
        transport: transport.to_owned(),
        reason: reason.to_owned(),
        partial_line_bytes,
    };
    transcript.record_entry(Direction::Out, Entry::Shutdown(shutdown));
}

/// Reports the violations on stderr, at most [`REPORTED_VIOLATIONS`] lines and a summary (see
/// [`ViolationLog::report`]): a parent that never reads stderr must not block the server on a
/// full pipe, so what it writes there in a whole run stays far below a pipe's buffer.
pub(crate) fn report_violations(violations: &ViolationLog) {
    for line in violations.report(REPORTED_VIOLATIONS) {
        say(format_args!("{line}"));
    }
}

/// Writes `mcp-testserver: MESSAGE` on stderr, whatever became of it. From the first signal on,
/// the reader of stderr may be gone: a client killed with its process group takes its end of the
/// pipe with it, and `eprintln!` would then panic on the broken pipe before the artifacts are
/// written (measured: a Python client and this server, one process group, SIGTERM under load).
pub(crate) fn say(message: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "mcp-testserver: {message}");
}
