//! Serving a `Core` over Streamable HTTP: [`serve`] on a listener with an in-process server's
//! limits, [`serve_with`] with any [`Limits`], and [`serve_address`] for the binary (binds,
//! prints the address, writes the artifacts and reports violations when it stops).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::endpoint::{self, PATH};
use super::limits::{self, Limits};
use crate::artifact_files::write_at_end;
use crate::record::Record;
use crate::server::{Core, HistoryLimits};
use crate::shutdown::{Termination, piped_stdin_closed, record_shutdown, report_violations, say};

/// Serves `core` over Streamable HTTP on `listener` until `stop` is cancelled, then ends every
/// session (running handlers are cancelled), with the limits of an in-process server
/// ([`Limits::in_process`]).
pub async fn serve(core: Arc<Core>, listener: TcpListener, stop: CancellationToken) {
    serve_with(core, listener, stop, Limits::in_process()).await;
}

/// [`serve`] with the given limits. Never spins: a failed `accept` that is not about one
/// connection (out of file descriptors) is retried after a growing pause.
pub async fn serve_with(
    core: Arc<Core>,
    listener: TcpListener,
    stop: CancellationToken,
    limits: Limits,
) {
    let endpoint = Arc::new(endpoint::Endpoint::new(core, &limits, stop.clone()));
    let mut backoff = limits::MIN_ACCEPT_BACKOFF;
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let socket = match accepted {
            Ok((socket, _)) => {
                backoff = limits::MIN_ACCEPT_BACKOFF;
                socket
            }
            Err(error) if limits::is_connection_error(&error) => continue,
            Err(_) => {
                // Out of file descriptors (or memory): the connections waiting in the backlog
                // keep the listener readable, so an immediate retry would spin. Wait, while
                // the read timeouts free descriptors held by idle connections.
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(limits::MAX_ACCEPT_BACKOFF);
                continue;
            }
        };
        let _ = socket.set_nodelay(true);
        let arrived_at = socket.local_addr().ok().map(|address| address.ip());
        let endpoint = endpoint.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let endpoint = endpoint.clone();
                async move {
                    Ok::<_, std::convert::Infallible>(endpoint.handle(request, arrived_at).await)
                }
            });
            let mut builder = http1::Builder::new();
            builder
                .keep_alive(true)
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout);
            let connection = builder.serve_connection(TokioIo::new(socket), service);
            tokio::select! {
                _ = stop.cancelled() => {}
                _ = connection => {}
            }
        });
    }
    endpoint.end_all();
}

/// Serves a fresh core (with the conformance suite's fixtures when asked) on `address` (the
/// `mcp-testserver --http ADDR [--conformance]` binary): prints
/// `mcp-testserver: listening on http://ADDR/mcp` on stderr, serves until SIGINT or SIGTERM (or
/// until stdin closes, when it is a pipe or socket rather than a terminal or `/dev/null`), then
/// reports the violations it saw on stderr and writes the artifacts into `artifacts` when given
/// (see [`crate::artifact_files`]). The transcript and handler log keep what `history` allows
/// (see [`HistoryLimits`]; a plain number is the message limit); `limits` bound connections
/// and sessions. The transcript ends with the server's own shutdown and its reason. With
/// `record`, every transcript entry of every session also goes to that file (`--record`).
pub async fn serve_address(
    address: SocketAddr,
    conformance_fixtures: bool,
    history: impl Into<HistoryLimits>,
    artifacts: Option<&Path>,
    limits: Limits,
    record: Option<Record>,
) -> anyhow::Result<()> {
    let mut termination = Termination::listen()?;
    let listener = TcpListener::bind(address)
        .await
        .with_context(|| format!("binding {address}"))?;
    let bound = listener.local_addr().context("reading the bound address")?;
    if !bound.ip().is_loopback() {
        eprintln!(
            "mcp-testserver: serving beyond loopback on {bound}: anyone who can reach it can use this server; Host and Origin must name a loopback address or the address a connection arrived at"
        );
    }
    let core = if conformance_fixtures {
        Core::with_conformance_fixtures()
    } else {
        Core::default()
    };
    let core = Arc::new(core.with_random_task_ids());
    core.limit_history_to(history.into());
    if let Some(record) = record {
        core.transcript.set_record(record);
    }
    let stop = CancellationToken::new();
    let server = tokio::spawn(serve_with(core.clone(), listener, stop.clone(), limits));
    eprintln!("mcp-testserver: listening on http://{bound}{PATH}");
    let reason = tokio::select! {
        signal = termination.wait() => signal,
        _ = piped_stdin_closed() => "stdin closed",
    };
    say(format_args!("{reason}: stopping"));
    // Recorded before the streams close, so no open stream reads as the client leaving.
    record_shutdown(&core.transcript, "http", reason, None);
    stop.cancel();
    let _ = server.await;
    let written = write_at_end(artifacts, &core.transcript);
    report_violations(&core.violations);
    written
}
