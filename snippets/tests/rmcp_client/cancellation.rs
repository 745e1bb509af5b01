//! Cancelling from the rmcp client: `RequestHandle::cancel` and dropping a `call_tool` future
//! both send `notifications/cancelled` and stop the handler; dropping a `RequestHandle` sends
//! nothing and the server completes.

use mcp_testserver::{Revision, TestServer};
use rmcp::service::PeerRequestOptions;
use serde_json::json;

use super::{assert_cancelled_once, cancels, connect, label, last_call_id};
use crate::rmcp_support::{answered, assert_no_violations, call, call_request, text};

#[tokio::test(start_paused = true)]
async fn request_handle_cancel_stops_the_handler_and_no_response_is_sent() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let handle = client
            .send_cancellable_request(
                call_request("wait_gate", json!({"gate": "never"})),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap();
        server.in_flight("wait_gate").await;
        let id = serde_json::to_value(&handle.id).unwrap();
        handle
            .cancel(Some("user pressed stop".to_owned()))
            .await
            .unwrap();
        server.idle().await;

        assert!(
            server
                .handler_log()
                .contains(&format!("{} stopped by cancel", label("wait_gate", &id))),
            "{revision}: {:?}",
            server.handler_log()
        );
        assert_cancelled_once(&server, &id, "user pressed stop");
        assert!(
            !answered(&server, &id),
            "{revision}: a cancelled request got a response"
        );
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_a_call_tool_future_sends_a_cancel() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        tokio::select! {
            result = client.call_tool(call("wait_gate", json!({"gate": "never"}))) => panic!("{revision}: the gate never opens, yet got {result:?}"),
            () = server.in_flight("wait_gate") => {}
        }
        // The call future is dropped here; rmcp sends the cancel from a drop guard.
        server.idle().await;

        let id = last_call_id(&server);
        assert_cancelled_once(&server, &id, "request abandoned by the caller");
        assert!(
            server
                .handler_log()
                .contains(&format!("{} stopped by cancel", label("wait_gate", &id))),
            "{revision}"
        );
        assert!(!answered(&server, &id), "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_a_request_handle_sends_nothing_and_the_server_completes() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let handle = client
            .send_cancellable_request(
                call_request("slow", json!({"steps": 3, "step_ms": 1000})),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap();
        server.in_flight("slow").await;
        let id = serde_json::to_value(&handle.id).unwrap();
        drop(handle);
        server.idle().await;

        assert!(
            cancels(&server).is_empty(),
            "{revision}: dropping a RequestHandle must not cancel"
        );
        assert!(
            server
                .handler_log()
                .contains(&format!("{} completed", label("slow", &id))),
            "{revision}"
        );
        assert!(
            answered(&server, &id),
            "{revision}: the server answers; nobody listens"
        );
        // The client is still usable afterwards.
        let result = client
            .call_tool(call("echo", json!({"text": "still here"})))
            .await
            .unwrap();
        assert_eq!(text(&result), "still here", "{revision}");
        assert_no_violations(&server);
    }
}
