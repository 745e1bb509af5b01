//! `mcp-testserver`: the test server over stdio. `main` only builds the runtime and dispatches.

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    if std::env::args()
        .nth(1)
        .is_some_and(|arg| arg == "--help" || arg == "-h")
    {
        println!(
            "mcp-testserver: a spec-strict MCP test server on stdio (one JSON-RPC message per line)"
        );
        return ExitCode::SUCCESS;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp-testserver: error: building the tokio runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(mcp_testserver::serve_stdio());
    // Handlers that ignore cancellation must not keep the process alive after stdin closed.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-testserver: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
