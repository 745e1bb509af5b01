//! Revision negotiation for one connection: which revision governs a request (the 2025-11-25
//! `initialize` handshake, or a 2026-07-28 request's `_meta` version and client capabilities,
//! each rejected with its own error when missing or unsupported), and the `initialize` and
//! `server/discover` results.

use serde_json::{Map, Value, json};

use super::mutants::Mutant;
use super::session::{CAPABILITIES_KEY, Era, SERVER_NAME, Session, TASKS_EXTENSION, VERSION_KEY};
use crate::jsonrpc;
use crate::revision::Revision;
use crate::violations::rules;

impl Session {
    /// Which revision governs this request; `None` when it was rejected here.
    pub(crate) fn request_revision(
        &self,
        id: &Value,
        method: &str,
        params: &Map<String, Value>,
    ) -> Option<Revision> {
        let era = self.lock().era;
        if method == "initialize" || era == Era::Legacy {
            return Some(Revision::V2025_11_25);
        }
        let meta = params.get("_meta");
        let version = meta.and_then(|meta| meta.get(VERSION_KEY));
        // The `meta-fields-optional` mutant records a missing field but serves the request: as
        // 2026-07-28 without capabilities, as 2025-11-25 without a version.
        let lenient = self.core.breaks(Mutant::MetaFieldsOptional);
        match version.and_then(Value::as_str) {
            Some(version) if version == Revision::V2026_07_28.as_str() => {
                // basic/index "Per-request protocol fields": the client capabilities are as
                // required as the version; a request without them is malformed (-32602).
                let capabilities = meta.and_then(|meta| meta.get(CAPABILITIES_KEY));
                if !capabilities.is_some_and(Value::is_object) {
                    let detail =
                        format!("`{method}` request without _meta[\"{CAPABILITIES_KEY}\"]");
                    self.violation(rules::MISSING_CLIENT_CAPABILITIES, detail);
                    if lenient {
                        self.lock().era = Era::Modern;
                        return Some(Revision::V2026_07_28);
                    }
                    let message = format!(
                        "Invalid params: a 2026-07-28 request needs _meta[\"{CAPABILITIES_KEY}\"] (an object; {{}} declares none)"
                    );
                    self.send(jsonrpc::error(
                        id.clone(),
                        jsonrpc::INVALID_PARAMS,
                        &message,
                        None,
                    ));
                    return None;
                }
                self.lock().era = Era::Modern;
                Some(Revision::V2026_07_28)
            }
            Some(version) => {
                let data =
                    json!({"supported": [Revision::V2026_07_28.as_str()], "requested": version});
                let error = jsonrpc::error(
                    id.clone(),
                    jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                    Some(data),
                );
                self.send(error);
                None
            }
            None if method == "ping" && era == Era::Fresh => Some(Revision::V2025_11_25),
            None => {
                let detail = format!(
                    "`{method}` request without _meta[\"{VERSION_KEY}\"] and without initialize"
                );
                self.violation(rules::MISSING_PROTOCOL_VERSION, detail);
                if lenient {
                    return Some(Revision::V2025_11_25);
                }
                // basic/index "Per-request protocol fields": a request missing a required
                // `_meta` field is malformed, rejected with -32602 (Invalid params).
                let message = format!(
                    "Invalid params: put the protocol version in _meta[\"{VERSION_KEY}\"] (2026-07-28) or send `initialize` first (2025-11-25)"
                );
                self.send(jsonrpc::error(
                    id.clone(),
                    jsonrpc::INVALID_PARAMS,
                    &message,
                    None,
                ));
                None
            }
        }
    }

    pub(crate) fn initialize(
        &self,
        key: &str,
        params: &Map<String, Value>,
    ) -> Result<Value, (i64, String, Option<Value>)> {
        let mut state = self.lock();
        if state.era == Era::Legacy {
            return Err((
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: already initialized".into(),
                None,
            ));
        }
        state.era = Era::Legacy;
        state.initialize_id = Some(key.to_owned());
        state.legacy_capabilities = params.get("capabilities").cloned().unwrap_or(json!({}));
        // The only handshake revision served; a client asking for another gets this one, as the
        // 2025-11-25 lifecycle prescribes.
        let mut capabilities = json!({
            "tools": {},
            "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        });
        self.core
            .extend_capabilities(&mut capabilities, Revision::V2025_11_25);
        Ok(json!({
            "protocolVersion": Revision::V2025_11_25.as_str(),
            "capabilities": capabilities,
            "serverInfo": server_info(),
        }))
    }
}

/// The `serverInfo` both revisions give.
fn server_info() -> Value {
    json!({"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")})
}

/// The `server/discover` result (2026-07-28).
pub(crate) fn discover_result() -> Value {
    json!({
        "supportedVersions": [Revision::V2026_07_28.as_str()],
        "capabilities": {"tools": {}, "extensions": {TASKS_EXTENSION: {}}},
        "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
    })
}
