//! The HTTP-level rules of the Streamable HTTP transport, checked before a message reaches the
//! server core: `Origin`/`Host` on loopback (DNS rebinding), `Accept`, `Content-Type`,
//! `MCP-Protocol-Version`, and the 2026-07-28 request metadata headers (`Mcp-Method`,
//! `Mcp-Name`) that must mirror the body. Each check returns the error response to send.

use base64::Engine;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, ORIGIN};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::body::{self, HttpBody};
use crate::jsonrpc;
use crate::revision::Revision;

/// `MCP-Protocol-Version`.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// `Mcp-Session-Id`.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// `Mcp-Method` (2026-07-28).
pub const METHOD_HEADER: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28).
pub const NAME_HEADER: &str = "mcp-name";
/// The 2026-07-28 error for headers that do not mirror the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// The violation rule for 2026-07-28 metadata headers that do not mirror the body.
pub const HEADER_MISMATCH_RULE: &str = "http-header-mismatch";

/// The response refusing a request (boxed: a response is large next to `Ok(())`).
pub type Rejection = Box<Response<HttpBody>>;

/// An HTTP error response carrying a JSON-RPC error (`id` null unless the request's is known).
pub fn error(status: StatusCode, id: Value, code: i64, message: &str) -> Response<HttpBody> {
    body::json(status, &jsonrpc::error(id, code, message, None))
}

/// A header's value as text, when present and visible ASCII.
pub fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// Rejects a request whose `Origin` or `Host` names anything but this machine, as the spec
/// requires of a server on loopback (403; the body is a JSON-RPC error without id).
pub fn origin(headers: &HeaderMap) -> Result<(), Rejection> {
    let origin_ok = match header(headers, ORIGIN.as_str()) {
        None => true,
        Some(origin) => origin
            .split_once("://")
            .is_some_and(|(scheme, rest)| matches!(scheme, "http" | "https") && is_loopback(rest)),
    };
    let host_ok = header(headers, HOST.as_str()).is_none_or(is_loopback);
    if origin_ok && host_ok {
        return Ok(());
    }
    let message =
        "Forbidden: Origin and Host must name this machine (localhost, 127.0.0.1 or [::1])";
    Err(Box::new(error(
        StatusCode::FORBIDDEN,
        Value::Null,
        jsonrpc::INVALID_REQUEST,
        message,
    )))
}

/// Whether `authority` (`host[:port]`, no path) is a loopback name.
fn is_loopback(authority: &str) -> bool {
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(host, _)| host)
    } else {
        authority.split(':').next().unwrap_or(authority)
    };
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "::1"
    )
}

/// Whether the `Accept` header lists `media_type` (or `*/*`).
pub fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|item| item.split(';').next().unwrap_or("").trim())
        .any(|item| item.eq_ignore_ascii_case(media_type) || item == "*/*")
}

