//! The conformance fixtures' catalogue and their one dispatch point: which tools, methods and
//! capabilities are served under each revision, `Conformance` (the fixtures as plugged into a
//! core, with their own state) and `Core::with_conformance_fixtures`, `dispatch` (what the core's
//! `Fixtures` plug hands every request to), and the non-tool methods (resources, prompts,
//! completion, logging, subscriptions); running a tool call is `tool_calls`.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::call::{Answer, invalid};
use super::content::{self, object_schema};
use super::listen::{self, Listeners};
use super::logging::{LogLevel, log};
use super::tool_calls::call_tool;
use super::{diagnostics, mrtr, request_state, task_tools};
use crate::jsonrpc;
use crate::revision::Revision;
use crate::server::session::{Core, Dispatch, Fixtures, Session, cacheable};

/// The conformance suite's fixtures as plugged into one core, with their own state.
#[derive(Debug, Default)]
struct Conformance {
    /// Open `subscriptions/listen` streams.
    listeners: Arc<Listeners>,
}

impl Core {
    /// A core that also serves the official conformance suite's fixtures (see `conformance`).
    pub fn with_conformance_fixtures() -> Core {
        Core::default().with_fixtures(Arc::new(Conformance::default()))
    }
}

impl Fixtures for Conformance {
    fn dispatch(
        &self,
        session: &Arc<Session>,
        id: Value,
        key: String,
        method: &str,
        revision: Revision,
        params: Map<String, Value>,
    ) -> Dispatch {
        dispatch(self, session, id, key, method, revision, params)
    }

    fn extend_capabilities(&self, capabilities: &mut Value, revision: Revision) {
        extend_capabilities(capabilities, revision);
    }

    fn tool_definitions(&self, revision: Revision) -> Vec<Value> {
        tool_definitions(revision)
    }
}

/// The fixture tools of both revisions and their descriptions.
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

/// The fixture tools served under `revision`, by name and description.
fn tools(revision: Revision) -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    let modern: &[(&str, &str)] = match revision {
        Revision::V2025_11_25 => &[],
        Revision::V2026_07_28 => mrtr::TOOLS,
    };
    let diagnostics: &[(&str, &str)] = match revision {
        Revision::V2025_11_25 => &[],
        Revision::V2026_07_28 => diagnostics::TOOLS,
    };
    let tasks: &[(&str, &str)] = match revision {
        Revision::V2025_11_25 => &[],
        Revision::V2026_07_28 => task_tools::TOOLS,
    };
    TOOLS.iter().chain(modern).chain(diagnostics).chain(tasks)
}

/// The `tools/list` entries of the fixture tools under `revision`.
fn tool_definitions(revision: Revision) -> Vec<Value> {
    let mut definitions: Vec<Value> = tools(revision)
        .filter(|(name, _)| !task_tools::has(name))
        .map(|(name, description)| {
            let schema = match *name {
                "test_sampling" => object_schema(json!({"prompt": {"type": "string", "description": "The prompt to send to the LLM"}}), &["prompt"]),
                "test_elicitation" => object_schema(json!({"message": {"type": "string", "description": "The message to show the user"}}), &["message"]),
                "json_schema_2020_12_tool" => json_schema_2020_12(),
                "test_custom_headers" => diagnostics::custom_headers_schema(),
                _ => json!({"type": "object", "properties": {}}),
            };
            json!({"name": name, "description": description, "inputSchema": schema})
        })
        .collect();
    if revision == Revision::V2026_07_28 {
        definitions.extend(task_tools::definitions());
    }
    definitions
}

