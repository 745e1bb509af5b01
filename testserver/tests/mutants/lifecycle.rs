//! Mutants of the 2026-07-28 lifecycle: `resultType` omitted, the per-request `_meta` fields
//! optional, `ping` still served, an `input_required` "still waiting" without its state.

use super::*;

#[tokio::test(start_paused = true)]
async fn result_type_omitted_sends_a_2026_result_without_its_type() {
    check(
        Mutant::ResultTypeOmitted,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            conn.initialize().await;
            let params = conn.stamped(json!({"name": "echo", "arguments": {"text": "ok"}}));
            let answer = conn.request(json!(1), "tools/call", params).await;
            assert_sent_last(&core, &answer);
            vec![
                format!("text: {}", answer["result"]["content"][0]["text"]),
                format!("resultType: {}", answer["result"]["resultType"]),
            ]
        },
        &["text: \"ok\"", "resultType: \"complete\""],
        &["text: \"ok\"", "resultType: null"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn meta_fields_optional_serves_a_2026_request_missing_them() {
    check(
        Mutant::MetaFieldsOptional,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let version = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
            let mut seen = Vec::new();
            for (id, meta) in [(1, None), (2, Some(version))] {
                let mut params = json!({"name": "echo", "arguments": {"text": "ok"}});
                if let Some(meta) = meta {
                    params["_meta"] = meta;
                }
                conn.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": params}))
                    .await;
                let answer = conn.recv().await;
                seen.push(format!(
                    "{id}: error {} text {}",
                    answer["error"]["code"], answer["result"]["content"][0]["text"]
                ));
            }
            seen.extend(rules(&core));
            seen.push(format!("transcript: {} answers", sent(&core).len()));
            seen
        },
        &[
            "1: error -32602 text null",
            "2: error -32602 text null",
            "missing-protocol-version",
            "missing-client-capabilities",
            "transcript: 2 answers",
        ],
        &[
            "1: error null text \"ok\"",
            "2: error null text \"ok\"",
            "missing-protocol-version",
            "missing-client-capabilities",
            "transcript: 2 answers",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn ping_still_served_answers_a_2026_ping() {
    check(
        Mutant::PingStillServed,
        |mutant| async move {
            let mut seen = Vec::new();
            for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
                let (core, mut conn) = start(mutant, revision);
                conn.initialize().await;
                let answer = conn.request(json!(1), "ping", json!({})).await;
                assert_sent_last(&core, &answer);
                seen.push(format!(
                    "{revision:?}: error {} result {}",
                    answer["error"]["code"], answer["result"]
                ));
            }
            seen
        },
        &[
            "V2025_11_25: error null result {}",
            "V2026_07_28: error -32601 result null",
        ],
        &[
            "V2025_11_25: error null result {}",
            "V2026_07_28: error null result {\"resultType\":\"complete\"}",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn still_waiting_without_state_sends_an_empty_input_required() {
    check(
        Mutant::StillWaitingWithoutState,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            conn.initialize().await;
            let mut params = conn.stamped(json!({"name": "ask",
                "arguments": {"question": "Connect?", "gate": "consent"}, "requestState": "ask-url"}));
            params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"url": {}}});
            let answer = conn.request(json!(1), "tools/call", params).await;
            assert_sent_last(&core, &answer);
            vec![format!("still waiting: {}", answer["result"])]
        },
        &["still waiting: {\"requestState\":\"ask-url\",\"resultType\":\"input_required\"}"],
        &["still waiting: {\"resultType\":\"input_required\"}"],
    )
    .await;
}
