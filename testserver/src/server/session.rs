//! The state one server shares across its connections (`Core`: transcript, violations, gates,
//! handlers, tasks, the mutant it breaks, the fixtures plugged in) and one connection on it
//! (`Session`): the era it is in (negotiated in `negotiation.rs`: 2025-11-25 `initialize` or
//! 2026-07-28 per-request `_meta`), request-id bookkeeping, and where its messages go. What a
//! connection does with each message is `dispatch.rs`; `calls.rs` and `tasks.rs` add to
//! `Session` what running calls and tasks need.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::handlers::Handlers;
use super::mutants::{Mutant, process_mutant};
use super::task_id::TaskIds;
use super::task_store::TaskStore;
use crate::context::{Context, Contexts};
use crate::gates::Gates;
use crate::jsonrpc;
use crate::revision::Revision;
use crate::transcript::{Direction, Side, Transcript};
use crate::violations::{ViolationLog, ViolationsByContext};

/// How many transcript messages and handler log lines the `mcp-testserver` binary keeps by
/// default (`--transcript-limit`); in-process servers keep everything.
pub const DEFAULT_HISTORY_LIMIT: usize = 10_000;

/// How many bytes of transcript (compact JSON) the `mcp-testserver` binary keeps by default
/// (`--transcript-bytes`): 32 MiB, so a client sending messages of the largest size the server
/// reads (4 MiB) cannot make it hold more than a few dozen of them.
pub const DEFAULT_TRANSCRIPT_BYTES: usize = 32 * 1024 * 1024;

/// What a long-running server remembers: the last `messages` transcript messages and handler
/// log lines, and at most `bytes` bytes of transcript. A plain number converts into the
/// message limit with the default byte limit, as `serve_stdio(10_000, ..)` always meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryLimits {
    /// Transcript messages and handler log lines kept (`--transcript-limit`).
    pub messages: usize,
    /// Bytes of transcript kept (`--transcript-bytes`).
    pub bytes: usize,
    /// `handler_log` shows every client's lines, not only the caller's (`--handler-log-all`).
    pub handler_log_of_every_client: bool,
}

impl Default for HistoryLimits {
    fn default() -> HistoryLimits {
        HistoryLimits {
            messages: DEFAULT_HISTORY_LIMIT,
            bytes: DEFAULT_TRANSCRIPT_BYTES,
            handler_log_of_every_client: false,
        }
    }
}

impl From<usize> for HistoryLimits {
    fn from(messages: usize) -> HistoryLimits {
        HistoryLimits {
            messages,
            ..HistoryLimits::default()
        }
    }
}

/// The name the server gives in `serverInfo`.
pub const SERVER_NAME: &str = "mcp-testserver";

/// What one server shares across its connections.
#[derive(Debug)]
pub struct Core {
    /// Every message in both directions, as the server saw them.
    pub transcript: Transcript,
    /// What the peers did wrong, every context's (the report on stderr, the in-process API).
    pub violations: ViolationLog,
    /// What each context's own peer did wrong (its `violations` tool).
    pub violations_by_context: ViolationsByContext,
    /// Named latches for `wait_gate` / `open_gate`, each of one context.
    pub gates: Gates,
    /// Hands out each connection's (or session's) binding context.
    pub(crate) contexts: Contexts,
    /// Running tool handlers and their log.
    pub handlers: Handlers,
    pub(crate) tasks: TaskStore,
    /// Response ids of earlier `transcript` tool calls with their context, elided from later
    /// transcript replies.
    pub(crate) transcript_replies: std::sync::Mutex<std::collections::HashSet<(Context, String)>>,
    /// The fixtures plugged in, if any (see [`Fixtures`]).
    fixtures: Option<Arc<dyn Fixtures>>,
    /// The one rule this server breaks on purpose, if any (see `mutants`).
    mutant: Option<Mutant>,
}

impl Default for Core {
    fn default() -> Core {
        Core {
            transcript: Transcript::new(Side::Server),
            violations: ViolationLog::new(),
            violations_by_context: ViolationsByContext::default(),
            gates: Gates::default(),
            contexts: Contexts::default(),
            handlers: Handlers::default(),
            tasks: TaskStore::new(TaskIds::Deterministic),
            transcript_replies: Default::default(),
            fixtures: None,
            mutant: process_mutant(),
        }
    }
}

impl Core {
    /// Bounds what the core remembers to the last `limit` transcript messages and handler log
    /// lines, so a long-running server (the binary) keeps flat memory; in-process servers keep
    /// everything.
    pub fn limit_history(&self, limit: usize) {
        self.transcript.set_limit(limit);
        self.handlers.set_log_limit(limit);
    }

    /// Bounds what the core remembers in messages and in bytes (what the binary does; see
    /// [`HistoryLimits`]).
    pub fn limit_history_to(&self, limits: HistoryLimits) {
        self.limit_history(limits.messages);
        self.transcript.set_byte_limit(limits.bytes);
        if limits.handler_log_of_every_client {
            self.handlers.show_every_client();
        }
    }

    /// This core, with task ids from the operating system's CSPRNG (the binary's; see
    /// `task_id.rs`) instead of the deterministic ones an in-process server gives.
    pub fn with_random_task_ids(self) -> Core {
        Core {
            tasks: TaskStore::new(TaskIds::Random),
            ..self
        }
    }

    /// How many tasks this core holds (running and finished, all contexts).
    pub fn task_count(&self) -> usize {
        self.tasks.len()
    }

    /// This core, breaking `mutant`'s rule (`None`: no rule broken), whatever the process
    /// installed (see [`install_for_process`](super::mutants::install_for_process)).
    pub fn with_mutant(self, mutant: Option<Mutant>) -> Core {
        Core { mutant, ..self }
    }

