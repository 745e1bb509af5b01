//! rmcp's own Streamable HTTP client against the server, under both revisions: calls, progress
//! over SSE, `RequestHandle::cancel`, and a dropped `call_tool` future, which under 2026-07-28
//! closes the response stream and so cancels the request.

use std::time::Duration;

use mcp_testserver::{Direction, HttpServer, RenderTranscript, Revision};
use rmcp::model::ServerResult;
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

use super::{start, within};
use crate::rmcp_support::{
    ProgressRecorder, answered, assert_no_violations, call, call_request, received, serve_as, text,
};

/// An rmcp Streamable HTTP client with `handler`, forced to `revision`.
async fn connect<H: ClientHandler>(
    http: &HttpServer,
    revision: Revision,
    handler: H,
) -> RunningService<RoleClient, H> {
    let transport = StreamableHttpClientTransport::from_uri(http.url());
    serve_as(handler, transport, revision)
        .await
        .unwrap_or_else(|error| panic!("rmcp HTTP client under {revision}: {error:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_calls_over_http_under_both_revisions() {
    for revision in Revision::ALL {
        let http = start(revision).await;
        let client = connect(&http, revision, ()).await;
        let result = within(
            "echo",
            client.call_tool(call("echo", json!({"text": "over http"}))),
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
            client.call_tool(call("echo", json!({"text": "via connect_rmcp"}))),
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
            .filter(|wire| wire.value()["method"] == "notifications/progress")
            .map(|wire| wire.value()["params"]["progress"].clone())
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
    let call = client.call_tool(call("slow", json!({"steps": 1000, "step_ms": 10})));
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
