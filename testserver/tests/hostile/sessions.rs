//! Sessions do not outlive the limits: an idle one expires, and at the cap a new one ends the
//! least recently used idle one.

use super::*;

fn session_limits(idle: Duration, max_sessions: usize) -> Limits {
    Limits {
        session_idle_timeout: idle,
        max_sessions,
        ..Limits::in_process()
    }
}

async fn ping(address: SocketAddr, session: &str, id: u64) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
    post(address, &[("mcp-session-id", session)], &body)
        .await
        .status
}

#[tokio::test]
async fn an_idle_session_expires_and_then_gets_404() {
    let server = serve_on_loopback(
        Arc::new(Core::default()),
        session_limits(Duration::from_millis(300), 100),
    )
    .await;
    let idle = session(server.address).await;
    let busy = session(server.address).await;
    for id in 1..=4 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(
            ping(server.address, &busy, id).await,
            200,
            "in use, it lives"
        );
    }
    assert_eq!(
        ping(server.address, &idle, 1).await,
        404,
        "idle 600 ms of 300"
    );
}

#[tokio::test]
async fn at_the_cap_a_new_session_ends_the_least_recently_used_idle_one() {
    let server = serve_on_loopback(
        Arc::new(Core::default()),
        session_limits(Duration::from_secs(600), 3),
    )
    .await;
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(session(server.address).await);
    }
    assert_eq!(
        ping(server.address, &sessions[0], 1).await,
        200,
        "0 is now the most recent"
    );
    let fourth = session(server.address).await;
    assert_eq!(
        ping(server.address, &sessions[1], 1).await,
        404,
        "1 was the least recent"
    );
    for session in [&sessions[0], &sessions[2], &fourth] {
        assert_eq!(ping(server.address, session, 2).await, 200);
    }
    // Every session busy: no room, 503.
    let mut running = Vec::new();
    for (index, session) in [&sessions[0], &sessions[2], &fourth]
        .into_iter()
        .enumerate()
    {
        let call = json!({"jsonrpc": "2.0", "id": 100 + index, "method": "tools/call",
            "params": {"name": "wait_gate", "arguments": {"gate": "never"}}});
        let (address, session) = (server.address, session.clone());
        running.push(tokio::spawn(async move {
            post(address, &[("mcp-session-id", &session)], &call.to_string()).await
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let reply = post(server.address, &[], &initialize_body()).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    drop(server);
}
