//! The `Driver` against rmcp server handlers, the way the book writes them: a handler that
//! watches `RequestContext.ct` stops on `notifications/cancelled`; one that ignores it keeps
//! working; cancels for unknown ids are ignored; string and integer ids never alias. Each test
//! runs under both revisions on a paused clock, so steps of one second cost no real time.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_testserver::{Driver, Revision};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ProgressNotificationParam, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// A `slow {steps}` tool: one virtual second per step, progress after each step when asked.
/// With `watch_ct` it races every step against `ct` (the pattern the book teaches); without, it
/// ignores cancellation. Its log lines name the request by its JSON id (`7` vs `"7"`).
#[derive(Clone, Default)]
struct Slow {
    watch_ct: bool,
    log: Arc<Mutex<Vec<String>>>,
    started: Arc<Notify>,
}

impl Slow {
    fn watching() -> Slow {
        Slow {
            watch_ct: true,
            ..Slow::default()
        }
    }

    fn ignoring() -> Slow {
        Slow::default()
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    fn note(&self, line: String) {
        self.log.lock().unwrap().push(line);
    }
}

impl ServerHandler for Slow {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let id = serde_json::to_string(&context.id).unwrap();
        let steps = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("steps")?.as_u64())
            .ok_or_else(|| ErrorData::invalid_params("slow needs {steps}", None))?;
        self.note(format!("{id} started"));
        self.started.notify_one();
        for step in 1..=steps {
            if self.watch_ct {
                tokio::select! {
                    _ = context.ct.cancelled() => {
                        self.note(format!("{id} stopped by cancel after step {}", step - 1));
                        return Err(ErrorData::internal_error("cancelled", None));
                    }
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            } else {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            if let Some(token) = context.meta.get_progress_token() {
                let mut progress = ProgressNotificationParam::new(token, step as f64);
                progress.total = Some(steps as f64);
                let _ = context.peer.notify_progress(progress).await;
            }
        }
        self.note(format!("{id} completed"));
        let text = format!("completed {steps} steps");
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

async fn start(handler: &Slow, revision: Revision) -> Driver {
    Driver::start_with(handler.clone(), revision)
        .await
        .unwrap_or_else(|error| panic!("driver under {revision}: {error:#}"))
}

/// Starts a driver on `handler` and calls `slow {steps}` as request `id` (see `call_slow`).
async fn start_slow(handler: &Slow, revision: Revision, id: Value, steps: u64) -> Driver {
    let mut driver = start(handler, revision).await;
    call_slow(&mut driver, handler, id, steps).await;
    driver
}

/// Calls `slow {steps}` as request `id`; returns once the handler has begun.
async fn call_slow(driver: &mut Driver, handler: &Slow, id: Value, steps: u64) {
    driver.call_tool(id, "slow", json!({"steps": steps})).await;
    handler.started.notified().await;
}

/// Asserts that nothing reaches the client within `seconds` of (virtual) time.
async fn assert_silent(driver: &mut Driver, seconds: u64, revision: Revision) {
    let message = driver.try_recv(Duration::from_secs(seconds)).await;
    assert_eq!(message, None, "{revision}");
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a text result: {response}"))
}

#[tokio::test(start_paused = true)]
async fn handler_watching_ct_stops_and_sends_no_response() {
    for revision in Revision::ALL {
        let handler = Slow::watching();
        let mut driver = start_slow(&handler, revision, json!(1), 10).await;
        tokio::time::sleep(Duration::from_millis(2500)).await;
        driver.cancel(json!(1), "user pressed stop").await;

        assert_silent(&mut driver, 60, revision).await;
        assert_eq!(
            handler.log(),
            ["1 started", "1 stopped by cancel after step 2"],
            "{revision}"
        );
        let last = driver.transcript().messages().pop().unwrap();
        assert_eq!(
            last.value()["method"],
            "notifications/cancelled",
            "{revision}"
        );
        assert_eq!(driver.violations(), [], "{revision}");
    }
}

#[tokio::test(start_paused = true)]
async fn handler_ignoring_ct_keeps_working_but_rmcp_drops_its_response() {
    for revision in Revision::ALL {
        let handler = Slow::ignoring();
        let mut driver = start_slow(&handler, revision, json!(1), 3).await;
        driver.cancel(json!(1), "user pressed stop").await;

        // The work runs to the end (nothing aborts a handler), yet rmcp forgets the request
        // when the cancel arrives and discards the late result instead of sending it.
        assert_silent(&mut driver, 60, revision).await;
        assert_eq!(handler.log(), ["1 started", "1 completed"], "{revision}");
        assert_eq!(driver.violations(), [], "{revision}");
    }
}

#[tokio::test(start_paused = true)]
async fn cancel_for_unknown_or_finished_id_is_ignored() {
    for revision in Revision::ALL {
        let handler = Slow::watching();
        let mut driver = start_slow(&handler, revision, json!(1), 2).await;
        driver.cancel(json!(99), "never sent").await;

        let response = driver.recv().await;
        assert_eq!(response["id"], 1, "{revision}");
        assert_eq!(text_of(&response), "completed 2 steps", "{revision}");

        // A cancel that crosses (or follows) the response is the normal race: ignored.
        driver.cancel(json!(1), "too late").await;
        let response = driver
            .request(
                json!(2),
                "tools/call",
                json!({"name": "slow", "arguments": {"steps": 1}}),
            )
            .await;
        assert_eq!(text_of(&response), "completed 1 steps", "{revision}");
        assert_silent(&mut driver, 10, revision).await;
        assert_eq!(
            handler.log(),
            ["1 started", "1 completed", "2 started", "2 completed"],
            "{revision}"
        );
        assert_eq!(driver.violations(), [], "{revision}");
    }
}

#[tokio::test(start_paused = true)]
async fn string_and_integer_ids_do_not_alias() {
    for revision in Revision::ALL {
        let handler = Slow::watching();
        let mut driver = start_slow(&handler, revision, json!(7), 5).await;
        call_slow(&mut driver, &handler, json!("7"), 5).await;
        driver.cancel(json!("7"), "only the string one").await;

        let response = driver.recv().await;
        assert_eq!(response["id"], json!(7), "{revision}");
        assert_eq!(text_of(&response), "completed 5 steps", "{revision}");
        assert_silent(&mut driver, 10, revision).await;
        assert_eq!(
            handler.log(),
            [
                "7 started",
                "\"7\" started",
                "\"7\" stopped by cancel after step 0",
                "7 completed"
            ],
            "{revision}"
        );
        assert_eq!(driver.violations(), [], "{revision}");
    }
}

#[tokio::test(start_paused = true)]
async fn progress_carries_the_token_the_client_chose() {
    for revision in Revision::ALL {
        let handler = Slow::watching();
        let mut driver = start(&handler, revision).await;
        driver
            .call_tool_with_progress(json!(1), "slow", json!({"steps": 3}), json!("p-1"))
            .await;
        for step in 1..=3 {
            let progress = driver.recv().await;
            assert_eq!(progress["method"], "notifications/progress", "{revision}");
            assert_eq!(progress["params"]["progressToken"], "p-1", "{revision}");
            assert_eq!(
                progress["params"]["progress"],
                json!(step as f64),
                "{revision}"
            );
            assert_eq!(progress["params"]["total"], json!(3.0), "{revision}");
        }
        let response = driver.recv().await;
        assert_eq!(text_of(&response), "completed 3 steps", "{revision}");
        assert_eq!(driver.violations(), [], "{revision}");
    }
}

#[tokio::test(start_paused = true)]
async fn eof_cancels_ct_only_after_rmcps_five_second_drain() {
    for revision in Revision::ALL {
        let handler = Slow::watching();
        let driver = start_slow(&handler, revision, json!(1), 100).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let closed_at = tokio::time::Instant::now();
        driver.close().await;
        let waited = closed_at.elapsed();
        tokio::time::sleep(Duration::from_millis(10)).await;

        // rmcp waits up to 5 s for running handlers after EOF, then cancels their tokens.
        assert!(
            waited >= Duration::from_secs(5) && waited < Duration::from_millis(5100),
            "{revision}: {waited:?}"
        );
        assert_eq!(
            handler.log(),
            ["1 started", "1 stopped by cancel after step 5"],
            "{revision}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn handshake_follows_the_revision() {
    for revision in Revision::ALL {
        let handler = Slow::watching();
        let driver = start(&handler, revision).await;
        let methods: Vec<Value> = driver
            .transcript()
            .messages()
            .iter()
            .map(|wire| wire.value().get("method").cloned().unwrap_or(Value::Null))
            .collect();
        let expected = match revision {
            Revision::V2025_11_25 => vec![
                json!("initialize"),
                Value::Null,
                json!("notifications/initialized"),
            ],
            Revision::V2026_07_28 => vec![json!("server/discover"), Value::Null],
        };
        assert_eq!(methods, expected, "{revision}");
    }
}

#[tokio::test(start_paused = true)]
async fn client_capabilities_must_be_an_object() {
    let error = match Driver::start_with_capabilities(Slow::default(), json!(["sampling"])).await {
        Ok(_) => panic!("a non-object capabilities value was accepted"),
        Err(error) => error,
    };
    assert_eq!(
        error.to_string(),
        r#"client capabilities must be a JSON object, not ["sampling"]"#
    );
}

#[tokio::test(start_paused = true)]
async fn client_capabilities_are_announced_in_initialize() {
    let driver = Driver::start_with_capabilities(Slow::default(), json!({"sampling": {}}))
        .await
        .expect("the handshake succeeds");
    let initialize = driver.transcript().to_json()[0]["message"].clone();
    assert_eq!(initialize["method"], "initialize");
    assert_eq!(
        initialize["params"]["capabilities"],
        json!({"sampling": {}})
    );
}
