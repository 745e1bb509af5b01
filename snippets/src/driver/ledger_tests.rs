//! Unit tests of `ledger.rs`.

use serde_json::{Value, json};

use super::*;

/// Feeds the driver's sends and the server's replies through a ledger; returns the rules hit.
fn check(sent: &[Value], received: &[Value], revision: Revision) -> Vec<String> {
    let mut ledger = Ledger::default();
    let violations = ViolationLog::new();
    for message in sent {
        ledger.sent(message);
    }
    for message in received {
        ledger.received(message, revision, &violations);
    }
    violations
        .list()
        .into_iter()
        .map(|violation| violation.rule)
        .collect()
}

fn call(id: Value, token: Option<Value>) -> Value {
    let mut message =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "slow"}});
    if let Some(token) = token {
        message["params"]["_meta"] = json!({"progressToken": token});
    }
    message
}

fn response(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}})
}

fn progress(token: Value, progress: f64) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": progress}})
}

#[test]
fn a_well_behaved_exchange_records_nothing() {
    let sent = [call(json!(1), Some(json!("p")))];
    let received = [
        progress(json!("p"), 1.0),
        progress(json!("p"), 2.5),
        response(json!(1)),
    ];
    assert_eq!(
        check(&sent, &received, Revision::V2025_11_25),
        Vec::<String>::new()
    );
}

#[test]
fn duplicate_and_unknown_responses() {
    let sent = [call(json!(1), None)];
    let received = [
        response(json!(1)),
        response(json!(1)),
        response(json!("1")),
        response(Value::Null),
    ];
    assert_eq!(
        check(&sent, &received, Revision::V2025_11_25),
        [DUPLICATE_RESPONSE, rules::UNKNOWN_RESPONSE_ID]
    );
}

#[test]
fn progress_rules() {
    let sent = [call(json!(1), Some(json!(7)))];
    let received = [
        progress(json!(7), 2.0),
        progress(json!(7), 2.0),
        progress(json!("7"), 3.0),
        response(json!(1)),
        progress(json!(7), 4.0),
    ];
    assert_eq!(
        check(&sent, &received, Revision::V2026_07_28),
        [
            PROGRESS_NOT_INCREASING,
            UNKNOWN_PROGRESS_TOKEN,
            PROGRESS_AFTER_RESPONSE
        ]
    );
}

#[test]
fn server_requests_only_under_2025_11_25() {
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(
        check(&[], std::slice::from_ref(&ping), Revision::V2025_11_25),
        Vec::<String>::new()
    );
    assert_eq!(
        check(&[], &[ping], Revision::V2026_07_28),
        [SERVER_TO_CLIENT_REQUEST]
    );
}

#[test]
fn the_driver_never_reuses_an_id() {
    let mut ledger = Ledger::default();
    ledger.sent(&call(json!(1), None));
    assert!(
        ledger
            .check_new_id(&json!(1), Revision::V2026_07_28)
            .is_err()
    );
    assert!(
        ledger
            .check_new_id(&json!("1"), Revision::V2026_07_28)
            .is_ok()
    );
    assert!(
        ledger
            .check_new_id(&Value::Null, Revision::V2026_07_28)
            .is_err()
    );
    ledger.received(
        &response(json!(1)),
        Revision::V2026_07_28,
        &ViolationLog::new(),
    );
    assert!(
        ledger
            .check_new_id(&json!(1), Revision::V2026_07_28)
            .is_ok()
    );
    assert!(
        ledger
            .check_new_id(&json!(1), Revision::V2025_11_25)
            .is_err()
    );
}
