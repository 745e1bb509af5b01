//! A server template driven by rmcp's client, as an MCP host runs it: started as a child process
//! (a process group of its own), spoken to over its stdin and stdout, every line that crosses
//! recorded on the way, and its stderr log read line by line. Killed when dropped.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// How long a wait for a log line or the exit may take before the test fails.
const WAIT: Duration = Duration::from_secs(60);

/// Which way a recorded message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    ToServer,
    ToClient,
}

/// Every JSON-RPC message that crossed, in the order each side wrote it.
pub(super) type Wire = Arc<Mutex<Vec<(Direction, Value)>>>;

pub(super) struct Served<H: ClientHandler> {
    pub(super) client: RunningService<RoleClient, H>,
    pub(super) wire: Wire,
    log: UnboundedReceiver<String>,
    /// The log lines read so far.
    pub(super) seen: Vec<String>,
    process: tokio::process::Child,
}

impl<H: ClientHandler> Served<H> {
    /// Starts `command` and connects `handler` (rmcp's client) to it.
    pub(super) async fn start(command: std::process::Command, handler: H) -> Served<H> {
        let description = format!("{command:?}");
        let mut command = tokio::process::Command::from(command);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut process = command
            .spawn()
            .unwrap_or_else(|error| panic!("starting {description}: {error}"));
        let wire = Wire::default();
        let (client_end, relay_end) = tokio::io::duplex(1 << 16);
        let (from_client, to_client) = tokio::io::split(relay_end);
        let stdin = process.stdin.take().expect("piped");
        let stdout = process.stdout.take().expect("piped");
        tokio::spawn(relay(from_client, stdin, Direction::ToServer, wire.clone()));
        tokio::spawn(relay(stdout, to_client, Direction::ToClient, wire.clone()));
        let (sender, log) = unbounded_channel();
        let mut stderr = BufReader::new(process.stderr.take().expect("piped")).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = stderr.next_line().await {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let client = match tokio::time::timeout(WAIT, handler.serve(client_end)).await {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => panic!("{description}: the handshake failed: {error}"),
            Err(_) => panic!("{description}: no handshake within {WAIT:?}"),
        };
        Served {
            client,
            wire,
            log,
            seen: Vec::new(),
            process,
        }
    }

    /// Reads the log up to the first line equal to `line`; the lines read are returned.
    pub(super) async fn log_until(&mut self, line: &str) -> Vec<String> {
        let what = format!("the line {line:?}");
        self.read_log(&what, |seen| seen == line, 1).await
    }

    /// Reads the log up to the `count`-th line starting with `prefix`.
    pub(super) async fn log_until_count(&mut self, prefix: &str, count: usize) -> Vec<String> {
        let what = format!("{count} lines starting with {prefix:?}");
        self.read_log(&what, |line| line.starts_with(prefix), count)
            .await
    }

    /// Reads the log up to the `count`-th line `wanted` accepts (`what` names them).
    async fn read_log(
        &mut self,
        what: &str,
        wanted: impl Fn(&str) -> bool,
        count: usize,
    ) -> Vec<String> {
        let mut read = Vec::new();
        let mut found = 0;
        while found < count {
            match tokio::time::timeout(WAIT, self.log.recv()).await {
                Ok(Some(line)) => {
                    found += usize::from(wanted(&line));
                    self.seen.push(line.clone());
                    read.push(line);
                }
                Ok(None) => panic!("the log ended before {what}: {:#?}", self.seen),
                Err(_) => panic!("no {what} in the log within {WAIT:?}: {:#?}", self.seen),
            }
        }
        read
    }

    /// Closes the connection (the server's stdin) and waits for the server to exit; the rest of
    /// its log is returned.
    pub(super) async fn close(mut self) -> Vec<String> {
        let _ = self.client.cancel().await;
        let status = tokio::time::timeout(WAIT, self.process.wait())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "the server did not exit when its stdin closed: {:#?}",
                    self.seen
                )
            })
            .expect("waiting for the server");
        assert!(
            status.success(),
            "the server exited with {status}: {:#?}",
            self.seen
        );
        let mut rest = Vec::new();
        while let Ok(Some(line)) = tokio::time::timeout(WAIT, self.log.recv()).await {
            rest.push(line);
        }
        rest
    }

    /// The messages recorded so far.
    pub(super) fn messages(&self) -> Vec<(Direction, Value)> {
        self.wire.lock().expect("the wire lock").clone()
    }
}

/// Copies newline-delimited messages from `from` to `to`, recording each; at the end of `from`,
/// ends `to` too.
async fn relay(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    direction: Direction,
    wire: Wire,
) {
    let mut lines = BufReader::new(from).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message = serde_json::from_str(&line).unwrap_or(Value::String(line.clone()));
        wire.lock()
            .expect("the wire lock")
            .push((direction, message));
        let written = to.write_all(format!("{line}\n").as_bytes()).await;
        if written.is_err() || to.flush().await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}
