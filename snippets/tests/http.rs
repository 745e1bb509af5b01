//! Streamable HTTP, in-process on an ephemeral loopback port: rmcp's own Streamable HTTP client
//! under both revisions (call, progress, `RequestHandle::cancel`, a dropped `call_tool` future,
//! which under 2026-07-28 closes the response stream and so cancels the request), and raw HTTP
//! requests for the transport's rules (session ids, status codes, Origin, headers). Real time,
//! real sockets: every wait is bounded by a gate or by the server's own `in_flight`/`idle`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_testserver::{Direction, HttpServer, Revision, TestServer};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest,
    ProgressNotificationParam, ServerResult,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, PeerRequestOptions, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// How long any single wait in these tests may take before the test fails.
const LIMIT: Duration = Duration::from_secs(20);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, future)
        .await
        .unwrap_or_else(|_| panic!("{what}: not done within {LIMIT:?}"))
}

fn call_request(name: &str, arguments: Value) -> ClientRequest {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new(name.to_owned()).with_arguments(arguments),
    ))
}

fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"][0]["text"].as_str().unwrap().to_owned()
}

/// A client handler that keeps the progress notifications it receives.
#[derive(Clone, Default)]
struct ProgressRecorder {
    seen: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for ProgressRecorder {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().push(params);
    }
}

/// An rmcp Streamable HTTP client with `handler`, forced to `revision`.
async fn connect<H: ClientHandler>(
    http: &HttpServer,
    revision: Revision,
    handler: H,
) -> RunningService<RoleClient, H> {
    let transport = StreamableHttpClientTransport::from_uri(http.url());
    let client = match revision {
        Revision::V2025_11_25 => handler.serve(transport).await,
        Revision::V2026_07_28 => {
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![revision.protocol_version()],
            };
            handler.serve_with_lifecycle(transport, lifecycle).await
        }
    };
    client.unwrap_or_else(|error| panic!("rmcp HTTP client under {revision}: {error:#}"))
}

async fn start(revision: Revision) -> HttpServer {
    TestServer::start_with(revision)
        .serve_http()
        .await
        .expect("serving HTTP")
}

/// Messages the server received (client → server), transport events included.
fn received(server: &TestServer) -> Vec<Value> {
    server
        .transcript()
        .messages()
        .into_iter()
        .filter(|wire| wire.direction == Direction::In)
        .map(|wire| wire.message)
        .collect()
}

fn answered(server: &TestServer, id: &Value) -> bool {
    server.transcript().messages().iter().any(|wire| {
        wire.direction == Direction::Out
            && wire.message.get("method").is_none()
            && wire.message.get("id") == Some(id)
    })
}

