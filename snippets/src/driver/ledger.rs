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
#[path = "ledger_tests.rs"]
mod tests;
