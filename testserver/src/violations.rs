//! Protocol violations committed by the peer, as the server (or the `Driver`) observed them.
//! Each has a stable kebab-case rule id, so a snippet can say which one it expects.

use std::sync::{Arc, Mutex};

use serde::Serialize;

/// One observed violation of the protocol by the peer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Kebab-case rule id, e.g. `reused-id`, `null-id`, `cancelled-initialize`.
    pub rule: String,
    /// What happened, with the ids involved.
    pub detail: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule, self.detail)
    }
}

/// The rule ids the test server records, in one place so docs and tests agree.
pub mod rules {
    /// A request id reused: within the session (2025-11-25) or while still in flight (2026-07-28).
    pub const REUSED_ID: &str = "reused-id";
    /// A request with `"id": null`.
    pub const NULL_ID: &str = "null-id";
    /// `notifications/cancelled` naming the `initialize` request.
    pub const CANCELLED_INITIALIZE: &str = "cancelled-initialize";
    /// `notifications/cancelled` naming an id the peer never sent.
    pub const CANCEL_UNKNOWN_ID: &str = "cancel-unknown-id";
    /// `notifications/cancelled` naming a task-augmented request (use `tasks/cancel`).
    pub const CANCELLED_TASK: &str = "cancelled-task";
    /// A progress token already used by another active request.
    pub const REUSED_PROGRESS_TOKEN: &str = "reused-progress-token";
    /// A line that is not JSON.
    pub const PARSE_ERROR: &str = "parse-error";
    /// A JSON value that is not a valid JSON-RPC message.
    pub const INVALID_REQUEST: &str = "invalid-request";
    /// A 2026-07-28 request without `_meta["io.modelcontextprotocol/protocolVersion"]`, or a
    /// request before `initialize`.
    pub const MISSING_PROTOCOL_VERSION: &str = "missing-protocol-version";
    /// A 2026-07-28 request without `_meta["io.modelcontextprotocol/clientCapabilities"]`.
    pub const MISSING_CLIENT_CAPABILITIES: &str = "missing-client-capabilities";
    /// A response whose id matches no request this side sent.
    pub const UNKNOWN_RESPONSE_ID: &str = "unknown-response-id";
}

/// How many violations the `mcp-testserver` binary lists one per line on stderr when it stops;
/// the rest are counted by rule on one more line.
pub const REPORTED_VIOLATIONS: usize = 20;

/// A shared, append-only list of violations.
#[derive(Clone, Debug, Default)]
pub struct ViolationLog {
    entries: Arc<Mutex<Vec<Violation>>>,
}

impl ViolationLog {
    /// An empty log.
    pub fn new() -> ViolationLog {
        ViolationLog::default()
    }

    /// Records one violation.
    pub fn record(&self, rule: &str, detail: impl Into<String>) {
        self.lock().push(Violation {
            rule: rule.to_owned(),
            detail: detail.into(),
        });
    }

    /// A snapshot of the violations so far, in order.
    pub fn list(&self) -> Vec<Violation> {
        self.lock().clone()
    }

    /// The violations as at most `shown + 1` lines: `violation RULE: DETAIL` for the first
    /// `shown`, then `N more violations: RULE ×COUNT, ...` (rules in first-seen order), so a
    /// report never grows with what a peer sends.
    pub fn report(&self, shown: usize) -> Vec<String> {
        let entries = self.lock();
        let mut lines: Vec<String> = entries
            .iter()
            .take(shown)
            .map(|violation| format!("violation {violation}"))
            .collect();
        let rest = entries.get(shown..).unwrap_or_default();
        if !rest.is_empty() {
            let mut counts: Vec<(&str, usize)> = Vec::new();
            for violation in rest {
                match counts.iter_mut().find(|(rule, _)| *rule == violation.rule) {
                    Some((_, count)) => *count += 1,
                    None => counts.push((&violation.rule, 1)),
                }
            }
            let counts: Vec<String> = counts
                .iter()
                .map(|(rule, count)| format!("{rule} ×{count}"))
                .collect();
            lines.push(format!(
                "{} more violations: {}",
                rest.len(),
                counts.join(", ")
            ));
        }
        lines
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Violation>> {
        self.entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
#[path = "violations_tests.rs"]
mod tests;
