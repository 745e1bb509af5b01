//! `mcp-testserver --artifacts DIR` (or `$MDBOOK_SNIPPETS_ARTIFACTS`), through the built binary:
//! when the session ends (stdin closing or SIGTERM over stdio; SIGTERM or a piped stdin closing
//! over HTTP) it writes `10-wire_transcript.txt` and `11-sequence.svg`, byte-equal to what the
//! harness renders for an in-process server given the same client messages; a bad directory is
//! refused at start-up with exit code 2; `--transcript-limit` bounds what is written.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::BINARY;
use common::loopback::tools_call_2026;
use common::process::{exit_code, scratch, sigterm, spawn_http};
use mcp_testserver::{RawClient, RenderTranscript, Revision, TestServer};
use serde_json::{Value, json};

/// The file names in `directory`, sorted.
fn listing(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .expect("reading the artifact directory")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts `directory` holds exactly the two artifacts, equal to `expected`'s renderings.
fn check_artifacts(directory: &Path, expected: &mcp_testserver::Transcript) {
    assert_eq!(
        listing(directory),
        ["10-wire_transcript.txt", "11-sequence.svg"]
    );
    let text = std::fs::read_to_string(directory.join("10-wire_transcript.txt")).unwrap();
    let svg = std::fs::read_to_string(directory.join("11-sequence.svg")).unwrap();
    assert!(text.contains("tools/call open_gate"), "{text}");
    assert_eq!(text, expected.render(), "the text transcript");
    assert_eq!(svg, expected.to_svg(), "the sequence diagram");
}

/// The client side of every stdio comparison: a handshake, an echo, a gate opened.
async fn stdio_script(conn: &mut RawClient) {
    conn.initialize().await;
    let reply = conn.call(json!(1), "echo", json!({"text": "hello"})).await;
    assert_eq!(reply["result"]["content"][0]["text"], "hello");
    conn.call(json!(2), "open_gate", json!({"gate": "g"})).await;
}

#[tokio::test]
async fn stdio_writes_what_the_harness_renders_at_end_of_input() {
    let directory = scratch("stdio");
    let artifacts = directory.to_str().unwrap();
    let mut conn = RawClient::spawn(BINARY, &["--artifacts", artifacts], Revision::V2025_11_25);
    stdio_script(&mut conn).await;
    assert_eq!(conn.finish().await, Some(0));

    let server = TestServer::start_with(Revision::V2025_11_25);
    let mut conn = server.connect_raw();
    stdio_script(&mut conn).await;
    conn.finish().await;
    server.idle().await;
    check_artifacts(&directory, &server.transcript());
    std::fs::remove_dir_all(&directory).unwrap();
}

#[tokio::test]
async fn the_variable_names_the_directory_and_the_flag_wins_over_it() {
    let from_variable = scratch("variable");
    let from_flag = scratch("flag");
    for (args, variable, written) in [
        (vec![], &from_variable, &from_variable),
        (
            vec!["--artifacts", from_flag.to_str().unwrap()],
            &from_variable,
            &from_flag,
        ),
    ] {
        let mut child = tokio::process::Command::new(BINARY)
            .args(&args)
            .env("MDBOOK_SNIPPETS_ARTIFACTS", variable)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        assert_eq!(child.wait().await.unwrap().code(), Some(0), "{args:?}");
        // An empty session (stdin is /dev/null) still leaves its (empty) transcript.
        assert_eq!(
            listing(written),
            ["10-wire_transcript.txt", "11-sequence.svg"],
            "{args:?}"
        );
        std::fs::remove_dir_all(written).unwrap();
        std::fs::create_dir_all(written).unwrap();
    }
    assert!(listing(&from_variable).is_empty(), "the flag won");
    std::fs::remove_dir_all(&from_variable).unwrap();
    std::fs::remove_dir_all(&from_flag).unwrap();
}

#[tokio::test]
async fn a_second_server_in_the_same_directory_takes_the_next_number() {
    let directory = scratch("second");
    let artifacts = directory.to_str().unwrap();
    for _ in 0..2 {
        let mut conn = RawClient::spawn(BINARY, &["--artifacts", artifacts], Revision::V2025_11_25);
        stdio_script(&mut conn).await;
        assert_eq!(conn.finish().await, Some(0));
    }
    assert_eq!(
        listing(&directory),
        [
            "10-wire_transcript.txt",
            "11-sequence.svg",
            "20-wire_transcript.txt",
            "21-sequence.svg"
        ]
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[tokio::test]
async fn the_transcript_limit_bounds_what_is_written() {
    let directory = scratch("limit");
    let artifacts = directory.to_str().unwrap();
    let mut conn = RawClient::spawn(
        BINARY,
        &["--transcript-limit", "4", "--artifacts", artifacts],
        Revision::V2025_11_25,
    );
    // initialize, its response, notifications/initialized, then two calls: 7 messages.
    stdio_script(&mut conn).await;
    assert_eq!(conn.finish().await, Some(0));
    let text = std::fs::read_to_string(directory.join("10-wire_transcript.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "the marker and the last 4 messages: {text}");
    assert_eq!(
        lines[0],
        "→ … 3 earlier messages dropped (the transcript keeps the last 4 messages, at most 33554432 bytes)"
    );
    assert!(lines[4].contains("resp 2"), "{text}");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_bad_directory_is_refused_at_start_up_with_exit_code_2() {
    let directory = scratch("bad");
    let file = directory.join("a-file");
    std::fs::write(&file, "").unwrap();
    let missing = directory.join("missing");
    let missing_text = missing.display().to_string();
    let file_text = file.display().to_string();
    let cases: [(&[&str], Option<&Path>, String); 5] = [
        (
            &["--artifacts", &missing_text],
            None,
            format!("--artifacts: {missing_text}: no such directory"),
        ),
        (
            &["--artifacts", &file_text],
            None,
            format!("--artifacts: {file_text}: not a directory"),
        ),
        (
            &["--artifacts"],
            None,
            "--artifacts needs a directory".into(),
        ),
        (
            &[],
            Some(&missing),
            format!("MDBOOK_SNIPPETS_ARTIFACTS: {missing_text}: no such directory"),
        ),
        (
            &["--http", "127.0.0.1:0", "--artifacts", &file_text],
            None,
            format!("--artifacts: {file_text}: not a directory"),
        ),
    ];
    for (args, variable, expected) in cases {
        let mut command = Command::new(BINARY);
        command.args(args).stdin(Stdio::null());
        match variable {
            Some(variable) => command.env("MDBOOK_SNIPPETS_ARTIFACTS", variable),
            None => command.env_remove("MDBOOK_SNIPPETS_ARTIFACTS"),
        };
        let output = command.output().expect("running mcp-testserver");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&expected), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("serving"),
            "{args:?}: nothing served: {stderr}"
        );
    }
    assert!(!missing.exists(), "nothing created");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[tokio::test]
async fn stdio_writes_the_artifacts_on_sigterm_too() {
    artifacts_on_sigterm("stdio-term", false).await;
}

/// A client killed with its process group takes its end of the server's stderr with it: the
/// server, stopping on the same SIGTERM, writes to a broken pipe, and must still write the
/// artifacts and exit 0 (its stderr lines then go nowhere; `eprintln!` panicked there).
#[tokio::test]
async fn the_artifacts_are_written_on_sigterm_when_stderr_is_gone() {
    artifacts_on_sigterm("stdio-term-no-stderr", true).await;
}

/// A stdio session (stdin kept open, so only the signal ends it) ended by SIGTERM, with the
/// reader of the server's stderr gone first when `close_stderr`: the server exits 0 and has
/// written its transcript and diagram.
async fn artifacts_on_sigterm(name: &str, close_stderr: bool) {
    let directory = scratch(name);
    let artifacts = directory.to_str().unwrap();
    let mut child = tokio::process::Command::new(BINARY)
        .args(["--artifacts", artifacts])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut conn = RawClient::over(tokio::io::join(stdout, stdin), Revision::V2025_11_25);
    stdio_script(&mut conn).await;
    if close_stderr {
        drop(child.stderr.take());
    }
    sigterm(child.id().unwrap());
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the server exits on SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(directory.join("10-wire_transcript.txt")).unwrap();
    assert!(text.contains("tools/call open_gate"), "{text}");
    assert!(directory.join("11-sequence.svg").exists());
    drop(conn);
    std::fs::remove_dir_all(&directory).unwrap();
}

/// A 2026-07-28 `tools/call` over HTTP (stateless: no session, the version in `_meta`).
async fn http_call(url: &str, id: u64, tool: &str, arguments: Value) -> Value {
    let response = tools_call_2026(url, id, tool, arguments)
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status().as_u16(), 200);
    let text = response.text().await.expect("the response body");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

async fn http_script(url: &str) {
    let reply = http_call(url, 1, "echo", json!({"text": "hello"})).await;
    assert_eq!(reply["result"]["content"][0]["text"], "hello", "{reply}");
    http_call(url, 2, "open_gate", json!({"gate": "g"})).await;
}

/// The harness's rendering of the same HTTP script against an in-process server.
async fn in_process_http_transcript() -> mcp_testserver::Transcript {
    let server = TestServer::start_with(Revision::V2026_07_28);
    let http = server.serve_http().await.unwrap();
    http_script(&http.url()).await;
    server.idle().await;
    server.transcript()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_writes_what_the_harness_renders_on_sigterm() {
    let directory = scratch("http");
    let artifacts = directory.to_str().unwrap();
    let (mut child, address) = spawn_http(&[], &["--artifacts", artifacts], Stdio::null()).await;
    let url = format!("http://{address}/mcp");
    http_script(&url).await;
    assert!(listing(&directory).is_empty(), "nothing before the end");
    sigterm(child.id().unwrap());
    assert_eq!(exit_code(&mut child).await, Some(0));
    // The binary's transcript ends with its own shutdown, which the in-process one never sees.
    let expected = in_process_http_transcript().await;
    let shutdown = mcp_testserver_core::Shutdown {
        transport: "http".into(),
        reason: "SIGTERM".into(),
        partial_line_bytes: None,
    };
    expected.record_entry(
        mcp_testserver::Direction::Out,
        mcp_testserver::Entry::Shutdown(shutdown),
    );
    check_artifacts(&directory, &expected);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_stops_and_writes_when_a_piped_stdin_closes() {
    let directory = scratch("http-stdin");
    let artifacts = directory.to_str().unwrap();
    let (mut child, address) = spawn_http(&[], &["--artifacts", artifacts], Stdio::piped()).await;
    let url = format!("http://{address}/mcp");
    http_script(&url).await;
    // Still serving while the pipe is open.
    let reply = http_call(&url, 3, "echo", json!({"text": "still"})).await;
    assert_eq!(reply["result"]["content"][0]["text"], "still");
    drop(child.stdin.take());
    assert_eq!(exit_code(&mut child).await, Some(0));
    let text = std::fs::read_to_string(directory.join("10-wire_transcript.txt")).unwrap();
    assert!(
        text.contains(r#"tools/call echo {"text":"still"}"#),
        "{text}"
    );
    std::fs::remove_dir_all(&directory).unwrap();
}
