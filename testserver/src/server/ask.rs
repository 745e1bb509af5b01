//! The `ask` tool: input from the client. Under 2025-11-25 the server sends an
//! `elicitation/create` request of its own (its own id space) and waits for the answer; under
//! 2026-07-28 it returns an `input_required` result and answers the retry that carries
//! `inputResponses`.
//!
//! With a `gate` (2026-07-28 only) `ask` is a url-mode request: the user's answer is an
//! out-of-band interaction the test server stands in for with the gate. The retry that carries
//! the client's `accept` (or a state-only retry) is answered once the gate is open; while it is
//! not, the server holds the retry for [`URL_HOLD`] ("It may need to block until the request is
//! fulfilled", client/elicitation, *URL Mode Flow*) and then answers "still waiting": an
//! `InputRequiredResult` with the same `requestState` and no `inputRequests`, which the MRTR
//! rules allow ("Servers **MAY** choose to return an `InputRequiredResult` on multiple attempts
//! at the same request", basic/patterns/mrtr) and modelcontextprotocol#2920 asks to name.

use std::time::Duration;

use serde_json::{Value, json};

use super::calls::{Call, Outcome, text_result};
use super::mutants::Mutant;
use crate::jsonrpc;
use crate::revision::Revision;

/// The key of the one input request `ask` makes.
const INPUT_KEY: &str = "answer";

/// The `requestState` of a url-mode `ask`: it only says the question was asked; the answer
/// is the gate, so a forged state can do nothing but wait for it (no integrity needed: "MAY be
/// omitted only when tampering can cause nothing worse than request failure").
const URL_STATE: &str = "ask-url";
/// How long a url-mode retry is held before "still waiting".
pub(crate) const URL_HOLD: Duration = Duration::from_secs(1);

/// Runs `ask`.
pub(crate) async fn ask(call: &Call, question: &str, gate: Option<&str>) -> Outcome {
    match (call.revision, gate) {
        (Revision::V2025_11_25, None) => ask_by_request(call, question).await,
        (Revision::V2026_07_28, None) => ask_by_input_required(call, question),
        (Revision::V2026_07_28, Some(gate)) => ask_by_url(call, question, gate).await,
        (Revision::V2025_11_25, Some(_)) => {
            // Under 2025-11-25 url mode is a server request with an `elicitationId` and a
            // completion notification, which this server does not implement.
            let mut result = text_result("`ask` with `gate` (url mode) needs 2026-07-28");
            result["isError"] = json!(true);
            Outcome::Result(result)
        }
    }
}

/// A url-mode `ask` under 2026-07-28: the first call asks, a retry waits for the gate.
async fn ask_by_url(call: &Call, question: &str, gate: &str) -> Outcome {
    let retry = call.params.get("requestState").and_then(Value::as_str) == Some(URL_STATE);
    if !retry {
        if call
            .client_capabilities
            .pointer("/elicitation/url")
            .is_none()
        {
            let data = json!({"requiredCapabilities": {"elicitation": {"url": {}}}});
            let message = "Missing required client capability: elicitation (url mode)".to_owned();
            return Outcome::Error(
                jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY,
                message,
                Some(data),
            );
        }
        call.log("needs input (url mode)");
        let url = format!("https://consent.example/{gate}");
        let request = json!({
            "method": "elicitation/create",
            "params": {"mode": "url", "message": question, "url": url}
        });
        return Outcome::Result(json!({
            "resultType": "input_required",
            "inputRequests": {INPUT_KEY: request},
            "requestState": URL_STATE
        }));
    }
    if let Some(response) = call
        .params
        .get("inputResponses")
        .and_then(|responses| responses.get(INPUT_KEY))
        && response.get("action").and_then(Value::as_str) != Some("accept")
    {
        return Outcome::Result(text_result(answer_text(response)));
    }
    let gates = &call.session.core.gates;
    tokio::select! {
        _ = call.token.cancelled() => {
            call.log("stopped by cancel while waiting for the out-of-band answer");
            Outcome::Cancelled
        }
        _ = gates.wait(gate, call.session.context()) => {
            Outcome::Result(text_result(format!("gate {gate} opened: the out-of-band interaction completed")))
        }
        _ = tokio::time::sleep(URL_HOLD) => {
            call.log("still waiting");
            let mut still_waiting = json!({"resultType": "input_required", "requestState": URL_STATE});
            if call.session.core.breaks(Mutant::StillWaitingWithoutState) {
                still_waiting.as_object_mut().map(|result| result.remove("requestState"));
            }
            Outcome::Result(still_waiting)
        }
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
