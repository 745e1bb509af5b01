//! `rmcp-scenarios`: stops a call with rmcp (the Rust SDK) against a fresh `mcp-testserver` over
//! stdio or Streamable HTTP and reports what happened, for the SDK matrix (`interop/run.sh`).
//!
//! One run = one scenario, one revision, one transport. Over stdio the program starts the server
//! command given after `--` and connects an rmcp client to its stdin/stdout; over HTTP the runner
//! has started the server and passes its URL after `--`, and the client is rmcp's Streamable HTTP
//! client (`StreamableHttpClientTransport::from_uri`, rmcp's defaults). It runs the scenario
//! (`scenarios.rs`), waits until the slow call would have finished on its own, and asks the
//! server, on the same connection, for its `transcript` and `violations`. It prints one JSON
//! object on stdout (interop/README.md, "client report"). `--describe` prints what it supports.

mod retyping;
mod scenarios;

use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport};
use serde_json::{Value, json};
use tokio::process::Command;

use retyping::{Retype, Retyping};

/// The text of the `echo` call made as soon as the caller has control back.
const RESUMED_MARKER: &str = "caller resumed";
/// How long after the call started the transcript is read: past the slow call's natural end.
const SETTLE: Duration = Duration::from_millis(3600);
/// The bound on one whole run.
const DEADLINE: Duration = Duration::from_secs(20);
/// The revisions the matrix covers (the test server's two).
const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// What the command line asked for.
struct Invocation {
    scenario: String,
    revision: String,
    transport: Transport,
    /// The server command (stdio) or the endpoint URL (http).
    server: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
}

