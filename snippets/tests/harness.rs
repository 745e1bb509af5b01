//! The Rust API a snippet uses: `TestServer` with an rmcp client under both revisions, the
//! paused clock, gates and handler observation, deterministic transcripts, and `snippet_main`
//! (run in a child process, since it exits the process).

use crate::rmcp_support;

use std::time::Instant;

use mcp_testserver::prelude::*;
use mcp_testserver::{ARTIFACTS_VAR, ATTRS_VAR};
use rmcp_support::{call, text};

#[tokio::test(start_paused = true)]
async fn rmcp_client_calls_echo_under_both_revisions() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = server.connect_rmcp().await.unwrap();
        let result = client
            .call_tool(call("echo", json!({"text": "hello"})))
            .await
            .unwrap();
        assert_eq!(text(&result), "hello", "{revision}");
        client.cancel().await.unwrap();
        assert!(
            server.violations().is_empty(),
            "{revision}: {:?}",
            server.violations()
        );
    }
}

#[tokio::test(start_paused = true)]
async fn slow_with_ten_one_second_steps_costs_no_real_time() {
    let started = Instant::now();
    let server = TestServer::start_with(Revision::V2025_11_25);
    let client = server.connect_rmcp().await.unwrap();
    let result = client
        .call_tool(call("slow", json!({"steps": 10, "step_ms": 1000})))
        .await
        .unwrap();
    assert_eq!(text(&result), "completed 10 steps");
    assert!(
        started.elapsed().as_millis() < 1000,
        "took {:?} of real time",
        started.elapsed()
    );
    let progress = server
        .transcript()
        .render()
        .matches("← progress token=0 ")
        .count();
    assert_eq!(
        progress, 10,
        "rmcp always sends a progress token, so every step reports"
    );
}

#[tokio::test(start_paused = true)]
async fn dropping_an_rmcp_call_cancels_the_handler_provably_in_flight() {
    for revision in Revision::ALL {
        let server = TestServer::start_with(revision);
        let client = server.connect_rmcp().await.unwrap();
        let waiting = client.call_tool(call("wait_gate", json!({"gate": "g"})));
        tokio::select! {
            _ = waiting => panic!("the gate is closed"),
            _ = server.in_flight("wait_gate") => {}
        }
        server.idle().await;
        server.open_gate("g");
        let log = server.handler_log();
        assert_eq!(
            log,
            ["wait_gate#1 started", "wait_gate#1 stopped by cancel"],
            "{revision}"
        );
        let rendered = server.transcript().render();
        assert!(
            rendered.contains(
                "→ notification cancelled requestId=1 reason=\"request abandoned by the caller\""
            ),
            "{rendered}"
        );
        assert!(
            !rendered.contains("← resp 1"),
            "{revision}: no response after the cancel:\n{rendered}"
        );
        assert!(server.violations().is_empty());
    }
}

async fn scripted_run() -> (String, String) {
    let server = TestServer::start_with(Revision::V2025_11_25);
    let client = server.connect_rmcp().await.unwrap();
    client
        .call_tool(call("slow", json!({"steps": 3, "step_ms": 100})))
        .await
        .unwrap();
    client
        .call_tool(call("fail", json!({"message": "nope"})))
        .await
        .unwrap();
    client.cancel().await.unwrap();
    (server.transcript().render(), server.transcript().to_svg())
}

#[tokio::test(start_paused = true)]
async fn the_same_run_gives_the_same_transcript_byte_for_byte() {
    let first = scripted_run().await;
    let second = scripted_run().await;
    assert_eq!(first, second);
    assert_eq!(
        first.0,
        r#"→ req 0 initialize 2026-07-28 client=rmcp/3.11.0 caps={}
← resp 0 initialize 2025-11-25 server=mcp-testserver/0.1.0 caps={tasks,tools}
→ notification initialized
→ req 1 tools/call slow {"step_ms":100,"steps":3} _meta.progressToken=0
← progress token=0 1/3 "step 1 of 3"
← progress token=0 2/3 "step 2 of 3"
← progress token=0 3/3 "step 3 of 3"
← resp 1 result "completed 3 steps"
→ req 2 tools/call fail {"message":"nope"} _meta.progressToken=1
← resp 2 error-result "nope"
"#
    );
    assert!(first.1.starts_with("<svg ") && first.1.ends_with("</svg>\n"));
    assert_eq!(
        first.1.matches("marker-end=").count(),
        10,
        "one arrow per message"
    );
}

