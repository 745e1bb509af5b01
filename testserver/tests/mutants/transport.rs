//! Mutants of the end of a connection: end of input over stdio, a closed response stream over
//! Streamable HTTP (2026-07-28: the cancel; 2025-11-25: not one).

use super::*;

/// Once `wait_gate` (gate "g") runs, closes its response stream by dropping the pending POST,
/// waits for the transcript's `disconnect`, gives a cancel a moment to take effect, then opens
/// the gate (only a handler still running sees it) and waits until no handler runs.
async fn close_the_stream_then_open_the_gate<T>(core: &Core, pending: tokio::task::JoinHandle<T>) {
    within(core.handlers.wait_in_flight("wait_gate")).await;
    pending.abort();
    within(async {
        while !core.transcript.to_json().to_string().contains("disconnect") {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    core.gates.open("g");
    within(core.handlers.wait_idle()).await;
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
        let server = serve_on_loopback(core.clone(), Limits::in_process()).await;
        let url = server.url();
        let request = tools_call_2026(&url, 5, "wait_gate", json!({"gate": "g"}));
        let pending = tokio::spawn(request.send());
        close_the_stream_then_open_the_gate(&core, pending).await;
        server.stop();
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
        let server = serve_on_loopback(core.clone(), Limits::in_process()).await;
        let url = server.url();
        let (_client, _session, pending) = legacy_session_waiting_on_gate(&url).await;
        close_the_stream_then_open_the_gate(&core, pending).await;
        server.stop();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_keeps_handlers_leaves_a_deleted_sessions_handler_running() {
    async fn scenario(mutant: Option<Mutant>) -> Vec<String> {
        let core = Arc::new(Core::default().with_mutant(mutant));
        let server = serve_on_loopback(core.clone(), Limits::in_process()).await;
        let url = server.url();
        let (client, session, pending) = legacy_session_waiting_on_gate(&url).await;
        within(core.handlers.wait_in_flight("wait_gate")).await;
        let delete = legacy_request(&client, reqwest::Method::DELETE, &url, Some(&session));
        let deleted = within(delete.send()).await;
        assert!(
            deleted.unwrap().status().is_success(),
            "the DELETE was refused"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        core.gates.open("g"); // only a handler still running sees its gate open
        within(core.handlers.wait_idle()).await;
        pending.abort();
        server.stop();
        core.handlers.entries()
    }
    check(
        Mutant::DeleteKeepsHandlers,
        scenario,
        &["wait_gate#2 started", "wait_gate#2 stopped by cancel"],
        &["wait_gate#2 started", "wait_gate#2 completed"],
    )
    .await;
}

/// A request to `url` as a 2025-11-25 client sends it (with `session`'s headers when given).
fn legacy_request(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    session: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut request = client
        .request(method, url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    request
}

/// A raw 2025-11-25 session on the HTTP server at `url` (initialize, initialized) and its
/// `tools/call` of `wait_gate` on gate "g" (id 2), sent and pending: the client, the session
/// id and the call's task.
async fn legacy_session_waiting_on_gate(
    url: &str,
) -> (
    reqwest::Client,
    String,
    tokio::task::JoinHandle<reqwest::Result<reqwest::Response>>,
) {
    let client = reqwest::Client::new();
    let post = |body: Value, session: Option<&str>| {
        legacy_request(&client, reqwest::Method::POST, url, session).body(body.to_string())
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
    (client, session, pending)
}
