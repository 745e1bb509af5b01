//! One client against another's state (issue 33, item 10): tasks, gates, transcripts, handler
//! log lines and violations belong to the binding context that made them (a connection, a
//! 2025-11-25 HTTP session, or the shared stateless context of 2026-07-28 HTTP), so another
//! client can neither list, get, await nor cancel a task, release a wait, read a message, a
//! handler's line or a violation of it, nor push its violations out of the log; an unknown and
//! another's task get the same -32602. Finished tasks are freed after their `ttl` and bounded in
//! count.

use common::Conn;
use mcp_testserver_core::Revision;
use mcp_testserver_core::server::{MAX_FINISHED_TASKS, MAX_RUNNING_TASKS, MAX_TTL_MS};
use mcp_testserver_core::violations::KEPT_VIOLATIONS_PER_CONTEXT;

use super::*;

const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Two connections (contexts) on one in-process core, ready under `revision`.
async fn two_clients(core: &Arc<Core>, revision: Revision) -> (Conn, Conn) {
    let mut first = Conn::serve(core.clone(), revision);
    let mut second = Conn::serve(core.clone(), revision);
    first.initialize().await;
    second.initialize().await;
    (first, second)
}

/// `params` with the tasks extension declared (2026-07-28), or as they are (2025-11-25).
fn with_tasks(revision: Revision, mut params: Value) -> Value {
    if revision == Revision::V2026_07_28 {
        params["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities":
            {"extensions": {TASKS_EXTENSION: {}}}});
    }
    params
}

/// Starts a `slow` task with `ttl` (2025-11-25; 2026-07-28 ignores it); its id.
async fn start_task(conn: &mut Conn, id: i64, ttl: u64, steps: u64, step_ms: u64) -> String {
    let revision = conn.revision();
    let params = json!({"name": "slow", "arguments": {"steps": steps, "step_ms": step_ms},
                        "task": {"ttl": ttl}});
    let created = conn
        .request(json!(id), "tools/call", with_tasks(revision, params))
        .await;
    let task = match revision {
        Revision::V2025_11_25 => &created["result"]["task"],
        Revision::V2026_07_28 => &created["result"],
    };
    task["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {created}"))
        .to_owned()
}

#[tokio::test]
async fn another_connection_cannot_list_get_await_or_cancel_a_task() {
    for revision in Revision::ALL {
        let core = Arc::new(Core::default());
        let (mut owner, mut other) = two_clients(&core, revision).await;
        let task_id = start_task(&mut owner, 1, 60_000, 100, 100).await;
        let task = |id: &str| with_tasks(revision, json!({"taskId": id}));
        let mut methods = vec!["tasks/get", "tasks/cancel"];
        if revision == Revision::V2025_11_25 {
            methods.push("tasks/result");
            let listed = other.request(json!(1), "tasks/list", json!({})).await;
            assert_eq!(listed["result"]["tasks"], json!([]), "{revision}: {listed}");
        }
        for (id, method) in (2..).zip(&methods) {
            let theirs = other.request(json!(id), method, task(&task_id)).await;
            let unknown = other.request(json!(id + 10), method, task("tsk-0")).await;
            assert_eq!(
                theirs["error"]["code"], -32602,
                "{revision} {method}: {theirs}"
            );
            assert_eq!(
                theirs["error"]["message"]
                    .as_str()
                    .map(|m| m.replace(&task_id, "ID")),
                unknown["error"]["message"]
                    .as_str()
                    .map(|m| m.replace("tsk-0", "ID")),
                "{revision} {method}: another's task reads as an unknown one"
            );
        }
        let own = owner.request(json!(2), "tasks/get", task(&task_id)).await;
        let status = match revision {
            Revision::V2025_11_25 => &own["result"]["status"],
            Revision::V2026_07_28 => &own["result"]["status"],
        };
        assert_eq!(
            status, "working",
            "{revision}: the owner's task ran on: {own}"
        );
    }
}

#[tokio::test]
async fn another_connections_open_gate_does_not_release_a_wait() {
    let core = Arc::new(Core::default());
    let (mut waiter, mut other) = two_clients(&core, Revision::V2025_11_25).await;
    let gate = json!({"name": "wait_gate", "arguments": {"gate": "g"}});
    waiter.send_request(json!(1), "tools/call", gate).await;
    let opened = other
        .call(json!(1), "open_gate", json!({"gate": "g"}))
        .await;
    assert!(opened.get("result").is_some(), "{opened}");
    assert_eq!(
        waiter.try_recv(Duration::from_millis(300)).await,
        None,
        "another connection's open_gate released the wait"
    );
    waiter
        .call(json!(2), "open_gate", json!({"gate": "g"}))
        .await;
    let answer = waiter.response(&json!(1)).await;
    assert_eq!(answer["result"]["content"][0]["text"], "gate g opened");
    // What the server opens (the harness's `open_gate`) every context sees.
    other
        .send_request(
            json!(2),
            "tools/call",
            json!({"name": "wait_gate", "arguments": {"gate": "s"}}),
        )
        .await;
    core.gates.open("s");
    assert!(other.response(&json!(2)).await.get("result").is_some());
}

