//! JSON-RPC 2.0 framing as MCP uses it: classifying an incoming value, building responses and
//! errors, and the error codes. No MCP semantics here.

use serde_json::{Map, Value, json};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available under the negotiated revision.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters (also: unknown tool, bad tool arguments).
pub const INVALID_PARAMS: i64 = -32602;
/// The server failed while handling the request.
pub const INTERNAL_ERROR: i64 = -32603;
/// 2026-07-28: the request needs a client capability it did not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// 2026-07-28: the request's protocol version is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// An incoming JSON value, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: it has a valid id and a method.
    Request {
        /// The id, a string or an integer.
        id: Value,
        /// The method name.
        method: String,
        /// The params object (empty when absent).
        params: Map<String, Value>,
    },
    /// A notification: a method and no id.
    Notification {
        /// The method name.
        method: String,
        /// The params object (empty when absent).
        params: Map<String, Value>,
    },
    /// A response (result or error) to a request the receiver sent.
    Response {
        /// The id of the request it answers.
        id: Value,
        /// `Ok(result)` or `Err(error object)`.
        outcome: Result<Value, Value>,
    },
    /// Not a valid message; answer with -32600 and `id` (null when the id was unusable).
    Invalid {
        /// The id to answer with.
        id: Value,
        /// What is wrong, for the error message.
        reason: String,
        /// Whether the problem is an explicit `"id": null`.
        null_id: bool,
    },
    /// An error response without a usable id: nothing to answer, nothing to match.
    StrayError,
}

/// Whether `id` is a valid request id: a string or an integer (never null, never fractional).
pub fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(number) => number.is_i64() || number.is_u64(),
        _ => false,
    }
}

/// The longest id key kept whole (see [`id_key`]).
pub const MAX_ID_KEY_BYTES: usize = 128;

/// A map key for an id that keeps `"4"` and `4` apart: its JSON text. An id whose JSON text is
/// longer than [`MAX_ID_KEY_BYTES`] (the spec bounds no id's length, and a line may carry 4 MiB)
/// is keyed by its start, its length and its SHA-256, so the sets of ids a server must keep
/// (every id of a 2025-11-25 session, to flag reuse) hold a few dozen bytes per id whatever the
/// client sends; two different ids never share a key (a whole key never contains `…[`).
pub fn id_key(id: &Value) -> String {
    // A long string id with nothing to escape is keyed from its text as it is: its JSON text is
    // the string in quotes, so no copy of it is made and serialized at every lookup (a 1 MB
    // id was, several times per message).
    if let Value::String(string) = id
        && string.len() + 2 > MAX_ID_KEY_BYTES
        && !string.bytes().any(needs_escape)
    {
        return long_key(&["\"", string, "\""]);
    }
    let text = id.to_string();
    if text.len() <= MAX_ID_KEY_BYTES {
        return text;
    }
    long_key(&[&text])
}

/// Whether serde_json escapes this byte of a string: `"`, `\` and the control characters.
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The key of an id whose JSON text, `parts` joined, is longer than [`MAX_ID_KEY_BYTES`].
fn long_key(parts: &[&str]) -> String {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
    }
    let hex: String = hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let start: String = parts
        .iter()
        .flat_map(|part| part.chars())
        .take(24)
        .collect();
    let length: usize = parts.iter().map(|part| part.len()).sum();
    format!("{start}…[{length} bytes, sha256 {hex}]")
}

/// Classifies one parsed JSON value.
pub fn classify(value: &Value) -> Incoming {
    let Value::Object(object) = value else {
        let reason = if value.is_array() {
            "batches are not supported: send one JSON-RPC object per line"
        } else {
            "a JSON-RPC message must be an object"
        };
        return invalid(Value::Null, reason, false);
    };
    let id = object.get("id");
    let usable_id = id
        .filter(|id| is_valid_id(id))
        .cloned()
        .unwrap_or(Value::Null);
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return invalid(usable_id, "\"jsonrpc\" must be \"2.0\"", false);
    }
    if let Some(method) = object.get("method") {
        let Some(method) = method.as_str() else {
            return invalid(usable_id, "\"method\" must be a string", false);
        };
        let params = match object.get("params") {
            None => Map::new(),
            Some(Value::Object(params)) => params.clone(),
            Some(_) => return invalid(usable_id, "\"params\" must be an object", false),
        };
        return match id {
            None => Incoming::Notification {
                method: method.to_owned(),
                params,
            },
            Some(Value::Null) => invalid(Value::Null, "request id must not be null", true),
            Some(id) if is_valid_id(id) => Incoming::Request {
                id: id.clone(),
                method: method.to_owned(),
                params,
            },
            Some(_) => invalid(
                Value::Null,
                "request id must be a string or an integer",
                false,
            ),
        };
    }
    let outcome = match (object.get("result"), object.get("error")) {
        (Some(result), None) => Ok(result.clone()),
        (None, Some(error)) => Err(error.clone()),
        _ => return invalid(usable_id, "missing \"method\"", false),
    };
    match id {
        Some(id) if is_valid_id(id) => Incoming::Response {
            id: id.clone(),
            outcome,
        },
        _ if outcome.is_err() => Incoming::StrayError,
        _ => invalid(
            Value::Null,
            "response id must be a string or an integer",
            false,
        ),
    }
}

fn invalid(id: Value, reason: &str, null_id: bool) -> Incoming {
    Incoming::Invalid {
        id,
        reason: reason.to_owned(),
        null_id,
    }
}

/// Whether `message` is a response (a result or an error, and no `method`).
pub fn is_response(message: &Value) -> bool {
    message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// Whether `message` is the response to the request with id `id`: matched by id alone, and
/// exactly (`"4"` and `4` are different ids).
pub fn is_response_to(message: &Value, id: &Value) -> bool {
    is_response(message) && message.get("id") == Some(id)
}

/// A success response.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response; `data` is left out when `None`.
pub fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// A request.
pub fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

#[cfg(test)]
#[path = "jsonrpc_tests.rs"]
mod tests;
