//! The server over stdio: one JSON-RPC message per line on stdin and stdout, logs on stderr.

use std::sync::Arc;

use crate::server::{Core, serve_connection};

/// Serves MCP on this process's stdin/stdout until stdin closes, then reports the violations
/// it saw on stderr. The transcript and handler log keep the last `history_limit` entries
/// (see [`Core::limit_history`]).
pub async fn serve_stdio(history_limit: usize) -> anyhow::Result<()> {
    let core = Arc::new(Core::default());
    core.limit_history(history_limit);
    eprintln!(
        "mcp-testserver {}: serving MCP 2025-11-25 and 2026-07-28 on stdio",
        env!("CARGO_PKG_VERSION")
    );
    serve_connection(core.clone(), tokio::io::stdin(), tokio::io::stdout()).await;
    for violation in core.violations.list() {
        eprintln!("mcp-testserver: violation {violation}");
    }
    Ok(())
}
