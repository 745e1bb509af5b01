//! Running requests: the `Call` context a tool handler gets and what it hands back (`Outcome`),
//! the in-flight ledger (`begin` / `finish`), cancellation (`notifications/cancelled` and its
//! rules), progress, and server-to-client requests with their own id space. Starting a built-in
//! tool's call is `call_tool.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::mutants::Mutant;
use super::session::{CAPABILITIES_KEY, Era, InFlight, Session, VERSION_KEY, stamp};
use crate::jsonrpc::{self, id_key};
use crate::revision::Revision;
use crate::violations::rules;

/// What a tool handler hands back.
pub(crate) enum Outcome {
    /// The tool result; not sent if the request was cancelled meanwhile.
    Result(Value),
    /// The handler stopped because of a cancel: send nothing.
    Cancelled,
    /// A result sent even though the request was cancelled (the `ignore_cancel` misbehaviour).
    Late(Value),
    /// A JSON-RPC error (code, message, data); not sent if the request was cancelled meanwhile.
    Error(i64, String, Option<Value>),
}

/// One text block.
pub(crate) fn text_result(text: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": text.into()}]})
}

/// The context of one running `tools/call`.
pub(crate) struct Call {
    pub session: Arc<Session>,
    pub id: Value,
    pub key: String,
    pub label: String,
    pub revision: Revision,
    pub token: CancellationToken,
    pub progress_token: Option<Value>,
    pub params: Map<String, Value>,
    pub client_capabilities: Value,
    /// The task this call runs as (set by `tasks::start`), whose status bounds its progress.
    pub task_number: Option<u64>,
    /// The last `progress` value sent (0: none yet), for the `progress-after-response` mutant.
    pub last_progress: AtomicU64,
}

impl Call {
    /// Sends `notifications/progress` when the request asked for it and is still owed an answer,
    /// or, for a 2025-11-25 task, while the task is not terminal: "The progress token remains
    /// valid and associated with the task until the task reaches a terminal status" (2025-11-25,
    /// basic/utilities/progress).
    pub(crate) fn progress(&self, progress: u64, total: u64, message: String) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let task_running = self
            .task_number
            .map(|number| self.session.core.tasks.is_running(number));
        let state = self.session.lock();
        let owed = task_running.unwrap_or_else(|| {
            state
                .in_flight
                .get(&self.key)
                .is_some_and(|call| !call.cancelled)
        });
        if owed {
            let core = &self.session.core;
            let progress = if core.breaks(Mutant::ProgressBackwards) {
                total.saturating_add(1).saturating_sub(progress)
            } else {
                progress
            };
            let token = if core.breaks(Mutant::ProgressTokenRetyped) {
                retyped(token)
            } else {
                token.clone()
            };
            self.last_progress.store(progress, Ordering::Relaxed);
            let params = json!({"progressToken": token, "progress": progress, "total": total, "message": message});
            self.session.send_locked(
                &state,
                jsonrpc::notification("notifications/progress", params),
                Some(&self.key),
            );
        }
    }

    /// The `progress-after-response` mutant: one more notification once the response is out.
    pub(crate) fn progress_after_response(&self) {
        if let Some(token) = &self.progress_token {
            let progress = self.last_progress.load(Ordering::Relaxed) + 1;
            let params = json!({"progressToken": token, "progress": progress, "message": "after the response"});
            self.session.send_related(
                jsonrpc::notification("notifications/progress", params),
                Some(&self.key),
            );
        }
    }

    /// Sends a server-to-client request on behalf of this call (see `Session::request_client`).
    pub(crate) fn request_client(
        &self,
        method: &str,
        params: Value,
    ) -> (Value, oneshot::Receiver<Result<Value, Value>>) {
        self.session.request_client(Some(&self.key), method, params)
    }

    /// Appends `"{label} {text}"` to the handler log.
    pub(crate) fn log(&self, text: &str) {
        self.session.log(format!("{} {text}", self.label));
    }
}

/// What every `tools/call` carries, whether the built-in tools or the fixtures run it.
pub(crate) struct ToolCallRequest {
    /// The tool's name; empty when the request names none.
    pub(crate) name: String,
    /// The tool's arguments; `{}` when the request has none.
    pub(crate) arguments: Value,
    /// `_meta.progressToken` as sent, not yet checked.
    pub(crate) progress_token: Option<Value>,
    /// What the client declared it can do: at `initialize` (2025-11-25) or in this request's
    /// `_meta` (2026-07-28).
    pub(crate) client_capabilities: Value,
}

