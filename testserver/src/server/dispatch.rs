//! What a connection does with each message it receives: a line too long, one that does not
//! parse, a request (id bookkeeping, then the plugged-in fixtures, then the session's own
//! routing per method), a notification or a response.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::lines::MAX_LINE_BYTES;
use super::mutants::Mutant;
use super::negotiation::discover_result;
use super::session::{Core, Dispatch, Session, cacheable, record_in};
use super::tasks;
use super::tools;
use crate::jsonrpc::{self, Incoming, id_key};
use crate::revision::Revision;
use crate::transcript::{Direction, Entry};
use crate::violations::rules;

impl Session {
    /// Handles a line longer than the limit.
    pub(crate) fn handle_oversized(&self, length: usize) {
        let shown = format!("<{length} bytes, over the line limit>");
        self.core.transcript.record_entry_for(
            self.context(),
            Direction::In,
            Entry::Unparseable(shown),
        );
        self.violation(
            rules::PARSE_ERROR,
            format!("a {length}-byte line exceeds the limit"),
        );
        let message = format!(
            "message of {length} bytes exceeds the {} byte limit",
            MAX_LINE_BYTES
        );
        self.send(jsonrpc::error(
            Value::Null,
            jsonrpc::PARSE_ERROR,
            &message,
            None,
        ));
    }

    /// Handles one complete line.
    pub(crate) fn handle_line(self: &Arc<Self>, bytes: &[u8]) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let value = match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => value,
            Err(error) => {
                let text = String::from_utf8_lossy(bytes);
                let shown: String = text.chars().take(200).collect();
                self.core.transcript.record_entry_for(
                    self.context(),
                    Direction::In,
                    Entry::Unparseable(shown),
                );
                self.violation(rules::PARSE_ERROR, format!("unparseable line: {error}"));
                let message = format!("Parse error: {error}");
                self.send(jsonrpc::error(
                    Value::Null,
                    jsonrpc::PARSE_ERROR,
                    &message,
                    None,
                ));
                return;
            }
        };
        record_in(&self.core, self.context(), value.clone());
        match jsonrpc::classify(&value) {
            Incoming::Request { id, method, params } => self.handle_request(id, &method, params),
            Incoming::Notification { method, params } => self.handle_notification(&method, &params),
            Incoming::Response { id, outcome } => self.handle_response(&id, outcome),
            Incoming::Invalid {
                id,
                reason,
                null_id,
            } => {
                let rule = if null_id {
                    rules::NULL_ID
                } else {
                    rules::INVALID_REQUEST
                };
                self.violation(rule, reason.clone());
                self.send(jsonrpc::error(
                    id,
                    jsonrpc::INVALID_REQUEST,
                    &format!("Invalid Request: {reason}"),
                    None,
                ));
            }
            Incoming::StrayError => {
                self.violation(
                    rules::INVALID_REQUEST,
                    "an error response without a usable id",
                );
            }
        }
    }

    fn handle_request(self: &Arc<Self>, id: Value, method: &str, params: Map<String, Value>) {
        let key = id_key(&id);
        let revision = match self.request_revision(&id, method, &params) {
            Some(revision) => revision,
            None => return,
        };
        {
            let mut state = self.lock();
            if state.in_flight.contains_key(&key) {
                self.violation(
                    rules::REUSED_ID,
                    format!("request id {key} reused while still in flight"),
                );
            }
            // The `in-flight-id-accepted` mutant serves the clashing request as a new one.
            if state.in_flight.contains_key(&key) && !self.core.breaks(Mutant::InFlightIdAccepted) {
                drop(state);
                let message = format!("Invalid Request: id {key} is still in flight");
                self.send(jsonrpc::error(id, jsonrpc::INVALID_REQUEST, &message, None));
                return;
            }
            if !state.seen.insert(key.clone())
                && revision == Revision::V2025_11_25
                && !self.core.breaks(Mutant::ReusedIdUnflagged)
            {
                self.violation(
                    rules::REUSED_ID,
                    format!("request id {key} reused within the session"),
                );
            }
        }
        // The plugged-in fixtures (the conformance suite's, only with `--conformance`) first.
        let handed_back = match self.core.fixtures() {
            Some(fixtures) => fixtures.dispatch(self, id, key, method, revision, params),
            None => Dispatch::NotAFixture { id, key, params },
        };
        match handed_back {
            Dispatch::Handled => {}
            Dispatch::NotAFixture { id, key, params } => {
                self.route(id, key, method, revision, params)
            }
        }
    }

    /// Routes a request the conformance fixtures do not handle.
    fn route(
        self: &Arc<Self>,
        id: Value,
        key: String,
        method: &str,
        revision: Revision,
        params: Map<String, Value>,
    ) {
        let answer = match (method, revision) {
            ("initialize", _) => self.initialize(&key, &params),
            ("ping", Revision::V2025_11_25) => Ok(json!({})),
            // The `ping-still-served` mutant answers the removed method under 2026-07-28 too.
            ("ping", _) if self.core.breaks(Mutant::PingStillServed) => Ok(json!({})),
            ("server/discover", _) => {
                let mut result = discover_result();
                let capabilities = &mut result["capabilities"];
                self.core.extend_capabilities(capabilities, revision);
                Ok(cacheable(result, Revision::V2026_07_28))
            }
            ("tools/list", _) => {
                let tools = tool_definitions(&self.core, revision);
                Ok(cacheable(json!({"tools": tools}), revision))
            }
            ("tools/call", _) => return self.call_tool(id, key, revision, params),
            ("tasks/get" | "tasks/cancel", _)
            | ("tasks/result" | "tasks/list", Revision::V2025_11_25)
            | ("tasks/update", Revision::V2026_07_28) => {
                return tasks::handle(self, id, method, revision, &params);
            }
            _ => Err((
                jsonrpc::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                None,
            )),
        };
        self.answer(id, revision, answer);
    }
}

/// The `tools/list` entries `core` serves under `revision`. With the conformance fixtures, they
/// come first: the suite calls the first tool listed with no arguments, which the fixed tool
/// contract's `echo` would refuse.
pub(crate) fn tool_definitions(core: &Core, revision: Revision) -> Vec<Value> {
    let mut tools = Vec::new();
    if let Some(fixtures) = core.fixtures() {
        tools.extend(fixtures.tool_definitions(revision));
    }
    tools.extend(tools::definitions());
    tools
}
