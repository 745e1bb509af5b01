//! What the server owes the driver: the requests still awaiting a response, their progress
//! tokens, and the ids already used. From it the driver refuses to reuse an id itself and
//! records what the server gets wrong. Ids are keyed by their JSON text, so `"4"` and `4` stay
//! two different ids, as the spec says.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::revision::Revision;
use crate::violations::{ViolationLog, rules};

/// A second response for an id that was already answered.
pub const DUPLICATE_RESPONSE: &str = "duplicate-response";
/// `notifications/progress` for a request that was already answered.
pub const PROGRESS_AFTER_RESPONSE: &str = "progress-after-response";
/// `notifications/progress` whose `progress` did not increase.
pub const PROGRESS_NOT_INCREASING: &str = "progress-not-increasing";
/// `notifications/progress` with a token no request of the driver carried.
pub const UNKNOWN_PROGRESS_TOKEN: &str = "unknown-progress-token";
/// A server-to-client request under 2026-07-28, which replaced them with `input_required`.
pub const SERVER_TO_CLIENT_REQUEST: &str = "server-to-client-request";
/// A message that is not JSON-RPC 2.0.
pub const INVALID_MESSAGE: &str = "invalid-message";

#[derive(Debug, Default)]
pub(super) struct Ledger {
    outstanding: HashMap<String, Pending>,
    answered: HashSet<String>,
    used: HashSet<String>,
    finished_tokens: HashSet<String>,
}

#[derive(Debug)]
struct Pending {
    token: Option<String>,
    last_progress: Option<f64>,
}

impl Ledger {
    /// Whether the driver itself may use `id` for a new request now.
    pub(super) fn check_new_id(&self, id: &Value, revision: Revision) -> Result<(), String> {
        let key = id.to_string();
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            return Err(format!("request id {id} is not a string or an integer"));
        }
        if self.outstanding.contains_key(&key) {
            return Err(format!("request id {id} is still awaiting its response"));
        }
        if revision == Revision::V2025_11_25 && self.used.contains(&key) {
            return Err(format!(
                "request id {id} was already used in this session (2025-11-25)"
            ));
        }
        Ok(())
    }

    /// Notes a message the driver sent.
    pub(super) fn sent(&mut self, message: &Value) {
        let (Some(_), Some(id)) = (message.get("method"), message.get("id")) else {
            return;
        };
        let key = id.to_string();
        let token = message
            .pointer("/params/_meta/progressToken")
            .map(Value::to_string);
        self.used.insert(key.clone());
        self.answered.remove(&key);
        self.outstanding.insert(
            key,
            Pending {
                token,
                last_progress: None,
            },
        );
    }

    /// Checks a message the server sent, recording what it did wrong.
    pub(super) fn received(
        &mut self,
        message: &Value,
        revision: Revision,
        violations: &ViolationLog,
    ) {
        if message.get("jsonrpc") != Some(&Value::from("2.0")) {
            violations.record(
                INVALID_MESSAGE,
                format!("not a JSON-RPC 2.0 message: {message}"),
            );
            return;
        }
        match (message.get("method"), message.get("id")) {
            (Some(method), Some(id)) => {
                if revision == Revision::V2026_07_28 {
                    violations.record(
                        SERVER_TO_CLIENT_REQUEST,
                        format!("request {id} {method} from the server under 2026-07-28"),
                    );
                }
            }
            (Some(method), None) if method == "notifications/progress" => {
                self.progress(message, violations);
            }
            (Some(_), None) => {}
            (None, Some(id)) => self.response(id, violations),
            (None, None) => {
                violations.record(
                    INVALID_MESSAGE,
                    format!("neither a request, a notification nor a response: {message}"),
                );
            }
        }
    }

    fn response(&mut self, id: &Value, violations: &ViolationLog) {
        let key = id.to_string();
        if let Some(pending) = self.outstanding.remove(&key) {
            if let Some(token) = pending.token {
                self.finished_tokens.insert(token);
            }
            self.answered.insert(key);
        } else if self.answered.contains(&key) {
            violations.record(DUPLICATE_RESPONSE, format!("a second response for id {id}"));
        } else if !id.is_null() {
            // A null id answers a line the server could not read; it matches nothing by design.
            violations.record(
                rules::UNKNOWN_RESPONSE_ID,
                format!("a response for id {id}, which the driver never sent"),
            );
        }
    }

    fn progress(&mut self, message: &Value, violations: &ViolationLog) {
        let Some(token) = message.pointer("/params/progressToken") else {
            violations.record(
                INVALID_MESSAGE,
                format!("notifications/progress without progressToken: {message}"),
            );
            return;
        };
        let key = token.to_string();
        let progress = message.pointer("/params/progress").and_then(Value::as_f64);
        let pending = self
            .outstanding
            .values_mut()
            .find(|pending| pending.token.as_deref() == Some(key.as_str()));
        match pending {
            Some(pending) => {
                if let (Some(last), Some(now)) = (pending.last_progress, progress)
                    && now <= last
                {
                    violations.record(
                        PROGRESS_NOT_INCREASING,
                        format!("progress {now} after {last} for token {token}"),
                    );
                }
                pending.last_progress = progress.or(pending.last_progress);
            }
            None if self.finished_tokens.contains(&key) => {
                violations.record(
                    PROGRESS_AFTER_RESPONSE,
                    format!("progress for token {token} after its response"),
                );
            }
            None => {
                violations.record(
                    UNKNOWN_PROGRESS_TOKEN,
                    format!("progress for token {token}, which no request carried"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
}
