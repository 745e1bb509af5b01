//! The server over stdio: one JSON-RPC message per line on stdin and stdout, logs on stderr.

use std::path::Path;
use std::sync::Arc;

use crate::artifact_files::write_at_end;
use crate::server::{Core, serve_connection};
use crate::shutdown::Termination;

/// Serves MCP on this process's stdin/stdout until stdin closes (or SIGTERM or SIGINT arrives),
/// then reports the violations it saw on stderr and writes the artifacts into `artifacts` when
/// given (see [`crate::artifact_files`]). The transcript and handler log keep the last
/// `history_limit` entries (see [`Core::limit_history`]).
pub async fn serve_stdio(history_limit: usize, artifacts: Option<&Path>) -> anyhow::Result<()> {
    let core = Arc::new(Core::default());
    core.limit_history(history_limit);
    let mut termination = Termination::listen()?;
    eprintln!(
        "mcp-testserver {}: serving MCP 2025-11-25 and 2026-07-28 on stdio",
        env!("CARGO_PKG_VERSION")
    );
    tokio::select! {
        _ = serve_connection(core.clone(), tokio::io::stdin(), tokio::io::stdout()) => {}
        signal = termination.wait() => eprintln!("mcp-testserver: {signal}: stopping"),
    }
    for violation in core.violations.list() {
        eprintln!("mcp-testserver: violation {violation}");
    }
    write_at_end(artifacts, &core.transcript)
}
