//! The 2026-07-28 `tools/call` POST: one file, included by the tests (`common::loopback`) and by
//! the `http_load` bench (by path), so both send what the transport requires.

use serde_json::{Value, json};

/// A 2026-07-28 `tools/call` of `tool` with `arguments` (request id `id`) as a POST to `url`
/// through `client`: stateless, no session, the version and empty client capabilities in
/// `_meta`, the headers the transport requires. Ready to send.
pub(crate) fn tools_call_2026_with(
    client: &reqwest::Client,
    url: &str,
    id: Value,
    tool: &str,
    arguments: Value,
) -> reqwest::RequestBuilder {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string())
}
