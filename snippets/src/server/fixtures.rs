//! The fixtures the official conformance suite (`@modelcontextprotocol/conformance`) calls, as
//! its example everything-server defines them: `test_*` tools, `test://` resources and a
//! template, `test_*` prompts, `logging/setLevel`, `completion/complete` and resource
//! subscriptions. Off by default, so the fixed tool contract of the book stays as it is; on
//! with `Core::with_conformance_fixtures` (`mcp-testserver --http ADDR --conformance`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::Core;
use super::calls::Outcome;
use super::session::Session;
use super::tools::text_result;
use crate::jsonrpc::{self, id_key};
use crate::revision::Revision;

/// A 1x1 PNG.
const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
/// A 44-byte WAV header with no samples.
const AUDIO: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/// The fixture tools and their input schemas.
const TOOLS: &[(&str, &str)] = &[
    ("test_simple_text", "Tests simple text content response"),
    ("test_image_content", "Tests image content response"),
    ("test_audio_content", "Tests audio content response"),
    (
        "test_embedded_resource",
        "Tests embedded resource content response",
    ),
    (
        "test_multiple_content_types",
        "Tests response with multiple content types (text, image, resource)",
    ),
    (
        "test_tool_with_logging",
        "Tests tool that emits log messages during execution",
    ),
    (
        "test_tool_with_progress",
        "Tests tool that reports progress notifications",
    ),
    ("test_error_handling", "Tests error response handling"),
    (
        "test_sampling",
        "Tests server-initiated sampling (LLM completion request)",
    ),
    (
        "test_elicitation",
        "Tests server-initiated elicitation (user input request)",
    ),
    (
        "test_elicitation_sep1034_defaults",
        "Tests elicitation with default values per SEP-1034",
    ),
    (
        "test_elicitation_sep1330_enums",
        "Tests elicitation with enum schema improvements per SEP-1330",
    ),
    (
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
    ),
];

/// Whether `core` serves the fixtures.
pub fn enabled(core: &Core) -> bool {
    core.conformance_fixtures
}

/// The `tools/list` entries of the fixture tools.
pub fn tool_definitions() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|(name, description)| {
            let schema = match *name {
                "test_sampling" => object_schema(json!({"prompt": {"type": "string", "description": "The prompt to send to the LLM"}}), &["prompt"]),
                "test_elicitation" => object_schema(json!({"message": {"type": "string", "description": "The message to show the user"}}), &["message"]),
                "json_schema_2020_12_tool" => json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                    "additionalProperties": false
                }),
                _ => json!({"type": "object", "properties": {}}),
            };
            json!({"name": name, "description": description, "inputSchema": schema})
        })
        .collect()
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// Whether this `tools/call` names a fixture tool (and fixtures are on).
pub fn is_fixture_call(core: &Core, params: &Map<String, Value>) -> bool {
    enabled(core)
        && params
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|name| TOOLS.iter().any(|(tool, _)| *tool == name))
}

/// Capabilities the fixtures add to `initialize` / `server/discover`.
pub fn extend_capabilities(core: &Core, capabilities: &mut Value, revision: Revision) {
    if !enabled(core) {
        return;
    }
    capabilities["prompts"] = json!({"listChanged": false});
    capabilities["completions"] = json!({});
    match revision {
        Revision::V2025_11_25 => {
            capabilities["resources"] = json!({"subscribe": true, "listChanged": false});
            capabilities["logging"] = json!({});
        }
        Revision::V2026_07_28 => capabilities["resources"] = json!({}),
    }
}

/// Whether `method` is a fixture method under `revision`.
pub fn handles(core: &Core, method: &str, revision: Revision) -> bool {
    if !enabled(core) {
        return false;
    }
    match method {
        "resources/list"
        | "resources/read"
        | "resources/templates/list"
        | "prompts/list"
        | "prompts/get"
        | "completion/complete" => true,
        "resources/subscribe" | "resources/unsubscribe" | "logging/setLevel" => {
            revision == Revision::V2025_11_25
        }
        _ => false,
    }
}

type Answer = Result<Value, (i64, String, Option<Value>)>;

fn invalid(message: String) -> Answer {
    Err((jsonrpc::INVALID_PARAMS, message, None))
}

