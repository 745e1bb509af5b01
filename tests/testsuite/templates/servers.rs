//! The `rebuild` server templates (rmcp, Python, TypeScript), each driven by rmcp's client over
//! its stdin and stdout: a call answered, one cancelled while its shards are fetched, one
//! cancelled during the blocking merge (and, for TypeScript, one running when the connection
//! closes, which aborts its handler too). The log on
//! the server's stderr shows what stopped and that the lease was given back; the recorded wire
//! shows that no cancelled call was answered. The three must show the same run.

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, RequestId, ServerResult};
use rmcp::service::{PeerRequestOptions, RequestHandle, RoleClient};
use serde_json::Value;

use super::build::{python_template, rust_template, typescript_template};
use super::served::{Direction, Served};
use super::shown::check_shown;

/// `tools/call rebuild`, sent as a call the test can cancel.
async fn start_rebuild(served: &Served<()>) -> RequestHandle<RoleClient> {
    let request =
        ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new("rebuild")));
    let options = PeerRequestOptions::no_options();
    served
        .client
        .send_cancellable_request(request, options)
        .await
        .expect("sending tools/call")
}

/// The log as the page shows it: indented, and each run of `shard N: EVENT` lines (the three
/// shards run in parallel, in any order) as one `shards 1, 2, 3: EVENT` line per event.
fn shown_log(lines: &[String]) -> Vec<String> {
    let mut shown: Vec<String> = Vec::new();
    let mut shards: Vec<(String, Vec<String>)> = Vec::new();
    let flush = |shards: &mut Vec<(String, Vec<String>)>, shown: &mut Vec<String>| {
        for (event, mut numbers) in shards.drain(..) {
            numbers.sort();
            shown.push(format!("    shards {}: {event}", numbers.join(", ")));
        }
    };
    for line in lines {
        match line
            .strip_prefix("shard ")
            .and_then(|rest| rest.split_once(": "))
        {
            Some((number, event)) => match shards.iter_mut().find(|(seen, _)| seen == event) {
                Some((_, numbers)) => numbers.push(number.to_owned()),
                None => shards.push((event.to_owned(), vec![number.to_owned()])),
            },
            None => {
                flush(&mut shards, &mut shown);
                shown.push(format!("    {line}"));
            }
        }
    }
    flush(&mut shards, &mut shown);
    shown
}

/// Cancels `call` as a user pressing stop does, and returns the server's log from then until it
/// released its lease, shown as the page shows it.
async fn press_stop(
    served: &mut Served<()>,
    call: RequestHandle<RoleClient>,
    shown: &mut Vec<String>,
) -> Vec<String> {
    call.cancel(Some("user pressed stop".to_owned()))
        .await
        .expect("sending the cancel");
    shown.push("→ notifications/cancelled".to_owned());
    let after = served.log_until("lease released").await;
    shown.extend(shown_log(&after));
    after
}

/// Asserts that the shard lines of `log` are `fetching` then `event` for each of the three.
#[track_caller]
fn assert_shards(log: &[String], event: &str) {
    for shard in 1..=3 {
        let fetching = log
            .iter()
            .position(|line| *line == format!("shard {shard}: fetching"));
        let ended = log
            .iter()
            .position(|line| *line == format!("shard {shard}: {event}"));
        assert!(
            fetching.is_some() && fetching < ended,
            "shard {shard} not {event}: {log:#?}"
        );
    }
}

fn responses_to(served: &Served<()>, id: &RequestId) -> Vec<Value> {
    let id = serde_json::to_value(id).expect("an id is JSON");
    served
        .messages()
        .into_iter()
        .filter(|(direction, message)| *direction == Direction::ToClient && message["id"] == id)
        .map(|(_, message)| message)
        .collect()
}