impl Session {
    /// Reads the name, arguments, progress token and client capabilities of a `tools/call`.
    pub(crate) fn tool_call_request(
        &self,
        revision: Revision,
        params: &Map<String, Value>,
    ) -> ToolCallRequest {
        let meta = params.get("_meta");
        let client_capabilities = match revision {
            Revision::V2025_11_25 => self.lock().legacy_capabilities.clone(),
            Revision::V2026_07_28 => meta
                .and_then(|meta| meta.get(CAPABILITIES_KEY))
                .cloned()
                .unwrap_or(json!({})),
        };
        ToolCallRequest {
            name: params
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            arguments: params.get("arguments").cloned().unwrap_or(json!({})),
            progress_token: meta.and_then(|meta| meta.get("progressToken")).cloned(),
            client_capabilities,
        }
    }

    /// Registers a request whose answer comes later, so `notifications/cancelled` can stop it.
    pub(crate) fn begin(&self, key: &str, progress_token: Option<String>) -> CancellationToken {
        let token = CancellationToken::new();
        let entry = InFlight {
            token: token.clone(),
            progress_token,
            cancelled: false,
        };
        self.lock().in_flight.insert(key.to_owned(), entry);
        token
    }

    /// Sends (or, after a cancel, suppresses) the answer to a request registered with `begin`,
    /// and forgets the request. Returns whether something was sent.
    pub(crate) fn finish(
        &self,
        key: &str,
        id: Value,
        revision: Revision,
        outcome: Outcome,
    ) -> bool {
        let mut state = self.lock();
        let entry = state.in_flight.remove(key);
        // The `progress-token-never-freed` mutant keeps the token active after the answer.
        if let Some(token) = entry
            .as_ref()
            .and_then(|entry| entry.progress_token.as_ref())
            .filter(|_| !self.core.breaks(Mutant::ProgressTokenNeverFreed))
        {
            state.active_tokens.remove(token);
        }
        let cancelled = entry.as_ref().is_none_or(|entry| entry.cancelled);
        let answer_anyway = entry.is_some_and(|entry| entry.cancelled)
            && self.core.breaks(Mutant::CancelStillAnswered);
        let message = match outcome {
            // The `cancel-still-answered` mutant: the answer goes out although the request was
            // cancelled; a stopped handler's is the usual "request cancelled" error.
            Outcome::Result(result) if answer_anyway => {
                jsonrpc::result(id, stamp(&self.core, result, revision))
            }
            Outcome::Error(code, message, data) if answer_anyway => {
                jsonrpc::error(id, code, &message, data)
            }
            Outcome::Cancelled if answer_anyway => {
                jsonrpc::error(id, REQUEST_CANCELLED, "Request cancelled", None)
            }
            Outcome::Result(result) if !cancelled => {
                jsonrpc::result(id, stamp(&self.core, result, revision))
            }
            Outcome::Error(code, message, data) if !cancelled => {
                jsonrpc::error(id, code, &message, data)
            }
            Outcome::Late(result) => jsonrpc::result(id, stamp(&self.core, result, revision)),
            Outcome::Result(_) | Outcome::Error(..) | Outcome::Cancelled => return false,
        };
        self.send_locked(&state, message, Some(key));
        true
    }

    pub(crate) fn handle_notification(&self, method: &str, params: &Map<String, Value>) {
        // `initialized`, `roots/list_changed`, progress and unknown notifications need no answer.
        if method == "notifications/cancelled" {
            self.handle_cancel(params);
        }
    }

