//! The url-mode `ask` of 2026-07-28 (`gate`): a retry held, then "still waiting", a held retry
//! cancelled, a declined consent, the gate opened.

use std::time::Duration;

use mcp_testserver::Revision;
use serde_json::{Value, json};

use super::{Connect, QUIET, ready};
use crate::common::{code, text};

/// 2026-07-28 `ask` with a `gate`: url mode. A retry is held while the gate is closed, then
/// answered "still waiting" (same `requestState`, no `inputRequests`); a cancel stops a held
/// retry with no answer; once the gate is open the retry completes.
pub(crate) async fn ask_in_url_mode_waits_for_its_gate(connect: Connect) {
    let mut conn = ready(connect, Revision::V2026_07_28).await;
    let url_capable =
        json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}}});
    let ask = |id: u64, extra: Value| {
        let mut params = json!({"name": "ask", "arguments": {"question": "Connect?", "gate": "consent"},
            "_meta": url_capable.clone()});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        (json!(id), params)
    };
    // A client that declared form mode only is told which capability is missing.
    let form_only = json!({"name": "ask", "arguments": {"question": "q", "gate": "consent"}});
    assert_eq!(
        code(&conn.request(json!(1), "tools/call", form_only).await),
        -32021
    );
    let (id, params) = ask(2, json!({}));
    let first = conn.request(id, "tools/call", params).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let input = &first["result"]["inputRequests"]["answer"]["params"];
    assert_eq!(input["mode"], "url", "{first}");
    assert_eq!(input["url"], "https://consent.example/consent", "{first}");
    let state = first["result"]["requestState"].clone();
    let accepted =
        json!({"requestState": state, "inputResponses": {"answer": {"action": "accept"}}});
    let (id, params) = ask(3, accepted.clone());
    let waiting = conn.request(id, "tools/call", params).await;
    assert_eq!(
        waiting["result"],
        json!({"resultType": "input_required", "requestState": state}),
        "{waiting}"
    );
    // A held retry, cancelled: no answer follows.
    let (id, params) = ask(4, json!({"requestState": state}));
    conn.send_request(id, "tools/call", params).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    conn.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}),
    )
    .await;
    assert_eq!(conn.try_recv(QUIET).await, None);
    // A declined consent ends the call; an open gate completes it.
    let declined =
        json!({"requestState": state, "inputResponses": {"answer": {"action": "decline"}}});
    let (id, params) = ask(5, declined);
    assert_eq!(
        text(&conn.request(id, "tools/call", params).await),
        "declined"
    );
    conn.call(json!(6), "open_gate", json!({"gate": "consent"}))
        .await;
    let (id, params) = ask(7, json!({"requestState": state}));
    assert_eq!(
        text(&conn.request(id, "tools/call", params).await),
        "gate consent opened: the out-of-band interaction completed"
    );
    // Under 2025-11-25 url mode is not offered.
    let mut conn = ready(connect, Revision::V2025_11_25).await;
    let answer = conn
        .call(json!(1), "ask", json!({"question": "q", "gate": "consent"}))
        .await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
}
