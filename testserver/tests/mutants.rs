//! The mutants (`mcp_testserver_core::server::mutants`): each scenario runs once on the server as
//! it is and once with one mutant, and shows the rule kept, then broken on the wire, while the
//! transcript still records what the server really sent. Then the command line
//! (`--list-mutants`, `--mutant`, `$MDBOOK_SNIPPETS_MUTANT`, an unknown name), and the book:
//! every mutant is killed by at least one snippet that says so with `kills=NAME`.

use std::sync::Arc;
use std::time::Duration;

use mcp_testserver::server::Core;
use mcp_testserver::server::mutants::{self, MUTANT_VAR, Mutant};
use mcp_testserver::{Direction, RawClient as Conn, RenderTranscript, Revision};
use serde_json::{Value, json};

/// A core breaking `mutant` (none: the server as it is), and a raw client of it.
fn start(mutant: Option<Mutant>, revision: Revision) -> (Arc<Core>, Conn) {
    let core = Arc::new(Core::default().with_mutant(mutant));
    let conn = Conn::serve(core.clone(), revision);
    (core, conn)
}

/// A 2025-11-25 core breaking `mutant`, a raw client, and the `{"taskId"}` of a slow tool call
/// (10 steps of 1 s) it started as a task (request id 1).
async fn slow_task(mutant: Option<Mutant>) -> (Arc<Core>, Conn, Value) {
    let (core, mut conn) = start(mutant, Revision::V2025_11_25);
    conn.initialize().await;
    let arguments = json!({"name": "slow",
        "arguments": {"steps": 10, "step_ms": 1000}, "task": {"ttl": 60000}});
    let created = conn.request(json!(1), "tools/call", arguments).await;
    let task = json!({"taskId": created["result"]["task"]["taskId"]});
    (core, conn, task)
}

/// What the server sent, as its transcript recorded it.
fn sent(core: &Core) -> Vec<Value> {
    core.transcript
        .messages()
        .into_iter()
        .filter(|wire| wire.direction == Direction::Out)
        .map(|wire| wire.value())
        .collect()
}

fn rules(core: &Core) -> Vec<String> {
    core.violations
        .list()
        .into_iter()
        .map(|violation| violation.rule)
        .collect()
}

/// Runs `scenario` without and with `mutant` and checks what each printed.
async fn check<F, Fut>(mutant: Mutant, scenario: F, kept: &[&str], broken: &[&str])
where
    F: Fn(Option<Mutant>) -> Fut,
    Fut: std::future::Future<Output = Vec<String>>,
{
    assert_eq!(scenario(None).await, kept, "{mutant}: the server as it is");
    assert_eq!(scenario(Some(mutant)).await, broken, "{mutant}: the mutant");
}

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