    fn handle_cancel(&self, params: &Map<String, Value>) {
        let Some(request_id) = params.get("requestId") else {
            // 2025-11-25 allows no requestId (task cancellation goes through tasks/cancel); ignore.
            return;
        };
        let key = id_key(request_id);
        let mut state = self.lock();
        let unstamped = params
            .get("_meta")
            .and_then(|meta| meta.get(VERSION_KEY))
            .is_none();
        if state.era == Era::Modern && unstamped && self.core.breaks(Mutant::CancelNeedsMeta) {
            // go-sdk#1212: a server that wants the version stamp on notifications too.
            return;
        }
        if state.initialize_id.as_deref() == Some(key.as_str())
            && !self.core.breaks(Mutant::InitializeCancelHonoured)
        {
            drop(state);
            self.violation(
                rules::CANCELLED_INITIALIZE,
                format!("notifications/cancelled names the initialize request {key}"),
            );
            return;
        }
        if state.task_requests.contains(&key) {
            drop(state);
            if self.core.breaks(Mutant::CancelledTaskUnflagged) {
                return;
            }
            self.violation(rules::CANCELLED_TASK, format!("notifications/cancelled names request {key}, which created a task; use tasks/cancel"));
            return;
        }
        if let Some(call) = state.in_flight.get_mut(&key) {
            call.cancelled = true;
            if !self.core.breaks(Mutant::CancelIgnored) {
                call.token.cancel();
            }
            if let Some(token) = call.progress_token.take() {
                state.active_tokens.remove(&token);
            }
            // The `server-cancel-echoed` mutant answers a 2026-07-28 cancel with one of its own.
            if state.era == Era::Modern && self.core.breaks(Mutant::ServerCancelEchoed) {
                drop(state);
                let params = json!({"requestId": request_id, "reason": "cancelled by the client"});
                self.send(jsonrpc::notification("notifications/cancelled", params));
            }
            return;
        }
        let seen = state.seen.contains(&key);
        drop(state);
        if seen && self.core.breaks(Mutant::LateCancelFlagged) {
            self.violation(
                rules::CANCEL_UNKNOWN_ID,
                format!("notifications/cancelled names {key}, which is no longer in flight"),
            );
        } else if seen {
            // The normal race: the answer crossed the cancel on the wire.
            self.log(format!("cancel for {key} after completion ignored"));
        } else if !self.core.breaks(Mutant::UnknownCancelUnflagged) {
            self.violation(
                rules::CANCEL_UNKNOWN_ID,
                format!("notifications/cancelled names {key}, an id the client never sent"),
            );
        }
    }

    pub(crate) fn handle_response(&self, id: &Value, outcome: Result<Value, Value>) {
        let waiter = self.lock().awaiting_client.remove(&id_key(id));
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(outcome);
            }
            None => self.violation(
                rules::UNKNOWN_RESPONSE_ID,
                format!("response for {id}, which the server never sent or no longer awaits"),
            ),
        }
    }

    /// Sends a server-to-client request (its own id space) on behalf of the client request
    /// with id key `related` (`None`: none in particular), and returns the awaiting receiver
    /// together with the id used.
    pub(crate) fn request_client(
        &self,
        related: Option<&str>,
        method: &str,
        params: Value,
    ) -> (Value, oneshot::Receiver<Result<Value, Value>>) {
        let (sender, receiver) = oneshot::channel();
        let mut state = self.lock();
        if self.core.breaks(Mutant::SharedIdSpace) {
            // One counter for both directions: continue after the client's highest integer id.
            let highest = state
                .seen
                .iter()
                .filter_map(|key| key.parse::<i64>().ok())
                .max();
            if let Some(highest) = highest {
                state.next_server_id = state.next_server_id.max(highest + 1);
            }
        }
        let id = json!(state.next_server_id);
        state.next_server_id += 1;
        state.awaiting_client.insert(id_key(&id), sender);
        let request = jsonrpc::request(id.clone(), method, params);
        self.send_locked(&state, request, related);
        (id, receiver)
    }

    /// Stops waiting for a server-to-client request and tells the client.
    pub(crate) fn abandon_client_request(&self, id: &Value, reason: &str) {
        let removed = self.lock().awaiting_client.remove(&id_key(id)).is_some();
        if removed {
            self.send(jsonrpc::notification(
                "notifications/cancelled",
                json!({"requestId": id, "reason": reason}),
            ));
        }
    }
}

/// The error code a server that answers a cancelled request anyway typically uses (the
/// `cancel-still-answered` mutant; LSP's `RequestCancelled`).
const REQUEST_CANCELLED: i64 = -32800;

/// `token` with the other JSON type: an integer as its decimal string, a decimal string as an
/// integer (the `progress-token-retyped` mutant); any other string stays as it is.
fn retyped(token: &Value) -> Value {
    match token {
        Value::Number(number) => Value::String(number.to_string()),
        Value::String(text) => text
            .parse::<i64>()
            .map_or_else(|_| token.clone(), |n| json!(n)),
        other => other.clone(),
    }
}
