//! `mcp-testserver`: the test server over stdio or Streamable HTTP. `main` parses the command
//! line, builds the runtime and dispatches.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcp_testserver_core::artifact_files::{ARTIFACTS_VAR, check_directory};
use mcp_testserver_core::http::Limits;
use mcp_testserver_core::record::Record;
use mcp_testserver_core::server::HistoryLimits;
use mcp_testserver_core::server::mutants::{self, MUTANT_VAR, Mutant};

const USAGE: &str = "\
mcp-testserver: a spec-strict MCP test server
usage: mcp-testserver [--transcript-limit N] [--transcript-bytes SIZE] [--artifacts DIR]
                      [--record FILE] [--handler-log-all]
                                       serve on stdio (one JSON-RPC message per line) until
                                       stdin closes, SIGTERM or SIGINT
       mcp-testserver --http ADDR [--allow-non-loopback] [--conformance] [--transcript-limit N]
                      [--transcript-bytes SIZE] [--artifacts DIR] [--read-timeout SECS]
                      [--session-idle-timeout SECS] [--max-sessions N] [--record FILE]
                      [--handler-log-all]
                                       serve Streamable HTTP on ADDR (e.g. 127.0.0.1:0) until
                                       SIGTERM, SIGINT, or a piped stdin closing;
                                       --conformance adds the conformance suite's fixtures
  --allow-non-loopback   HTTP: serve on an ADDR that is not loopback (e.g. 0.0.0.0:8080); the
                         server has no authentication, so anyone who can reach ADDR can use it.
                         Without this flag such an ADDR is refused
  --transcript-limit N   keep the last N transcript messages and handler log lines (default
                         10000); the transcript says how many earlier ones were dropped
  --transcript-bytes SIZE
                         keep at most SIZE bytes of transcript (as compact JSON; a number, or
                         with a K, M or G suffix for KiB, MiB, GiB; default 32M): the oldest
                         messages go first and are counted, the newest always stays
  --artifacts DIR        when serving ends, write the wire transcript (10-wire_transcript.txt)
                         and its sequence diagram (11-sequence.svg) into DIR, as the snippet
                         harness does (the next free number when they exist); default: the
                         directory in $MDBOOK_SNIPPETS_ARTIFACTS, if set
  --record FILE          append every transcript entry of every session and connection to
                         FILE (created, or truncated, at start), one JSON line each:
                         {\"at_ms\": <unix epoch ms>, \"direction\": \"in\"|\"out\", \"message\": ...},
                         flushed per line; the operator's view, unbounded by --transcript-*,
                         and no client can read it
  --handler-log-all      the handler_log tool shows every client's lines, not only the caller
                         session's or connection's: the operator's view, for a test that watches
                         a client it does not control (an agent framework) from a session of
                         its own
  --mutant NAME          break one named rule on purpose (default: $MDBOOK_SNIPPETS_MUTANT,
                         if set); the transcript still records what was sent
  --list-mutants         print each mutant as NAME<TAB>the rule it breaks, and exit
  --read-timeout SECS    HTTP: close a connection that takes longer to send a request's head
                         (idle keep-alive connections too), answer 408 to a body that takes
                         longer (default 30)
  --session-idle-timeout SECS
                         HTTP: end a 2025-11-25 session after SECS without a request and with
                         none running; its id then gets 404 (default 600)
  --max-sessions N       HTTP: at most N live 2025-11-25 sessions; at the cap a new one ends
                         the least recently used idle ones (a tenth of N), or gets 503 if none
                         is idle (default 1000)";

/// What the command line asks for.
struct Options {
    http_address: Option<SocketAddr>,
    conformance: bool,
    history: HistoryLimits,
    artifacts: Option<PathBuf>,
    mutant: Option<Mutant>,
    http_limits: Limits,
    record: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|arg| arg == "--list-mutants") {
        print!("{}", mutants::listing());
        return ExitCode::SUCCESS;
    }
    let mutant_var = std::env::var_os(MUTANT_VAR);
    let options = match parse(&args, std::env::var_os(ARTIFACTS_VAR), mutant_var) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("mcp-testserver: error: {message}; see --help");
            return ExitCode::from(2);
        }
    };
    let record = match options.record.as_deref().map(Record::create).transpose() {
        Ok(record) => record,
        Err(error) => {
            eprintln!("mcp-testserver: error: --record: {error:#}");
            return ExitCode::from(2);
        }
    };
    mutants::install_for_process(options.mutant);
    if let Some(mutant) = options.mutant {
        eprintln!("mcp-testserver: mutant {mutant}: {}", mutant.rule());
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
    let result = match options.http_address {
        Some(address) => runtime.block_on(mcp_testserver_core::http::serve_address(
            address,
            options.conformance,
            options.history,
            options.artifacts.as_deref(),
            options.http_limits,
            record,
        )),
        None => runtime.block_on(mcp_testserver_core::serve_stdio(
            options.history,
            options.artifacts.as_deref(),
            record,
        )),
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

/// The options `args` ask for; `artifacts_var` is `$MDBOOK_SNIPPETS_ARTIFACTS`, which
/// `--artifacts` overrides; `mutant_var` is `$MDBOOK_SNIPPETS_MUTANT`, which `--mutant`
/// overrides. The artifact directory is checked here, before anything is served.
fn parse(
    args: &[String],
    artifacts_var: Option<OsString>,
    mutant_var: Option<OsString>,
) -> Result<Options, String> {
    let mut options = Options {
        http_address: None,
        conformance: false,
        history: HistoryLimits::default(),
        artifacts: None,
        mutant: None,
        http_limits: Limits::default(),
        record: None,
    };
    let mut mutant_flag = None;
    let mut allow_non_loopback = false;
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
            "--allow-non-loopback" => allow_non_loopback = true,
            "--mutant" => {
                let name = args
                    .next()
                    .ok_or("--mutant needs a name (see --list-mutants)")?;
                let mutant = name
                    .parse::<Mutant>()
                    .map_err(|error| format!("--mutant: {error}"))?;
                mutant_flag = Some(mutant);
            }
            "--artifacts" => {
                let directory = args.next().ok_or("--artifacts needs a directory")?;
                if directory.is_empty() {
                    return Err("--artifacts needs a directory, not an empty string".to_owned());
                }
                options.artifacts = Some(PathBuf::from(directory));
            }
            "--record" => {
                let file = args.next().ok_or("--record needs a file")?;
                if file.is_empty() {
                    return Err("--record needs a file, not an empty string".to_owned());
                }
                options.record = Some(PathBuf::from(file));
            }
            "--handler-log-all" => options.history.handler_log_of_every_client = true,
            "--transcript-limit" => {
                let limit = args.next().ok_or("--transcript-limit needs a number")?;
                options.history.messages = match limit.parse::<usize>() {
                    Ok(limit) if limit > 0 => limit,
                    _ => {
                        return Err(format!(
                            "--transcript-limit {limit}: expected a positive integer"
                        ));
                    }
                };
            }
            "--transcript-bytes" => {
                let size = args.next().ok_or("--transcript-bytes needs a size")?;
                options.history.bytes = byte_size(size).ok_or_else(|| {
                    format!(
                        "--transcript-bytes {size}: expected a positive number of bytes, optionally with a K, M or G suffix (e.g. 32M)"
                    )
                })?;
            }
            "--read-timeout" => {
                let seconds = Duration::from_secs(positive(arg, args.next())?);
                options.http_limits.header_read_timeout = Some(seconds);
                options.http_limits.body_read_timeout = Some(seconds);
            }
            "--session-idle-timeout" => {
                options.http_limits.session_idle_timeout =
                    Duration::from_secs(positive(arg, args.next())?);
            }
            "--max-sessions" => {
                options.http_limits.max_sessions = usize::try_from(positive(arg, args.next())?)
                    .map_err(|_| format!("{arg}: too large"))?;
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    match options.http_address {
        Some(address) if !address.ip().is_loopback() && !allow_non_loopback => {
            return Err(format!(
                "--http {address}: not a loopback address; the server has no authentication, so anyone who can reach {address} could use it. Bind 127.0.0.1 (or [::1]), or pass --allow-non-loopback to serve beyond this machine"
            ));
        }
        None if allow_non_loopback => {
            return Err("--allow-non-loopback needs --http ADDR".to_owned());
        }
        _ => {}
    }
    if options.conformance && options.http_address.is_none() {
        return Err("--conformance needs --http ADDR".to_owned());
    }
    options.mutant = match mutant_flag {
        Some(mutant) => Some(mutant),
        None => mutants::from_var(mutant_var).map_err(|error| format!("{MUTANT_VAR}: {error}"))?,
    };
    if options.http_limits != Limits::default() && options.http_address.is_none() {
        return Err(
            "--read-timeout, --session-idle-timeout and --max-sessions need --http ADDR".to_owned(),
        );
    }
    if let Some(directory) = &options.artifacts {
        check_directory(directory).map_err(|error| format!("--artifacts: {error:#}"))?;
    } else if let Some(directory) = artifacts_var.filter(|value| !value.is_empty()) {
        let directory = PathBuf::from(directory);
        check_directory(&directory).map_err(|error| format!("{ARTIFACTS_VAR}: {error:#}"))?;
        options.artifacts = Some(directory);
    }
    Ok(options)
}

/// A positive size in bytes: digits, optionally followed by `K`, `M` or `G` (KiB, MiB, GiB).
fn byte_size(text: &str) -> Option<usize> {
    let (digits, unit) = match text.char_indices().last()? {
        (at, 'K' | 'k') => (&text[..at], 1 << 10),
        (at, 'M' | 'm') => (&text[..at], 1 << 20),
        (at, 'G' | 'g') => (&text[..at], 1 << 30),
        _ => (text, 1),
    };
    let number = digits.parse::<usize>().ok()?;
    number.checked_mul(unit).filter(|bytes| *bytes > 0)
}

/// The positive integer after `flag` (at most a day of seconds, or a million sessions, which
/// keeps every deadline computable).
fn positive(flag: &str, value: Option<&String>) -> Result<u64, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a number"))?;
    match value.parse::<u64>() {
        Ok(number) if (1..=1_000_000).contains(&number) => Ok(number),
        _ => Err(format!(
            "{flag} {value}: expected an integer from 1 to 1000000"
        )),
    }
}
