//! rmcp's request timeouts against the `slow` tool: a plain timeout cancels the request, a
//! timeout reset on progress lets a long call finish, and a maximum total timeout wins over
//! progress.

use std::time::Duration;

use mcp_testserver::{Revision, TestServer};
use rmcp::RoleClient;
use rmcp::model::ServerResult;
use rmcp::service::{PeerRequestOptions, RunningService, ServiceError};
use serde_json::json;

use super::{assert_cancelled_once, cancels, connect, label, last_call_id};
use crate::rmcp_support::{answered, assert_no_violations, call_request, text};

async fn slow_with(
    client: &RunningService<RoleClient, ()>,
    steps: u64,
    step_ms: u64,
    options: PeerRequestOptions,
) -> Result<ServerResult, ServiceError> {
    let handle = client
        .send_cancellable_request(
            call_request("slow", json!({"steps": steps, "step_ms": step_ms})),
            options,
        )
        .await
        .unwrap();
    handle.await_response().await
}

#[tokio::test(start_paused = true)]
async fn timeout_cancels_the_request() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let started = tokio::time::Instant::now();
        let outcome = slow_with(
            &client,
            10,
            1500,
            PeerRequestOptions::with_timeout(Duration::from_secs(2)),
        )
        .await;
        assert!(
            matches!(outcome, Err(ServiceError::Timeout { .. })),
            "{revision}: {outcome:?}"
        );
        assert_eq!(started.elapsed(), Duration::from_secs(2), "{revision}");
        server.idle().await;

        let id = last_call_id(&server);
        assert_cancelled_once(&server, &id, "request timeout");
        assert!(
            server.handler_log().contains(&format!(
                "{} stopped by cancel after step 1",
                label("slow", &id)
            )),
            "{revision}: {:?}",
            server.handler_log()
        );
        assert!(!answered(&server, &id), "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn timeout_resets_on_progress() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        // Each step (1.5 s) is shorter than the timeout (2 s), the whole call (7.5 s) is not.
        let options =
            PeerRequestOptions::with_timeout(Duration::from_secs(2)).reset_timeout_on_progress();
        let outcome = slow_with(&client, 5, 1500, options).await;
        let Ok(ServerResult::CallToolResult(result)) = outcome else {
            panic!("{revision}: {outcome:?}")
        };
        assert_eq!(text(&result), "completed 5 steps", "{revision}");
        assert!(cancels(&server).is_empty(), "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn max_total_timeout_wins_over_progress() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        let options = PeerRequestOptions::with_timeout(Duration::from_secs(2))
            .reset_timeout_on_progress()
            .with_max_total_timeout(Duration::from_secs(5));
        let started = tokio::time::Instant::now();
        let outcome = slow_with(&client, 10, 1500, options).await;
        assert!(
            matches!(outcome, Err(ServiceError::Timeout { timeout }) if timeout == Duration::from_secs(5)),
            "{revision}: {outcome:?}"
        );
        assert_eq!(started.elapsed(), Duration::from_secs(5), "{revision}");
        server.idle().await;

        let id = last_call_id(&server);
        assert_cancelled_once(&server, &id, "maximum total timeout exceeded");
        assert!(
            server.handler_log().contains(&format!(
                "{} stopped by cancel after step 3",
                label("slow", &id)
            )),
            "{revision}: {:?}",
            server.handler_log()
        );
        assert_no_violations(&server);
    }
}
