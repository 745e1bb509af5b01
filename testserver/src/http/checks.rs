//! The HTTP-level rules of the Streamable HTTP transport, checked before a message reaches the
//! server core: `Origin`/`Host` on loopback (DNS rebinding), `Accept`, `Content-Type`,
//! `MCP-Protocol-Version`, and the 2026-07-28 request metadata headers (`Mcp-Method`,
//! `Mcp-Name`) that must mirror the body. Each check returns the error response to send.

use std::net::IpAddr;

use base64::Engine;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, ORIGIN};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::body::{self, HttpBody};
use crate::jsonrpc;
use crate::revision::Revision;

/// `MCP-Protocol-Version`.
pub(super) const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// `Mcp-Session-Id`.
pub(super) const SESSION_HEADER: &str = "mcp-session-id";
/// `Mcp-Method` (2026-07-28).
pub(super) const METHOD_HEADER: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28).
pub(super) const NAME_HEADER: &str = "mcp-name";
/// The 2026-07-28 error for headers that do not mirror the body.
pub(super) const HEADER_MISMATCH: i64 = -32020;
/// The violation rule for 2026-07-28 metadata headers that do not mirror the body.
pub const HEADER_MISMATCH_RULE: &str = "http-header-mismatch";

/// The response refusing a request (boxed: a response is large next to `Ok(())`).
pub(super) type Rejection = Box<Response<HttpBody>>;

/// An HTTP error response carrying a JSON-RPC error (`id` null unless the request's is known).
pub(super) fn error(status: StatusCode, id: Value, code: i64, message: &str) -> Response<HttpBody> {
    body::json(status, &jsonrpc::error(id, code, message, None))
}

/// A header's value as text, when present and visible ASCII, without the optional whitespace
/// around it (RFC 9110 section 5.5: a field value never includes it).
pub(super) fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.trim_matches([' ', '\t']))
}

/// Rejects a request whose `Origin` or `Host` names anything but this machine as the
/// connection reached it (DNS rebinding protection; 403, the body a JSON-RPC error without id),
/// and a request without exactly one `Host` header (400: RFC 9112 section 3.2 requires one, and
/// without it the rebinding check has nothing to check).
///
/// The rule, which protects browsers (a page can neither choose the `Host` its browser sends nor
/// leave out `Origin`): a name is accepted when it is a loopback name (`localhost`, `127.0.0.1`,
/// `[::1]`), or the IP address the connection arrived at (`arrived_at`, when it is not
/// loopback: a server bound with `--allow-non-loopback` is reached by its address). A rebinding
/// page always carries its own host name, which is neither. A non-browser client can send any
/// `Host`, `localhost` included, so this check is no access control: on a non-loopback bind
/// everyone who can reach the port can use the server, which is why that bind needs the flag.
pub(super) fn origin(headers: &HeaderMap, arrived_at: Option<IpAddr>) -> Result<(), Rejection> {
    let hosts = headers.get_all(HOST).iter().count();
    if hosts != 1 {
        let message = if hosts == 0 {
            "Bad Request: the Host header is missing (RFC 9112 section 3.2)"
        } else {
            "Bad Request: more than one Host header (RFC 9112 section 3.2)"
        };
        return Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            jsonrpc::INVALID_REQUEST,
            message,
        )));
    }
    let origin_ok = match header(headers, ORIGIN.as_str()) {
        None => true,
        Some(origin) => origin.split_once("://").is_some_and(|(scheme, rest)| {
            matches!(scheme, "http" | "https") && names_this_machine(rest, arrived_at)
        }),
    };
    let host_ok =
        header(headers, HOST.as_str()).is_some_and(|host| names_this_machine(host, arrived_at));
    if origin_ok && host_ok {
        return Ok(());
    }
    let message = "Forbidden: Origin and Host must name this machine (localhost, 127.0.0.1, [::1], or the address the connection arrived at)";
    Err(Box::new(error(
        StatusCode::FORBIDDEN,
        Value::Null,
        jsonrpc::INVALID_REQUEST,
        message,
    )))
}

/// Whether `authority` (`host[:port]`, nothing after it) names this machine: the whole of it is
/// a loopback name, or the IP literal of `arrived_at`, so `[::1]evil.com` or
/// `localhost:80@evil.com` is not.
pub(super) fn names_this_machine(authority: &str, arrived_at: Option<IpAddr>) -> bool {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else {
            return false;
        };
        match after {
            "" => (host, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None => return false,
            },
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port_ok = port.is_none_or(|port| {
        !port.is_empty() && port.len() <= 5 && port.bytes().all(|byte| byte.is_ascii_digit())
    });
    let loopback_name = matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "::1"
    );
    let arrival_address = arrived_at
        .map(|address| address.to_canonical())
        .filter(|address| !address.is_loopback())
        .is_some_and(|address| {
            host.parse::<IpAddr>()
                .is_ok_and(|named| named.to_canonical() == address)
        });
    port_ok && (loopback_name || arrival_address)
}