/// Answers a fixture method.
pub fn handle(session: &Session, method: &str, params: &Map<String, Value>) -> Answer {
    let string = |key: &str| params.get(key).and_then(Value::as_str);
    match method {
        "resources/list" => Ok(json!({"resources": [
            {"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource", "description": "A static text resource for testing", "mimeType": "text/plain"},
            {"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource", "description": "A static binary resource (image) for testing", "mimeType": "image/png"},
            {"uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource", "description": "A resource for subscription tests", "mimeType": "text/plain"}
        ]})),
        "resources/templates/list" => Ok(json!({"resourceTemplates": [
            {"uriTemplate": "test://template/{id}/data", "name": "template", "title": "Resource Template", "description": "A resource template with parameter substitution", "mimeType": "application/json"}
        ]})),
        "resources/read" => match string("uri") {
            Some(uri) => read_resource(uri),
            None => invalid("Invalid params: resources/read needs a `uri`".to_owned()),
        },
        "resources/subscribe" | "resources/unsubscribe" => match string("uri") {
            Some(uri) => {
                let verb = if method == "resources/subscribe" {
                    "Subscribed to"
                } else {
                    "Unsubscribed from"
                };
                log(session, format!("{verb} resource: {uri}"));
                Ok(json!({}))
            }
            None => invalid(format!("Invalid params: {method} needs a `uri`")),
        },
        "prompts/list" => Ok(json!({"prompts": [
            {"name": "test_simple_prompt", "title": "Simple Test Prompt", "description": "A simple prompt without arguments"},
            {"name": "test_prompt_with_arguments", "title": "Prompt With Arguments", "description": "A prompt with required arguments",
             "arguments": [{"name": "arg1", "description": "First test argument", "required": true}, {"name": "arg2", "description": "Second test argument", "required": true}]},
            {"name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource", "description": "A prompt that includes an embedded resource",
             "arguments": [{"name": "resourceUri", "description": "URI of the resource to embed", "required": true}]},
            {"name": "test_prompt_with_image", "title": "Prompt With Image", "description": "A prompt that includes image content"}
        ]})),
        "prompts/get" => get_prompt(string("name").unwrap_or_default(), params.get("arguments")),
        "logging/setLevel" => match string("level") {
            Some(level) => {
                log(session, format!("Log level set to: {level}"));
                Ok(json!({}))
            }
            None => invalid("Invalid params: logging/setLevel needs a `level`".to_owned()),
        },
        "completion/complete" => {
            Ok(json!({"completion": {"values": [], "total": 0, "hasMore": false}}))
        }
        _ => Err((
            jsonrpc::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
            None,
        )),
    }
}

fn read_resource(uri: &str) -> Answer {
    let content = match uri {
        "test://static-text" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."})
        }
        "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": IMAGE}),
        "test://watched-resource" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"})
        }
        _ => match uri
            .strip_prefix("test://template/")
            .and_then(|rest| rest.strip_suffix("/data"))
        {
            Some(id) if !id.is_empty() && !id.contains('/') => json!({
                "uri": uri, "mimeType": "application/json",
                "text": json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
            }),
            _ => {
                return Err((
                    jsonrpc::INVALID_PARAMS,
                    format!("Resource not found: {uri}"),
                    Some(json!({"uri": uri})),
                ));
            }
        },
    };
    Ok(json!({"contents": [content]}))
}