/// `core` served over Streamable HTTP on a loopback port: its URL, and the token that stops it.
async fn serve_on_loopback(core: &Arc<Core>) -> (String, tokio_util::sync::CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn(mcp_testserver::http::serve(
        core.clone(),
        listener,
        stop.clone(),
    ));
    (url, stop)
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

#[tokio::test(start_paused = true)]
async fn eof_keeps_handlers_leaves_them_running_after_end_of_input() {
    check(
        Mutant::EofKeepsHandlers,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            for (id, gate) in [(1, "a"), (2, "b")] {
                let params = json!({"name": "wait_gate", "arguments": {"gate": gate}});
                conn.send_request(json!(id), "tools/call", params).await;
            }
            core.handlers.wait_in_flight("wait_gate").await;
            drop(conn); // end of input
            tokio::time::sleep(Duration::from_secs(60)).await;
            let stopped = core.handlers.entries().len();
            // Only a handler still running sees its gate open.
            core.gates.open("a");
            core.gates.open("b");
            core.handlers.wait_idle().await;
            let mut seen = core.handlers.entries();
            seen.sort();
            seen.push(format!("log lines before the gates opened: {stopped}"));
            let answered = sent(&core)
                .iter()
                .any(|message| message["id"] == 1 || message["id"] == 2);
            seen.push(format!("transcript answers a call: {answered}"));
            seen
        },
        &[
            "wait_gate#1 started",
            "wait_gate#1 stopped by cancel",
            "wait_gate#2 started",
            "wait_gate#2 stopped by cancel",
            "log lines before the gates opened: 4",
            "transcript answers a call: false",
        ],
        &[
            "wait_gate#1 completed",
            "wait_gate#1 started",
            "wait_gate#2 completed",
            "wait_gate#2 started",
            "log lines before the gates opened: 2",
            "transcript answers a call: false",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnect_not_cancel_keeps_a_2026_handler_running_after_the_stream_closed() {
    async fn scenario(mutant: Option<Mutant>) -> Vec<String> {
        let core = Arc::new(Core::default().with_mutant(mutant));
        let (url, stop) = serve_on_loopback(&core).await;
        let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "wait_gate", "arguments": {"gate": "g"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let request = reqwest::Client::new()
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "wait_gate")
            .body(body.to_string());
        let pending = tokio::spawn(request.send());
        within(core.handlers.wait_in_flight("wait_gate")).await;
        pending.abort();
        within(async {
            while !core.transcript.to_json().to_string().contains("disconnect") {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        // A moment for a cancel to take effect, then the gate: only a running handler sees it.
        tokio::time::sleep(Duration::from_millis(100)).await;
        core.gates.open("g");
        within(core.handlers.wait_idle()).await;
        stop.cancel();
        let mut seen = core.handlers.entries();
        let response_recorded = sent(&core).iter().any(|message| message["id"] == 5);
        seen.push(format!(
            "transcript has a response to 5: {response_recorded}"
        ));
        seen
    }
    check(
        Mutant::DisconnectNotCancel,
        scenario,
        &[
            "wait_gate#5 started",
            "wait_gate#5 stopped by cancel",
            "transcript has a response to 5: false",
        ],
        &[
            "wait_gate#5 started",
            "wait_gate#5 completed",
            "transcript has a response to 5: true",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_disconnect_cancels_stops_a_2025_handler_when_the_stream_closes() {
    async fn scenario(mutant: Option<Mutant>) -> Vec<String> {
        let core = Arc::new(Core::default().with_mutant(mutant));
        let (url, stop) = serve_on_loopback(&core).await;
        let client = reqwest::Client::new();
        let post = |body: Value, session: Option<&str>| {
            let mut request = client
                .post(&url)
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .body(body.to_string());
            if let Some(session) = session {
                request = request
                    .header("mcp-session-id", session)
                    .header("mcp-protocol-version", "2025-11-25");
            }
            request
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}});
        let answer = within(post(initialize, None).send()).await.unwrap();
        let session = answer.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        within(answer.bytes()).await.unwrap();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        within(post(initialized, Some(&session)).send())
            .await
            .unwrap();
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "wait_gate", "arguments": {"gate": "g"}}});
        let pending = tokio::spawn(post(call, Some(&session)).send());
        within(core.handlers.wait_in_flight("wait_gate")).await;
        pending.abort();
        within(async {
            while !core.transcript.to_json().to_string().contains("disconnect") {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        // A moment for a cancel to take effect, then the gate: only a running handler sees it.
        tokio::time::sleep(Duration::from_millis(100)).await;
        core.gates.open("g");
        within(core.handlers.wait_idle()).await;
        stop.cancel();
        let mut seen = core.handlers.entries();
        let disconnect = core
            .transcript
            .render()
            .lines()
            .find(|line| line.contains("http disconnect"))
            .map(str::to_owned);
        seen.push(format!("transcript: {}", disconnect.unwrap_or_default()));
        seen
    }
    check(
        Mutant::LegacyDisconnectCancels,
        scenario,
        &[
            "wait_gate#2 started",
            "wait_gate#2 completed",
            "transcript: → ✕ http disconnect 2 (not a cancel)",
        ],
        &[
            "wait_gate#2 started",
            "wait_gate#2 stopped by cancel",
            "transcript: → ✕ http disconnect 2 (a cancel)",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn result_type_omitted_sends_a_2026_result_without_its_type() {
    check(
        Mutant::ResultTypeOmitted,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            conn.initialize().await;
            let params = conn.stamped(json!({"name": "echo", "arguments": {"text": "ok"}}));
            let answer = conn.request(json!(1), "tools/call", params).await;
            let last = sent(&core).last().cloned().unwrap();
            assert_eq!(last, answer, "the transcript records the answer sent");
            vec![
                format!("text: {}", answer["result"]["content"][0]["text"]),
                format!("resultType: {}", answer["result"]["resultType"]),
            ]
        },
        &["text: \"ok\"", "resultType: \"complete\""],
        &["text: \"ok\"", "resultType: null"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn meta_fields_optional_serves_a_2026_request_missing_them() {
    check(
        Mutant::MetaFieldsOptional,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let version = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
            let mut seen = Vec::new();
            for (id, meta) in [(1, None), (2, Some(version))] {
                let mut params = json!({"name": "echo", "arguments": {"text": "ok"}});
                if let Some(meta) = meta {
                    params["_meta"] = meta;
                }
                conn.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": params}))
                    .await;
                let answer = conn.recv().await;
                seen.push(format!(
                    "{id}: error {} text {}",
                    answer["error"]["code"], answer["result"]["content"][0]["text"]
                ));
            }
            seen.extend(rules(&core));
            seen.push(format!("transcript: {} answers", sent(&core).len()));
            seen
        },
        &[
            "1: error -32602 text null",
            "2: error -32602 text null",
            "missing-protocol-version",
            "missing-client-capabilities",
            "transcript: 2 answers",
        ],
        &[
            "1: error null text \"ok\"",
            "2: error null text \"ok\"",
            "missing-protocol-version",
            "missing-client-capabilities",
            "transcript: 2 answers",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn ping_still_served_answers_a_2026_ping() {
    check(
        Mutant::PingStillServed,
        |mutant| async move {
            let mut seen = Vec::new();
            for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
                let (core, mut conn) = start(mutant, revision);
                conn.initialize().await;
                let answer = conn.request(json!(1), "ping", json!({})).await;
                let last = sent(&core).last().cloned().unwrap();
                assert_eq!(last, answer, "the transcript records the answer sent");
                seen.push(format!(
                    "{revision:?}: error {} result {}",
                    answer["error"]["code"], answer["result"]
                ));
            }
            seen
        },
        &[
            "V2025_11_25: error null result {}",
            "V2026_07_28: error -32601 result null",
        ],
        &[
            "V2025_11_25: error null result {}",
            "V2026_07_28: error null result {\"resultType\":\"complete\"}",
        ],
    )
    .await;
}

/// `future`, or a panic after 10 s of real time.
async fn within<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .expect("timed out after 10 s")
}

#[tokio::test(start_paused = true)]
async fn shared_id_space_numbers_server_requests_after_the_clients() {
    check(
        Mutant::SharedIdSpace,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            let ask = json!({"name": "ask", "arguments": {"question": "Proceed?"}});
            conn.send_request(json!(5), "tools/call", ask).await;
            let asked = conn.recv().await;
            conn.send(json!({"jsonrpc": "2.0", "id": asked["id"],
                "result": {"action": "accept", "content": {"answer": "yes"}}}))
                .await;
            let answer = conn.response(&json!(5)).await;
            let recorded = sent(&core)
                .into_iter()
                .find(|message| message["method"] == "elicitation/create");
            vec![
                format!("server request id {}", asked["id"]),
                format!("transcript: {}", recorded.unwrap()["id"]),
                format!("answer {}", answer["result"]["content"][0]["text"]),
                format!("violations {:?}", rules(&core)),
            ]
        },
        &[
            "server request id 1",
            "transcript: 1",
            "answer \"answer: yes\"",
            "violations []",
        ],
        &[
            "server request id 6",
            "transcript: 6",
            "answer \"answer: yes\"",
            "violations []",
        ],
    )
    .await;
}

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

#[tokio::test(start_paused = true)]
async fn task_progress_dropped_sends_no_progress_after_the_create_task_result() {
    check(
        Mutant::TaskProgressDropped,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 1000},
                "task": {"ttl": 60000}, "_meta": {"progressToken": "job-1"}});
            conn.send_request(json!(1), "tools/call", params).await;
            let mut seen = Vec::new();
            while let Some(message) = conn.try_recv(Duration::from_secs(10)).await {
                seen.push(match message["method"].as_str() {
                    Some(method) => format!(
                        "{method} {} {}",
                        message["params"]["progressToken"], message["params"]["progress"]
                    ),
                    None => format!("response to {}", message["id"]),
                });
            }
            let progress_sent = sent(&core)
                .iter()
                .filter(|message| message["method"] == "notifications/progress")
                .count();
            seen.push(format!("transcript: {progress_sent} progress"));
            seen
        },
        &[
            "response to 1",
            "notifications/progress \"job-1\" 1",
            "notifications/progress \"job-1\" 2",
            "transcript: 2 progress",
        ],
        &["response to 1", "transcript: 0 progress"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_progress_sent_reports_progress_on_a_2026_task() {
    check(
        Mutant::TaskProgressSent,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
            let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 1000},
                "_meta": {"progressToken": "job-1",
                    "io.modelcontextprotocol/clientCapabilities": tasks}});
            conn.send_request(json!(1), "tools/call", params).await;
            let mut seen = Vec::new();
            while let Some(message) = conn.try_recv(Duration::from_secs(10)).await {
                seen.push(match message["method"].as_str() {
                    Some(method) => format!("{method} {}", message["params"]["progress"]),
                    None => format!(
                        "response to {}: {}",
                        message["id"], message["result"]["resultType"]
                    ),
                });
            }
            let progress_sent = sent(&core)
                .iter()
                .filter(|message| message["method"] == "notifications/progress")
                .count();
            seen.push(format!("transcript: {progress_sent} progress"));
            seen
        },
        &["response to 1: \"task\"", "transcript: 0 progress"],
        &[
            "response to 1: \"task\"",
            "notifications/progress 1",
            "notifications/progress 2",
            "transcript: 2 progress",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_cancel_terminal_accepted_answers_a_second_cancel() {
    check(
        Mutant::TaskCancelTerminalAccepted,
        |mutant| async move {
            let (core, mut conn, task) = slow_task(mutant).await;
            let first = conn.request(json!(2), "tasks/cancel", task.clone()).await;
            let again = conn.request(json!(3), "tasks/cancel", task).await;
            let last = sent(&core).last().cloned().unwrap();
            assert_eq!(last, again, "the transcript records the answer sent");
            vec![
                format!("first: {}", first["result"]["status"]),
                format!(
                    "again: error {} status {}",
                    again["error"]["code"], again["result"]["status"]
                ),
            ]
        },
        &["first: \"cancelled\"", "again: error -32602 status null"],
        &[
            "first: \"cancelled\"",
            "again: error null status \"cancelled\"",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_cancelled_after_response_answers_with_the_working_task() {
    check(
        Mutant::TaskCancelledAfterResponse,
        |mutant| async move {
            let (core, mut conn, task) = slow_task(mutant).await;
            let cancelled = conn.request(json!(2), "tasks/cancel", task.clone()).await;
            let last = sent(&core).last().cloned().unwrap();
            assert_eq!(last, cancelled, "the transcript records the answer sent");
            let polled = conn.request(json!(3), "tasks/get", task).await;
            core.handlers.wait_idle().await;
            let mut seen = vec![
                format!("tasks/cancel: {}", cancelled["result"]["status"]),
                format!("tasks/get: {}", polled["result"]["status"]),
            ];
            seen.extend(core.handlers.entries());
            seen
        },
        &[
            "tasks/cancel: \"cancelled\"",
            "tasks/get: \"cancelled\"",
            "slow#1 started as tsk-a0565851",
            "slow#1 stopped by cancel after step 0",
        ],
        &[
            "tasks/cancel: \"working\"",
            "tasks/get: \"cancelled\"",
            "slow#1 started as tsk-a0565851",
            "slow#1 stopped by cancel after step 0",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn cancelled_task_completes_when_its_work_runs_on() {
    check(
        Mutant::CancelledTaskCompletes,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            let arguments = json!({"name": "ignore_cancel",
                "arguments": {"steps": 3, "step_ms": 1000}, "task": {"ttl": 60000}});
            let created = conn.request(json!(1), "tools/call", arguments).await;
            let task = json!({"taskId": created["result"]["task"]["taskId"]});
            let cancelled = conn.request(json!(2), "tasks/cancel", task.clone()).await;
            core.handlers.wait_idle().await;
            let polled = conn.request(json!(3), "tasks/get", task).await;
            let last = sent(&core).last().cloned().unwrap();
            assert_eq!(last, polled, "the transcript records the answer sent");
            let mut seen = vec![
                format!("tasks/cancel: {}", cancelled["result"]["status"]),
                format!(
                    "tasks/get after the work ended: {}",
                    polled["result"]["status"]
                ),
            ];
            seen.extend(core.handlers.entries());
            seen
        },
        &[
            "tasks/cancel: \"cancelled\"",
            "tasks/get after the work ended: \"cancelled\"",
            "ignore_cancel#1 started as tsk-a0565851",
            "ignore_cancel#1 ignored cancel at step 1",
        ],
        &[
            "tasks/cancel: \"cancelled\"",
            "tasks/get after the work ended: \"completed\"",
            "ignore_cancel#1 started as tsk-a0565851",
            "ignore_cancel#1 ignored cancel at step 1",
            "ignore_cancel#1 completed as tsk-a0565851",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_result_left_waiting_never_answers_for_a_cancelled_task() {
    check(
        Mutant::TaskResultLeftWaiting,
        |mutant| async move {
            let (core, mut conn, task) = slow_task(mutant).await;
            conn.send_request(json!(2), "tasks/result", task.clone())
                .await;
            conn.send_request(json!(3), "tasks/cancel", task).await;
            let mut seen = Vec::new();
            while let Some(answer) = conn.try_recv(Duration::from_secs(60)).await {
                seen.push(format!(
                    "{}: error {} status {}",
                    answer["id"], answer["error"]["code"], answer["result"]["status"]
                ));
            }
            let answered_2 = sent(&core).iter().any(|message| message["id"] == 2);
            seen.push(format!("transcript answers 2: {answered_2}"));
            seen
        },
        &[
            "3: error null status \"cancelled\"",
            "2: error -32602 status null",
            "transcript answers 2: true",
        ],
        &[
            "3: error null status \"cancelled\"",
            "transcript answers 2: false",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_result_not_final_answers_a_finished_task_with_its_status() {
    check(
        Mutant::TaskResultNotFinal,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            let arguments = json!({"name": "slow",
                "arguments": {"steps": 1, "step_ms": 1000}, "task": {"ttl": 60000}});
            let created = conn.request(json!(1), "tools/call", arguments).await;
            let task = json!({"taskId": created["result"]["task"]["taskId"]});
            tokio::time::sleep(Duration::from_secs(2)).await;
            let polled = conn.request(json!(2), "tasks/get", task.clone()).await;
            let result = conn.request(json!(3), "tasks/result", task).await;
            let last = sent(&core).last().cloned().unwrap();
            assert_eq!(last, result, "the transcript records the answer sent");
            vec![
                format!("tasks/get: {}", polled["result"]["status"]),
                format!(
                    "tasks/result: {} status {}",
                    result["result"]["content"][0]["text"], result["result"]["status"]
                ),
            ]
        },
        &[
            "tasks/get: \"completed\"",
            "tasks/result: \"completed 1 steps\" status null",
        ],
        &[
            "tasks/get: \"completed\"",
            "tasks/result: null status \"completed\"",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn unknown_task_cancel_acked_acknowledges_a_2026_cancel_of_no_task() {
    check(
        Mutant::UnknownTaskCancelAcked,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
            let params = json!({"taskId": "tsk-00000000",
                "_meta": {"io.modelcontextprotocol/clientCapabilities": tasks}});
            let answer = conn.request(json!(1), "tasks/cancel", params).await;
            let last = sent(&core).last().cloned().unwrap();
            assert_eq!(last, answer, "the transcript records the answer sent");
            vec![format!(
                "error {} result {}",
                answer["error"]["code"], answer["result"]
            )]
        },
        &["error -32602 result null"],
        &["error null result {\"resultType\":\"complete\"}"],
    )
    .await;
}

/// Two 2025-11-25 tasks (requests 1 and 2): the task id each handle names.
async fn two_task_ids(mutant: Option<Mutant>) -> Vec<String> {
    let (core, mut conn) = start(mutant, Revision::V2025_11_25);
    conn.initialize().await;
    let mut seen = Vec::new();
    for request in [1, 2] {
        let arguments = json!({"name": "slow",
            "arguments": {"steps": 1, "step_ms": 1000}, "task": {"ttl": 60000}});
        let created = conn.request(json!(request), "tools/call", arguments).await;
        let last = sent(&core).last().cloned().unwrap();
        assert_eq!(last, created, "the transcript records the handle sent");
        seen.push(format!(
            "{request}: {}",
            created["result"]["task"]["taskId"]
        ));
    }
    seen
}

#[tokio::test(start_paused = true)]
async fn task_id_integer_names_a_task_by_its_number() {
    check(
        Mutant::TaskIdInteger,
        two_task_ids,
        &["1: \"tsk-a0565851\"", "2: \"tsk-c33d9190\""],
        &["1: 1", "2: 2"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_id_from_request_names_a_task_by_its_request_id() {
    check(
        Mutant::TaskIdFromRequest,
        two_task_ids,
        &["1: \"tsk-a0565851\"", "2: \"tsk-c33d9190\""],
        &["1: \"1\"", "2: \"2\""],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_ids_repeat_names_every_task_as_the_first() {
    check(
        Mutant::TaskIdsRepeat,
        two_task_ids,
        &["1: \"tsk-a0565851\"", "2: \"tsk-c33d9190\""],
        &["1: \"tsk-a0565851\"", "2: \"tsk-a0565851\""],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn reused_id_unflagged_records_no_2025_reuse() {
    check(
        Mutant::ReusedIdUnflagged,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            conn.call(json!(7), "echo", json!({"text": "once"})).await;
            let second = conn.call(json!(7), "echo", json!({"text": "twice"})).await;
            vec![
                format!("second: {}", second["result"]["content"][0]["text"]),
                format!("violations {:?}", rules(&core)),
            ]
        },
        &["second: \"twice\"", "violations [\"reused-id\"]"],
        &["second: \"twice\"", "violations []"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn in_flight_id_accepted_serves_a_clashing_request() {
    check(
        Mutant::InFlightIdAccepted,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let wait = json!({"name": "wait_gate", "arguments": {"gate": "g"}});
            conn.send_request(json!(7), "tools/call", wait).await;
            core.handlers.wait_in_flight("wait_gate").await;
            let echo = json!({"name": "echo", "arguments": {"text": "clash"}});
            conn.send_request(json!(7), "tools/call", echo).await;
            let answer = conn.recv().await;
            let last = sent(&core).last().cloned().unwrap();
            assert_eq!(last, answer, "the transcript records the answer sent");
            core.gates.open("g");
            let gate = conn.try_recv(Duration::from_secs(60)).await;
            let text = |message: &Value| message["result"]["content"][0]["text"].clone();
            vec![
                format!(
                    "id 7: error {} result {}",
                    answer["error"]["code"],
                    text(&answer)
                ),
                format!("then: {:?}", gate.as_ref().map(text)),
                format!("violations {:?}", rules(&core)),
            ]
        },
        &[
            "id 7: error -32600 result null",
            "then: Some(String(\"gate g opened\"))",
            "violations [\"reused-id\"]",
        ],
        // The reuse is still recorded: the mutant changes what the server does, not the record.
        // The clashing request took over the id, so the first one's answer is lost.
        &[
            "id 7: error null result \"clash\"",
            "then: None",
            "violations [\"reused-id\"]",
        ],
    )
    .await;
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

// The command line.

fn binary() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-testserver"));
    command.env_remove(MUTANT_VAR);
    command
}

#[test]
fn list_mutants_prints_name_tab_rule_one_line_each() {
    let output = binary().arg("--list-mutants").output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout, mutants::listing());
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), Mutant::ALL.len());
    assert!(lines.len() >= 12);
    for (line, mutant) in lines.iter().zip(Mutant::ALL) {
        let (name, rule) = line.split_once('\t').expect("NAME<TAB>RULE");
        assert_eq!(name, mutant.name());
        assert!(!rule.contains('\t') && rule.contains("(20"), "{line}");
    }
    assert!(lines[0].starts_with("cancel-ignored\t"), "{}", lines[0]);
}

#[test]
fn an_unknown_mutant_exits_2_and_lists_the_known_ones() {
    let by_flag = binary()
        .args(["--mutant", "cancel-ignord"])
        .output()
        .unwrap();
    let by_var = binary().env(MUTANT_VAR, "nope").output().unwrap();
    for (output, prefix) in [
        (
            by_flag,
            "mcp-testserver: error: --mutant: unknown mutant `cancel-ignord`",
        ),
        (
            by_var,
            "mcp-testserver: error: MDBOOK_SNIPPETS_MUTANT: unknown mutant `nope`",
        ),
    ] {
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.starts_with(prefix), "{stderr}");
        assert!(
            stderr.contains("; known mutants: cancel-ignored, cancel-still-answered, "),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
    }
}

/// The binary over stdio with `args`, and `$MDBOOK_SNIPPETS_MUTANT` set to `variable` or unset
/// (through `env`, so the test's own environment stays as it is); the progress values of one
/// `slow` call.
async fn binary_progress(args: &[&str], variable: Option<&str>) -> Vec<Value> {
    let setting = match variable {
        Some(name) => format!("{MUTANT_VAR}={name}"),
        None => format!("--unset={MUTANT_VAR}"),
    };
    let mut command = vec![setting.as_str(), env!("CARGO_BIN_EXE_mcp-testserver")];
    command.extend_from_slice(args);
    let mut conn = Conn::spawn("env", &command, Revision::V2025_11_25);
    conn.initialize().await;
    let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 1},
        "_meta": {"progressToken": "t"}});
    conn.send_request(json!(1), "tools/call", params).await;
    let mut progress = Vec::new();
    loop {
        let message = conn.recv().await;
        if message.get("id").is_some() {
            break;
        }
        progress.push(message["params"]["progress"].clone());
    }
    assert_eq!(conn.finish().await, Some(0));
    progress
}

#[tokio::test]
async fn the_binary_breaks_the_rule_named_by_flag_or_variable_and_the_flag_wins() {
    assert_eq!(binary_progress(&[], None).await, [json!(1), json!(2)]);
    let backwards = [json!(2), json!(1)];
    let flag = ["--mutant", "progress-backwards"];
    assert_eq!(binary_progress(&flag, None).await, backwards);
    assert_eq!(
        binary_progress(&[], Some("progress-backwards")).await,
        backwards
    );
    assert_eq!(
        binary_progress(&flag, Some("progress-token-retyped")).await,
        backwards
    );
}

// The book: every mutant is killed by at least one snippet that claims it.

#[test]
fn every_mutant_is_claimed_by_a_kills_word_in_the_book_and_every_claim_names_a_mutant() {
    let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book");
    let mut claimed = std::collections::BTreeMap::<String, Vec<String>>::new();
    let mut chapters: Vec<_> = std::fs::read_dir(&book)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    chapters.sort();
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).unwrap();
        let name = chapter.file_name().unwrap().to_string_lossy().into_owned();
        for (index, line) in text.lines().enumerate() {
            let Some(info) = line.trim_start().strip_prefix("```") else {
                continue;
            };
            for word in info.split(',').map(str::trim) {
                if let Some(mutant) = word.strip_prefix("kills=") {
                    claimed
                        .entry(mutant.to_owned())
                        .or_default()
                        .push(format!("{name}:{}", index + 1));
                }
            }
        }
    }
    let unknown: Vec<_> = claimed
        .iter()
        .filter(|(name, _)| name.parse::<Mutant>().is_err())
        .collect();
    assert!(unknown.is_empty(), "kills= names no mutant: {unknown:?}");
    let unclaimed: Vec<&str> = Mutant::ALL
        .iter()
        .map(|mutant| mutant.name())
        .filter(|name| !claimed.contains_key(*name))
        .collect();
    assert!(
        unclaimed.is_empty(),
        "no book snippet says it kills: {unclaimed:?}"
    );
}
