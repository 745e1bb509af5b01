//! Unit tests of `render.rs`.

use serde_json::json;

use serde_json::Value;

use super::RenderTranscript;
use crate::transcript::{Direction, Entry, Side, Transcript, TransportEvent};

#[test]
fn each_message_kind_renders_on_one_stable_line() {
    let transcript = Transcript::new(Side::Server);
    let messages = [
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "ask", "arguments": {"question": "q"}}}),
        ),
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": "a", "result": {"resultType": "input_required", "inputRequests": {"answer": {}}}}),
        ),
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow", "arguments": {}, "task": {"ttl": 10}}}),
        ),
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"task": {"taskId": "task-1", "status": "working"}}}),
        ),
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "stop"}}),
        ),
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}),
        ),
        (Direction::In, json!("not json")),
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {"message": "Name?"}}),
        ),
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"answer": "Ada"}}}),
        ),
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 1, "total": 2}}),
        ),
    ];
    for (direction, message) in messages {
        let entry = match message {
            Value::String(line) => Entry::Unparseable(line),
            other => Entry::Message(other),
        };
        transcript.record_entry(direction, entry);
    }
    let event = TransportEvent {
        request_id: json!(3),
        cancels: true,
    };
    transcript.record_entry(Direction::In, Entry::Transport(event));
    assert_eq!(
        transcript.render(),
        r#"→ req "a" tools/call ask {"question":"q"}
← resp "a" input_required {answer}
→ req 2 tools/call slow {} task={"ttl":10}
← resp 2 task task-1 working
→ notification cancelled requestId=2 reason="stop"
← error null -32700 "Parse error"
→ unparseable "not json"
← req 1 elicitation/create "Name?"
→ resp 1 accept {"answer":"Ada"}
← progress token=0 1/2
→ ✕ http disconnect 3 (a cancel)
"#
    );
}