/// A POST must accept both JSON and SSE (406 otherwise) and carry JSON (415 otherwise).
pub fn post_headers(headers: &HeaderMap) -> Result<(), Rejection> {
    if !accepts(headers, "application/json") || !accepts(headers, "text/event-stream") {
        return Err(Box::new(error(
            StatusCode::NOT_ACCEPTABLE,
            Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Not Acceptable: the Accept header must list application/json and text/event-stream",
        )));
    }
    let json = header(headers, CONTENT_TYPE.as_str()).is_some_and(|value| {
        value
            .split(';')
            .next()
            .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json {
        return Err(Box::new(error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        )));
    }
    Ok(())
}

/// A protocol version header naming a revision this server does not serve: 400 with the
/// `UnsupportedProtocolVersionError` listing the supported ones.
pub fn protocol_version(headers: &HeaderMap, id: &Value) -> Result<(), Rejection> {
    let Some(version) = header(headers, PROTOCOL_VERSION_HEADER) else {
        return Ok(());
    };
    if Revision::ALL
        .iter()
        .any(|revision| revision.as_str() == version)
    {
        return Ok(());
    }
    // The versions a request can name per request (2025-11-25 is negotiated by `initialize`).
    let data = json!({"supported": [Revision::V2026_07_28.as_str()], "requested": version});
    let message = jsonrpc::error(
        id.clone(),
        jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        Some(data),
    );
    Err(Box::new(body::json(StatusCode::BAD_REQUEST, &message)))
}

/// 2026-07-28: `MCP-Protocol-Version`, `Mcp-Method` and (for calls, reads and prompt gets)
/// `Mcp-Name` must be present and equal to the body's values (otherwise -32020), and a request
/// must carry `_meta` with its protocol version and client capabilities (otherwise -32602).
/// Both are answered with 400; the error carries the violation rule to record.
pub fn request_metadata(
    headers: &HeaderMap,
    message: &Value,
) -> Result<(), (i64, &'static str, String)> {
    use crate::server::session::{CAPABILITIES_KEY, VERSION_KEY};
    use crate::violations::rules;
    let mismatch = |text: String| {
        Err((
            HEADER_MISMATCH,
            HEADER_MISMATCH_RULE,
            format!("Header mismatch: {text}"),
        ))
    };
    let meta = message.pointer("/params/_meta");
    let meta_version = meta
        .and_then(|meta| meta.get(VERSION_KEY))
        .and_then(Value::as_str);
    let Some(header_version) = header(headers, PROTOCOL_VERSION_HEADER) else {
        return mismatch("the MCP-Protocol-Version header is missing".to_owned());
    };
    let is_request = message.get("id").is_some() && message.get("method").is_some();
    if is_request {
        let missing = match meta {
            None => Some(("_meta".to_owned(), rules::MISSING_PROTOCOL_VERSION)),
            Some(_) if meta_version.is_none() => Some((
                format!("_meta[\"{VERSION_KEY}\"]"),
                rules::MISSING_PROTOCOL_VERSION,
            )),
            Some(meta) if !meta.get(CAPABILITIES_KEY).is_some_and(Value::is_object) => Some((
                format!("_meta[\"{CAPABILITIES_KEY}\"]"),
                rules::MISSING_CLIENT_CAPABILITIES,
            )),
            Some(_) => None,
        };
        if let Some((missing, rule)) = missing {
            return Err((
                jsonrpc::INVALID_PARAMS,
                rule,
                format!("Invalid params: a 2026-07-28 request needs {missing}"),
            ));
        }
    }
    if let Some(body) = meta_version
        && body != header_version
    {
        return mismatch(format!(
            "MCP-Protocol-Version header value '{header_version}' does not match body value '{body}'"
        ));
    }
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    match header(headers, METHOD_HEADER) {
        None => return mismatch("the Mcp-Method header is missing".to_owned()),
        Some(header) if header != method => {
            return mismatch(format!(
                "Mcp-Method header value '{header}' does not match body value '{method}'"
            ));
        }
        _ => {}
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let Some(body_name) = message
        .pointer(&format!("/params/{name_field}"))
        .and_then(Value::as_str)
    else {
        // The core reports the missing field as invalid params.
        return Ok(());
    };
    match header(headers, NAME_HEADER).map(decode_header_value) {
        None => mismatch("the Mcp-Name header is missing".to_owned()),
        Some(Err(problem)) => mismatch(format!("Mcp-Name header: {problem}")),
        Some(Ok(name)) if name != body_name => mismatch(format!(
            "Mcp-Name header value '{name}' does not match body value '{body_name}'"
        )),
        Some(Ok(_)) => Ok(()),
    }
}

/// Decodes the `=?base64?...?=` sentinel form of a mirrored header value.
fn decode_header_value(value: &str) -> Result<String, String> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(value.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|error| format!("invalid base64: {error}"))?;
    String::from_utf8(bytes).map_err(|_| "base64 value is not UTF-8".to_owned())
}

/// The HTTP status for a 2026-07-28 JSON answer: errors the transport page names map to 4xx.
pub fn modern_status(message: &Value) -> StatusCode {
    match message.pointer("/error/code").and_then(Value::as_i64) {
        Some(jsonrpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            jsonrpc::PARSE_ERROR
            | jsonrpc::INVALID_REQUEST
            | jsonrpc::INVALID_PARAMS
            | HEADER_MISMATCH
            | jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY
            | jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// The HTTP status for a 2025-11-25 JSON answer: a JSON-RPC error is still a delivered answer.
pub fn legacy_status(_message: &Value) -> StatusCode {
    StatusCode::OK
}