#[tokio::test]
async fn a_transcript_shows_only_its_own_connections_messages() {
    let core = Arc::new(Core::default());
    let (mut first, mut second) = two_clients(&core, Revision::V2025_11_25).await;
    first
        .call(json!(1), "echo", json!({"text": "secret-of-first"}))
        .await;
    let theirs = second.call(json!(1), "transcript", json!({})).await;
    assert!(!theirs.to_string().contains("secret-of-first"), "{theirs}");
    let own = first.call(json!(2), "transcript", json!({})).await;
    assert!(own.to_string().contains("secret-of-first"), "{own}");
    // The operator's view (the artifacts) holds both.
    let whole = core.transcript.to_json().to_string();
    assert!(whole.contains("secret-of-first") && whole.contains("\"transcript\""));
}

/// The handler log's lines as `handler_log` shows them to `conn`.
async fn handler_log(conn: &mut Conn, id: i64) -> Vec<String> {
    let answer = conn.call(json!(id), "handler_log", json!({})).await;
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    text.lines().map(str::to_owned).collect()
}

/// Before, `handler_log` showed every client's lines (another client's tool names and ids, and
/// what its handlers did).
#[tokio::test]
async fn a_handler_log_shows_only_its_own_connections_lines() {
    let core = Arc::new(Core::default());
    let (mut first, mut second) = two_clients(&core, Revision::V2025_11_25).await;
    first.call(json!(71), "echo", json!({"text": "x"})).await;
    second.call(json!(5), "echo", json!({"text": "y"})).await;
    assert_eq!(
        handler_log(&mut second, 6).await,
        ["echo#5 started", "echo#5 completed"]
    );
    assert_eq!(
        handler_log(&mut first, 72).await,
        ["echo#71 started", "echo#71 completed"]
    );
    // The operator's view (the in-process API) holds both.
    let whole = core.handlers.entries();
    assert!(whole.contains(&"echo#71 started".to_owned()), "{whole:?}");
    assert!(whole.contains(&"echo#5 started".to_owned()), "{whole:?}");
}

/// With `--handler-log-all` (`HistoryLimits::handler_log_of_every_client`), the operator's
/// choice, a session of the test's own sees the lines of a client it does not control (an agent
/// framework's session); the server's own lines stay out.
#[tokio::test]
async fn the_operator_can_show_every_clients_handler_log_lines() {
    let core = Arc::new(Core::default());
    core.limit_history_to(mcp_testserver_core::server::HistoryLimits {
        handler_log_of_every_client: true,
        ..Default::default()
    });
    let (mut first, mut second) = two_clients(&core, Revision::V2025_11_25).await;
    first.call(json!(71), "echo", json!({"text": "x"})).await;
    core.handlers.log("a line of the server's own".to_owned());
    assert_eq!(
        handler_log(&mut second, 6).await,
        ["echo#71 started", "echo#71 completed"]
    );
}

/// A bounded handler log drops the oldest lines of any client, but each client's marker counts
/// its own dropped lines only.
#[tokio::test]
async fn a_handler_logs_dropped_marker_counts_its_own_lines() {
    let core = Arc::new(Core::default());
    core.limit_history(4);
    let (mut first, mut second) = two_clients(&core, Revision::V2025_11_25).await;
    second.call(json!(1), "echo", json!({"text": "y"})).await;
    for id in 1..=3 {
        first.call(json!(id), "echo", json!({"text": "x"})).await;
    }
    // Second's 2 lines and 2 of first's 6 went (the log keeps 4).
    assert_eq!(
        handler_log(&mut second, 2).await,
        ["... 2 earlier lines dropped"]
    );
    // First's: its 6 lines and its `handler_log` call's first line (kept, not shown) against
    // second's 2 `handler_log` lines, in a log of 4.
    assert_eq!(
        handler_log(&mut first, 4).await,
        ["... 5 earlier lines dropped", "echo#3 completed"]
    );
}

/// Before, the `violations` tool showed every client's violations: one client's malformed
/// messages were another's.
#[tokio::test]
async fn violations_show_only_their_own_connections() {
    for revision in Revision::ALL {
        let core = Arc::new(Core::default());
        let (mut first, mut second) = two_clients(&core, revision).await;
        first.send_line("not json").await;
        let _ = first.recv().await;
        assert_eq!(second.violation_rules(json!(1)).await, Vec::<String>::new());
        assert_eq!(first.violation_rules(json!(1)).await, ["parse-error"]);
        // The server's own log (its report on stderr, the in-process API) holds it.
        let rules: Vec<String> = core.violations.list().into_iter().map(|v| v.rule).collect();
        assert_eq!(rules, ["parse-error"], "{revision}");
    }
}

