//! rmcp's own Streamable HTTP *server* on a loopback socket, for the chapters that judge it:
//! [`serve_rmcp_http`] serves a `StreamableHttpService` with hyper (what `axum::serve` does in a
//! real server), and [`RawHttp`] is a client of a few lines of HTTP/1.1 over a `TcpStream`, so
//! a snippet decides exactly when a response stream is closed (drop the [`RawHttp`]).
//!
//! Nothing here is a test server: the handler under test is the snippet's, served by rmcp.

use std::convert::Infallible;
use std::net::SocketAddr;

use anyhow::{Context, bail};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::{CancellationToken, DropGuard};

/// The MCP endpoint's path on a server from [`serve_rmcp_http`].
pub const RMCP_HTTP_PATH: &str = "/mcp";

/// An rmcp Streamable HTTP server listening on loopback; dropping it stops listening.
#[derive(Debug)]
pub struct RmcpHttpServer {
    address: SocketAddr,
    _stop: DropGuard,
}

impl RmcpHttpServer {
    /// The address it listens on (the endpoint is [`RMCP_HTTP_PATH`]).
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

/// Serves `service` on an ephemeral loopback port, one hyper HTTP/1.1 connection per client.
pub async fn serve_rmcp_http<S>(
    service: StreamableHttpService<S, LocalSessionManager>,
) -> anyhow::Result<RmcpHttpServer>
where
    S: ServerHandler + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .context("binding a loopback port for rmcp's HTTP server")?;
    let address = listener.local_addr().context("reading the bound address")?;
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => continue,
                },
                () = stopped.cancelled() => return,
            };
            let service = service.clone();
            let handle = service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            });
            tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), handle));
        }
    });
    Ok(RmcpHttpServer {
        address,
        _stop: stop.drop_guard(),
    })
}

/// One HTTP/1.1 exchange over its own connection: a POST whose response the snippet reads as
/// far as it likes. Dropping it closes the connection, and with it the response stream.
#[derive(Debug)]
pub struct RawHttp {
    stream: TcpStream,
}

impl RawHttp {
    /// Opens a connection to `address` and sends `POST /mcp` with `body` and the headers given
    /// (besides `Host`, `Accept`, `Content-Type` and `Content-Length`).
    pub async fn post(
        address: SocketAddr,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> anyhow::Result<RawHttp> {
        let body = body.to_string();
        let mut request = format!(
            "POST {RMCP_HTTP_PATH} HTTP/1.1\r\nHost: {address}\r\n\
             Accept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        let mut stream = TcpStream::connect(address)
            .await
            .with_context(|| format!("connecting to {address}"))?;
        stream
            .write_all(request.as_bytes())
            .await
            .context("sending the POST")?;
        Ok(RawHttp { stream })
    }

    /// Reads the status line and headers (`HTTP/1.1 200 OK\r\n...`, without the blank line).
    pub async fn head(&mut self) -> anyhow::Result<String> {
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            if self
                .stream
                .read(&mut byte)
                .await
                .context("reading the head")?
                == 0
            {
                bail!(
                    "the connection closed inside the response head: {:?}",
                    String::from_utf8_lossy(&head)
                );
            }
            head.push(byte[0]);
        }
        head.truncate(head.len() - 4);
        Ok(String::from_utf8_lossy(&head).into_owned())
    }

    /// The value of header `name` (case-insensitive) in a head from [`RawHttp::head`].
    pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
        head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then_some(value.trim())
        })
    }

    /// Reads body bytes until `needle` has been seen (an SSE event with a JSON-RPC message, say),
    /// and returns what was read.
    pub async fn read_until(&mut self, needle: &str) -> anyhow::Result<String> {
        let mut seen = Vec::new();
        let mut chunk = [0u8; 1024];
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let read = self
                .stream
                .read(&mut chunk)
                .await
                .context("reading the body")?;
            if read == 0 {
                bail!(
                    "the connection closed before {needle:?}; read {:?}",
                    String::from_utf8_lossy(&seen)
                );
            }
            seen.extend_from_slice(&chunk[..read]);
        }
        Ok(String::from_utf8_lossy(&seen).into_owned())
    }
}
