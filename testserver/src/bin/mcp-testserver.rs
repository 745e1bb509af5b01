//! `mcp-testserver`: the test server over stdio or Streamable HTTP. `main` parses the command
//! line, builds the runtime and dispatches.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use mcp_testserver_core::server::DEFAULT_HISTORY_LIMIT;

const USAGE: &str = "\
mcp-testserver: a spec-strict MCP test server
usage: mcp-testserver [--transcript-limit N]
                                       serve on stdio (one JSON-RPC message per line)
       mcp-testserver --http ADDR [--conformance] [--transcript-limit N]
                                       serve Streamable HTTP on ADDR (e.g. 127.0.0.1:0);
                                       --conformance adds the conformance suite's fixtures
  --transcript-limit N   keep the last N transcript messages and handler log lines (default
                         10000); the transcript says how many earlier ones were dropped";

/// What the command line asks for.
struct Options {
    http_address: Option<SocketAddr>,
    conformance: bool,
    history_limit: usize,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let options = match parse(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("mcp-testserver: error: {message}; see --help");
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
    let result = match options.http_address {
        Some(address) => runtime.block_on(mcp_testserver_core::http::serve_address(
            address,
            options.conformance,
            options.history_limit,
        )),
        None => runtime.block_on(mcp_testserver_core::serve_stdio(options.history_limit)),
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

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        http_address: None,
        conformance: false,
        history_limit: DEFAULT_HISTORY_LIMIT,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                let address = args
                    .next()
                    .ok_or("--http needs an address, e.g. 127.0.0.1:0")?;
                let parsed = address.parse::<SocketAddr>().map_err(|error| {
                    format!("--http {address}: {error} (expected IP:PORT, e.g. 127.0.0.1:0)")
                })?;
                options.http_address = Some(parsed);
            }
            "--conformance" => options.conformance = true,
            "--transcript-limit" => {
                let limit = args.next().ok_or("--transcript-limit needs a number")?;
                options.history_limit = match limit.parse::<usize>() {
                    Ok(limit) if limit > 0 => limit,
                    _ => {
                        return Err(format!(
                            "--transcript-limit {limit}: expected a positive integer"
                        ));
                    }
                };
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    if options.conformance && options.http_address.is_none() {
        return Err("--conformance needs --http ADDR".to_owned());
    }
    Ok(options)
}