/// Drives one `rebuild` server template and checks its run; what it shows is returned, with
/// the connection, still open.
async fn drive(command: std::process::Command) -> (String, Served<()>) {
    let mut served = Served::start(command, ()).await;
    let mut shown = Vec::new();

    shown.push("→ tools/call rebuild".to_owned());
    let answered = start_rebuild(&served).await;
    let response = answered
        .await_response()
        .await
        .expect("rebuild is answered");
    let log = served.log_until("lease released").await;
    let ServerResult::CallToolResult(result) = response else {
        panic!("not a tool result: {response:?}")
    };
    let text = result.content[0].as_text().map(|text| text.text.clone());
    assert_eq!(text.as_deref(), Some("rebuilt"), "{result:?}");
    assert_shards(&log, "fetched");
    let merged: Vec<&String> = log
        .iter()
        .filter(|line| line.starts_with("merge: chunk"))
        .collect();
    assert_eq!(merged.len(), 5, "{log:#?}");
    assert_eq!(
        log.first().map(String::as_str),
        Some("lease taken"),
        "{log:#?}"
    );
    shown.extend(shown_log(&log));
    shown.push(format!("← result {:?}", text.unwrap_or_default()));

    shown.push(String::new());
    shown.push("→ tools/call rebuild".to_owned());
    let fetching = start_rebuild(&served).await;
    let fetching_id = fetching.id.clone();
    let mut log = served.log_until_count("shard ", 3).await;
    shown.extend(shown_log(&log));
    log.extend(press_stop(&mut served, fetching, &mut shown).await);
    assert_shards(&log, "stopped");
    assert!(
        !log.iter()
            .any(|line| line.contains("fetched") || line.starts_with("merge")),
        "{log:#?}"
    );

    shown.push(String::new());
    shown.push("→ tools/call rebuild".to_owned());
    let merging = start_rebuild(&served).await;
    let merging_id = merging.id.clone();
    let mut log = served.log_until("merge: chunk 1").await;
    shown.extend(shown_log(&log));
    log.extend(press_stop(&mut served, merging, &mut shown).await);
    assert!(
        log.iter()
            .any(|line| line.starts_with("merge: stopped before chunk ")),
        "{log:#?}"
    );
    assert!(!log.iter().any(|line| line == "merge: chunk 5"), "{log:#?}");

    for (id, when) in [
        (&fetching_id, "while fetching"),
        (&merging_id, "while merging"),
    ] {
        let answers = responses_to(&served, id);
        assert!(
            answers.is_empty(),
            "the call cancelled {when} was answered: {answers:?}"
        );
        let id = serde_json::to_value(id).expect("an id is JSON");
        let cancels = served
            .messages()
            .into_iter()
            .filter(|(direction, message)| {
                *direction == Direction::ToServer
                    && message["method"] == "notifications/cancelled"
                    && message["params"]["requestId"] == id
            });
        assert_eq!(
            cancels.count(),
            1,
            "the cancel {when} crossed the wire once"
        );
    }
    (shown.join("\n") + "\n", served)
}

/// Closes the connection while a call fetches its shards: the handler must stop as on a cancel.
async fn close_while_fetching(mut served: Served<()>) {
    let _running = start_rebuild(&served).await;
    let mut log = served.log_until_count("shard ", 3).await;
    log.extend(served.close().await);
    assert_shards(&log, "stopped");
    assert_eq!(
        log.last().map(String::as_str),
        Some("lease released"),
        "{log:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rmcp_server_stops_each_cancelled_call_and_answers_none() {
    let (shown, served) = drive(rust_template("rmcp-server")).await;
    check_shown("servers", &shown);
    assert!(served.close().await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_server_stops_each_cancelled_call_and_answers_none() {
    let (shown, served) = drive(python_template("python-server", "server.py")).await;
    check_shown("servers", &shown);
    assert!(served.close().await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_server_stops_each_cancelled_call_and_on_a_closed_connection() {
    let scratch = tempfile::Builder::new()
        .prefix("typescript-server-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating a scratch directory");
    let command = typescript_template("typescript-server", "server.ts", scratch.path());
    let (shown, served) = drive(command).await;
    check_shown("servers", &shown);
    close_while_fetching(served).await;
}
