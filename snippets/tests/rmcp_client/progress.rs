//! Progress through the rmcp client: rmcp puts its own progress token on every request
//! (replacing one the caller set) and hands each notification to the client handler.

use mcp_testserver::{Revision, TestServer};
use rmcp::model::RequestMetaObject;
use serde_json::{Value, json};

use super::{connect, connect_recorder, until};
use crate::rmcp_support::{ProgressRecorder, assert_no_violations, call, received, sent, text};

#[tokio::test(start_paused = true)]
async fn progress_uses_rmcps_own_token() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let recorder = ProgressRecorder::default();
        let seen = recorder.seen.clone();
        let client = connect_recorder(&server, recorder).await;
        // Ask for progress with a token of our own: rmcp replaces it with one it generates.
        let mut params = call("slow", json!({"steps": 3, "step_ms": 100}));
        let mut meta = RequestMetaObject::new();
        meta.insert("progressToken".to_owned(), json!("mine"));
        params.meta = Some(meta);
        let result = client.call_tool(params).await.unwrap();
        assert_eq!(text(&result), "completed 3 steps", "{revision}");

        let request = received(&server)
            .into_iter()
            .find(|message| message["method"] == "tools/call")
            .unwrap();
        let token = request["params"]["_meta"]["progressToken"].clone();
        assert!(
            token.is_i64(),
            "{revision}: rmcp sent progressToken {token}"
        );
        let progress: Vec<Value> = sent(&server)
            .into_iter()
            .filter(|message| message["method"] == "notifications/progress")
            .collect();
        assert_eq!(progress.len(), 3, "{revision}");
        for (index, notification) in progress.iter().enumerate() {
            assert_eq!(notification["params"]["progressToken"], token, "{revision}");
            assert_eq!(
                notification["params"]["progress"].as_f64(),
                Some(index as f64 + 1.0),
                "{revision}"
            );
        }
        // rmcp hands every notification to the handler (in its own task, so wait for them).
        until("three progress callbacks", || {
            seen.lock().unwrap().len() == 3
        })
        .await;
        let values: Vec<f64> = seen
            .lock()
            .unwrap()
            .iter()
            .map(|param| param.progress)
            .collect();
        assert_eq!(values.len(), 3, "{revision}");
        assert_no_violations(&server);
    }
}

#[tokio::test(start_paused = true)]
async fn every_rmcp_request_carries_a_progress_token() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = connect(&server).await;
        client
            .call_tool(call("echo", json!({"text": "x"})))
            .await
            .unwrap();
        let request = received(&server)
            .into_iter()
            .find(|message| message["method"] == "tools/call")
            .unwrap();
        assert!(
            request["params"]["_meta"]["progressToken"].is_i64(),
            "{revision}: {request}"
        );
        assert_no_violations(&server);
    }
}
