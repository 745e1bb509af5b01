//! A benchmark, not a timed test: `tools/call echo` round trips per second and cancel latency
//! (cancel sent -> handler stops, p50/p99) for the test server, side by side with an rmcp server
//! serving the same `echo` tool over the same in-process duplex transport, driven by the same
//! rmcp client. Runs on a current-thread tokio runtime with a real clock, as snippets do.
//!
//! `cargo bench -p mcp-testserver --bench roundtrip`

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_testserver::{Revision, TestServer};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest,
    ContentBlock, ErrorData, ServerCapabilities, ServerConfig,
};
use rmcp::service::{PeerRequestOptions, RequestContext, RunningService};
use rmcp::{RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::{Mutex, mpsc};

const SEQUENTIAL_CALLS: usize = 20_000;
const CONCURRENT_CALLS: usize = 20_000;
const IN_FLIGHT: usize = 64;
const CANCEL_SAMPLES: usize = 2_000;

/// The rmcp side: `echo {text}`, and `wait` which parks until its `ct` fires and then reports
/// the moment it stopped.
#[derive(Clone)]
struct RmcpEcho {
    started: mpsc::UnboundedSender<()>,
    stopped: mpsc::UnboundedSender<Instant>,
}

impl ServerHandler for RmcpEcho {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "echo" => {
                let text = request
                    .arguments
                    .as_ref()
                    .and_then(|arguments| arguments.get("text")?.as_str())
                    .ok_or_else(|| ErrorData::invalid_params("echo needs {text}", None))?;
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            "wait" => {
                let _ = self.started.send(());
                context.ct.cancelled().await;
                let _ = self.stopped.send(Instant::now());
                Err(ErrorData::internal_error("cancelled", None))
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown tool {other}"),
                None,
            )),
        }
    }
}

fn tool_call(name: &str, arguments: Value) -> ClientRequest {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are an object")
    };
    ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new(name.to_owned()).with_arguments(arguments),
    ))
}

fn echo_params() -> CallToolRequestParams {
    let Value::Object(arguments) = json!({"text": "hello"}) else {
        unreachable!()
    };
    CallToolRequestParams::new("echo").with_arguments(arguments)
}

async fn sequential(client: &RunningService<RoleClient, ()>) -> f64 {
    let started = Instant::now();
    for _ in 0..SEQUENTIAL_CALLS {
        client.call_tool(echo_params()).await.expect("echo");
    }
    SEQUENTIAL_CALLS as f64 / started.elapsed().as_secs_f64()
}

async fn concurrent(client: &RunningService<RoleClient, ()>) -> f64 {
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..IN_FLIGHT {
        let peer = client.peer().clone();
        workers.push(tokio::spawn(async move {
            for _ in 0..CONCURRENT_CALLS / IN_FLIGHT {
                peer.call_tool(echo_params()).await.expect("echo");
            }
        }));
    }
    for worker in workers {
        worker.await.expect("worker");
    }
    (CONCURRENT_CALLS / IN_FLIGHT * IN_FLIGHT) as f64 / started.elapsed().as_secs_f64()
}

/// Cancel latencies: for each sample, start a call, wait until its handler runs, then time
/// `cancel` -> the handler stopped (as reported by `stopped`).
async fn cancel_latencies<Started, Stopped>(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: Value,
    in_flight: impl Fn() -> Started,
    stopped: impl Fn() -> Stopped,
) -> Vec<Duration>
where
    Started: Future<Output = ()>,
    Stopped: Future<Output = Instant>,
{
    let mut samples = Vec::with_capacity(CANCEL_SAMPLES);
    for _ in 0..CANCEL_SAMPLES {
        let handle = client
            .send_cancellable_request(
                tool_call(tool, arguments.clone()),
                PeerRequestOptions::no_options(),
            )
            .await
            .expect("send");
        in_flight().await;
        let sent = Instant::now();
        handle
            .cancel(Some("bench".to_owned()))
            .await
            .expect("cancel");
        samples.push(stopped().await.duration_since(sent));
    }
    samples.sort();
    samples
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}

struct Row {
    server: &'static str,
    sequential: f64,
    concurrent: f64,
    cancels: Vec<Duration>,
}

async fn test_server_row() -> Row {
    let server = TestServer::start_with(Revision::V2025_11_25);
    let client = server
        .connect_rmcp()
        .await
        .expect("connect to the test server");
    let sequential = sequential(&client).await;
    let concurrent = concurrent(&client).await;
    let cancels = cancel_latencies(
        &client,
        "wait_gate",
        json!({"gate": "never"}),
        || server.in_flight("wait_gate"),
        || async {
            server.idle().await;
            Instant::now()
        },
    )
    .await;
    Row {
        server: "mcp-testserver",
        sequential,
        concurrent,
        cancels,
    }
}

async fn rmcp_row() -> Row {
    let (started_sender, started_receiver) = mpsc::unbounded_channel();
    let (stopped_sender, stopped_receiver) = mpsc::unbounded_channel();
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let handler = RmcpEcho {
        started: started_sender,
        stopped: stopped_sender,
    };
    tokio::spawn(async move {
        let running = handler
            .serve(server_end)
            .await
            .expect("rmcp server handshake");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_end).await.expect("connect to the rmcp server");
    let sequential = sequential(&client).await;
    let concurrent = concurrent(&client).await;
    let started_receiver = Arc::new(Mutex::new(started_receiver));
    let stopped_receiver = Arc::new(Mutex::new(stopped_receiver));
    let cancels = cancel_latencies(
        &client,
        "wait",
        json!({}),
        || {
            let receiver = started_receiver.clone();
            async move {
                receiver
                    .lock()
                    .await
                    .recv()
                    .await
                    .expect("the wait handler reports its start")
            }
        },
        || {
            let receiver = stopped_receiver.clone();
            async move {
                receiver
                    .lock()
                    .await
                    .recv()
                    .await
                    .expect("the wait handler reports its stop")
            }
        },
    )
    .await;
    Row {
        server: "rmcp 3.11 ServerHandler",
        sequential,
        concurrent,
        cancels,
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let rows = runtime.block_on(async { vec![test_server_row().await, rmcp_row().await] });
    println!("in-process, rmcp 3.11 client, current-thread runtime, duplex transport");
    println!(
        "{:<24} {:>16} {:>28} {:>14} {:>14}",
        "server",
        "echo calls/s",
        format!("echo calls/s ({IN_FLIGHT} in flight)"),
        "cancel p50",
        "cancel p99"
    );
    for row in &rows {
        println!(
            "{:<24} {:>16.0} {:>22.0} {:>14?} {:>14?}",
            row.server,
            row.sequential,
            row.concurrent,
            percentile(&row.cancels, 0.50),
            percentile(&row.cancels, 0.99),
        );
    }
}
