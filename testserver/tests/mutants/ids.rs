//! Mutants of request ids: one id space for both directions, a reused id unflagged, a clashing
//! in-flight id served.

use super::*;

#[tokio::test(start_paused = true)]
async fn shared_id_space_numbers_server_requests_after_the_clients() {
    check(
        Mutant::SharedIdSpace,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            let ask = json!({"name": "ask", "arguments": {"question": "Proceed?"}});
            conn.send_request(json!(5), "tools/call", ask).await;
            let asked = conn.recv().await;
            conn.send(json!({"jsonrpc": "2.0", "id": asked["id"],
                "result": {"action": "accept", "content": {"answer": "yes"}}}))
                .await;
            let answer = conn.response(&json!(5)).await;
            let recorded = sent(&core)
                .into_iter()
                .find(|message| message["method"] == "elicitation/create");
            vec![
                format!("server request id {}", asked["id"]),
                format!("transcript: {}", recorded.unwrap()["id"]),
                format!("answer {}", answer["result"]["content"][0]["text"]),
                format!("violations {:?}", rules(&core)),
            ]
        },
        &[
            "server request id 1",
            "transcript: 1",
            "answer \"answer: yes\"",
            "violations []",
        ],
        &[
            "server request id 6",
            "transcript: 6",
            "answer \"answer: yes\"",
            "violations []",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn reused_id_unflagged_records_no_2025_reuse() {
    check(
        Mutant::ReusedIdUnflagged,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            conn.call(json!(7), "echo", json!({"text": "once"})).await;
            let second = conn.call(json!(7), "echo", json!({"text": "twice"})).await;
            vec![
                format!("second: {}", second["result"]["content"][0]["text"]),
                format!("violations {:?}", rules(&core)),
            ]
        },
        &["second: \"twice\"", "violations [\"reused-id\"]"],
        &["second: \"twice\"", "violations []"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn in_flight_id_accepted_serves_a_clashing_request() {
    check(
        Mutant::InFlightIdAccepted,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let wait = json!({"name": "wait_gate", "arguments": {"gate": "g"}});
            conn.send_request(json!(7), "tools/call", wait).await;
            core.handlers.wait_in_flight("wait_gate").await;
            let echo = json!({"name": "echo", "arguments": {"text": "clash"}});
            conn.send_request(json!(7), "tools/call", echo).await;
            let answer = conn.recv().await;
            assert_sent_last(&core, &answer);
            core.gates.open("g");
            let gate = conn.try_recv(Duration::from_secs(60)).await;
            let text = |message: &Value| message["result"]["content"][0]["text"].clone();
            vec![
                format!(
                    "id 7: error {} result {}",
                    answer["error"]["code"],
                    text(&answer)
                ),
                format!("then: {:?}", gate.as_ref().map(text)),
                format!("violations {:?}", rules(&core)),
            ]
        },
        &[
            "id 7: error -32600 result null",
            "then: Some(String(\"gate g opened\"))",
            "violations [\"reused-id\"]",
        ],
        // The reuse is still recorded: the mutant changes what the server does, not the record.
        // The clashing request took over the id, so the first one's answer is lost.
        &[
            "id 7: error null result \"clash\"",
            "then: None",
            "violations [\"reused-id\"]",
        ],
    )
    .await;
}
