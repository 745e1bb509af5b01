//! `mcp-testserver`: the test server over stdio. `main` only builds the runtime and dispatches.

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .first()
        .is_some_and(|arg| arg == "--help" || arg == "-h")
    {
        println!(
            "mcp-testserver: a spec-strict MCP test server on stdio (one JSON-RPC message per line)\n\
             usage: mcp-testserver                 serve on stdio\n\
             \x20      mcp-testserver --http ADDR [--conformance]\n\
             \x20                                    serve Streamable HTTP on ADDR (e.g. 127.0.0.1:0);\n\
             \x20                                    --conformance adds the conformance suite's fixtures"
        );
        return ExitCode::SUCCESS;
    }
    // `--conformance` (after `--http ADDR`) adds the official conformance suite's fixtures.
    let conformance = match args.get(2).map(String::as_str) {
        None => false,
        Some("--conformance") => true,
        Some(other) => {
            eprintln!("mcp-testserver: error: unexpected argument {other:?}; see --help");
            return ExitCode::from(2);
        }
    };
    let http_address = match args.as_slice() {
        [] => None,
        [flag, address] | [flag, address, _] if flag == "--http" => {
            match address.parse::<std::net::SocketAddr>() {
                Ok(address) => Some(address),
                Err(error) => {
                    eprintln!(
                        "mcp-testserver: error: --http {address}: {error} (expected IP:PORT, e.g. 127.0.0.1:0)"
                    );
                    return ExitCode::from(2);
                }
            }
        }
        _ => {
            eprintln!("mcp-testserver: error: unexpected arguments {args:?}; see --help");
            return ExitCode::from(2);
        }
    };
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
    let result = match http_address {
        Some(address) => {
            runtime.block_on(mcp_testserver::http::serve_address(address, conformance))
        }
        None => runtime.block_on(mcp_testserver::serve_stdio()),
    };
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
