//! Mutants of progress: after the response, the token retyped, counting down, no token.

use super::*;

/// `slow` with `steps` steps and the given `_meta` (none: no token); every message until the
/// response, then whatever follows within a minute; each as the client read it, then the
/// transcript's order of the same messages.
async fn progress(mutant: Option<Mutant>, token: Option<Value>) -> Vec<String> {
    let (core, mut conn) = start(mutant, Revision::V2025_11_25);
    conn.initialize().await;
    let mut params = json!({"name": "slow", "arguments": {"steps": 3, "step_ms": 10}});
    if let Some(token) = token {
        params["_meta"] = json!({"progressToken": token});
    }
    conn.send_request(json!(1), "tools/call", params).await;
    let mut seen = Vec::new();
    let describe = |message: &Value| match message["method"].as_str() {
        Some(method) => {
            let params = &message["params"];
            format!(
                "{method} {} {}",
                params["progressToken"], params["progress"]
            )
        }
        None => format!("response {}", message["id"]),
    };
    loop {
        let message = conn.recv().await;
        seen.push(describe(&message));
        if message.get("id").is_some() {
            break;
        }
    }
    if let Some(late) = conn.try_recv(Duration::from_secs(60)).await {
        seen.push(describe(&late));
    }
    let recorded: Vec<String> = sent(&core)[1..].iter().map(describe).collect();
    assert_eq!(
        recorded, seen,
        "the transcript records what was sent, in order"
    );
    seen
}

#[tokio::test(start_paused = true)]
async fn progress_after_response_sends_one_more_notification() {
    check(
        Mutant::ProgressAfterResponse,
        |mutant| progress(mutant, Some(json!("t"))),
        &[
            "notifications/progress \"t\" 1",
            "notifications/progress \"t\" 2",
            "notifications/progress \"t\" 3",
            "response 1",
        ],
        &[
            "notifications/progress \"t\" 1",
            "notifications/progress \"t\" 2",
            "notifications/progress \"t\" 3",
            "response 1",
            "notifications/progress \"t\" 4",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn progress_token_retyped_echoes_the_token_as_another_json_type() {
    check(
        Mutant::ProgressTokenRetyped,
        |mutant| progress(mutant, Some(json!(7))),
        &[
            "notifications/progress 7 1",
            "notifications/progress 7 2",
            "notifications/progress 7 3",
            "response 1",
        ],
        &[
            "notifications/progress \"7\" 1",
            "notifications/progress \"7\" 2",
            "notifications/progress \"7\" 3",
            "response 1",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn progress_backwards_counts_down() {
    check(
        Mutant::ProgressBackwards,
        |mutant| progress(mutant, Some(json!("t"))),
        &[
            "notifications/progress \"t\" 1",
            "notifications/progress \"t\" 2",
            "notifications/progress \"t\" 3",
            "response 1",
        ],
        &[
            "notifications/progress \"t\" 3",
            "notifications/progress \"t\" 2",
            "notifications/progress \"t\" 1",
            "response 1",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn progress_without_token_reports_under_the_request_id() {
    check(
        Mutant::ProgressWithoutToken,
        |mutant| progress(mutant, None),
        &["response 1"],
        &[
            "notifications/progress 1 1",
            "notifications/progress 1 2",
            "notifications/progress 1 3",
            "response 1",
        ],
    )
    .await;
}

/// Three calls with the progress token "job": 1 and 2 while both are active, 3 after both
/// were answered; the violations recorded.
async fn one_token_three_calls(mutant: Option<Mutant>) -> Vec<String> {
    let (core, mut conn) = start(mutant, Revision::V2025_11_25);
    conn.initialize().await;
    let params = json!({"name": "slow", "arguments": {"steps": 1, "step_ms": 1000},
        "_meta": {"progressToken": "job"}});
    conn.send_request(json!(1), "tools/call", params.clone())
        .await;
    conn.send_request(json!(2), "tools/call", params.clone())
        .await;
    conn.response(&json!(1)).await;
    conn.response(&json!(2)).await;
    conn.request(json!(3), "tools/call", params).await;
    let progress = sent(&core)
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .count();
    let mut seen = vec![format!("transcript: {progress} progress")];
    seen.extend(
        core.violations
            .list()
            .into_iter()
            .map(|violation| format!("{}: {}", violation.rule, violation.detail)),
    );
    seen
}

#[tokio::test(start_paused = true)]
async fn reused_progress_token_unflagged_records_no_token_reused_while_active() {
    check(
        Mutant::ReusedProgressTokenUnflagged,
        one_token_three_calls,
        &[
            "transcript: 3 progress",
            "reused-progress-token: progress token \"job\" is already used by an active request",
        ],
        &["transcript: 3 progress"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn progress_token_never_freed_records_a_reuse_after_the_answer() {
    check(
        Mutant::ProgressTokenNeverFreed,
        one_token_three_calls,
        &[
            "transcript: 3 progress",
            "reused-progress-token: progress token \"job\" is already used by an active request",
        ],
        &[
            "transcript: 3 progress",
            "reused-progress-token: progress token \"job\" is already used by an active request",
            "reused-progress-token: progress token \"job\" is already used by an active request",
        ],
    )
    .await;
}
