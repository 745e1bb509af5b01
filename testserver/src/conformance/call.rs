//! What every fixture works with: a tool call's context (`FixtureCall`) and an answer to a
//! request (`Answer`, `invalid`).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::listen::Listeners;
use super::logging::LogLevel;
use crate::jsonrpc;

/// What a fixture tool call gets to work with.
pub(super) struct FixtureCall {
    /// The id key of the `tools/call`, which what the tool sends before its answer relates to.
    pub(super) request: String,
    pub(super) arguments: Value,
    pub(super) params: Map<String, Value>,
    pub(super) progress_token: Option<Value>,
    /// The lowest level to log at; `None`: no log messages for this request.
    pub(super) log_level: Option<LogLevel>,
    pub(super) client_capabilities: Value,
    /// The open `subscriptions/listen` streams, which the list-change triggers notify.
    pub(super) listeners: Arc<Listeners>,
}

/// A fixture method's answer: a result, or a JSON-RPC error (code, message, data).
pub(super) type Answer = Result<Value, (i64, String, Option<Value>)>;

pub(super) fn invalid(message: String) -> Answer {
    Err((jsonrpc::INVALID_PARAMS, message, None))
}
