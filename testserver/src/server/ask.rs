//! The `ask` tool: input from the client. Under 2025-11-25 the server sends an
//! `elicitation/create` request of its own (its own id space) and waits for the answer; under
//! 2026-07-28 it returns an `input_required` result and answers the retry that carries
//! `inputResponses`.

use serde_json::{Value, json};

use super::calls::{Call, Outcome, text_result};
use crate::jsonrpc;
use crate::revision::Revision;

/// The key of the one input request `ask` makes.
const INPUT_KEY: &str = "answer";

/// Runs `ask`.
pub(crate) async fn ask(call: &Call, question: &str) -> Outcome {
    match call.revision {
        Revision::V2025_11_25 => ask_by_request(call, question).await,
        Revision::V2026_07_28 => ask_by_input_required(call, question),
    }
}

fn requested_schema() -> Value {
    json!({
        "type": "object",
        "properties": {INPUT_KEY: {"type": "string"}},
        "required": [INPUT_KEY]
    })
}

async fn ask_by_request(call: &Call, question: &str) -> Outcome {
    if !client_can_elicit(call) {
        let mut result = text_result("the client did not declare the elicitation capability");
        result["isError"] = json!(true);
        return Outcome::Result(result);
    }
    let params = json!({"message": question, "requestedSchema": requested_schema()});
    let (request_id, reply) = call.request_client("elicitation/create", params);
    tokio::select! {
        _ = call.token.cancelled() => {
            call.session.abandon_client_request(&request_id, "the tools/call that asked was cancelled");
            call.log("stopped by cancel while waiting for an answer");
            Outcome::Cancelled
        }
        reply = reply => match reply {
            Ok(Ok(result)) => {
                // "completed" is logged by the caller once the answer is sent.
                Outcome::Result(text_result(answer_text(&result)))
            }
            Ok(Err(error)) => {
                let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
                let mut result = text_result(format!("elicitation failed: {message}"));
                result["isError"] = json!(true);
                Outcome::Result(result)
            }
            // The connection closed while waiting.
            Err(_) => Outcome::Cancelled,
        }
    }
}

fn ask_by_input_required(call: &Call, question: &str) -> Outcome {
    if let Some(response) = call
        .params
        .get("inputResponses")
        .and_then(|responses| responses.get(INPUT_KEY))
    {
        // "completed" is logged by the caller once the answer is sent.
        return Outcome::Result(text_result(answer_text(response)));
    }
    if !client_can_elicit(call) {
        let data = json!({"requiredCapabilities": {"elicitation": {}}});
        let message = "Missing required client capability: elicitation".to_owned();
        return Outcome::Error(
            jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY,
            message,
            Some(data),
        );
    }
    call.log("needs input");
    let request = json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": question, "requestedSchema": requested_schema()}
    });
    Outcome::Result(json!({
        "resultType": "input_required",
        "inputRequests": {INPUT_KEY: request},
        "requestState": "ask"
    }))
}

/// `answer: …`, `declined` or `cancelled`, from an `ElicitResult`.
fn answer_text(result: &Value) -> String {
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let answer = result
                .pointer("/content/answer")
                .and_then(Value::as_str)
                .unwrap_or("");
            format!("answer: {answer}")
        }
        Some("decline") => "declined".to_owned(),
        Some("cancel") => "cancelled".to_owned(),
        _ => format!("unexpected elicitation result: {result}"),
    }
}

/// The client declared `elicitation`, per the revision's rules.
pub(crate) fn client_can_elicit(call: &Call) -> bool {
    call.client_capabilities.get("elicitation").is_some()
}
