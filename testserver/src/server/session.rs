//! One connection's protocol state and dispatch: the era it is in (negotiated in
//! `negotiation.rs`: 2025-11-25 `initialize` or 2026-07-28 per-request `_meta`), request-id
//! bookkeeping, cancellation, progress tokens, server-to-client requests, and the routing of
//! each method.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::mutants::Mutant;
use super::negotiation::discover_result;
use super::{Core, record_in, tools};
use crate::conformance::Dispatch;
use crate::jsonrpc::{self, Incoming, id_key};
use crate::revision::Revision;
use crate::transcript::{Direction, Entry};
use crate::violations::rules;

/// The `_meta` key carrying a 2026-07-28 request's protocol version.
pub(crate) const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key carrying a 2026-07-28 request's client capabilities.
pub(crate) const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The tasks extension id (2026-07-28).
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How this connection's lifecycle was established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// Nothing yet.
    Fresh,
    /// `initialize` was answered: 2025-11-25 rules for the rest of the connection.
    Legacy,
    /// A request carried a 2026-07-28 `_meta` version.
    Modern,
}

/// A `tools/call` whose handler is running and whose answer is still owed.
pub(crate) struct InFlight {
    pub(crate) token: CancellationToken,
    pub(crate) progress_token: Option<String>,
    pub(crate) cancelled: bool,
}

pub(crate) struct State {
    pub(crate) era: Era,
    pub(crate) initialize_id: Option<String>,
    pub(crate) legacy_capabilities: Value,
    /// Every request id the client ever sent (2025-11-25 forbids reuse within the session).
    pub(crate) seen: HashSet<String>,
    pub(crate) in_flight: BTreeMap<String, InFlight>,
    /// Ids of requests that created tasks; `notifications/cancelled` must not name them.
    pub(crate) task_requests: HashSet<String>,
    /// Progress tokens of active requests.
    pub(crate) active_tokens: HashSet<String>,
    pub(crate) next_server_id: i64,
    pub(crate) awaiting_client: BTreeMap<String, oneshot::Sender<Result<Value, Value>>>,
}

/// One outbound message with the key of the client request it relates to (`None`: none, e.g.
/// a reply to a message without a usable id), for transports that route by it.
pub(crate) struct Outbound {
    pub message: Value,
    pub related: Option<String>,
}

/// Where a session's messages go: plain (stdio, in-process, per-request HTTP) or with the
/// request each relates to (2025-11-25 HTTP sessions, which route by it).
enum Outbox {
    Plain(mpsc::UnboundedSender<Value>),
    Related(mpsc::UnboundedSender<Outbound>),
}

/// One connection.
pub(crate) struct Session {
    pub core: Arc<Core>,
    outbox: Mutex<Option<Outbox>>,
    state: Mutex<State>,
}

impl Session {
    pub(crate) fn new(core: Arc<Core>, outbox: mpsc::UnboundedSender<Value>) -> Arc<Session> {
        Session::with_outbox(core, Outbox::Plain(outbox))
    }

    /// A session whose outbound messages name the client request they relate to.
    pub(crate) fn with_related(
        core: Arc<Core>,
        outbox: mpsc::UnboundedSender<Outbound>,
    ) -> Arc<Session> {
        Session::with_outbox(core, Outbox::Related(outbox))
    }