#[tokio::test(start_paused = true)]
async fn raw_client_shows_the_handshake_and_anti_patterns() {
    let server = TestServer::start_with(Revision::V2025_11_25);
    let mut raw = server.connect_raw();
    assert_eq!(raw.initialize().await["protocolVersion"], "2025-11-25");
    let response = raw
        .request(
            json!(1),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "a"}}),
        )
        .await;
    assert_eq!(response["result"]["content"][0]["text"], "a");
    raw.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}})).await;
    assert_eq!(raw.recv().await["id"], 1);
    assert_eq!(server.violations()[0].rule, "reused-id");
    assert!(raw.try_recv(Duration::from_secs(5)).await.is_none());
    let modern = TestServer::start_with(Revision::V2026_07_28).connect_raw();
    let mut modern = modern;
    assert_eq!(modern.initialize().await, Value::Null);
    let response = modern.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(response["result"]["resultType"], "complete");
}

/// Runs this test binary again with `case` selected, as the verifier would run a snippet.
fn run_child(case: &str, attributes: &str) -> (i32, String, String, Vec<String>) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let directory = std::env::temp_dir().join(format!(
        "mcp-testserver-harness-{}-{run}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "harness::snippet_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SNIPPET_CASE", case)
        .env(ATTRS_VAR, attributes)
        .env(ARTIFACTS_VAR, &directory)
        .output()
        .unwrap();
    let mut files: Vec<String> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let _ = std::fs::remove_dir_all(&directory);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (
        output.status.code().unwrap_or(-1),
        stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
        files,
    )
}

/// The child side of `run_child`: a snippet body per case. Does nothing in a normal test run.
#[test]
fn snippet_child() {
    let Ok(case) = std::env::var("SNIPPET_CASE") else {
        return;
    };
    snippet_main(move || {
        let case = case.clone();
        async move {
            let server = TestServer::start();
            let client = server.connect_rmcp().await?;
            let result = client
                .call_tool(call(
                    "echo",
                    json!({"text": current_revision().to_string()}),
                ))
                .await?;
            println!("echo {}", text(&result));
            if case == "reuse" {
                let mut raw = server.connect_raw();
                raw.initialize().await;
                raw.initialize().await;
            }
            client.cancel().await?;
            anyhow::Ok(())
        }
    });
}

#[test]
fn snippet_main_runs_each_revision_and_writes_artifacts() {
    let (code, stdout, stderr, files) = run_child("plain", "revision=both");
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("── revision 2025-11-25 ──\necho 2025-11-25\n── revision 2026-07-28 ──\necho 2026-07-28\n"), "{stdout}");
    assert_eq!(
        files,
        [
            "10-wire_transcript_2025-11-25.txt",
            "11-sequence_2025-11-25.svg",
            "20-wire_transcript_2026-07-28.txt",
            "21-sequence_2026-07-28.svg"
        ]
    );
    let (code, _, _, files) = run_child("plain", "revision=2026-07-28");
    assert_eq!(code, 0);
    assert_eq!(files, ["10-wire_transcript.txt", "11-sequence.svg"]);
}

#[test]
fn snippet_main_fails_on_unexpected_or_missing_violations() {
    let (code, _, stderr, files) = run_child("reuse", "revision=2025-11-25");
    assert_eq!(code, 1, "an unexpected violation fails the snippet");
    assert!(
        stderr.contains("unexpected protocol violation reused-id"),
        "{stderr}"
    );
    assert_eq!(
        files,
        ["10-wire_transcript.txt", "11-sequence.svg"],
        "artifacts are written even so"
    );
    let (code, _, stderr, _) = run_child("reuse", "revision=2025-11-25,expect_violation=reused-id");
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr, _) = run_child("plain", "expect_violation=reused-id");
    assert_eq!(code, 1);
    assert!(
        stderr.contains("expected protocol violation `reused-id` did not happen"),
        "{stderr}"
    );
}