/// Whether the `Accept` header admits `media_type` (`type/subtype`): a media range naming it,
/// `type/*` or `*/*` (RFC 9110 section 12.5.1), unless that range has `q=0` ("not acceptable").
pub(super) fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    let (wanted_type, _) = media_type.split_once('/').unwrap_or((media_type, ""));
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|item| {
            let mut parts = item.split(';');
            let range = parts.next().unwrap_or("").trim();
            let refused = parts.any(|parameter| {
                parameter.split_once('=').is_some_and(|(name, value)| {
                    name.trim().eq_ignore_ascii_case("q")
                        && value.trim().parse::<f32>().is_ok_and(|q| q == 0.0)
                })
            });
            let matches = match range.split_once('/') {
                Some(("*", "*")) => true,
                Some((range_type, "*")) => range_type.eq_ignore_ascii_case(wanted_type),
                _ => range.eq_ignore_ascii_case(media_type),
            };
            matches && !refused
        })
}

/// A POST must accept both JSON and SSE (406 otherwise) and carry JSON (415 otherwise).
pub(super) fn post_headers(headers: &HeaderMap) -> Result<(), Rejection> {
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
pub(super) fn protocol_version(headers: &HeaderMap, id: &Value) -> Result<(), Rejection> {
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

/// An argument a tool mirrors into a header (`x-mcp-header`, SEP-2243): the argument's name and
/// the header's, without the `Mcp-Param-` prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MirroredArgument {
    pub argument: String,
    pub header: String,
}

/// 2026-07-28: on a request, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (for calls,
/// reads, prompt gets and the tasks methods) and the `Mcp-Param-*` headers of the called tool's
/// `mirrored` arguments must be present and equal to the body's values (otherwise -32020), and
/// the request must carry `_meta` with its protocol version and client capabilities (otherwise
/// -32602). Both are answered with 400; the error carries the violation rule to record.
///
/// A notification needs none of the headers: the transport page requires them of requests
/// ("`Mcp-Method` ... All requests") and says "header requirements for notification POSTs are
/// not defined by this revision" (*Sending Messages*). A header a notification does carry must
/// still match its body: "Servers that process the request body **MUST** reject requests where
/// the values specified in the headers do not match the corresponding values in the request
/// body" (*Server Validation*).
pub(super) fn request_metadata(
    headers: &HeaderMap,
    message: &Value,
    mirrored: &[MirroredArgument],
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
    let is_request = message.get("id").is_some() && message.get("method").is_some();
    let header_version = header(headers, PROTOCOL_VERSION_HEADER);
    if header_version.is_none() && is_request {
        return mismatch("the MCP-Protocol-Version header is missing".to_owned());
    }
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
        && let Some(header_version) = header_version
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
        None if is_request => return mismatch("the Mcp-Method header is missing".to_owned()),
        None => {}
        Some(header) if header != method => {
            return mismatch(format!(
                "Mcp-Method header value '{header}' does not match body value '{method}'"
            ));
        }
        _ => {}
    }
    if !is_request {
        // `Mcp-Name` and `Mcp-Param-*` mirror request fields only.
        return Ok(());
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        // SEP-2663: the tasks methods route by task id.
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
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
        None => return mismatch("the Mcp-Name header is missing".to_owned()),
        Some(Err(problem)) => return mismatch(format!("Mcp-Name header: {problem}")),
        Some(Ok(name)) if name != body_name => {
            return mismatch(format!(
                "Mcp-Name header value '{name}' does not match body value '{body_name}'"
            ));
        }
        Some(Ok(_)) => {}
    }
    let arguments = message.pointer("/params/arguments");
    for MirroredArgument {
        argument,
        header: suffix,
    } in mirrored
    {
        let name = format!("Mcp-Param-{suffix}");
        // A null or absent argument has no header (SEP-2243, *Custom Header Handling*).
        let Some(body) = arguments
            .and_then(|arguments| arguments.get(argument))
            .filter(|value| !value.is_null())
        else {
            continue;
        };
        let body = match body {
            Value::String(text) => text.clone(),
            Value::Bool(_) | Value::Number(_) => body.to_string(),
            // Annotations are on primitive types only; nothing to compare.
            _ => continue,
        };
        let Some(raw) = headers.get(name.as_str()) else {
            return mismatch(format!(
                "the {name} header is missing (argument `{argument}` is in the body)"
            ));
        };
        let Ok(raw) = raw.to_str() else {
            return mismatch(format!(
                "the {name} header has characters outside visible ASCII"
            ));
        };
        match decode_header_value(raw.trim_matches([' ', '\t'])) {
            Err(problem) => return mismatch(format!("{name} header: {problem}")),
            Ok(value) if value != body => {
                return mismatch(format!(
                    "{name} header value '{value}' does not match body value '{body}'"
                ));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// The arguments a tool definition mirrors into headers: properties of its `inputSchema` with
/// an `x-mcp-header` annotation.
pub(super) fn mirrored_arguments(tool: &Value) -> Vec<MirroredArgument> {
    let Some(properties) = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(argument, schema)| {
            let header = schema.get("x-mcp-header")?.as_str()?;
            Some(MirroredArgument {
                argument: argument.clone(),
                header: header.to_owned(),
            })
        })
        .collect()
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
pub(super) fn modern_status(message: &Value) -> StatusCode {
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

/// The HTTP status for a 2025-11-25 JSON answer: a JSON-RPC error is still a delivered answer,
/// except the one to a request whose session was deleted under it: 404, as for any request
/// naming a terminated session.
pub(super) fn legacy_status(message: &Value) -> StatusCode {
    if super::legacy::is_deleted_answer(message) {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::OK
    }
}

#[cfg(test)]
#[path = "checks_tests.rs"]
mod tests;