    fn with_outbox(core: Arc<Core>, outbox: Outbox) -> Arc<Session> {
        Arc::new(Session {
            core,
            outbox: Mutex::new(Some(outbox)),
            state: Mutex::new(State {
                era: Era::Fresh,
                initialize_id: None,
                legacy_capabilities: json!({}),
                seen: HashSet::new(),
                in_flight: BTreeMap::new(),
                task_requests: HashSet::new(),
                active_tokens: HashSet::new(),
                next_server_id: 1,
                awaiting_client: BTreeMap::new(),
            }),
        })
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Records and sends one message that relates to no particular client request (dropped
    /// once the connection is closed).
    pub(crate) fn send(&self, message: Value) {
        self.send_related(message, None);
    }

    /// Records and sends one message on behalf of the client request with id key `related`
    /// (a response, or what its handler sends before it: progress, logs, its own requests).
    pub(crate) fn send_related(&self, message: Value, related: Option<&str>) {
        let outbox = self
            .outbox
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(outbox) = outbox.as_ref() {
            self.core.transcript.record(Direction::Out, message.clone());
            match outbox {
                Outbox::Plain(outbox) => {
                    let _ = outbox.send(message);
                }
                Outbox::Related(outbox) => {
                    let related = related.map(str::to_owned);
                    let _ = outbox.send(Outbound { message, related });
                }
            }
        }
    }

    /// `send_related` while the caller holds the state lock, so the check before it stays true.
    pub(crate) fn send_locked(
        &self,
        _state: &MutexGuard<'_, State>,
        message: Value,
        related: Option<&str>,
    ) {
        self.send_related(message, related);
    }

    /// The peer closed its side: cancel what runs, forget what waits, stop sending.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        // In key order (a BTreeMap), so handlers stop, and log it, in the same order every run.
        for call in state.in_flight.values_mut() {
            call.cancelled = true;
            call.token.cancel();
        }
        state.awaiting_client.clear();
        drop(state);
        self.stop_sending();
    }

    /// Sends nothing more: the outbox is dropped, so the writer ends once it has flushed.
    pub(crate) fn stop_sending(&self) {
        self.outbox
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .take();
    }

    /// Cancels the one request `key` names, as `notifications/cancelled` would: its handler
    /// stops and nothing is sent for it. Only the `legacy-disconnect-cancels` mutant calls it
    /// (a 2025-11-25 response stream closing is not a cancel).
    pub(crate) fn cancel_request(&self, key: &str) {
        let mut state = self.lock();
        if let Some(call) = state.in_flight.get_mut(key) {
            call.cancelled = true;
            call.token.cancel();
            if let Some(token) = call.progress_token.take() {
                state.active_tokens.remove(&token);
            }
        }
    }

    /// Handles a line longer than the limit.
    pub(crate) fn handle_oversized(&self, length: usize) {
        let shown = format!("<{length} bytes, over the line limit>");
        self.core
            .transcript
            .record_entry(Direction::In, Entry::Unparseable(shown));
        self.core.violations.record(
            rules::PARSE_ERROR,
            format!("a {length}-byte line exceeds the limit"),
        );
        let message = format!(
            "message of {length} bytes exceeds the {} byte limit",
            super::MAX_LINE_BYTES
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
                self.core
                    .transcript
                    .record_entry(Direction::In, Entry::Unparseable(shown));
                self.core
                    .violations
                    .record(rules::PARSE_ERROR, format!("unparseable line: {error}"));
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
        record_in(&self.core, value.clone());
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
                self.core.violations.record(rule, reason.clone());
                self.send(jsonrpc::error(
                    id,
                    jsonrpc::INVALID_REQUEST,
                    &format!("Invalid Request: {reason}"),
                    None,
                ));
            }
            Incoming::StrayError => {
                self.core.violations.record(
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
                self.core.violations.record(
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
                self.core.violations.record(
                    rules::REUSED_ID,
                    format!("request id {key} reused within the session"),
                );
            }
        }
        // The conformance suite's fixtures (only with `--conformance`): one dispatch point.
        match crate::conformance::dispatch(self, id, key, method, revision, params) {
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
                crate::conformance::extend_capabilities(&self.core, capabilities, revision);
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
                return super::tasks::handle(self, id, method, revision, &params);
            }
            _ => Err((
                jsonrpc::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                None,
            )),
        };
        self.answer(id, revision, answer);
    }

    /// Sends a response to a request that is answered at once.
    pub(crate) fn answer(
        &self,
        id: Value,
        revision: Revision,
        answer: Result<Value, (i64, String, Option<Value>)>,
    ) {
        let message = match answer {
            Ok(result) => jsonrpc::result(id, stamp(&self.core, result, revision)),
            Err((code, message, data)) => jsonrpc::error(id, code, &message, data),
        };
        self.send(message);
    }
}

/// The `tools/list` entries `core` serves under `revision`. With the conformance fixtures, they
/// come first: the suite calls the first tool listed with no arguments, which the fixed tool
/// contract's `echo` would refuse.
pub(crate) fn tool_definitions(core: &Core, revision: Revision) -> Vec<Value> {
    let mut tools = Vec::new();
    if crate::conformance::enabled(core) {
        tools.extend(crate::conformance::tool_definitions(revision));
    }
    tools.extend(tools::definitions());
    tools
}

/// Adds `resultType: "complete"` to a 2026-07-28 result that does not name its type (the
/// `result-type-omitted` mutant leaves it out).
pub(crate) fn stamp(core: &Core, mut result: Value, revision: Revision) -> Value {
    if revision == Revision::V2026_07_28
        && !core.breaks(Mutant::ResultTypeOmitted)
        && let Some(object) = result.as_object_mut()
    {
        object
            .entry("resultType")
            .or_insert_with(|| json!("complete"));
    }
    result
}

/// 2026-07-28 cacheable results carry a cache hint; this server's answers are never to be
/// reused (`ttlMs: 0`), so every call shows on the wire.
pub(crate) fn cacheable(mut result: Value, revision: Revision) -> Value {
    if revision == Revision::V2026_07_28 {
        result["ttlMs"] = json!(0);
        result["cacheScope"] = json!("private");
    }
    result
}
