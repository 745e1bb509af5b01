//! An MCP client on the command line: it starts a server over stdio, then makes one tool call per
//! line of standard input (`TOOL {"json": "arguments"}`) and prints how each one ended.
//!
//!     cargo run --release -- [--idle SECS] [--total SECS] SERVER [ARGS...]
//!
//! A call gives up after `--idle` seconds without progress (default 30) or `--total` seconds in
//! all (default 300), and Ctrl-C stops it; each way sends the server `notifications/cancelled`.
//! Ctrl-C between calls, or the end of input, quits.

use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ProgressNotificationParam, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, Peer, ServiceExt};
use tokio_util::sync::CancellationToken;

// ANCHOR: call
/// How long one call may take.
struct Limits {
    /// Give up after this long without progress; each progress notification starts it again.
    idle: Duration,
    /// Give up after this long in all, whatever the progress.
    total: Duration,
}

/// How a call ended without its result.
enum Stopped {
    ByUser,
    TimedOut(Duration),
    Failed(ServiceError),
}

/// Calls a tool until it answers, a limit passes, or `stop` is cancelled. Each way of stopping
/// sends `notifications/cancelled`; rmcp then drops a response that arrives anyway.
async fn call_tool(
    client: &Peer<RoleClient>,
    params: CallToolRequestParams,
    limits: &Limits,
    stop: &CancellationToken,
) -> Result<CallToolResult, Stopped> {
    let options = PeerRequestOptions::with_timeout(limits.idle)
        .reset_timeout_on_progress()
        .with_max_total_timeout(limits.total);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = client.send_cancellable_request(request, options).await;
    let handle = handle.map_err(Stopped::Failed)?;
    let id = handle.id.clone();
    tokio::select! {
        response = handle.await_response() => match response {
            Ok(ServerResult::CallToolResult(result)) => Ok(result),
            Ok(_) => Err(Stopped::Failed(ServiceError::UnexpectedResponse)),
            // rmcp has sent the cancel ("request timeout", "maximum total timeout exceeded").
            Err(ServiceError::Timeout { timeout }) => Err(Stopped::TimedOut(timeout)),
            Err(error) => Err(Stopped::Failed(error)),
        },
        // Dropping `await_response` sends nothing, so the stop button sends the cancel itself.
        () = stop.cancelled() => {
            let reason = Some("stopped by the user".to_owned());
            let cancel = client.notify_cancelled(CancelledNotificationParam::new(Some(id), reason));
            cancel.await.map_err(Stopped::Failed)?;
            Err(Stopped::ByUser)
        }
    }
}
// ANCHOR_END: call

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (limits, server) = parse_args(std::env::args().skip(1))?;
    let mut command = tokio::process::Command::new(&server[0]);
    command.args(&server[1..]);
    // A process group of its own: Ctrl-C in a terminal is this client's stop button, and must
    // not reach the server too.
    #[cfg(unix)]
    command.process_group(0);
    let client = ShowProgress.serve(TokioChildProcess::new(command)?).await?;

    let mut ctrl_c = ctrl_c_presses();
    let mut lines = stdin_lines();
    loop {
        let line = tokio::select! {
            line = lines.recv() => line,
            Some(()) = ctrl_c.recv() => None, // between calls, Ctrl-C quits
        };
        let Some(line) = line else { break };
        let Some(params) = parse_call(&line) else {
            eprintln!("expected a call: TOOL {{\"json\": \"arguments\"}}");
            continue;
        };
        let name = params.name.clone();
        let stop = CancellationToken::new();
        let call = call_tool(client.peer(), params, &limits, &stop);
        tokio::pin!(call);
        let outcome = tokio::select! {
            outcome = &mut call => outcome,
            Some(()) = ctrl_c.recv() => {
                stop.cancel(); // what a Stop button in a user interface would do
                call.await
            }
        };
        match outcome {
            Ok(result) => println!("{name}: {}", text_of(&result)),
            Err(Stopped::ByUser) => println!("{name}: stopped"),
            Err(Stopped::TimedOut(after)) if after == limits.idle => {
                println!("{name}: gave up: no progress for {after:?}")
            }
            Err(Stopped::TimedOut(after)) => println!("{name}: gave up: {after:?} in all"),
            Err(Stopped::Failed(error)) => println!("{name}: failed: {error}"),
        }
    }
    client.cancel().await?; // closes the server's stdin, then waits for it to exit
    Ok(())
}
// ANCHOR_END: main

/// Shows the server's progress notifications on stderr.
struct ShowProgress;

impl ClientHandler for ShowProgress {
    async fn on_progress(
        &self,
        progress: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let total = progress
            .total
            .map(|total| format!("/{total}"))
            .unwrap_or_default();
        let message = progress.message.unwrap_or_default();
        eprintln!("  progress {}{total} {message}", progress.progress);
    }
}

const USAGE: &str = "usage: rmcp-client [--idle SECS] [--total SECS] SERVER [ARGS...]";

/// The limits and the server's command line, from this program's arguments.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<(Limits, Vec<String>), String> {
    let mut limits = Limits {
        idle: Duration::from_secs(30),
        total: Duration::from_secs(300),
    };
    let mut server = Vec::new();
    while let Some(arg) = args.next() {
        let limit = match arg.as_str() {
            "--idle" if server.is_empty() => &mut limits.idle,
            "--total" if server.is_empty() => &mut limits.total,
            _ => {
                server.push(arg);
                continue;
            }
        };
        let seconds = args.next().and_then(|value| value.parse::<f64>().ok());
        *limit = seconds
            .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
            .ok_or_else(|| format!("{arg} takes a number of seconds\n{USAGE}"))?;
    }
    if server.is_empty() {
        return Err(USAGE.to_owned());
    }
    Ok((limits, server))
}

/// `TOOL {"json": "arguments"}` (the arguments may be left out) as a call, or `None`.
fn parse_call(line: &str) -> Option<CallToolRequestParams> {
    let (name, arguments) = line.trim().split_once(' ').unwrap_or((line.trim(), "{}"));
    let arguments = serde_json::from_str(arguments).ok()?;
    (!name.is_empty())
        .then(|| CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
}

/// The text of a result, an error result marked as such.
fn text_of(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|content| content.as_text())
        .map(|text| text.text.as_str())
        .collect();
    match result.is_error {
        Some(true) => format!("error: {}", texts.join(" ")),
        _ => texts.join(" "),
    }
}

/// Each press of Ctrl-C. tokio reports only the presses made while someone listens, so one
/// task listens all the time.
fn ctrl_c_presses() -> tokio::sync::mpsc::UnboundedReceiver<()> {
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() && sender.send(()).is_ok() {}
    });
    receiver
}

/// The lines of standard input, read on a thread of their own so that quitting never waits
/// for one.
fn stdin_lines() -> tokio::sync::mpsc::Receiver<String> {
    let (sender, receiver) = tokio::sync::mpsc::channel(1);
    std::thread::spawn(move || {
        for line in std::io::stdin().lines().map_while(Result::ok) {
            if sender.blocking_send(line).is_err() {
                break;
            }
        }
    });
    receiver
}
