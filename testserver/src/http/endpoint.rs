//! The MCP endpoint (`/mcp`): one hyper service for POST, GET and DELETE. A POST is judged
//! at the HTTP level (`checks`), then handed to the server core as one JSON-RPC line: to the
//! 2025-11-25 session its `Mcp-Session-Id` names (or a new one for `initialize`), or, for a
//! 2026-07-28 request, to a fresh per-request session whose outbox is exactly that request's
//! response stream. Closing that stream is the cancellation of the request: the session is
//! closed, which stops the handler exactly as `notifications/cancelled` does.
//!
//! Every POST gets an answer on its own response: one the core cannot route back by id (not
//! JSON, no object, an id that is no string or integer, an id without a method, an empty body)
//! is answered there with 400 and the JSON-RPC error the core gives it on stdio.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode, header};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::body::{self, EndGuard, Ending, HttpBody, ResponseStream};
use super::checks::{self, SESSION_HEADER};
use super::events;
use super::legacy::LegacySession;
use super::limits::Limits;
use super::sessions::Sessions;
use crate::context::Context;
use crate::jsonrpc::{self, id_key};
use crate::revision::Revision;
use crate::server::session::{Session, VERSION_KEY};
use crate::server::{Core, MAX_LINE_BYTES, Mutant};

/// The endpoint's path.
pub const PATH: &str = "/mcp";

/// Violation rule: a 2025-11-25 request without the `Mcp-Session-Id` it was given.
pub const MISSING_SESSION_ID: &str = "http-missing-session-id";
pub use super::checks::HEADER_MISMATCH_RULE;

/// The state behind the endpoint.
pub(super) struct Endpoint {
    pub core: Arc<Core>,
    pub(super) sessions: Sessions,
    pub(super) body_read_timeout: Option<Duration>,
    /// Cancelled when the server stops: streams it closes then were not left by their client.
    pub(super) stopping: CancellationToken,
    /// 2026-07-28 requests whose response is still owed, by serial, so a shutdown can end
    /// them.
    pub(super) live: Mutex<HashMap<u64, Arc<Session>>>,
    pub(super) next_serial: AtomicU64,
    /// The 2026-07-28 tools that mirror arguments into headers, by name (the tool list is fixed
    /// for a core, so it is read once).
    pub(super) mirrored: std::sync::OnceLock<HashMap<String, Vec<checks::MirroredArgument>>>,
}

pub(super) type Reply = Response<HttpBody>;

impl Endpoint {
    pub(super) fn new(core: Arc<Core>, limits: &Limits, stopping: CancellationToken) -> Endpoint {
        Endpoint {
            core,
            sessions: Sessions::new(limits),
            body_read_timeout: limits.body_read_timeout,
            stopping,
            live: Mutex::default(),
            next_serial: AtomicU64::new(1),
            mirrored: std::sync::OnceLock::new(),
        }
    }

    /// Serves one HTTP request that arrived on a connection to `arrived_at` (the connection's
    /// local address, when known).
    pub(super) async fn handle(
        self: Arc<Self>,
        request: Request<Incoming>,
        arrived_at: Option<IpAddr>,
    ) -> Reply {
        self.sessions.sweep_when_due();
        if request.uri().path() != PATH {
            return body::empty(StatusCode::NOT_FOUND);
        }
        if let Err(reply) = checks::origin(request.headers(), arrived_at) {
            return *reply;
        }
        match *request.method() {
            Method::POST => self.post(request).await,
            Method::GET => self.get(&request),
            Method::DELETE => self.delete(&request),
            _ => {
                let mut reply = body::empty(StatusCode::METHOD_NOT_ALLOWED);
                reply.headers_mut().insert(
                    header::ALLOW,
                    header::HeaderValue::from_static("GET, POST, DELETE"),
                );
                reply
            }
        }
    }