/// A client flooding violations fills its own log only: another client's first violation is
/// still shown in full (before, past the server's first 1000 it was only counted).
#[tokio::test]
async fn a_flood_of_violations_does_not_push_out_another_connections() {
    let core = Arc::new(Core::default());
    let (mut first, mut second) = two_clients(&core, Revision::V2025_11_25).await;
    for _ in 0..1000 {
        first.send_line("not json").await;
    }
    for _ in 0..1000 {
        let _ = first.recv().await;
    }
    second.send_line("not json either").await;
    let _ = second.recv().await;
    let answer = second.call(json!(1), "violations", json!({})).await;
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    let list: Vec<Value> = serde_json::from_str(text).unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["rule"], "parse-error");
    assert!(
        list[0]["detail"]
            .as_str()
            .unwrap()
            .starts_with("unparseable line"),
        "{list:?}"
    );
    // The flooder's own log keeps its first ones in full and counts the rest.
    let answer = first.call(json!(1), "violations", json!({})).await;
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    let list: Vec<Value> = serde_json::from_str(text).unwrap();
    assert_eq!(list.len(), KEPT_VIOLATIONS_PER_CONTEXT + 1);
    assert_eq!(
        list[KEPT_VIOLATIONS_PER_CONTEXT]["detail"],
        format!(
            "and {} more, not kept (the log keeps the first {KEPT_VIOLATIONS_PER_CONTEXT} in full)",
            1000 - KEPT_VIOLATIONS_PER_CONTEXT
        )
    );
    assert_eq!(core.violations.total(), 1001);
}

#[tokio::test]
async fn finished_tasks_are_freed_after_their_ttl_and_a_ttl_is_bounded() {
    let core = Arc::new(Core::default());
    let (mut owner, _) = two_clients(&core, Revision::V2025_11_25).await;
    let task_id = start_task(&mut owner, 1, 200, 1, 1).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let got = owner
        .request(json!(2), "tasks/get", json!({"taskId": task_id}))
        .await;
    assert_eq!(got["result"]["status"], "completed", "{got}");
    assert_eq!(got["result"]["ttl"], 200, "{got}");
    tokio::time::sleep(Duration::from_millis(600)).await;
    let listed = owner.request(json!(3), "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    let expired = owner
        .request(json!(4), "tasks/get", json!({"taskId": task_id}))
        .await;
    assert_eq!(expired["error"]["code"], -32602, "{expired}");
    assert_eq!(core.task_count(), 0, "freed, not only hidden");
    let params = json!({"name": "slow", "arguments": {"steps": 1, "step_ms": 1},
                        "task": {"ttl": 1_000_000_000_000u64}});
    let created = owner.request(json!(5), "tools/call", params).await;
    assert_eq!(created["result"]["task"]["ttl"], MAX_TTL_MS, "{created}");
}

#[tokio::test]
async fn finished_tasks_are_bounded_in_count_and_go_with_their_connection() {
    let core = Arc::new(Core::default());
    let (mut owner, _) = two_clients(&core, Revision::V2025_11_25).await;
    let count = MAX_FINISHED_TASKS + 200;
    for id in 1..=count {
        let params = json!({"name": "slow", "arguments": {"steps": 1, "step_ms": 0},
                            "task": {"ttl": 60_000}});
        owner.send_request(json!(id), "tools/call", params).await;
    }
    owner.response(&json!(count)).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        core.task_count() <= MAX_FINISHED_TASKS + 1,
        "{} tasks kept after {count}",
        core.task_count()
    );
    owner.finish().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        core.task_count(),
        0,
        "a closed connection's tasks are freed"
    );
}

#[tokio::test]
async fn running_tasks_are_bounded_per_context() {
    let core = Arc::new(Core::default());
    let (mut owner, mut other) = two_clients(&core, Revision::V2025_11_25).await;
    let long = json!({"name": "slow", "arguments": {"steps": 100, "step_ms": 1000},
                      "task": {"ttl": 60_000}});
    for id in 1..=MAX_RUNNING_TASKS {
        owner
            .send_request(json!(id), "tools/call", long.clone())
            .await;
    }
    let last = owner.response(&json!(MAX_RUNNING_TASKS)).await;
    assert!(last["result"]["task"]["taskId"].is_string(), "{last}");
    let refused = owner.request(json!(0), "tools/call", long.clone()).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("tasks are running already")),
        "{refused}"
    );
    // Another context is not held up by this one's tasks.
    let theirs = other.request(json!(1), "tools/call", long).await;
    assert!(theirs["result"]["task"]["taskId"].is_string(), "{theirs}");
}
