//! Mutants of cancellation: a cancel ignored or still answered, one needing `_meta`, a cancel of
//! `initialize`, of a task's request, of an unknown or a finished id.

use super::*;

async fn cancel_a_slow_call(mutant: Option<Mutant>) -> Vec<String> {
    let (core, mut conn) = start(mutant, Revision::V2025_11_25);
    conn.initialize().await;
    let arguments = json!({"name": "slow", "arguments": {"steps": 3, "step_ms": 1000}});
    conn.send_request(json!(1), "tools/call", arguments).await;
    core.handlers.wait_in_flight("slow").await;
    conn.cancel(json!(1)).await;
    core.handlers.wait_idle().await;
    let after = conn.try_recv(Duration::from_secs(60)).await;
    let mut seen = core.handlers.entries();
    seen.push(format!("after the cancel: {after:?}"));
    // The transcript agrees: nothing was sent for request 1 but the initialize answer's kin.
    let answered = sent(&core).iter().any(|message| message["id"] == 1);
    seen.push(format!("transcript answers 1: {answered}"));
    seen
}

#[tokio::test(start_paused = true)]
async fn cancel_ignored_keeps_the_handler_running() {
    check(
        Mutant::CancelIgnored,
        cancel_a_slow_call,
        &[
            "slow#1 started",
            "slow#1 stopped by cancel after step 0",
            "after the cancel: None",
            "transcript answers 1: false",
        ],
        &[
            "slow#1 started",
            "slow#1 completed after a cancel; response suppressed",
            "after the cancel: None",
            "transcript answers 1: false",
        ],
    )
    .await;
}

async fn cancel_a_gate(mutant: Option<Mutant>, revision: Revision, stamp: bool) -> Vec<String> {
    let (core, mut conn) = start(mutant, revision);
    conn.initialize().await;
    let params = conn.stamped(json!({"name": "wait_gate", "arguments": {"gate": "never"}}));
    conn.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
        .await;
    core.handlers.wait_in_flight("wait_gate").await;
    let mut cancel = json!({"requestId": 1});
    if stamp {
        cancel = conn.stamped(cancel);
    }
    conn.notify("notifications/cancelled", cancel).await;
    let after = conn.try_recv(Duration::from_secs(60)).await;
    let mut seen = core.handlers.entries();
    seen.push(format!("after the cancel: {after:?}"));
    let last = sent(&core).last().cloned();
    seen.push(format!("transcript's last: {}", last.unwrap_or_default()));
    seen
}

#[tokio::test(start_paused = true)]
async fn cancel_still_answered_sends_an_error_for_the_cancelled_request() {
    let initialize_answer = {
        let (core, mut conn) = start(None, Revision::V2025_11_25);
        conn.initialize().await;
        sent(&core)[0].to_string()
    };
    let error = r#"{"error":{"code":-32800,"message":"Request cancelled"},"id":1,"jsonrpc":"2.0"}"#;
    check(
        Mutant::CancelStillAnswered,
        |mutant| cancel_a_gate(mutant, Revision::V2025_11_25, false),
        &[
            "wait_gate#1 started",
            "wait_gate#1 stopped by cancel",
            "after the cancel: None",
            &format!("transcript's last: {initialize_answer}"),
        ],
        &[
            "wait_gate#1 started",
            "wait_gate#1 stopped by cancel",
            &format!("after the cancel: Some(Object {{{}}})", debug_fields(error)),
            &format!("transcript's last: {error}"),
        ],
    )
    .await;
}

/// The `{:?}` of a JSON object's fields, as `Option<Value>`'s Debug prints them.
fn debug_fields(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap();
    let debug = format!("{value:?}");
    debug["Object {".len()..debug.len() - 1].to_owned()
}