    /// Records a violation committed by the peer of `context`: in the server's log and in the
    /// context's own (see [`ViolationsByContext`]).
    pub fn record_violation(&self, context: Context, rule: &str, detail: impl Into<String>) {
        let detail = detail.into();
        self.violations_by_context
            .record(context, rule, detail.clone());
        self.violations.record(rule, detail);
    }

    /// The mutant this core runs, if any.
    pub fn mutant(&self) -> Option<Mutant> {
        self.mutant
    }

    /// Whether this core breaks `mutant`'s rule: the one question the hooks ask.
    pub(crate) fn breaks(&self, mutant: Mutant) -> bool {
        self.mutant == Some(mutant)
    }

    /// This core, serving `fixtures` too (the conformance suite's: `Core::with_conformance_fixtures`).
    pub(crate) fn with_fixtures(self, fixtures: Arc<dyn Fixtures>) -> Core {
        Core {
            fixtures: Some(fixtures),
            ..self
        }
    }

    /// The fixtures plugged into this core, if any.
    pub(crate) fn fixtures(&self) -> Option<&dyn Fixtures> {
        self.fixtures.as_deref()
    }

    /// Adds what the plugged-in fixtures offer to the capabilities of `initialize` or
    /// `server/discover`.
    pub(crate) fn extend_capabilities(&self, capabilities: &mut Value, revision: Revision) {
        if let Some(fixtures) = self.fixtures() {
            fixtures.extend_capabilities(capabilities, revision);
        }
    }
}

/// Requests the core does not serve itself can be served by fixtures plugged into it (the
/// conformance suite's, `crate::conformance`, through `Core::with_conformance_fixtures`). The
/// core asks them first and knows them only through this trait: it never imports them, so they
/// can be read, and removed, without touching the core.
pub(crate) trait Fixtures: Send + Sync + fmt::Debug {
    /// Serves the request if it is the fixtures', else hands it back.
    fn dispatch(
        &self,
        session: &Arc<Session>,
        id: Value,
        key: String,
        method: &str,
        revision: Revision,
        params: Map<String, Value>,
    ) -> Dispatch;

    /// Adds what the fixtures offer to the capabilities of `initialize` / `server/discover`.
    fn extend_capabilities(&self, capabilities: &mut Value, revision: Revision);

    /// The fixtures' `tools/list` entries under `revision` (listed before the built-in tools).
    fn tool_definitions(&self, revision: Revision) -> Vec<Value>;
}

/// What [`Fixtures::dispatch`] did with a request.
pub(crate) enum Dispatch {
    /// A fixture answered it (or will, from its own task).
    Handled,
    /// Not a fixture's: the request, handed back for the session's own routing.
    NotAFixture {
        id: Value,
        key: String,
        params: Map<String, Value>,
    },
}

/// Records an incoming message of `context` in the core's transcript.
pub(crate) fn record_in(core: &Core, context: Context, message: serde_json::Value) {
    core.transcript.record_for(context, Direction::In, message);
}

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
    /// What this connection's transcript entries, gates and tasks belong to: its own (a
    /// connection, a 2025-11-25 HTTP session), or the shared stateless one (a 2026-07-28 HTTP
    /// request); see [`crate::context`].
    context: Context,
    outbox: Mutex<Option<Outbox>>,
    state: Mutex<State>,
}

impl Session {
    /// A connection of its own context (stdio, in-process).
    pub(crate) fn new(core: Arc<Core>, outbox: mpsc::UnboundedSender<Value>) -> Arc<Session> {
        let context = core.contexts.fresh();
        Session::with_outbox(core, Outbox::Plain(outbox), context)
    }

    /// One 2026-07-28 request over Streamable HTTP: the shared stateless context.
    pub(crate) fn stateless(core: Arc<Core>, outbox: mpsc::UnboundedSender<Value>) -> Arc<Session> {
        Session::with_outbox(core, Outbox::Plain(outbox), Context::STATELESS)
    }

    /// A session whose outbound messages name the client request they relate to (a 2025-11-25
    /// HTTP session), of its own context: what it holds goes with [`Session::close`].
    pub(crate) fn with_related(
        core: Arc<Core>,
        outbox: mpsc::UnboundedSender<Outbound>,
    ) -> Arc<Session> {
        let context = core.contexts.fresh();
        Session::with_outbox(core, Outbox::Related(outbox), context)
    }

    fn with_outbox(core: Arc<Core>, outbox: Outbox, context: Context) -> Arc<Session> {
        Arc::new(Session {
            core,
            context,
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

    /// The binding context this session's entries, gates and tasks belong to.
    pub(crate) fn context(&self) -> Context {
        self.context
    }

    /// Appends a line of this session's context to the handler log.
    pub(crate) fn log(&self, line: String) {
        self.core.handlers.log_for(self.context, line);
    }

    /// Records a violation this session's peer committed.
    pub(crate) fn violation(&self, rule: &str, detail: impl Into<String>) {
        self.core.record_violation(self.context, rule, detail);
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
            self.core
                .transcript
                .record_for(self.context, Direction::Out, message.clone());
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

    /// The peer closed its side: cancel what runs, forget what waits, stop sending; what its
    /// own context holds (gates, tasks, its violations, its transcript's and handler log's
    /// dropped counts) goes with it.
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
        if !self.context.is_shared() {
            self.core.gates.release(self.context);
            self.core.tasks.end_context(self.context);
            self.core.transcript.forget(self.context);
            self.core.handlers.forget(self.context);
            self.core.violations_by_context.forget(self.context);
        }
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