impl Transport {
    fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.first().is_some_and(|first| first == "--describe") {
        println!("{}", describe());
        return ExitCode::SUCCESS;
    }
    let outcome = parse(&arguments).and_then(|invocation| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("building the tokio runtime")?;
        runtime.block_on(async {
            tokio::time::timeout(DEADLINE, run(&invocation))
                .await
                .unwrap_or_else(|_| bail!("gave up after {DEADLINE:?}"))
        })
    });
    match outcome {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("rmcp-scenarios: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn describe() -> Value {
    json!({
        "sdk": "rmcp",
        "package": "rmcp",
        "version": rmcp_version(),
        "revisions": REVISIONS,
        "transports": ["stdio", "http"],
        "scenarios": scenarios::NAMES,
    })
}

/// rmcp's own version (its `CARGO_PKG_VERSION`, which `Implementation::from_build_env` reads),
/// so the matrix names the version the lock file resolved.
fn rmcp_version() -> String {
    rmcp::model::Implementation::from_build_env().version
}

fn parse(arguments: &[String]) -> anyhow::Result<Invocation> {
    let usage = "usage: rmcp-scenarios --describe | --scenario NAME --revision REV [--transport stdio] -- SERVER [ARGS...]\n       rmcp-scenarios --scenario NAME --revision REV --transport http -- URL";
    let (options, server) = match arguments.iter().position(|argument| argument == "--") {
        Some(split) => (&arguments[..split], arguments[split + 1..].to_vec()),
        None => bail!("missing `-- SERVER`\n{usage}"),
    };
    let mut scenario = None;
    let mut revision = None;
    let mut transport = Transport::Stdio;
    let mut pairs = options.chunks(2);
    for pair in &mut pairs {
        match pair {
            [flag, value] if flag == "--scenario" => scenario = Some(value.clone()),
            [flag, value] if flag == "--revision" => revision = Some(value.clone()),
            [flag, value] if flag == "--transport" && value == "stdio" => {
                transport = Transport::Stdio;
            }
            [flag, value] if flag == "--transport" && value == "http" => {
                transport = Transport::Http;
            }
            [flag, value] if flag == "--transport" => {
                bail!("unsupported transport `{value}` (expected stdio or http)")
            }
            _ => bail!("unexpected arguments {pair:?}\n{usage}"),
        }
    }
    let scenario = scenario.context(usage)?;
    if !scenarios::NAMES.contains(&scenario.as_str()) {
        bail!(
            "unknown scenario `{scenario}` (expected one of: {})",
            scenarios::NAMES.join(", ")
        );
    }
    let revision = revision.context(usage)?;
    if revision != "default" && !REVISIONS.contains(&revision.as_str()) {
        bail!(
            "unknown revision `{revision}` (expected default, {})",
            REVISIONS.join(", ")
        );
    }
    if server.is_empty() {
        bail!("missing the server command after `--`\n{usage}");
    }
    if transport == Transport::Http && server.len() != 1 {
        bail!("over http, `--` is followed by the endpoint URL only\n{usage}");
    }
    Ok(Invocation {
        scenario,
        revision,
        transport,
        server,
    })
}

async fn run(invocation: &Invocation) -> anyhow::Result<Value> {
    let mut child = None;
    // Every transport goes through the retyping wrapper, which passes everything unchanged unless
    // a retyping scenario asks otherwise.
    let retype = Arc::new(Retype::default());
    let client = match invocation.transport {
        Transport::Stdio => {
            let mut server = Command::new(&invocation.server[0])
                .args(&invocation.server[1..])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .with_context(|| {
                    format!("starting the server `{}`", invocation.server.join(" "))
                })?;
            let transport = (
                server.stdout.take().context("server stdout")?,
                server.stdin.take().context("server stdin")?,
            );
            child = Some(server);
            let inner = IntoTransport::<RoleClient, _, _>::into_transport(transport);
            let retype = retype.clone();
            connect(Retyping { inner, retype }, &invocation.revision).await
        }
        Transport::Http => {
            let inner = StreamableHttpClientTransport::from_uri(invocation.server[0].as_str());
            let retype = retype.clone();
            connect(Retyping { inner, retype }, &invocation.revision).await
        }
    }
    .context("connecting the rmcp client")?;
    let started = tokio::time::Instant::now();
    let caller_saw = scenarios::run(&invocation.scenario, &client, &retype).await?;
    // A marker in the transcript: whatever rmcp had written by now precedes it.
    let marker = json!({"text": RESUMED_MARKER})
        .as_object()
        .cloned()
        .unwrap_or_default();
    client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(marker))
        .await
        .context("calling `echo`")?;
    tokio::time::sleep_until(started + SETTLE).await;
    let transcript = tool_json(&client, "transcript").await?;
    let violations = tool_json(&client, "violations").await?;
    client.cancel().await.context("closing the rmcp client")?;
    // Over HTTP the runner owns the server and stops it after the cell.
    if let Some(mut child) = child {
        match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
            Ok(status) => status.context("waiting for the server")?,
            Err(_) => bail!("the server did not exit within 5 s after stdin closed"),
        };
    }
    Ok(json!({
        "scenario": invocation.scenario,
        "revision": invocation.revision,
        "transport": invocation.transport.as_str(),
        "caller_saw": caller_saw,
        "transcript": transcript,
        "violations": violations,
    }))
}

/// Connects an rmcp client over `transport` with the lifecycle `revision` asks for: rmcp's own
/// choice (`default`), `initialize` (2025-11-25) or `server/discover` (2026-07-28).
async fn connect<T, E, A>(
    transport: T,
    revision: &str,
) -> Result<RunningService<RoleClient, ()>, rmcp::service::ClientInitializeError>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match revision {
        "default" => ().serve(transport).await,
        "2025-11-25" => ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize).await,
        _ => {
            let preferred_versions = vec![ProtocolVersion::V_2026_07_28];
            ().serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover { preferred_versions },
            )
            .await
        }
    }
}

async fn tool_json(
    client: &RunningService<RoleClient, ()>,
    name: &'static str,
) -> anyhow::Result<Value> {
    let result = client
        .call_tool(CallToolRequestParams::new(name))
        .await
        .with_context(|| format!("calling `{name}`"))?;
    let text = result
        .content
        .first()
        .and_then(|content| content.as_text())
        .with_context(|| format!("`{name}` returned no text"))?;
    serde_json::from_str(&text.text).with_context(|| format!("parsing the `{name}` reply as JSON"))
}
