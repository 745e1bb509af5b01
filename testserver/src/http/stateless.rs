//! 2026-07-28 requests on the endpoint: no session; each request gets a fresh per-request
//! session whose outbox is exactly that request's response stream, so closing that stream is
//! the cancellation of the request (the session is closed, which stops the handler exactly as
//! `notifications/cancelled` does). Headers are checked first (`checks`), including the
//! arguments a tool mirrors into `Mcp-Param-*` headers. A POSTed `notifications/cancelled` is
//! accepted and dropped: nothing ties it to the client whose request it names. These requests
//! share one binding context, [`Context::STATELESS`]: their transcript entries, gates and
//! tasks are seen by each other and by no session or connection (and theirs by none of them).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use hyper::{StatusCode, header};
use serde_json::Value;
use tokio::sync::mpsc;

use super::body::{self, EndGuard, Ending, ResponseStream};
use super::checks;
use super::endpoint::{Endpoint, Reply};
use super::events;
use crate::context::Context;
use crate::jsonrpc::{self, id_key};
use crate::server::Mutant;
use crate::server::session::Session;
use crate::transcript::Direction;

/// The context every request here belongs to.
const STATELESS: Context = Context::STATELESS;

impl Endpoint {
    /// A 2026-07-28 request: validated headers, then its own session; the response stream's
    /// end decides whether the request was cancelled.
    pub(super) async fn stateless(
        self: Arc<Self>,
        headers: &header::HeaderMap,
        message: Value,
        bytes: Bytes,
    ) -> Reply {
        let id = message.get("id").cloned();
        let mirrored = self.mirrored_arguments(&message);
        if let Err((code, rule, problem)) = checks::request_metadata(headers, &message, &mirrored) {
            let transcript = &self.core.transcript;
            transcript.record_for(STATELESS, Direction::In, message.clone());
            self.core.record_violation(STATELESS, rule, problem.clone());
            let reply = jsonrpc::error(id.unwrap_or(Value::Null), code, &problem, None);
            transcript.record_for(STATELESS, Direction::Out, reply.clone());
            return body::json(StatusCode::BAD_REQUEST, &reply);
        }
        let method = message.get("method").and_then(Value::as_str);
        let Some(id) = id.filter(|_| method.is_some()) else {
            return self.stateless_notification(message);
        };
        let (outbox, messages) = mpsc::unbounded_channel();
        let session = Session::stateless(self.core.clone(), outbox);
        let key = id_key(&id);
        let serial = self.next_serial.fetch_add(1, Ordering::Relaxed);
        self.lock_live().insert(serial, session.clone());
        if method == Some("initialize") {
            // Removed in 2026-07-28; the core would start a 2025-11-25 handshake instead.
            let transcript = &self.core.transcript;
            transcript.record_for(STATELESS, Direction::In, message.clone());
            session.send(jsonrpc::error(
                id.clone(),
                jsonrpc::METHOD_NOT_FOUND,
                "Method not found: initialize (removed in 2026-07-28; use server/discover)",
                None,
            ));
        } else {
            session.handle_line(&bytes);
        }
        // The request lives on in the core (its transcript entry, its handler's arguments);
        // the body and its parsed copy are not kept while the response streams.
        drop((message, bytes));
        let endpoint = self.clone();
        let transcript = self.core.transcript.clone();
        // The `disconnect-not-cancel` mutant leaves the handler running after a hang-up.
        let keep_running = self.core.breaks(Mutant::DisconnectNotCancel);
        let stopping = self.stopping.clone();
        let guard = EndGuard::new(Box::new(move |ending| {
            if ending == Ending::Abandoned && !stopping.is_cancelled() {
                events::record_disconnect(&transcript, STATELESS, &id, true);
            }
            // Completed: nothing runs any more. Abandoned: stops the handler, sends nothing.
            if ending == Ending::Completed || !keep_running {
                session.close();
            }
            endpoint.lock_live().remove(&serial);
        }));
        let stream = ResponseStream {
            request_key: key,
            messages,
            guard,
        };
        stream.into_response(checks::modern_status, &[]).await
    }

    /// The arguments the tool a `tools/call` names mirrors into headers (none for other
    /// messages and unknown tools).
    fn mirrored_arguments(&self, message: &Value) -> Vec<checks::MirroredArgument> {
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return Vec::new();
        }
        let Some(name) = message.pointer("/params/name").and_then(Value::as_str) else {
            return Vec::new();
        };
        let mirrored = self.mirrored.get_or_init(|| {
            let revision = crate::revision::Revision::V2026_07_28;
            crate::server::dispatch::tool_definitions(&self.core, revision)
                .iter()
                .filter_map(|tool| {
                    let arguments = checks::mirrored_arguments(tool);
                    let name = tool["name"].as_str()?.to_owned();
                    (!arguments.is_empty()).then_some((name, arguments))
                })
                .collect()
        });
        mirrored.get(name).cloned().unwrap_or_default()
    }

    /// A 2026-07-28 notification POST: recorded, acknowledged with 202, and not acted on. The
    /// only one a client sends is `notifications/cancelled`, which Streamable HTTP replaces with
    /// closing the request's response stream ("No `notifications/cancelled` message is required
    /// or expected", basic/patterns/cancellation). Acting on it by `requestId` could stop
    /// another client's request: ids are unique only among one client's requests, and no
    /// session, connection or token ties this POST to the one whose id it names (the request's
    /// own connection is busy with its response under HTTP/1.1). So it is dropped, as the spec
    /// allows ("Servers MAY ignore cancellation notifications if ... the request cannot be
    /// cancelled"), and the handler log says so; it is no violation: real clients send it.
    fn stateless_notification(&self, message: Value) -> Reply {
        let named = message.pointer("/params/requestId").map(id_key);
        let cancel =
            message.get("method").and_then(Value::as_str) == Some("notifications/cancelled");
        let transcript = &self.core.transcript;
        transcript.record_for(STATELESS, Direction::In, message);
        if let Some(key) = named.filter(|_| cancel) {
            self.core.handlers.log_for(STATELESS, format!(
                "cancel for {key} POSTed over Streamable HTTP ignored: under 2026-07-28 only closing the request's response stream cancels it"
            ));
        }
        body::empty(StatusCode::ACCEPTED)
    }
}
