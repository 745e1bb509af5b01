//! `serve_rmcp_http` and `RawHttp`: the harness pieces the book uses to judge rmcp's own
//! Streamable HTTP server over a real loopback socket.

use std::sync::Arc;

use mcp_testserver::{RawHttp, serve_rmcp_http};
use rmcp::ServerHandler;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[derive(Clone)]
struct Empty;

impl ServerHandler for Empty {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn service() -> StreamableHttpService<Empty, LocalSessionManager> {
    StreamableHttpService::new(
        || Ok(Empty),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    )
}

#[tokio::test]
async fn initialize_over_raw_http_opens_a_session() {
    let server = serve_rmcp_http(service())
        .await
        .expect("serving on loopback");
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}});
    let mut exchange = RawHttp::post(server.address(), &[], &initialize)
        .await
        .expect("posting");
    let head = exchange.head().await.expect("a response head");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let session = RawHttp::header(&head, "mcp-session-id").expect("a session id header");
    assert!(!session.is_empty());
    let body = exchange
        .read_until("protocolVersion")
        .await
        .expect("the initialize result");
    assert!(body.contains(r#""id":0"#), "{body}");
}

#[test]
fn header_lookup_ignores_case_and_the_status_line() {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Empty:";
    assert_eq!(
        RawHttp::header(head, "content-type"),
        Some("text/event-stream")
    );
    assert_eq!(RawHttp::header(head, "x-empty"), Some(""));
    assert_eq!(RawHttp::header(head, "HTTP/1.1 200 OK"), None);
    assert_eq!(RawHttp::header(head, "missing"), None);
}

/// A peer that reads the request, answers with `reply`, and closes the connection cleanly
/// (reading first, so the close is a FIN, not a reset for unread data).
async fn closing_peer(reply: &'static [u8]) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binding");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accepting");
        let mut request = Vec::new();
        let mut chunk = [0u8; 1024];
        while !request.ends_with(b"{}") {
            let read = socket.read(&mut chunk).await.expect("reading the request");
            if read == 0 {
                return;
            }
            request.extend_from_slice(&chunk[..read]);
        }
        socket.write_all(reply).await.expect("replying");
        socket.shutdown().await.expect("closing");
    });
    address
}

#[tokio::test]
async fn a_connection_closed_inside_the_head_is_an_error() {
    let address = closing_peer(b"HTTP/1.1 200 OK\r\nContent-").await;
    let mut exchange = RawHttp::post(address, &[], &json!({}))
        .await
        .expect("posting");
    let error = exchange.head().await.expect_err("the head is incomplete");
    assert_eq!(
        error.to_string(),
        r#"the connection closed inside the response head: "HTTP/1.1 200 OK\r\nContent-""#
    );
}

#[tokio::test]
async fn a_body_that_ends_before_the_needle_is_an_error() {
    let address = closing_peer(b"HTTP/1.1 200 OK\r\n\r\ndata: {}\n\n").await;
    let mut exchange = RawHttp::post(address, &[], &json!({}))
        .await
        .expect("posting");
    exchange.head().await.expect("a complete head");
    let error = exchange
        .read_until("notifications/progress")
        .await
        .expect_err("the needle never comes");
    assert_eq!(
        error.to_string(),
        r#"the connection closed before "notifications/progress"; read "data: {}\n\n""#
    );
}

#[tokio::test]
async fn posting_to_a_closed_port_names_the_address() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binding");
    let address = listener.local_addr().expect("address");
    drop(listener);
    let error = RawHttp::post(address, &[], &json!({}))
        .await
        .expect_err("nobody listens");
    assert_eq!(error.to_string(), format!("connecting to {address}"));
}
