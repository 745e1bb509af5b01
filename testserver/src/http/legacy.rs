//! 2025-11-25 sessions over Streamable HTTP: one server `Session` per `Mcp-Session-Id`, and the
//! routing of everything that session sends to the HTTP stream it belongs to. A response goes
//! to the POST that carried its request; progress goes where its token's request went; a
//! server-to-client request or a notification goes to the POST stream of the client request the
//! core says it relates to (a tool's `elicitation/create`, log messages: the spec's "SHOULD
//! relate to the originating client request"). Only when it relates to none, or that stream is
//! gone (a task's request was answered at once; the client closed it), does it go to the only
//! open POST stream, else to the standalone GET stream, else to the newest POST stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::jsonrpc::{self, id_key};
use crate::server::Core;
use crate::server::mutants::Mutant;
use crate::server::session::{Outbound, Session};
use crate::transcript::Direction;

/// One 2025-11-25 session.
pub(super) struct LegacySession {
    pub session: Arc<Session>,
    routes: Arc<Mutex<Routes>>,
}

struct Routes {
    /// When the client last sent something or was last answered (wall clock: the harness runs
    /// on tokio's paused one).
    last_active: Instant,
    /// Open POST streams by request id key, with the order they opened in.
    requests: HashMap<String, (u64, mpsc::UnboundedSender<Value>)>,
    next_serial: u64,
    /// Progress token key -> request id key.
    tokens: HashMap<String, String>,
    /// Server-to-client request id key -> where it went (`None`: the standalone stream).
    server_requests: HashMap<String, Option<String>>,
    standalone: Option<mpsc::UnboundedSender<Value>>,
}

/// Where a message goes.
enum Target {
    Request(String),
    Standalone,
    Nowhere,
}

impl LegacySession {
    /// A new session on `core`; its outbound messages are routed from now on.
    pub(super) fn new(core: Arc<Core>) -> LegacySession {
        let (outbox, mut inbox) = mpsc::unbounded_channel::<Outbound>();
        let session = Session::with_related(core, outbox);
        let routes = Arc::new(Mutex::new(Routes {
            last_active: Instant::now(),
            requests: HashMap::new(),
            next_serial: 0,
            tokens: HashMap::new(),
            server_requests: HashMap::new(),
            standalone: None,
        }));
        let router = routes.clone();
        tokio::spawn(async move {
            while let Some(Outbound { message, related }) = inbox.recv().await {
                lock(&router).route(message, related.as_deref());
            }
        });
        LegacySession { session, routes }
    }

    /// Opens the stream for a request about to be handed to the session; `None` when a stream
    /// for the same id is still open (the id is in flight).
    pub(super) fn open_request(
        &self,
        request_key: &str,
        progress_token: Option<String>,
    ) -> Option<mpsc::UnboundedReceiver<Value>> {
        let mut routes = lock(&self.routes);
        if routes.requests.contains_key(request_key) {
            return None;
        }
        routes.last_active = Instant::now();
        let (sender, receiver) = mpsc::unbounded_channel();
        let serial = routes.next_serial;
        routes.next_serial += 1;
        routes
            .requests
            .insert(request_key.to_owned(), (serial, sender));
        if let Some(token) = progress_token {
            routes.tokens.insert(token, request_key.to_owned());
        }
        Some(receiver)
    }

    /// Forgets a request's stream (its client closed it); later messages for it are dropped.
    pub(super) fn close_request(&self, request_key: &str) {
        let mut routes = lock(&self.routes);
        routes.requests.remove(request_key);
        routes.tokens.retain(|_, request| request != request_key);
    }

    /// Opens the standalone GET stream; `None` when one is already open.
    pub(super) fn open_standalone(&self) -> Option<mpsc::UnboundedReceiver<Value>> {
        let mut routes = lock(&self.routes);
        if routes
            .standalone
            .as_ref()
            .is_some_and(|sender| !sender.is_closed())
        {
            return None;
        }
        routes.last_active = Instant::now();
        let (sender, receiver) = mpsc::unbounded_channel();
        routes.standalone = Some(sender);
        Some(receiver)
    }

    /// The client sent something that is not a request (a notification, a response).
    pub(super) fn touch(&self) {
        lock(&self.routes).last_active = Instant::now();
    }

    /// How long the session has been idle at `now`: `None` while a request of it runs (its
    /// POST stream is open). A standalone GET stream does not keep a session alive.
    pub(super) fn idle_for(&self, now: Instant) -> Option<Duration> {
        let routes = lock(&self.routes);
        routes
            .requests
            .is_empty()
            .then(|| now.saturating_duration_since(routes.last_active))
    }

    /// Ends the session: running handlers are cancelled and every open stream ends.
    pub(super) fn end(&self) {
        self.session.close();
        let mut routes = lock(&self.routes);
        routes.requests.clear();
        routes.tokens.clear();
        routes.standalone = None;
    }

