//! The `mcp-testserver` command line, through the built binary: `--transcript-limit N` and
//! `--transcript-bytes SIZE` bound the transcript the `transcript` tool returns and say how many
//! messages it dropped, and a bad value is refused with exit code 2 before anything is served.

use crate::common;

use common::{assert_refused, stdio_binary, text};
use mcp_testserver::Revision;
use serde_json::{Value, json};

#[tokio::test]
async fn transcript_limit_keeps_the_last_n_messages_behind_a_dropped_marker() {
    let mut conn = stdio_binary(&["--transcript-limit", "4"], Revision::V2025_11_25);
    // initialize, its response, notifications/initialized: 3 messages.
    conn.initialize().await;
    for (id, word) in [(1, "one"), (2, "two"), (3, "three")] {
        let response = conn.call(json!(id), "echo", json!({"text": word})).await;
        assert_eq!(response["result"]["content"][0]["text"], word);
    }
    // 9 messages so far; the `transcript` request is the 10th, and the reply shows the last 4.
    let reply = conn.call(json!(4), "transcript", json!({})).await;
    let entries: Vec<Value> = serde_json::from_str(text(&reply)).expect("transcript JSON");
    assert_eq!(entries.len(), 5, "the marker and 4 messages: {entries:#?}");
    let marker = &entries[0]["message"];
    assert_eq!(marker["transcript"], "dropped", "{marker}");
    assert_eq!(marker["dropped"], 6, "{marker}");
    assert_eq!(marker["limit"], 4, "{marker}");
    assert!(
        marker["detail"]
            .as_str()
            .is_some_and(|detail| detail.contains("6 earlier messages dropped")),
        "{marker}"
    );
    let kept: Vec<(&str, &Value)> = entries[1..]
        .iter()
        .map(|entry| {
            (
                entry["direction"].as_str().unwrap(),
                &entry["message"]["id"],
            )
        })
        .collect();
    assert_eq!(
        kept,
        [
            ("out", &json!(2)),
            ("in", &json!(3)),
            ("out", &json!(3)),
            ("in", &json!(4))
        ],
        "the last four messages, in order"
    );
    assert_eq!(conn.finish().await, Some(0));
}

#[tokio::test]
async fn without_the_limit_nothing_is_dropped() {
    let mut conn = stdio_binary(&[], Revision::V2025_11_25);
    conn.initialize().await;
    for id in 1..=3 {
        conn.call(json!(id), "echo", json!({"text": "x"})).await;
    }
    let reply = conn.call(json!(4), "transcript", json!({})).await;
    let entries: Vec<Value> = serde_json::from_str(text(&reply)).expect("transcript JSON");
    assert_eq!(entries.len(), 10, "{entries:#?}");
    assert!(
        entries
            .iter()
            .all(|entry| entry["message"]["transcript"].is_null())
    );
    assert_eq!(conn.finish().await, Some(0));
}

#[test]
fn a_bad_transcript_limit_is_refused_with_exit_code_2() {
    for (args, expected) in [
        (
            &["--transcript-limit", "0"][..],
            "expected a positive integer",
        ),
        (
            &["--transcript-limit", "many"][..],
            "expected a positive integer",
        ),
        (
            &["--transcript-limit"][..],
            "--transcript-limit needs a number",
        ),
    ] {
        assert_refused(args, expected);
    }
}

/// `--transcript-bytes` keeps the newest messages that fit in SIZE bytes of compact JSON (here
/// 8 KiB: one 5,000-byte echo and its answer do not both fit, so the request goes).
#[tokio::test]
async fn transcript_bytes_keeps_the_newest_messages_that_fit() {
    let mut conn = stdio_binary(&["--transcript-bytes", "8K"], Revision::V2025_11_25);
    conn.initialize().await;
    let big = "b".repeat(5000);
    let response = conn.call(json!(1), "echo", json!({"text": big})).await;
    assert_eq!(text(&response), big);
    let reply = conn.call(json!(2), "transcript", json!({})).await;
    let entries: Vec<Value> = serde_json::from_str(text(&reply)).expect("transcript JSON");
    let marker = &entries[0]["message"];
    assert_eq!(marker["byteLimit"], 8192, "{marker}");
    assert_eq!(
        marker["dropped"], 4,
        "initialize, its answer, initialized, the echo request: {marker}"
    );
    let kept: Vec<&Value> = entries[1..]
        .iter()
        .map(|entry| &entry["message"]["id"])
        .collect();
    assert_eq!(
        kept,
        [&json!(1), &json!(2)],
        "the echo's answer and the transcript request"
    );
    assert_eq!(conn.finish().await, Some(0));
}

#[test]
fn a_bad_transcript_bytes_or_bind_is_refused_with_exit_code_2() {
    for (args, expected) in [
        (
            &["--transcript-bytes", "0"][..],
            "expected a positive number of bytes",
        ),
        (
            &["--transcript-bytes", "12T"][..],
            "expected a positive number of bytes",
        ),
        (
            &["--transcript-bytes", "M"][..],
            "expected a positive number of bytes",
        ),
        (
            &["--transcript-bytes"][..],
            "--transcript-bytes needs a size",
        ),
        (
            &["--allow-non-loopback"][..],
            "--allow-non-loopback needs --http ADDR",
        ),
    ] {
        assert_refused(args, expected);
    }
}
