//! Protocol violations committed by the peer, as the server (or the `Driver`) observed them.
//! Each has a stable kebab-case rule id, so a snippet can say which one it expects.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::context::Context;

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

/// How many violations a log keeps in full (the first ones); later ones are only counted, by
/// rule, so a peer that floods violations cannot make the server hold every one.
pub const KEPT_VIOLATIONS: usize = 1000;

/// How many violations of one binding context its own log keeps in full (what its `violations`
/// tool shows, [`ViolationsByContext`]): fewer than the server's, since every open connection or
/// session holds one (at most 1000 HTTP sessions, each up to about 100 KiB).
pub const KEPT_VIOLATIONS_PER_CONTEXT: usize = 100;

/// The longest violation detail (and handler log line) kept, in bytes; a longer one is cut, with
/// a note of how much was cut, so the kept violations hold at most about 1 MiB whatever ids or
/// names a client sends.
pub const MAX_DETAIL_BYTES: usize = 1024;

/// `text` cut to at most [`MAX_DETAIL_BYTES`] (at a character boundary), with `… (N bytes cut)`
/// when it was longer.
pub fn shorten(mut text: String) -> String {
    if text.len() <= MAX_DETAIL_BYTES {
        return text;
    }
    let mut end = MAX_DETAIL_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("… ({cut} bytes cut)"));
    text.shrink_to_fit();
    text
}

/// A shared, append-only list of violations: the first [`KEPT_VIOLATIONS`] in full, then a
/// count per rule.
#[derive(Clone, Debug, Default)]
pub struct ViolationLog {
    entries: Arc<Mutex<Entries>>,
}

#[derive(Debug)]
struct Entries {
    /// How many are kept in full.
    keep: usize,
    kept: Vec<Violation>,
    /// Violations recorded once `kept` was full: per rule, in first-seen order, how many.
    not_kept: Vec<(String, usize)>,
}

impl Default for Entries {
    fn default() -> Entries {
        Entries {
            keep: KEPT_VIOLATIONS,
            kept: Vec::new(),
            not_kept: Vec::new(),
        }
    }
}

impl ViolationLog {
    /// An empty log.
    pub fn new() -> ViolationLog {
        ViolationLog::default()
    }

    /// An empty log that keeps the first `keep` violations in full (not [`KEPT_VIOLATIONS`]).
    pub fn keeping(keep: usize) -> ViolationLog {
        ViolationLog {
            entries: Arc::new(Mutex::new(Entries {
                keep,
                ..Entries::default()
            })),
        }
    }

    /// Records one violation: in full (its detail cut to [`MAX_DETAIL_BYTES`]) while fewer
    /// than [`KEPT_VIOLATIONS`] (or the log's own number) are kept, else as one more of its rule.
    pub fn record(&self, rule: &str, detail: impl Into<String>) {
        let mut entries = self.lock();
        if entries.kept.len() < entries.keep {
            entries.kept.push(Violation {
                rule: rule.to_owned(),
                detail: shorten(detail.into()),
            });
            return;
        }
        match entries.not_kept.iter_mut().find(|(seen, _)| seen == rule) {
            Some((_, count)) => *count += 1,
            None => entries.not_kept.push((rule.to_owned(), 1)),
        }
    }

    /// A snapshot of the violations kept in full (all of them, unless more than
    /// [`KEPT_VIOLATIONS`] were recorded), in order.
    pub fn list(&self) -> Vec<Violation> {
        self.lock().kept.clone()
    }

    /// The violations recorded after the first [`KEPT_VIOLATIONS`]: per rule, in first-seen
    /// order, how many (empty unless the log is full).
    pub fn not_kept(&self) -> Vec<(String, usize)> {
        self.lock().not_kept.clone()
    }

    /// How many violations were recorded, kept or not.
    pub fn total(&self) -> usize {
        let entries = self.lock();
        entries.kept.len()
            + entries
                .not_kept
                .iter()
                .map(|(_, count)| count)
                .sum::<usize>()
    }

    /// The kept violations, then one per rule counted beyond them (`RULE: and N more, not
    /// kept ...`): every rule recorded appears, so a reader of the list misses none. Equal to
    /// [`ViolationLog::list`] unless the log is full.
    pub fn reported(&self) -> Vec<Violation> {
        let entries = self.lock();
        let mut reported = entries.kept.clone();
        let keep = entries.keep;
        reported.extend(entries.not_kept.iter().map(|(rule, count)| Violation {
            rule: rule.clone(),
            detail: format!("and {count} more, not kept (the log keeps the first {keep} in full)"),
        }));
        reported
    }

    /// The violations as at most `shown + 1` lines: `violation RULE: DETAIL` for the first
    /// `shown`, then `N more violations: RULE ×COUNT, ...` (rules in first-seen order, those
    /// not kept included), so a report never grows with what a peer sends.
    pub fn report(&self, shown: usize) -> Vec<String> {
        let entries = self.lock();
        let mut lines: Vec<String> = entries
            .kept
            .iter()
            .take(shown)
            .map(|violation| format!("violation {violation}"))
            .collect();
        let rest = entries.kept.get(shown..).unwrap_or_default();
        let mut counts: Vec<(&str, usize)> = Vec::new();
        let rest = rest.iter().map(|violation| (violation.rule.as_str(), 1));
        let not_kept = entries
            .not_kept
            .iter()
            .map(|(rule, more)| (rule.as_str(), *more));
        for (rule, more) in rest.chain(not_kept) {
            match counts.iter_mut().find(|(seen, _)| *seen == rule) {
                Some((_, count)) => *count += more,
                None => counts.push((rule, more)),
            }
        }
        if !counts.is_empty() {
            let total: usize = counts.iter().map(|(_, count)| count).sum();
            let counts: Vec<String> = counts
                .iter()
                .map(|(rule, count)| format!("{rule} ×{count}"))
                .collect();
            lines.push(format!("{total} more violations: {}", counts.join(", ")));
        }
        lines
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// The violations of each binding context ([`crate::context`]), as its own peer committed them:
/// what its `violations` tool shows, never another context's. Each context's log keeps its first
/// [`KEPT_VIOLATIONS_PER_CONTEXT`] in full, so one peer's flood neither hides nor pushes out
/// another's, and goes when its connection or session ends ([`ViolationsByContext::forget`]).
/// The server's own log (`Core::violations`: every context's, for the report on stderr and the
/// in-process API) is kept beside it.
#[derive(Debug, Default)]
pub struct ViolationsByContext {
    logs: Mutex<HashMap<Context, ViolationLog>>,
}

impl ViolationsByContext {
    /// Records one violation of `context` (see [`ViolationLog::record`]).
    pub fn record(&self, context: Context, rule: &str, detail: String) {
        let log = self
            .lock()
            .entry(context)
            .or_insert_with(|| ViolationLog::keeping(KEPT_VIOLATIONS_PER_CONTEXT))
            .clone();
        log.record(rule, detail);
    }

    /// What `context`'s `violations` tool shows ([`ViolationLog::reported`] of its own log).
    pub fn reported(&self, context: Context) -> Vec<Violation> {
        let log = self.lock().get(&context).cloned();
        log.map(|log| log.reported()).unwrap_or_default()
    }

    /// Forgets `context`'s violations (it ended, so no one asks any more); the server's own
    /// log keeps them.
    pub fn forget(&self, context: Context) {
        crate::context::forget(&mut self.lock(), context);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Context, ViolationLog>> {
        self.logs
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
#[path = "violations_tests.rs"]
mod tests;