    /// Ends the session at the client's `DELETE`. A request still running was cancelled by
    /// it, but its POST is still open and JSON-RPC owes it a response: each gets an error
    /// ([`DELETED_DATA`] in its `data`, so the endpoint answers it with 404, what the spec
    /// prescribes for any request naming a terminated session), recorded like every message
    /// the server sends.
    pub(super) fn end_deleted(&self) {
        if self.session.core.breaks(Mutant::DeleteKeepsHandlers) {
            self.session.stop_sending(); // the mutant: the handlers run on, unheard
        } else {
            self.session.close();
        }
        let mut routes = lock(&self.routes);
        let open: Vec<_> = routes.requests.drain().collect();
        let mut open: Vec<_> = open
            .into_iter()
            .map(|(key, (serial, sender))| (serial, key, sender))
            .collect();
        open.sort_by_key(|(serial, _, _)| *serial);
        for (_, key, sender) in open {
            let id = serde_json::from_str(&key).unwrap_or(Value::Null);
            let message = jsonrpc::error(
                id,
                jsonrpc::INVALID_REQUEST,
                "Not Found: the session was deleted (HTTP DELETE) while this request ran; it is cancelled",
                Some(json!({DELETED_DATA: true})),
            );
            let context = self.session.context();
            let transcript = &self.session.core.transcript;
            transcript.record_for(context, Direction::Out, message.clone());
            let _ = sender.send(message);
        }
        routes.tokens.clear();
        routes.standalone = None;
    }
}

/// The `data` key of the error that answers a request whose session was deleted under it.
pub(super) const DELETED_DATA: &str = "sessionDeleted";

/// Whether `message` is the error [`LegacySession::end_deleted`] sends.
pub(super) fn is_deleted_answer(message: &Value) -> bool {
    message.pointer(&format!("/error/data/{DELETED_DATA}")) == Some(&Value::Bool(true))
}

fn lock(routes: &Mutex<Routes>) -> MutexGuard<'_, Routes> {
    routes.lock().unwrap_or_else(|poison| poison.into_inner())
}

impl Routes {
    fn route(&mut self, message: Value, related: Option<&str>) {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id");
        match (method, id) {
            (None, Some(id)) => {
                // A response to a client request: it ends that request's stream.
                let key = id_key(id);
                self.last_active = Instant::now();
                self.tokens.retain(|_, request| *request != key);
                if let Some((_, sender)) = self.requests.remove(&key) {
                    let _ = sender.send(message);
                }
            }
            (Some("notifications/progress"), None) => {
                let token = message.pointer("/params/progressToken").map(id_key);
                let request = token
                    .and_then(|token| self.tokens.get(&token))
                    .map(String::as_str)
                    .or(related.filter(|request| self.requests.contains_key(*request)));
                if let Some(request) = request.map(str::to_owned) {
                    self.send_to(&Target::Request(request), message);
                }
            }
            (Some("notifications/cancelled"), None) => {
                // The server abandons one of its own requests: tell the stream that carried it.
                let target = message
                    .pointer("/params/requestId")
                    .map(id_key)
                    .and_then(|key| self.server_requests.remove(&key));
                match target {
                    Some(Some(request)) => self.send_to(&Target::Request(request), message),
                    Some(None) => self.send_to(&Target::Standalone, message),
                    None => {}
                }
            }
            (Some(_), Some(id)) => {
                let target = self.target(related);
                let recorded = match &target {
                    Target::Request(request) => Some(Some(request.clone())),
                    Target::Standalone => Some(None),
                    Target::Nowhere => None,
                };
                if let Some(recorded) = recorded {
                    self.server_requests.insert(id_key(id), recorded);
                }
                self.send_to(&target, message);
            }
            (Some(_), None) => {
                let target = self.target(related);
                self.send_to(&target, message);
            }
            (None, None) => {}
        }
    }

    /// The stream of the request a message relates to while it is open, else `unattributed`.
    fn target(&self, related: Option<&str>) -> Target {
        match related {
            Some(request) if self.requests.contains_key(request) => {
                Target::Request(request.to_owned())
            }
            _ => self.unattributed(),
        }
    }

    /// Where a message that relates to no open request stream goes.
    fn unattributed(&self) -> Target {
        if self.requests.len() == 1 {
            let key = self.requests.keys().next().expect("one open stream");
            return Target::Request(key.clone());
        }
        if self
            .standalone
            .as_ref()
            .is_some_and(|sender| !sender.is_closed())
        {
            return Target::Standalone;
        }
        self.requests
            .iter()
            .max_by_key(|(_, (serial, _))| *serial)
            .map_or(Target::Nowhere, |(key, _)| Target::Request(key.clone()))
    }

    fn send_to(&mut self, target: &Target, message: Value) {
        match target {
            Target::Request(request) => {
                if let Some((_, sender)) = self.requests.get(request) {
                    let _ = sender.send(message);
                }
            }
            Target::Standalone => {
                if let Some(sender) = &self.standalone {
                    let _ = sender.send(message);
                }
            }
            Target::Nowhere => {}
        }
    }
}
