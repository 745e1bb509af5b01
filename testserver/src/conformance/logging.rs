//! Log messages at the request's level: the syslog severities (`LogLevel`), the lowest level a
//! request may be sent messages at (`log_level`), and `log`, which sends one only when it passes.

use serde_json::{Map, Value, json};

use crate::jsonrpc;
use crate::revision::Revision;
use crate::server::session::Session;

/// The `_meta` key carrying a 2026-07-28 request's log level.
pub(super) const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// Syslog severities, lowest first (RFC 5424, as the logging utility names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    /// The level named `name`, if it is one.
    pub(crate) fn parse(name: &str) -> Option<LogLevel> {
        Some(match name {
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "notice" => LogLevel::Notice,
            "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            "critical" => LogLevel::Critical,
            "alert" => LogLevel::Alert,
            "emergency" => LogLevel::Emergency,
            _ => return None,
        })
    }
}

/// The lowest level a request may be sent log messages at. 2025-11-25 sets the level per
/// session (`logging/setLevel`), which the fixtures do not filter on: every level passes.
/// 2026-07-28: none without `_meta.logLevel`; an unknown level is an error message.
pub(super) fn log_level(
    revision: Revision,
    params: &Map<String, Value>,
) -> Result<Option<LogLevel>, String> {
    if revision == Revision::V2025_11_25 {
        return Ok(Some(LogLevel::Debug));
    }
    match params.get("_meta").and_then(|meta| meta.get(LOG_LEVEL_KEY)) {
        None => Ok(None),
        Some(level) => level
            .as_str()
            .and_then(LogLevel::parse)
            .map(Some)
            .ok_or_else(|| {
                format!("Invalid params: _meta[\"{LOG_LEVEL_KEY}\"] {level} is not a log level")
            }),
    }
}

/// A `notifications/message` at `level` on behalf of the request with id key `related`, sent
/// only when the request's log level lets it through (`threshold`; `None`: the request asked
/// for no log messages, so none is sent).
pub(super) fn log(
    session: &Session,
    related: Option<&str>,
    threshold: Option<LogLevel>,
    level: &str,
    data: String,
) {
    let passes = threshold
        .is_some_and(|threshold| LogLevel::parse(level).is_some_and(|level| level >= threshold));
    if passes {
        let params = json!({"level": level, "logger": "mcp-testserver", "data": data});
        session.send_related(
            jsonrpc::notification("notifications/message", params),
            related,
        );
    }
}
