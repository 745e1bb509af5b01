//! Transport events in the transcript. Streamable HTTP has moments that are not JSON-RPC
//! messages but matter to a reader, above all a client closing a response stream (under
//! 2026-07-28 that *is* the cancellation of the request). They are recorded as
//! [`Entry::Transport`], serialised as `{"transport": "http", "event": "disconnect", ...}`: an
//! object without `jsonrpc`, so no reader can mistake it for a wire message. The server's own
//! shutdown is recorded too ([`Entry::Shutdown`], by `crate::shutdown`), so the streams it closes on the way out are not
//! recorded as clients leaving.

use serde_json::Value;

use crate::context::Context;
use crate::transcript::{Direction, Entry, Transcript, TransportEvent};

/// Records that the client closed the response stream of `request_id`; `cancels` says whether
/// that cancels the request (2026-07-28) or not (2025-11-25, where it is only a lost stream);
/// the entry belongs to the request's `context`.
pub fn record_disconnect(
    transcript: &Transcript,
    context: Context,
    request_id: &Value,
    cancels: bool,
) {
    let event = TransportEvent {
        request_id: request_id.clone(),
        cancels,
    };
    transcript.record_entry_for(context, Direction::In, Entry::Transport(event));
}