fn assert_no_violations(server: &TestServer) {
    assert_eq!(
        server.violations(),
        vec![],
        "{}",
        server.transcript().render()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_calls_over_http_under_both_revisions() {
    for revision in Revision::ALL {
        let http = start(revision).await;
        let client = connect(&http, revision, ()).await;
        let result = within(
            "echo",
            client.call_tool(
                CallToolRequestParams::new("echo")
                    .with_arguments(json!({"text": "over http"}).as_object().unwrap().clone()),
            ),
        )
        .await
        .unwrap();
        assert_eq!(text(&result), "over http", "{revision}");
        let tools = within("tools/list", client.list_all_tools()).await.unwrap();
        assert!(tools.iter().any(|tool| tool.name == "slow"), "{revision}");
        within("cancel client", client.cancel()).await.unwrap();
        assert_no_violations(&http);
        let first = &received(&http)[0];
        let expected = match revision {
            Revision::V2025_11_25 => "initialize",
            Revision::V2026_07_28 => "server/discover",
        };
        assert_eq!(first["method"], expected, "{revision}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_server_connect_rmcp_negotiates_the_servers_revision() {
    for revision in Revision::ALL {
        let http = start(revision).await;
        let client = within("connect_rmcp", http.connect_rmcp())
            .await
            .expect("connecting rmcp's HTTP client");
        let result = within(
            "echo",
            client.call_tool(
                CallToolRequestParams::new("echo").with_arguments(
                    json!({"text": "via connect_rmcp"})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            ),
        )
        .await
        .unwrap();
        assert_eq!(text(&result), "via connect_rmcp", "{revision}");
        let negotiated = client
            .peer_info()
            .map(|info| info.protocol_version.to_string());
        assert_eq!(
            negotiated.as_deref(),
            Some(revision.to_string().as_str()),
            "{revision}"
        );
        within("cancel client", client.cancel()).await.unwrap();
        assert_no_violations(&http);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_streams_over_sse_before_the_response() {
    for revision in Revision::ALL {
        let http = start(revision).await;
        let recorder = ProgressRecorder::default();
        let seen = recorder.seen.clone();
        let client = connect(&http, revision, recorder).await;
        let handle = client
            .send_cancellable_request(
                call_request("slow", json!({"steps": 3, "step_ms": 5})),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap();
        // rmcp puts its own progress token on every request.
        let outcome = within("slow", handle.await_response()).await.unwrap();
        let ServerResult::CallToolResult(result) = outcome else {
            panic!("{revision}: {outcome:?}")
        };
        assert_eq!(text(&result), "completed 3 steps", "{revision}");
        // rmcp hands notifications to the handler on its own task; the last one may land just
        // after the response.
        within("three progress notifications", async {
            while seen.lock().unwrap().len() < 3 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await;
        // Sorted: rmcp may run its notification handlers in any order (the SSE order itself is
        // checked in the transcript below).
        let mut progress: Vec<f64> = seen.lock().unwrap().iter().map(|p| p.progress).collect();
        progress.sort_by(f64::total_cmp);
        assert_eq!(progress, vec![1.0, 2.0, 3.0], "{revision}");
        let sent: Vec<Value> = http
            .transcript()
            .messages()
            .into_iter()
            .filter(|wire| wire.direction == Direction::Out)
            .filter(|wire| wire.message["method"] == "notifications/progress")
            .map(|wire| wire.message["params"]["progress"].clone())
            .collect();
        assert_eq!(sent, vec![json!(1), json!(2), json!(3)], "{revision}");
        assert_no_violations(&http);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_handle_cancel_stops_the_handler() {
    for revision in Revision::ALL {
        let http = start(revision).await;
        let client = connect(&http, revision, ()).await;
        let handle = client
            .send_cancellable_request(
                call_request("wait_gate", json!({"gate": "never"})),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap();
        within("in flight", http.in_flight("wait_gate")).await;
        let id = serde_json::to_value(&handle.id).unwrap();
        within("cancel", handle.cancel(Some("stop".to_owned())))
            .await
            .unwrap();
        within("idle", http.idle()).await;
        let label = format!("wait_gate#{id} stopped by cancel");
        assert!(
            http.handler_log().contains(&label),
            "{revision}: {:?}",
            http.handler_log()
        );
        assert!(
            !answered(&http, &id),
            "{revision}: a cancelled request got a response"
        );
        let received = received(&http);
        let notified = received
            .iter()
            .any(|m| m["method"] == "notifications/cancelled" && m["params"]["requestId"] == id);
        let disconnected = received
            .iter()
            .any(|m| m["event"] == "disconnect" && m["requestId"] == id && m["cancels"] == true);
        match revision {
            // 2025-11-25: the cancel is a notification, POSTed in the session.
            Revision::V2025_11_25 => assert!(notified, "{revision}: {received:?}"),
            // 2026-07-28: closing the response stream is the cancel.
            Revision::V2026_07_28 => assert!(disconnected, "{revision}: {received:?}"),
        }
        assert_no_violations(&http);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_call_tool_future_closes_the_stream_and_stops_the_handler() {
    let revision = Revision::V2026_07_28;
    let http = start(revision).await;
    let client = connect(&http, revision, ()).await;
    let call = client.call_tool(
        CallToolRequestParams::new("slow").with_arguments(
            json!({"steps": 1000, "step_ms": 10})
                .as_object()
                .unwrap()
                .clone(),
        ),
    );
    tokio::select! {
        outcome = call => panic!("the call finished: {outcome:?}"),
        () = within("in flight", http.in_flight("slow")) => {}
    }
    within("idle", http.idle()).await;
    let log = http.handler_log();
    assert!(
        log.iter()
            .any(|line| line.starts_with("slow#") && line.contains("stopped by cancel")),
        "{log:?}"
    );
    let rendered = http.transcript().render();
    assert!(rendered.contains("✕ http disconnect"), "{rendered}");
    assert!(!rendered.contains("completed 1000 steps"), "{rendered}");
    assert_no_violations(&http);
}

/// Raw HTTP: one POST with the given headers and body.
async fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = within("POST", request.send()).await.unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|value| value.to_str().unwrap().to_owned());
    let text = within("body", response.text()).await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, session, body)
}

const MODERN: &[(&str, &str)] = &[("mcp-protocol-version", "2026-07-28")];

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_issued_at_initialize_required_after_and_ended_by_delete() {
    let http = start(Revision::V2025_11_25).await;
    let url = http.url();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let (status, session, body) = post(&url, &[], &initialize.to_string()).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    let session = session.expect("initialize issues Mcp-Session-Id");
    assert!(
        session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{session}"
    );

    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let (status, _, body) = post(&url, &[], &ping).await;
    assert_eq!(status, 400, "no session id: {body}");
    let with_session = [("mcp-session-id", session.as_str())];
    let (status, _, body) = post(&url, &with_session, &ping).await;
    assert_eq!((status, &body["result"]), (200, &json!({})));
    let (status, _, _) = post(&url, &[("mcp-session-id", "no-such-session")], &ping).await;
    assert_eq!(status, 404);

    let client = reqwest::Client::new();
    let deleted = client
        .delete(&url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string();
    let (status, _, _) = post(&url, &with_session, &ping).await;
    assert_eq!(status, 404, "an ended session is gone");
    let get = client
        .get(&url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status().as_u16(), 405, "no sessionless GET stream");
    let rules: Vec<String> = http.violations().into_iter().map(|v| v.rule).collect();
    assert_eq!(rules, vec![mcp_testserver::http::MISSING_SESSION_ID]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_json_is_a_parse_error_and_the_server_keeps_serving() {
    let http = start(Revision::V2026_07_28).await;
    let (status, _, body) = post(&http.url(), MODERN, "{\"jsonrpc\": ").await;
    assert_eq!(status, 400);
    assert_eq!(
        (body["error"]["code"].as_i64(), &body["id"]),
        (Some(-32700), &Value::Null)
    );
    let echo = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "still here"}, "_meta": modern_meta()}});
    let headers = [
        MODERN[0],
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];
    let (status, _, body) = post(&http.url(), &headers, &echo.to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "still here");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_rules_origin_accept_version_and_mirrored_headers() {
    let http = start(Revision::V2026_07_28).await;
    let url = http.url();
    let echo = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "x"}, "_meta": modern_meta()}})
    .to_string();
    let good = [
        MODERN[0],
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];

    let evil = [
        good[0],
        good[1],
        good[2],
        ("origin", "http://evil.example.com"),
    ];
    assert_eq!(post(&url, &evil, &echo).await.0, 403, "foreign Origin");
    let local = [
        good[0],
        good[1],
        good[2],
        ("origin", "http://localhost:3000"),
    ];
    assert_eq!(post(&url, &local, &echo).await.0, 200, "loopback Origin");

    let json_only = reqwest::Client::new()
        .post(&url)
        .header("accept", "application/json")
        .header("content-type", "application/json")
        .body(echo.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_only.status().as_u16(),
        406,
        "Accept without text/event-stream"
    );

    let (status, _, body) = post(&url, &[("mcp-protocol-version", "1999-01-01")], &echo).await;
    assert_eq!(
        (status, body["error"]["code"].as_i64()),
        (400, Some(-32022)),
        "{body}"
    );

    let wrong_name = [good[0], good[1], ("mcp-name", "fail")];
    let (status, _, body) = post(&url, &wrong_name, &echo).await;
    assert_eq!(
        (status, body["error"]["code"].as_i64()),
        (400, Some(-32020)),
        "{body}"
    );
    let encoded = [good[0], good[1], ("mcp-name", "=?base64?ZWNobw==?=")];
    assert_eq!(post(&url, &encoded, &echo).await.0, 200, "base64 Mcp-Name");

    let unknown = json!({"jsonrpc": "2.0", "id": 10, "method": "no/such", "params": {"_meta": modern_meta()}});
    let headers = [MODERN[0], ("mcp-method", "no/such")];
    let (status, _, body) = post(&url, &headers, &unknown.to_string()).await;
    assert_eq!(
        (status, body["error"]["code"].as_i64(), &body["id"]),
        (404, Some(-32601), &json!(10))
    );
    let rules: Vec<String> = http.violations().into_iter().map(|v| v.rule).collect();
    assert_eq!(rules, vec![mcp_testserver::http::HEADER_MISMATCH_RULE]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_client_closing_the_stream_cancels_under_2026_but_not_under_2025() {
    // 2026-07-28: the closed stream is the cancel.
    let http = start(Revision::V2026_07_28).await;
    let wait = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "wait_gate", "arguments": {"gate": "g"}, "_meta": modern_meta()}});
    let headers = [
        MODERN[0],
        ("mcp-method", "tools/call"),
        ("mcp-name", "wait_gate"),
    ];
    let url = http.url();
    let pending = tokio::spawn(async move { post(&url, &headers, &wait.to_string()).await });
    within("in flight", http.in_flight("wait_gate")).await;
    pending.abort();
    within("idle", http.idle()).await;
    assert_eq!(
        http.handler_log(),
        vec!["wait_gate#5 started", "wait_gate#5 stopped by cancel"]
    );
    let rendered = http.transcript().render();
    assert!(
        rendered.contains("✕ http disconnect 5 (a cancel)"),
        "{rendered}"
    );

    // 2025-11-25: a lost stream is not a cancel; the handler runs on until its gate opens.
    let http = start(Revision::V2025_11_25).await;
    let url = http.url();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let (_, session, _) = post(&url, &[], &initialize.to_string()).await;
    let session = session.unwrap();
    let wait = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "wait_gate", "arguments": {"gate": "g"}}});
    let (url_for_task, session_for_task) = (url.clone(), session.clone());
    let pending = tokio::spawn(async move {
        post(
            &url_for_task,
            &[("mcp-session-id", &session_for_task)],
            &wait.to_string(),
        )
        .await
    });
    within("in flight", http.in_flight("wait_gate")).await;
    pending.abort();
    // The disconnect is recorded once hyper notices it; the handler keeps running meanwhile.
    within("disconnect noticed", async {
        while !http
            .transcript()
            .render()
            .contains("✕ http disconnect 2 (not a cancel)")
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    http.open_gate("g");
    within("idle", http.idle()).await;
    assert_eq!(
        http.handler_log(),
        vec!["wait_gate#2 started", "wait_gate#2 completed"]
    );
}

/// 2026-07-28 basic/index, "Per-request protocol fields": a request missing a required `_meta`
/// field gets -32602 with HTTP 400, and the violation names which field was missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_required_meta_is_invalid_params_with_400() {
    let http = start(Revision::V2026_07_28).await;
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let cases = [
        (
            json!({"io.modelcontextprotocol/clientCapabilities": {}}),
            "missing-protocol-version",
        ),
        (
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
            "missing-client-capabilities",
        ),
    ];
    for (index, (meta, rule)) in cases.into_iter().enumerate() {
        let body = json!({"jsonrpc": "2.0", "id": index, "method": "tools/list", "params": {"_meta": meta}});
        let (status, _, reply) = post(&http.url(), &headers, &body.to_string()).await;
        assert_eq!(status, 400, "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert_eq!(reply["id"], index, "{reply}");
        let rules: Vec<String> = http.violations().into_iter().map(|v| v.rule).collect();
        assert_eq!(rules.last().map(String::as_str), Some(rule), "{rules:?}");
    }
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": modern_meta()}});
    let (status, _, reply) = post(&http.url(), &headers, &body.to_string()).await;
    assert_eq!(status, 200, "both fields present: {reply}");
}