    async fn post(self: Arc<Self>, request: Request<Incoming>) -> Reply {
        let (parts, incoming) = request.into_parts();
        let headers = parts.headers;
        if let Err(reply) = checks::post_headers(&headers) {
            return *reply;
        }
        let collect = Limited::new(incoming, MAX_LINE_BYTES).collect();
        let collected = match self.body_read_timeout {
            Some(limit) => match tokio::time::timeout(limit, collect).await {
                Ok(collected) => collected,
                Err(_) => return body_timed_out(limit),
            },
            None => collect.await,
        };
        let bytes = match collected {
            Ok(collected) => collected.to_bytes(),
            Err(_) => return self.probe_oversized(),
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return self.empty_body(bytes.len());
        }
        let message = match serde_json::from_slice::<Value>(&bytes) {
            Ok(message @ Value::Object(_)) => message,
            // Not JSON, or not one JSON-RPC object (a batch): the core says why.
            _ => return self.probe(&bytes, StatusCode::BAD_REQUEST),
        };
        if let jsonrpc::Incoming::Invalid { .. } = jsonrpc::classify(&message) {
            // Its error carries no id the client is waiting on a stream for (an id that is no
            // string or integer is answered with id null), or answers a message that opened
            // no stream (an id without a method): only this POST can carry it.
            return self.probe(&bytes, StatusCode::BAD_REQUEST);
        }
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        if let Err(reply) = checks::protocol_version(&headers, &id) {
            return *reply;
        }
        let method = message.get("method").and_then(Value::as_str);
        let version_header = checks::header(&headers, checks::PROTOCOL_VERSION_HEADER);
        let meta_version = message
            .pointer("/params/_meta")
            .and_then(|meta| meta.get(VERSION_KEY))
            .is_some();
        let modern = version_header == Some(Revision::V2026_07_28.as_str())
            || (meta_version && method != Some("initialize"));
        if modern {
            return self.stateless(&headers, message, bytes).await;
        }
        if method == Some("initialize") && message.get("id").is_some() {
            return self.initialize(&id, &bytes).await;
        }
        let Some(session_id) = checks::header(&headers, SESSION_HEADER) else {
            let what = method.unwrap_or("a response");
            self.core.violations.record(
                MISSING_SESSION_ID,
                format!("`{what}` POSTed without the Mcp-Session-Id header (2025-11-25)"),
            );
            let text = "Bad Request: Mcp-Session-Id header is required (send initialize first, or use 2026-07-28 with per-request _meta)";
            return checks::error(StatusCode::BAD_REQUEST, id, jsonrpc::INVALID_REQUEST, text);
        };
        let Some(session) = self.sessions.get(session_id) else {
            return session_not_found(id);
        };
        let headers = [("mcp-session-id", session_id.to_owned())];
        if method.is_none() || message.get("id").is_none() {
            // A notification, or the client's answer to a server request.
            session.touch();
            session.session.handle_line(&bytes);
            return body::with_headers(body::empty(StatusCode::ACCEPTED), &headers);
        }
        let token = message.pointer("/params/_meta/progressToken").map(id_key);
        let key = id_key(&id);
        let Some(messages) = session.open_request(&key, token) else {
            return self.reused_in_flight(&message, &key, session.session.context());
        };
        session.session.handle_line(&bytes);
        // The request lives on in the core (its transcript entry, its handler's arguments);
        // the body and its parsed copy are not kept while the response streams.
        drop((message, bytes));
        let closer = session.clone();
        let transcript = self.core.transcript.clone();
        let context = session.session.context();
        let request_id = id;
        let stopping = self.stopping.clone();
        // The `legacy-disconnect-cancels` mutant takes the hang-up for a cancel (and records it
        // as one).
        let cancels = self.core.breaks(Mutant::LegacyDisconnectCancels);
        let guard = EndGuard::new(Box::new(move |ending| {
            if ending == Ending::Abandoned {
                if !stopping.is_cancelled() {
                    events::record_disconnect(&transcript, context, &request_id, cancels);
                }
                let key = id_key(&request_id);
                if cancels {
                    closer.session.cancel_request(&key);
                }
                closer.close_request(&key);
            }
        }));
        let stream = ResponseStream {
            request_key: key,
            messages,
            guard,
        };
        stream.into_response(checks::legacy_status, &headers).await
    }

