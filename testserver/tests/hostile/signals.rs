//! What only the process shows: SIGTERM over HTTP and stdio (the transcript records the
//! shutdown), an unread stderr that never blocks the server, and the limit flags refused.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sigterm_over_http_the_transcript_records_the_shutdown_not_a_disconnect() {
    let directory = scratch("http-term");
    let (mut child, address) = spawn_http(
        &[],
        &["--artifacts", directory.to_str().unwrap()],
        Stdio::null(),
    )
    .await;
    let session = session(address).await;
    let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "wait_gate", "arguments": {"gate": "never"}}});
    let modern = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "wait_gate", "arguments": {"gate": "never"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut streams = Vec::new();
    for (headers, body) in [
        (vec![("mcp-session-id", session.as_str())], legacy),
        (
            vec![
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "wait_gate"),
            ],
            modern,
        ),
    ] {
        let mut head = String::from("POST /mcp HTTP/1.1\r\n");
        for (name, value) in JSON_HEADERS.iter().chain(&headers) {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        let body = body.to_string();
        head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        streams.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    sigterm(child.id().unwrap());
    assert_eq!(exit_code(&mut child).await, Some(0));
    let text = std::fs::read_to_string(directory.join("10-wire_transcript.txt")).unwrap();
    assert!(
        text.contains("req 1 tools/call wait_gate") && text.contains("req 2 tools/call wait_gate"),
        "{text}"
    );
    assert!(
        text.trim_end().ends_with("← ✕ http shutdown (SIGTERM)"),
        "{text}"
    );
    assert!(
        !text.contains("disconnect"),
        "the server's shutdown is no client disconnect:\n{text}"
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[tokio::test]
async fn on_sigterm_over_stdio_a_half_received_line_and_the_shutdown_are_recorded() {
    let directory = scratch("stdio-term");
    let mut child = tokio::process::Command::new(BINARY)
        .arg("--artifacts")
        .arg(&directory)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    stdin
        .write_all(format!("{}\n", initialize_body()).as_bytes())
        .await
        .unwrap();
    tokio::time::timeout(LIMIT, stdout.next_line())
        .await
        .unwrap()
        .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "wait_gate", "arguments": {"gate": "never"}}});
    stdin
        .write_all(format!("{call}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"meth").as_bytes())
        .await
        .unwrap();
    stdin.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    sigterm(child.id().unwrap());
    assert_eq!(exit_code(&mut child).await, Some(0));
    let text = std::fs::read_to_string(directory.join("10-wire_transcript.txt")).unwrap();
    let tail: Vec<&str> = text.lines().rev().take(3).collect();
    assert_eq!(
        tail,
        [
            "← ✕ stdio shutdown (SIGTERM)",
            r#"→ unparseable "{\"jsonrpc\":\"2.0\",\"id\":2,\"meth""#,
            r#"→ req 1 tools/call wait_gate {"gate":"never"}"#,
        ],
        "{text}"
    );
    drop(stdin);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[tokio::test]
async fn violations_never_block_a_server_whose_stderr_nobody_reads() {
    // A pipe whose read end is kept open and never read: a full pipe blocks its writer.
    let (reader, writer) = std::io::pipe().unwrap();
    let mut child = tokio::process::Command::new(BINARY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(writer)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let lines = 5000;
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let payload: String = (0..lines)
        .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":5}}\n"))
        .collect();
    let writing = tokio::spawn(async move {
        stdin.write_all(payload.as_bytes()).await.unwrap();
    });
    let mut answers = Vec::new();
    tokio::time::timeout(LIMIT, stdout.read_to_end(&mut answers))
        .await
        .expect("stdout closes")
        .unwrap();
    writing.await.unwrap();
    assert_eq!(
        exit_code(&mut child).await,
        Some(0),
        "the server exits although stderr is full"
    );
    assert_eq!(answers.iter().filter(|byte| **byte == b'\n').count(), lines);
    drop(reader);
}

#[test]
fn the_limit_flags_refuse_bad_values_and_need_http() {
    for (args, expected) in [
        (
            &["--http", "127.0.0.1:0", "--max-sessions", "0"][..],
            "expected an integer from 1 to 1000000",
        ),
        (
            &["--http", "127.0.0.1:0", "--read-timeout", "-1"][..],
            "expected an integer from 1 to 1000000",
        ),
        (
            &["--http", "127.0.0.1:0", "--session-idle-timeout"][..],
            "--session-idle-timeout needs a number",
        ),
        (&["--read-timeout", "5"][..], "need --http ADDR"),
    ] {
        let output = std::process::Command::new(BINARY)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
