//! Connections do not outlive the read timeout: a stalled body gets 408, a half-sent head is
//! dropped, and out of file descriptors the accept loop neither spins nor keeps idle
//! connections (the binary under `prlimit`).

use super::*;

#[tokio::test]
async fn a_body_that_stalls_gets_408() {
    let limits = Limits {
        body_read_timeout: Some(Duration::from_millis(300)),
        ..Limits::in_process()
    };
    let server = serve_on_loopback(Arc::new(Core::default()), limits).await;
    let mut stream = TcpStream::connect(server.address).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"js";
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut response = vec![0; 64];
    let read = tokio::time::timeout(LIMIT, stream.read(&mut response))
        .await
        .unwrap()
        .unwrap();
    let response = String::from_utf8_lossy(&response[..read]);
    assert!(response.starts_with("HTTP/1.1 408"), "{response}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

/// User plus system CPU time of `pid` so far (`/proc/PID/stat`, in clock ticks of 10 ms).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_file_descriptors_the_server_neither_spins_nor_keeps_idle_connections() {
    let (child, address) = spawn_http(
        &["prlimit", "--nofile=64:64"],
        &["--read-timeout", "2"],
        Stdio::null(),
    )
    .await;
    let pid = child.id().unwrap();
    let mut idle = Vec::new();
    for _ in 0..80 {
        idle.push(TcpStream::connect(address).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (before, started) = (cpu_ticks(pid), Instant::now());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (ticks, wall) = (cpu_ticks(pid) - before, started.elapsed());
    // A spinning accept loop uses a whole core (150 ticks in 1.5 s; 44 measured on a loaded
    // machine); backing off, next to none.
    assert!(
        ticks < 15,
        "{ticks} ticks of CPU in {wall:?}: the accept loop spins"
    );
    // The read timeout closes every idle connection, so the server serves again.
    for (index, stream) in idle.iter_mut().enumerate() {
        let mut byte = [0; 1];
        let read = tokio::time::timeout(LIMIT, stream.read(&mut byte)).await;
        assert!(
            matches!(read, Ok(Ok(0)) | Ok(Err(_))),
            "idle connection {index} still open: {read:?}"
        );
    }
    let reply = post(address, &[], &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_sent_head_is_dropped_after_the_read_timeout() {
    let (_child, address) = spawn_http(&[], &["--read-timeout", "1"], Stdio::null()).await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let mut buffer = Vec::new();
    let read = tokio::time::timeout(LIMIT, stream.read_to_end(&mut buffer)).await;
    assert!(read.is_ok(), "still open after {LIMIT:?}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
}