/// A schema using the JSON Schema 2020-12 vocabulary the suite checks is passed through intact
/// (SEP-1613, SEP-2106): `$schema`, `$defs` with an `$anchor`, `$ref`, composition (`allOf`,
/// `anyOf`), conditionals (`if`/`then`/`else`) and `additionalProperties`.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
        }},
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// The one place a request reaches the fixtures: fixture tool calls, the fixture methods
/// (resources, prompts, completion, logging, subscriptions) and `subscriptions/listen`;
/// anything else is handed back.
fn dispatch(
    fixtures: &Conformance,
    session: &Arc<Session>,
    id: Value,
    key: String,
    method: &str,
    revision: Revision,
    params: Map<String, Value>,
) -> Dispatch {
    match (method, revision) {
        ("tools/call", _) if is_fixture_call(&params, revision) => {
            call_tool(session, &fixtures.listeners, id, key, revision, params);
        }
        ("subscriptions/listen", Revision::V2026_07_28) => {
            listen::listen(&fixtures.listeners, session, id, key, &params);
        }
        (method, _) if handles(method, revision) => {
            let answer = handle(session, &key, method, revision, &params);
            let cached = matches!(
                method,
                "resources/list" | "resources/templates/list" | "resources/read" | "prompts/list"
            );
            let answer = match answer {
                Ok(result) if cached => Ok(cacheable(result, revision)),
                other => other,
            };
            session.answer(id, revision, answer);
        }
        _ => return Dispatch::NotAFixture { id, key, params },
    }
    Dispatch::Handled
}

/// Whether this `tools/call` names a fixture tool served under `revision`.
fn is_fixture_call(params: &Map<String, Value>, revision: Revision) -> bool {
    params
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|name| tools(revision).any(|(tool, _)| *tool == name))
}

/// Capabilities the fixtures add to `initialize` / `server/discover`.
fn extend_capabilities(capabilities: &mut Value, revision: Revision) {
    capabilities["completions"] = json!({});
    capabilities["logging"] = json!({});
    match revision {
        Revision::V2025_11_25 => {
            capabilities["prompts"] = json!({"listChanged": false});
            capabilities["resources"] = json!({"subscribe": true, "listChanged": false});
        }
        Revision::V2026_07_28 => {
            // Announced on `subscriptions/listen` streams (see `listen`).
            capabilities["tools"] = json!({"listChanged": true});
            capabilities["prompts"] = json!({"listChanged": true});
            capabilities["resources"] = json!({});
        }
    }
}

/// Whether `method` is a fixture method under `revision`.
fn handles(method: &str, revision: Revision) -> bool {
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

/// Answers a fixture method (the request with id key `key`).
fn handle(
    session: &Session,
    key: &str,
    method: &str,
    revision: Revision,
    params: &Map<String, Value>,
) -> Answer {
    let string = |key: &str| params.get(key).and_then(Value::as_str);
    match method {
        "resources/list" | "resources/templates/list" => Ok(content::list(method)),
        "resources/read" => match string("uri") {
            Some(uri) => content::read_resource(uri),
            None => invalid("Invalid params: resources/read needs a `uri`".to_owned()),
        },
        "resources/subscribe" | "resources/unsubscribe" => match string("uri") {
            Some(uri) => {
                let verb = if method == "resources/subscribe" {
                    "Subscribed to"
                } else {
                    "Unsubscribed from"
                };
                log(
                    session,
                    Some(key),
                    Some(LogLevel::Debug),
                    "info",
                    format!("{verb} resource: {uri}"),
                );
                Ok(json!({}))
            }
            None => invalid(format!("Invalid params: {method} needs a `uri`")),
        },
        "prompts/list" => Ok(content::prompts(revision == Revision::V2026_07_28)),
        "prompts/get"
            if revision == Revision::V2026_07_28 && string("name") == Some(mrtr::PROMPT) =>
        {
            let origin = request_state::Origin {
                method,
                name: mrtr::PROMPT,
            };
            mrtr::answer(&mrtr::Request { origin, params })
        }
        "prompts/get" => {
            content::get_prompt(string("name").unwrap_or_default(), params.get("arguments"))
        }
        "logging/setLevel" => match string("level") {
            Some(level) => {
                log(
                    session,
                    Some(key),
                    Some(LogLevel::Debug),
                    "info",
                    format!("Log level set to: {level}"),
                );
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