    /// `initialize`: a new 2025-11-25 session, its id in `Mcp-Session-Id`.
    async fn initialize(&self, id: &Value, bytes: &Bytes) -> Reply {
        if self.sessions.make_room().is_err() {
            let text = "Service Unavailable: the session limit is reached and every session has a request running; retry later";
            return checks::error(
                StatusCode::SERVICE_UNAVAILABLE,
                id.clone(),
                jsonrpc::INTERNAL_ERROR,
                text,
            );
        }
        let session = Arc::new(LegacySession::new(self.core.clone()));
        let key = id_key(id);
        let messages = session
            .open_request(&key, None)
            .expect("a new session has no open stream");
        session.session.handle_line(bytes);
        let session_id = new_session_id();
        let stream = ResponseStream {
            request_key: key,
            messages,
            guard: EndGuard::new(Box::new(|_| {})),
        };
        let reply = stream
            .into_response(
                checks::legacy_status,
                &[("mcp-session-id", session_id.clone())],
            )
            .await;
        let answered = reply.status() == StatusCode::OK;
        if answered {
            self.sessions.insert(session_id, session);
        }
        reply
    }

    /// GET: the standalone SSE stream of a 2025-11-25 session (405 without a session, as
    /// 2026-07-28 has no GET stream).
    fn get(&self, request: &Request<Incoming>) -> Reply {
        let Some(session_id) = checks::header(request.headers(), SESSION_HEADER) else {
            return body::empty(StatusCode::METHOD_NOT_ALLOWED);
        };
        if !checks::accepts(request.headers(), "text/event-stream") {
            return checks::error(
                StatusCode::NOT_ACCEPTABLE,
                Value::Null,
                jsonrpc::INVALID_REQUEST,
                "Not Acceptable: the Accept header must list text/event-stream",
            );
        }
        let Some(session) = self.sessions.get(session_id) else {
            return session_not_found(Value::Null);
        };
        let Some(messages) = session.open_standalone() else {
            return checks::error(
                StatusCode::CONFLICT,
                Value::Null,
                jsonrpc::INVALID_REQUEST,
                "Conflict: this session already has a standalone SSE stream",
            );
        };
        let reply = body::standalone_stream(messages, EndGuard::new(Box::new(|_| {})));
        body::with_headers(reply, &[("mcp-session-id", session_id.to_owned())])
    }

    /// DELETE: ends a 2025-11-25 session (405 without a session id). A request of it still
    /// running is cancelled, and its open POST answered with 404 and a JSON-RPC error (see
    /// [`LegacySession::end_deleted`]).
    fn delete(&self, request: &Request<Incoming>) -> Reply {
        let Some(session_id) = checks::header(request.headers(), SESSION_HEADER) else {
            return body::empty(StatusCode::METHOD_NOT_ALLOWED);
        };
        match self.sessions.remove(session_id) {
            Some(session) => {
                session.end_deleted();
                body::empty(StatusCode::OK)
            }
            None => session_not_found(Value::Null),
        }
    }

    /// An empty or blank POST body: no JSON-RPC message at all (over stdio a blank line is
    /// skipped, but a POST must carry one message). Recorded as an unparseable line, answered
    /// with a parse error and 400.
    fn empty_body(&self, length: usize) -> Reply {
        use crate::transcript::{Direction, Entry};
        let shown = format!("<empty POST body: {length} bytes of whitespace>");
        self.core
            .transcript
            .record_entry(Direction::In, Entry::Unparseable(shown));
        self.core.violations.record(
            crate::violations::rules::PARSE_ERROR,
            "a POST without a JSON-RPC message (empty or blank body)",
        );
        let reply = jsonrpc::error(
            Value::Null,
            jsonrpc::PARSE_ERROR,
            "Parse error: the POST body is empty or blank; it must be one JSON-RPC message",
            None,
        );
        self.core.transcript.record(Direction::Out, reply.clone());
        body::json(StatusCode::BAD_REQUEST, &reply)
    }

