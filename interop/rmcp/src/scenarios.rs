//! The ways rmcp offers to stop a `tools/call`, one function each. Every scenario calls the same
//! slow tool and returns what the caller saw, in words; what reached the server is read from the
//! server's transcript afterwards (`main`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService, ServiceError};
use serde_json::json;

use crate::retyping::Retype;

/// The slow call every scenario stops: 15 steps of 200 ms, so 3 s if nobody stops it.
const SLOW_STEPS: u64 = 15;
const SLOW_STEP_MS: u64 = 200;
/// When an explicit stop (cancel, drop) happens, after the call started.
const STOP_AFTER: Duration = Duration::from_millis(600);
/// The timeout of the timeout-based scenarios.
const TIMEOUT: Duration = Duration::from_millis(700);
/// The maximum total time of the `max_total_timeout` scenario.
const MAX_TOTAL: Duration = Duration::from_millis(1100);
/// The timeout of the retyped-response scenario: longer than the whole slow call.
const LONG_TIMEOUT: Duration = Duration::from_secs(10);

/// The scenario names, as the matrix shows them.
pub(crate) const NAMES: [&str; 10] = [
    "not stopped",
    "RequestHandle::cancel",
    "dropped call_tool future",
    "dropped RequestHandle",
    "timeout",
    "timeout + reset_timeout_on_progress",
    "max_total_timeout",
    "max_total_timeout alone",
    "response id echoed as a string",
    "progress token echoed as a string",
];

type Client = RunningService<RoleClient, ()>;

/// Runs the scenario `name` on `client` and describes how the call ended for the caller. The
/// retyping scenarios switch `retype` on for their call (a server that echoes ids or progress
/// tokens as strings) and report how many messages it retyped.
pub(crate) async fn run(name: &str, client: &Client, retype: &Retype) -> anyhow::Result<String> {
    let no_options = PeerRequestOptions::no_options();
    match name {
        "not stopped" => Ok(describe(client.call_tool(slow_params()).await.map(|_| ()))),
        "RequestHandle::cancel" => {
            let handle = client
                .send_cancellable_request(slow_request(), no_options)
                .await?;
            tokio::time::sleep(STOP_AFTER).await;
            handle
                .cancel(Some("stopped by the interop scenario".to_owned()))
                .await?;
            Ok("cancel() returned Ok".to_owned())
        }
        "dropped call_tool future" => {
            match tokio::time::timeout(STOP_AFTER, client.call_tool(slow_params())).await {
                Ok(outcome) => Ok(describe(outcome.map(|_| ()))),
                Err(_) => Ok("future dropped (tokio::time::timeout elapsed)".to_owned()),
            }
        }
        "dropped RequestHandle" => {
            let handle = client
                .send_cancellable_request(slow_request(), no_options)
                .await?;
            tokio::time::sleep(STOP_AFTER).await;
            drop(handle);
            Ok("handle dropped".to_owned())
        }
        "timeout" => await_with(client, PeerRequestOptions::with_timeout(TIMEOUT)).await,
        "timeout + reset_timeout_on_progress" => {
            await_with(
                client,
                PeerRequestOptions::with_timeout(TIMEOUT).reset_timeout_on_progress(),
            )
            .await
        }
        "max_total_timeout" => {
            let options = PeerRequestOptions::with_timeout(TIMEOUT)
                .reset_timeout_on_progress()
                .with_max_total_timeout(MAX_TOTAL);
            await_with(client, options).await
        }
        "max_total_timeout alone" => {
            let mut options = PeerRequestOptions::no_options();
            options.max_total_timeout = Some(MAX_TOTAL);
            await_with(client, options).await
        }
        "response id echoed as a string" => {
            let options = PeerRequestOptions::with_timeout(LONG_TIMEOUT);
            let outcome = retyping(&retype.response_ids, await_with(client, options)).await?;
            let count = retype.count.load(Ordering::SeqCst);
            Ok(format!("{outcome} ({count} response ids retyped)"))
        }
        // Does a retyped token still reset the 0.7 s timeout?
        "progress token echoed as a string" => {
            let options = PeerRequestOptions::with_timeout(TIMEOUT).reset_timeout_on_progress();
            let outcome = retyping(&retype.progress_tokens, await_with(client, options)).await?;
            // How many arrive before the 0.7 s timeout depends on the machine's pace: say only
            // whether any did.
            let retyped = retype.count.load(Ordering::SeqCst) > 0;
            Ok(format!("{outcome}; progress tokens retyped: {retyped}"))
        }
        _ => anyhow::bail!(
            "unknown scenario `{name}` (expected one of: {})",
            NAMES.join(", ")
        ),
    }
}

/// Runs `call` with `switch` on.
async fn retyping<T>(switch: &AtomicBool, call: impl Future<Output = T>) -> T {
    switch.store(true, Ordering::SeqCst);
    let outcome = call.await;
    switch.store(false, Ordering::SeqCst);
    outcome
}

async fn await_with(client: &Client, options: PeerRequestOptions) -> anyhow::Result<String> {
    let handle = client
        .send_cancellable_request(slow_request(), options)
        .await?;
    Ok(describe(handle.await_response().await.map(|_| ())))
}

fn describe(outcome: Result<(), ServiceError>) -> String {
    match outcome {
        Ok(()) => "completed".to_owned(),
        Err(error) => format!("ServiceError: {error}"),
    }
}

fn slow_params() -> CallToolRequestParams {
    let arguments = json!({"steps": SLOW_STEPS, "step_ms": SLOW_STEP_MS});
    let arguments = arguments.as_object().expect("a JSON object").clone();
    CallToolRequestParams::new("slow").with_arguments(arguments)
}

fn slow_request() -> ClientRequest {
    ClientRequest::CallToolRequest(CallToolRequest::new(slow_params()))
}
