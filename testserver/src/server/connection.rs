//! One newline-delimited JSON-RPC connection over any `AsyncRead`/`AsyncWrite` pair, served
//! until the peer closes its side.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::lines;
use super::mutants::Mutant;
use super::session::{Core, Session};

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
    let session = Session::new(core, outbox);
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
