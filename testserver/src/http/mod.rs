//! Streamable HTTP for the test server (hyper 1): `mcp-testserver --http ADDR`, and [`serve`]
//! for any `Core` on a listener (the harness's `HttpServer` serves a `TestServer`'s core with
//! it, so its transcript, violations, handler log and gates work exactly as over stdio or
//! duplex). Both revisions: 2025-11-25 with sessions (`Mcp-Session-Id` from `initialize`, required
//! afterwards, `DELETE` ends it, `GET` opens the standalone SSE stream), and 2026-07-28
//! stateless, where closing a request's response stream cancels that request (recorded in the
//! transcript as a transport event, see [`events`]).

mod body;
mod checks;
mod endpoint;
pub mod events;
mod legacy;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::artifact_files::write_at_end;
use crate::server::Core;
use crate::shutdown::{Termination, piped_stdin_closed};

pub use endpoint::{HEADER_MISMATCH_RULE, MISSING_SESSION_ID, PATH};

/// Serves `core` over Streamable HTTP on `listener` until `stop` is cancelled, then ends every
/// session (running handlers are cancelled).
pub async fn serve(core: Arc<Core>, listener: TcpListener, stop: CancellationToken) {
    let endpoint = Arc::new(endpoint::Endpoint::new(core));
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let Ok((socket, _)) = accepted else {
            // Out of file descriptors or a reset before accept: keep serving the others.
            tokio::task::yield_now().await;
            continue;
        };
        let _ = socket.set_nodelay(true);
        let endpoint = endpoint.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let endpoint = endpoint.clone();
                async move { Ok::<_, std::convert::Infallible>(endpoint.handle(request).await) }
            });
            let connection = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(socket), service);
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
/// (see [`crate::artifact_files`]). The transcript and handler log keep the last
/// `history_limit` entries (see [`Core::limit_history`]).
pub async fn serve_address(
    address: SocketAddr,
    conformance_fixtures: bool,
    history_limit: usize,
    artifacts: Option<&Path>,
) -> anyhow::Result<()> {
    let mut termination = Termination::listen()?;
    let listener = TcpListener::bind(address)
        .await
        .with_context(|| format!("binding {address}"))?;
    let bound = listener.local_addr().context("reading the bound address")?;
    if !bound.ip().is_loopback() {
        eprintln!(
            "mcp-testserver: warning: {bound} is not loopback; the endpoint only accepts loopback Origin and Host headers"
        );
    }
    let core = Arc::new(if conformance_fixtures {
        Core::with_conformance_fixtures()
    } else {
        Core::default()
    });
    core.limit_history(history_limit);
    let stop = CancellationToken::new();
    let server = tokio::spawn(serve(core.clone(), listener, stop.clone()));
    eprintln!("mcp-testserver: listening on http://{bound}{PATH}");
    tokio::select! {
        signal = termination.wait() => eprintln!("mcp-testserver: {signal}: stopping"),
        _ = piped_stdin_closed() => eprintln!("mcp-testserver: stdin closed: stopping"),
    }
    stop.cancel();
    let _ = server.await;
    for violation in core.violations.list() {
        eprintln!("mcp-testserver: violation {violation}");
    }
    write_at_end(artifacts, &core.transcript)
}
