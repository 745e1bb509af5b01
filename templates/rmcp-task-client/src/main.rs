//! An MCP client for tools that run as tasks (the 2026-07-28 tasks extension,
//! `io.modelcontextprotocol/tasks`): it starts a server over stdio, declares the extension, makes
//! one tool call per line of standard input (`TOOL {"json": "arguments"}`), and follows each task
//! with `tasks/get` until it ends. Ctrl-C while a task runs sends `tasks/cancel`; Ctrl-C between
//! calls, or the end of input, quits.
//!
//!     cargo run --release -- SERVER [ARGS...]

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, TaskPayload,
};
use rmcp::service::{RoleClient, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{Peer, ServiceExt};

// ANCHOR: follow
/// Follows the task `task_id` until it ends, printing each new status message; the first Ctrl-C
/// sends `tasks/cancel`, after which the task may still end `completed`: its status says.
async fn follow_task(
    client: &Peer<RoleClient>,
    task_id: String,
    ctrl_c: &mut tokio::sync::mpsc::UnboundedReceiver<()>,
) -> Result<TaskPayload, ServiceError> {
    let mut cancel_sent = false;
    let mut last_message = None;
    loop {
        let got = client.get_task(GetTaskParams::new(task_id.clone())).await?;
        if got.task.task.status_message != last_message {
            last_message = got.task.task.status_message.clone();
            eprintln!("  {}", last_message.as_deref().unwrap_or(""));
        }
        if !matches!(got.task.payload, TaskPayload::Working | TaskPayload::InputRequired { .. }) {
            return Ok(got.task.payload);
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
            Some(()) = ctrl_c.recv(), if !cancel_sent => {
                // An empty acknowledgement: the task stops when its work looks, if it does.
                client.cancel_task(CancelTaskParams::new(task_id.clone())).await?;
                eprintln!("  tasks/cancel sent");
                cancel_sent = true;
            }
        }
    }
}
// ANCHOR_END: follow

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server: Vec<String> = std::env::args().skip(1).collect();
    if server.is_empty() {
        return Err("usage: rmcp-task-client SERVER [ARGS...]".into());
    }
    let mut command = tokio::process::Command::new(&server[0]);
    command.args(&server[1..]);
    // A process group of its own: Ctrl-C in a terminal is this client's, not the server's.
    #[cfg(unix)]
    command.process_group(0);
    // Declaring the extension is what lets a server answer with a task. (rmcp's capability
    // builder comes with its `server` feature only, so the declaration is written as on the wire.)
    let tasks = serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let capabilities: ClientCapabilities = serde_json::from_value(tasks)?;
    let info = Implementation::new("rmcp-task-client", env!("CARGO_PKG_VERSION"));
    let client = ClientConfig::new(capabilities, info)
        .serve(TokioChildProcess::new(command)?)
        .await?;

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
        let ended = match client.call_tool_once(params).await {
            Ok(CallToolResponse::Task(created)) => {
                println!("{name}: task {}", created.task.task_id);
                follow_task(client.peer(), created.task.task_id, &mut ctrl_c).await
            }
            Ok(response) => {
                println!("{name}: answered without a task: {response:?}");
                continue;
            }
            Err(error) => Err(error),
        };
        match ended {
            Ok(TaskPayload::Completed { result }) => {
                println!("{name}: completed: {}", result["content"][0]["text"])
            }
            Ok(TaskPayload::Cancelled) => println!("{name}: cancelled"),
            Ok(other) => println!("{name}: ended {:?}", other.status()),
            Err(error) => println!("{name}: failed: {error}"),
        }
    }
    client.cancel().await?; // closes the server's stdin, then waits for it to exit
    Ok(())
}
// ANCHOR_END: main

/// `TOOL {"json": "arguments"}` (the arguments may be left out) as a call, or `None`.
fn parse_call(line: &str) -> Option<CallToolRequestParams> {
    let (name, arguments) = line.trim().split_once(' ').unwrap_or((line.trim(), "{}"));
    let arguments = serde_json::from_str(arguments).ok()?;
    (!name.is_empty())
        .then(|| CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
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