fn get_prompt(name: &str, arguments: Option<&Value>) -> Answer {
    let argument = |key: &str| arguments.and_then(|a| a.get(key)).and_then(Value::as_str);
    let text = |text: &str| json!({"role": "user", "content": {"type": "text", "text": text}});
    let messages = match name {
        "test_simple_prompt" => vec![text("This is a simple prompt for testing.")],
        "test_prompt_with_arguments" => match (argument("arg1"), argument("arg2")) {
            (Some(arg1), Some(arg2)) => vec![text(&format!(
                "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            ))],
            _ => {
                return invalid(
                    "Invalid params: test_prompt_with_arguments needs `arg1` and `arg2`".to_owned(),
                );
            }
        },
        "test_prompt_with_embedded_resource" => match argument("resourceUri") {
            Some(uri) => vec![
                json!({"role": "user", "content": {"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}}}),
                text("Please process the embedded resource above."),
            ],
            None => {
                return invalid(
                    "Invalid params: test_prompt_with_embedded_resource needs `resourceUri`"
                        .to_owned(),
                );
            }
        },
        "test_prompt_with_image" => vec![
            json!({"role": "user", "content": {"type": "image", "data": IMAGE, "mimeType": "image/png"}}),
            text("Please analyze the image above."),
        ],
        _ => return invalid(format!("Invalid params: unknown prompt `{name}`")),
    };
    Ok(json!({"messages": messages}))
}

/// A `notifications/message` at level info.
fn log(session: &Session, data: String) {
    let params = json!({"level": "info", "logger": "mcp-testserver", "data": data});
    session.send(jsonrpc::notification("notifications/message", params));
}

/// Runs a fixture tool call as a cancellable in-flight request.
pub fn call_tool(
    session: &Arc<Session>,
    id: Value,
    key: String,
    revision: Revision,
    params: Map<String, Value>,
) {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
    let progress_token = params
        .get("_meta")
        .and_then(|meta| meta.get("progressToken"))
        .cloned();
    let token = session.begin(&key, progress_token.as_ref().map(id_key));
    let label = format!("{name}#{id}");
    session.core.handlers.start("fixture");
    session.core.handlers.log(format!("{label} started"));
    let session = session.clone();
    tokio::spawn(async move {
        let outcome = tokio::select! {
            _ = token.cancelled() => {
                session.core.handlers.log(format!("{label} stopped by cancel"));
                Outcome::Cancelled
            }
            outcome = run(&session, &name, &arguments, progress_token) => outcome,
        };
        if session.finish(&key, id, revision, outcome) {
            session.core.handlers.log(format!("{label} completed"));
        }
        session.core.handlers.stop("fixture");
    });
}

async fn run(
    session: &Session,
    name: &str,
    arguments: &Value,
    progress_token: Option<Value>,
) -> Outcome {
    let text = |text: &str| Outcome::Result(text_result(text));
    match name {
        "test_simple_text" => text("This is a simple text response for testing."),
        "test_image_content" => Outcome::Result(
            json!({"content": [{"type": "image", "data": IMAGE, "mimeType": "image/png"}]}),
        ),
        "test_audio_content" => Outcome::Result(
            json!({"content": [{"type": "audio", "data": AUDIO, "mimeType": "audio/wav"}]}),
        ),
        "test_embedded_resource" => {
            Outcome::Result(json!({"content": [{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}]}))
        }
        "test_multiple_content_types" => Outcome::Result(json!({"content": [
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": IMAGE, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": json!({"test": "data", "value": 123}).to_string()}}
        ]})),
        "test_tool_with_logging" => {
            for (index, line) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .iter()
            .enumerate()
            {
                if index > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                log(session, (*line).to_owned());
            }
            text("Tool with logging executed successfully")
        }
        "test_tool_with_progress" => {
            let token = progress_token.unwrap_or(json!(0));
            for (index, progress) in [0, 50, 100].into_iter().enumerate() {
                if index > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                let params = json!({"progressToken": token, "progress": progress, "total": 100, "message": format!("Completed step {progress} of 100")});
                session.send(jsonrpc::notification("notifications/progress", params));
            }
            let shown = match &token {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            Outcome::Result(text_result(shown))
        }
        "test_error_handling" => {
            let mut result = text_result("This tool intentionally returns an error for testing");
            result["isError"] = json!(true);
            Outcome::Result(result)
        }
        "test_sampling" => {
            let prompt = arguments
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 100});
            match ask_client(session, "sampling/createMessage", params).await {
                Ok(result) => {
                    let answer = result
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or("No response");
                    text(&format!("LLM response: {answer}"))
                }
                Err(error) => text(&format!("Sampling not supported or error: {error}")),
            }
        }
        "test_elicitation"
        | "test_elicitation_sep1034_defaults"
        | "test_elicitation_sep1330_enums" => {
            let (message, schema, prefix) = elicitation(name, arguments);
            let params = json!({"message": message, "requestedSchema": schema});
            match ask_client(session, "elicitation/create", params).await {
                Ok(result) => {
                    let action = result.get("action").and_then(Value::as_str).unwrap_or("?");
                    let content = result.get("content").cloned().unwrap_or(json!({}));
                    text(&format!("{prefix}: action={action}, content={content}"))
                }
                Err(error) => text(&format!("Elicitation not supported or error: {error}")),
            }
        }
        "json_schema_2020_12_tool" => text(&format!(
            "JSON Schema 2020-12 tool called with: {arguments}"
        )),
        _ => Outcome::Error(
            jsonrpc::INVALID_PARAMS,
            format!("Invalid params: unknown tool `{name}`"),
            None,
        ),
    }
}

fn elicitation(name: &str, arguments: &Value) -> (String, Value, &'static str) {
    match name {
        "test_elicitation" => (
            arguments
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            object_schema(
                json!({"response": {"type": "string", "description": "User's response"}}),
                &["response"],
            ),
            "User response",
        ),
        "test_elicitation_sep1034_defaults" => (
            "Please review and update the form fields with defaults".to_owned(),
            object_schema(
                json!({
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "description": "Verification status", "default": true}
                }),
                &[],
            ),
            "Elicitation completed",
        ),
        _ => (
            "Please select options from the enum fields".to_owned(),
            object_schema(
                json!({
                    "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
                        {"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"}]},
                    "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                    "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                        {"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"}, {"const": "value3", "title": "Third Choice"}]}}
                }),
                &[],
            ),
            "Elicitation completed",
        ),
    }
}

/// A server-to-client request, awaited; the error is the client's error message.
async fn ask_client(session: &Session, method: &str, params: Value) -> Result<Value, String> {
    let (_, reply) = session.request_client(method, params);
    match reply.await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(error)) => Err(error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_owned()),
        Err(_) => Err("the connection closed".to_owned()),
    }
}
