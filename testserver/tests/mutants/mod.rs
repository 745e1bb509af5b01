//! The mutants (`mcp_testserver_core::server::mutants`): each scenario runs once on the server as
//! it is and once with one mutant, and shows the rule kept, then broken on the wire, while the
//! transcript still records what the server really sent. Then the command line
//! (`--list-mutants`, `--mutant`, `$MDBOOK_SNIPPETS_MUTANT`, an unknown name), and the book:
//! every mutant is killed by at least one snippet that says so with `kills=NAME`. One module per
//! concern; this file holds what they share.

use crate::common;

mod book;
mod cancellation;
mod command_line;
mod ids;
mod lifecycle;
mod progress;
mod tasks;
mod transport;

use std::sync::Arc;
use std::time::Duration;

use common::BINARY;
use common::loopback::{serve_on_loopback, tools_call_2026};
use mcp_testserver::http::Limits;
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
    started_task(mutant, "slow", 10).await
}

/// The same with the task-capable tool `name` (`slow`, `ignore_cancel`) of `steps` steps of 1 s.
async fn started_task(mutant: Option<Mutant>, name: &str, steps: u64) -> (Arc<Core>, Conn, Value) {
    let (core, mut conn) = start(mutant, Revision::V2025_11_25);
    conn.initialize().await;
    let arguments = json!({"name": name,
        "arguments": {"steps": steps, "step_ms": 1000}, "task": {"ttl": 60000}});
    let created = conn.request(json!(1), "tools/call", arguments).await;
    let task = json!({"taskId": created["result"]["task"]["taskId"]});
    (core, conn, task)
}

/// The transcript's last message sent is `answer`: a mutant changes behaviour, and the
/// transcript stays truthful about what was sent.
#[track_caller]
fn assert_sent_last(core: &Core, answer: &Value) {
    let last = sent(core).last().cloned().unwrap();
    assert_eq!(
        &last, answer,
        "the transcript records the message sent last"
    );
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

/// `future`, or a panic after 10 s of real time.
async fn within<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .expect("timed out after 10 s")
}