    /// Hands a line the endpoint cannot route (unparseable, not an object) to a throwaway
    /// session, so it is recorded and judged exactly as on stdio, and returns its answer.
    fn probe(&self, bytes: &[u8], status: StatusCode) -> Reply {
        let (outbox, mut answers) = mpsc::unbounded_channel();
        let session = Session::new(self.core.clone(), outbox);
        session.handle_line(bytes);
        session.close();
        match answers.try_recv() {
            Ok(answer) => body::json(status, &answer),
            Err(_) => body::empty(StatusCode::ACCEPTED),
        }
    }

    fn probe_oversized(&self) -> Reply {
        let (outbox, mut answers) = mpsc::unbounded_channel();
        let session = Session::new(self.core.clone(), outbox);
        session.handle_oversized(MAX_LINE_BYTES + 1);
        session.close();
        match answers.try_recv() {
            Ok(answer) => body::json(StatusCode::PAYLOAD_TOO_LARGE, &answer),
            Err(_) => body::empty(StatusCode::PAYLOAD_TOO_LARGE),
        }
    }

    /// A 2025-11-25 request whose id is still in flight on another stream: recorded and
    /// refused here, since the session's error would carry the same id as the running request.
    fn reused_in_flight(&self, message: &Value, key: &str, context: Context) -> Reply {
        use crate::transcript::Direction;
        let transcript = &self.core.transcript;
        transcript.record_for(context, Direction::In, message.clone());
        self.core.record_violation(
            context,
            crate::violations::rules::REUSED_ID,
            format!("request id {key} reused while still in flight"),
        );
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let text = format!("Invalid Request: id {key} is still in flight");
        let reply = jsonrpc::error(id, jsonrpc::INVALID_REQUEST, &text, None);
        transcript.record_for(context, Direction::Out, reply.clone());
        body::json(StatusCode::OK, &reply)
    }

    pub(super) fn lock_live(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Session>>> {
        self.live
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Ends every session (the server is shutting down).
    pub(super) fn end_all(&self) {
        for session in self.sessions.drain() {
            session.end();
        }
        let live: Vec<_> = self
            .lock_live()
            .drain()
            .map(|(_, session)| session)
            .collect();
        for session in live {
            session.close();
        }
    }
}

/// A POST body that did not arrive within the body read timeout: 408, and the connection closes
/// (the rest of the body is never read).
fn body_timed_out(limit: Duration) -> Reply {
    let text = format!(
        "Request Timeout: the body did not arrive within {} s",
        limit.as_secs_f64()
    );
    let mut reply = checks::error(
        StatusCode::REQUEST_TIMEOUT,
        Value::Null,
        jsonrpc::INVALID_REQUEST,
        &text,
    );
    reply.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    reply
}

fn session_not_found(id: Value) -> Reply {
    checks::error(
        StatusCode::NOT_FOUND,
        id,
        jsonrpc::INVALID_REQUEST,
        "Not Found: no such session (it ended, or was never issued); send initialize again",
    )
}

/// A session id: 128 bits from the standard library's per-process random hasher keys, as hex
/// (visible ASCII, as the spec requires). Not shown in transcripts, so it needs no determinism.
fn new_session_id() -> String {
    use std::hash::{BuildHasher, RandomState};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let high = RandomState::new().hash_one(count);
    let low = RandomState::new().hash_one(count.wrapping_add(1));
    format!("{high:016x}{low:016x}")
}
