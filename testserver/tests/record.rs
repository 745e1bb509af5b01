//! `mcp-testserver --record FILE`, through the built binary over stdio and over HTTP: every
//! transcript entry lands in FILE as a flushed JSON line `{"at_ms", "direction", "message"}`,
//! in the transcript's order with times that never go back, whatever the client or a SIGKILL
//! does; a FILE that cannot be created is refused with exit code 2.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::loopback::tools_call_2026;
use common::process::{LIMIT, scratch, spawn_http};
use common::{assert_refused, stdio_binary, text};
use mcp_testserver::Revision;
use serde_json::{Value, json};

/// The record's lines, parsed; each has the three keys, and `at_ms` never decreases.
fn read_record(path: &std::path::Path) -> Vec<Value> {
    let content = std::fs::read_to_string(path).expect("reading the record");
    let lines: Vec<Value> = content
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let mut last = 0;
    for line in &lines {
        let at_ms = line["at_ms"].as_u64().unwrap_or_else(|| panic!("{line}"));
        assert!(at_ms >= last, "at_ms goes back: {content}");
        assert!(at_ms > 1_700_000_000_000, "unix epoch ms: {line}");
        last = at_ms;
        assert!(
            matches!(line["direction"].as_str(), Some("in" | "out")),
            "{line}"
        );
        assert!(line.get("message").is_some(), "{line}");
    }
    lines
}

/// A labelled test of one record line.
type Wanted<'a> = (&'a str, &'a dyn Fn(&Value) -> bool);

/// Where each of `wanted` first matches a line of `lines`; the positions must increase.
fn assert_in_order(lines: &[Value], wanted: &[Wanted<'_>]) {
    let mut from = 0;
    for (label, matches) in wanted {
        let at = lines[from..]
            .iter()
            .position(matches)
            .unwrap_or_else(|| panic!("{label} not found after line {from}: {lines:#?}"));
        from += at + 1;
    }
}

#[tokio::test]
async fn over_stdio_the_record_holds_a_call_and_its_cancel_in_order() {
    let directory = scratch("record-stdio");
    let path = directory.join("record.jsonl");
    let mut conn = stdio_binary(
        &[
            "--record",
            path.to_str().unwrap(),
            "--transcript-limit",
            "2",
        ],
        Revision::V2025_11_25,
    );
    conn.initialize().await;
    conn.send_request(
        json!(1),
        "tools/call",
        json!({"name": "wait_gate", "arguments": {"gate": "g"}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    conn.cancel(json!(1)).await;
    let echo = conn.call(json!(2), "echo", json!({"text": "after"})).await;
    assert_eq!(text(&echo), "after");
    assert_eq!(conn.finish().await, Some(0));
    let lines = read_record(&path);
    assert_in_order(
        &lines,
        &[
            ("initialize", &|l| l["message"]["method"] == "initialize"),
            ("its answer", &|l| {
                l["direction"] == "out" && l["message"]["id"] == 0
            }),
            ("the call", &|l| {
                l["direction"] == "in" && l["message"]["id"] == 1
            }),
            ("the cancel", &|l| {
                l["message"]["method"] == "notifications/cancelled"
                    && l["message"]["params"]["requestId"] == 1
            }),
            ("the echo", &|l| {
                l["direction"] == "in" && l["message"]["id"] == 2
            }),
            ("its answer", &|l| {
                l["direction"] == "out" && l["message"]["id"] == 2
            }),
        ],
    );
    assert!(
        !lines
            .iter()
            .any(|l| l["message"]["transcript"] == "dropped"),
        "the record is not bounded by --transcript-limit: {lines:#?}"
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_record_holds_a_call_and_its_cancel_and_survives_sigkill() {
    let directory = scratch("record-http");
    let path = directory.join("record.jsonl");
    let (mut child, address) =
        spawn_http(&[], &["--record", path.to_str().unwrap()], Stdio::null()).await;
    let url = format!("http://{address}/mcp");
    let reply = tools_call_2026(&url, 1, "echo", json!({"text": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    // A 2026-07-28 client cancels by closing the response stream: the timeout drops it.
    let waiting = tools_call_2026(&url, 2, "wait_gate", json!({"gate": "never"}))
        .timeout(Duration::from_millis(300))
        .send()
        .await;
    assert!(waiting.is_err(), "the gate never opens");
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !std::fs::read_to_string(&path)
        .unwrap()
        .contains("disconnect")
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no disconnect recorded"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Killed outright, the server flushes nothing more: the record has what it had.
    child.kill().await.unwrap();
    let lines = read_record(&path);
    assert_in_order(
        &lines,
        &[
            ("the echo", &|l| {
                l["direction"] == "in" && l["message"]["id"] == 1
            }),
            ("its answer", &|l| {
                l["direction"] == "out" && l["message"]["id"] == 1
            }),
            ("the call", &|l| {
                l["direction"] == "in" && l["message"]["id"] == 2
            }),
            ("the cancel", &|l| {
                l["message"]["event"] == "disconnect" && l["message"]["requestId"] == 2
            }),
        ],
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_record_file_that_cannot_be_created_is_refused_with_exit_code_2() {
    for args in [
        &["--record", "/nonexistent-directory/record.jsonl"][..],
        &[
            "--http",
            "127.0.0.1:0",
            "--record",
            "/nonexistent-directory/r",
        ][..],
        &["--record"][..],
    ] {
        assert_refused(args, "--record");
    }
}
