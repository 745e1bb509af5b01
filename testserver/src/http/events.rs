//! Transport events in the transcript. Streamable HTTP has moments that are not JSON-RPC
//! messages but matter to a reader, above all a client closing a response stream (under
//! 2026-07-28 that *is* the cancellation of the request). They are recorded as
//! `{"transport": "http", "event": ..., "requestId": ..., "cancels": ..., "detail": ...}`: an object without
//! `jsonrpc`, so no reader can mistake it for a wire message, and rendered as `✕ ...` lines.

use serde_json::{Map, Value, json};

use crate::transcript::{Direction, Transcript};

/// The value of the `transport` key that marks a transport event.
pub const TRANSPORT: &str = "http";

/// The client closed the response stream of a request before its response.
pub const DISCONNECT: &str = "disconnect";

/// Records that the client closed the response stream of `request_id`; `cancels` says whether
/// that cancels the request (2026-07-28) or not (2025-11-25, where it is only a lost stream).
pub fn record_disconnect(transcript: &Transcript, request_id: &Value, cancels: bool) {
    let detail = if cancels {
        "the client closed the response stream: the request is cancelled"
    } else {
        "the client closed the response stream: not a cancel under 2025-11-25; the request runs on"
    };
    transcript.record(
        Direction::In,
        json!({"transport": TRANSPORT, "event": DISCONNECT, "requestId": request_id, "cancels": cancels, "detail": detail}),
    );
}

/// The rendered summary of a transport event, or `None` when `object` is not one.
pub fn summary(object: &Map<String, Value>) -> Option<String> {
    if object.get("transport").and_then(Value::as_str) != Some(TRANSPORT) {
        return None;
    }
    let event = object.get("event").and_then(Value::as_str).unwrap_or("?");
    let request_id = object
        .get("requestId")
        .map_or_else(|| "?".to_owned(), Value::to_string);
    let cancels = object.get("cancels").and_then(Value::as_bool);
    let what = match (event, cancels) {
        (DISCONNECT, Some(true)) => "(a cancel)",
        (DISCONNECT, _) => "(not a cancel)",
        _ => "",
    };
    Some(
        format!("✕ http {event} {request_id} {what}")
            .trim_end()
            .to_owned(),
    )
}