#[tokio::test(start_paused = true)]
async fn cancel_needs_meta_drops_an_unstamped_2026_cancel() {
    check(
        Mutant::CancelNeedsMeta,
        |mutant| async move {
            let mut seen = cancel_a_gate(mutant, Revision::V2026_07_28, false).await;
            seen.truncate(2);
            seen
        },
        &["wait_gate#1 started", "wait_gate#1 stopped by cancel"],
        &["wait_gate#1 started", "after the cancel: None"],
    )
    .await;
    // The stamped cancel still works under the mutant: it is the missing stamp it punishes.
    let mut seen = cancel_a_gate(Some(Mutant::CancelNeedsMeta), Revision::V2026_07_28, true).await;
    seen.truncate(2);
    assert_eq!(
        seen,
        ["wait_gate#1 started", "wait_gate#1 stopped by cancel"]
    );
}

#[tokio::test(start_paused = true)]
async fn initialize_cancel_honoured_takes_it_for_an_ordinary_late_cancel() {
    check(
        Mutant::InitializeCancelHonoured,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            conn.cancel(json!(0)).await;
            conn.call(json!(1), "echo", json!({"text": "x"})).await;
            vec![
                format!("violations {:?}", rules(&core)),
                format!("log {:?}", core.handlers.entries()),
            ]
        },
        &[
            "violations [\"cancelled-initialize\"]",
            "log [\"echo#1 started\", \"echo#1 completed\"]",
        ],
        &[
            "violations []",
            "log [\"cancel for 0 after completion ignored\", \"echo#1 started\", \"echo#1 completed\"]",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn late_cancel_flagged_blames_the_client_for_the_race() {
    check(
        Mutant::LateCancelFlagged,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            conn.call(json!(18), "echo", json!({"text": "x"})).await;
            conn.cancel(json!(18)).await;
            conn.call(json!(19), "echo", json!({"text": "y"})).await;
            vec![format!("violations {:?}", rules(&core))]
        },
        &["violations []"],
        &["violations [\"cancel-unknown-id\"]"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn cancelled_task_unflagged_records_no_cancel_of_a_task_request() {
    check(
        Mutant::CancelledTaskUnflagged,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            conn.request(
                json!(1),
                "tools/call",
                json!({"name": "slow",
                "arguments": {"steps": 1, "step_ms": 10}, "task": {"ttl": 60000}}),
            )
            .await;
            conn.cancel(json!(1)).await;
            conn.call(json!(2), "echo", json!({"text": "x"})).await;
            vec![format!("violations {:?}", rules(&core))]
        },
        &["violations [\"cancelled-task\"]"],
        &["violations []"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn unknown_cancel_unflagged_records_no_cancel_of_an_unknown_id() {
    check(
        Mutant::UnknownCancelUnflagged,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            conn.cancel(json!(99)).await;
            conn.call(json!(1), "echo", json!({"text": "x"})).await;
            vec![format!("violations {:?}", rules(&core))]
        },
        &["violations [\"cancel-unknown-id\"]"],
        &["violations []"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn server_cancel_echoed_answers_a_2026_cancel_with_one_of_its_own() {
    check(
        Mutant::ServerCancelEchoed,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let arguments = json!({"name": "slow", "arguments": {"steps": 3, "step_ms": 1000}});
            conn.send_request(json!(1), "tools/call", arguments).await;
            core.handlers.wait_in_flight("slow").await;
            conn.cancel(json!(1)).await;
            core.handlers.wait_idle().await;
            let mut seen = Vec::new();
            while let Some(message) = conn.try_recv(Duration::from_secs(60)).await {
                seen.push(format!(
                    "{} {}",
                    message["method"], message["params"]["requestId"]
                ));
            }
            let cancels = sent(&core)
                .iter()
                .filter(|message| message["method"] == "notifications/cancelled")
                .count();
            seen.push(format!("transcript: {cancels} cancel sent"));
            seen
        },
        &["transcript: 0 cancel sent"],
        &["\"notifications/cancelled\" 1", "transcript: 1 cancel sent"],
    )
    .await;
}
