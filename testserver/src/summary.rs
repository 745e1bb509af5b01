//! The short summary of each transcript entry, chosen by message kind, e.g.
//! `req 2 tools/call slow {"step_ms":100,"steps":3} _meta.progressToken=1`,
//! `progress token=1 1/3 "step 1 of 3"`, `resp 2 result "completed 3 steps"`; responses are
//! summarized by the method of the request they answer. Shared by the text rendering
//! (`render.rs`) and the sequence diagram (`svg.rs`). Pure string building.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::transcript::{Entry, Side, TransportEvent, WireMessage};

/// Longest quoted text kept in a summary, in characters.
const TEXT_LIMIT: usize = 60;
/// Longest compact JSON kept in a summary, in characters.
const JSON_LIMIT: usize = 80;

/// The direction (`true` = client to server) and summary of each message, in order.
pub(crate) fn summaries(messages: &[WireMessage], side: Side) -> Vec<(bool, String)> {
    let mut methods = HashMap::new();
    messages
        .iter()
        .map(|wire| {
            let client_to_server = wire.is_client_to_server(side);
            let summary = match &wire.entry {
                Entry::Message(message) => summarize(message, client_to_server, &mut methods),
                Entry::Unparseable(raw) => format!("unparseable {}", quote(raw)),
                Entry::Transport(event) => transport_summary(event),
                Entry::Shutdown(shutdown) => format!(
                    "✕ {} {} ({})",
                    shutdown.transport,
                    crate::transcript::Shutdown::SHUTDOWN,
                    shutdown.reason
                ),
                Entry::Dropped {
                    dropped,
                    limit,
                    byte_limit,
                } => format!(
                    "… {dropped} earlier messages dropped (the transcript keeps {})",
                    crate::transcript::kept_phrase(*limit, *byte_limit)
                ),
            };
            (client_to_server, summary)
        })
        .collect()
}

/// Request methods by (sender is client, id as JSON), to name what a response answers.
type Methods = HashMap<(bool, String), String>;

fn summarize(message: &Value, client_to_server: bool, methods: &mut Methods) -> String {
    let Value::Object(object) = message else {
        return format!("invalid {}", compact(message));
    };
    let id = object.get("id");
    if let Some(method) = object.get("method").and_then(Value::as_str) {
        let params = object.get("params");
        return match id {
            Some(id) => {
                methods.insert((client_to_server, id.to_string()), method.to_owned());
                format!("req {id} {}", request_summary(method, params))
            }
            None => notification_summary(method, params),
        };
    }
    let id_text = id.map_or_else(|| "null".to_owned(), Value::to_string);
    if let Some(result) = object.get("result") {
        let method = id.and_then(|id| methods.get(&(!client_to_server, id.to_string())));
        return format!(
            "resp {id_text} {}",
            result_summary(method.map(String::as_str), result)
        );
    }
    if let Some(error) = object.get("error") {
        let code = error
            .get("code")
            .map_or_else(|| "?".to_owned(), Value::to_string);
        let text = error.get("message").and_then(Value::as_str).unwrap_or("");
        return format!("error {id_text} {code} {}", quote(text));
    }
    format!("invalid {}", compact(message))
}

/// `✕ http disconnect ID (a cancel)`: a transport event, which is no wire message.
fn transport_summary(event: &TransportEvent) -> String {
    let what = if event.cancels {
        "(a cancel)"
    } else {
        "(not a cancel)"
    };
    format!(
        "✕ {} {} {} {what}",
        TransportEvent::TRANSPORT,
        TransportEvent::DISCONNECT,
        event.request_id
    )
}

fn request_summary(method: &str, params: Option<&Value>) -> String {
    let empty = Map::new();
    let params = params.and_then(Value::as_object).unwrap_or(&empty);
    let meta = params.get("_meta").and_then(Value::as_object);
    let mut text = match method {
        "initialize" => format!(
            "initialize {} client={} caps={}",
            str_field(params, "protocolVersion"),
            implementation(params.get("clientInfo")),
            key_set(params.get("capabilities"))
        ),
        "server/discover" => format!(
            "server/discover {}",
            meta.and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
                .and_then(Value::as_str)
                .unwrap_or("(no version)")
        ),
        "tools/call" => {
            let mut text = format!("tools/call {}", str_field(params, "name"));
            if let Some(arguments) = params.get("arguments") {
                text.push(' ');
                text.push_str(&compact(arguments));
            }
            if let Some(task) = params.get("task") {
                text.push_str(&format!(" task={}", compact(task)));
            }
            if let Some(responses) = params.get("inputResponses") {
                text.push_str(&format!(" inputResponses={}", compact(responses)));
            }
            text
        }
        "elicitation/create" => {
            format!("elicitation/create {}", quote(str_field(params, "message")))
        }
        _ => {
            let rest = without_meta(params);
            if rest.is_empty() {
                method.to_owned()
            } else {
                format!("{method} {}", compact(&Value::Object(rest)))
            }
        }
    };
    if let Some(token) = meta.and_then(|meta| meta.get("progressToken")) {
        text.push_str(&format!(" _meta.progressToken={token}"));
    }
    text
}

fn notification_summary(method: &str, params: Option<&Value>) -> String {
    let empty = Map::new();
    let params = params.and_then(Value::as_object).unwrap_or(&empty);
    match method {
        "notifications/progress" => {
            let mut text = format!(
                "progress token={} {}",
                params.get("progressToken").unwrap_or(&Value::Null),
                params.get("progress").unwrap_or(&Value::Null)
            );
            if let Some(total) = params.get("total") {
                text.push_str(&format!("/{total}"));
            }
            if let Some(message) = params.get("message").and_then(Value::as_str) {
                text.push_str(&format!(" {}", quote(message)));
            }
            text
        }
        "notifications/cancelled" => {
            let mut text = "notification cancelled".to_owned();
            if let Some(id) = params.get("requestId") {
                text.push_str(&format!(" requestId={id}"));
            }
            if let Some(reason) = params.get("reason").and_then(Value::as_str) {
                text.push_str(&format!(" reason={}", quote(reason)));
            }
            text
        }
        _ => {
            let name = method.strip_prefix("notifications/").unwrap_or(method);
            let rest = without_meta(params);
            if rest.is_empty() {
                format!("notification {name}")
            } else {
                format!("notification {name} {}", compact(&Value::Object(rest)))
            }
        }
    }
}

fn result_summary(method: Option<&str>, result: &Value) -> String {
    let empty = Map::new();
    let object = result.as_object().unwrap_or(&empty);
    let result_type = object.get("resultType").and_then(Value::as_str);
    if result_type == Some("input_required") {
        return format!("input_required {}", key_set(object.get("inputRequests")));
    }
    if let Some(task) = object.get("task") {
        return format!("task {}", task_summary(task));
    }
    match method {
        Some("initialize") => format!(
            "initialize {} server={} caps={}",
            str_field(object, "protocolVersion"),
            implementation(object.get("serverInfo")),
            key_set(object.get("capabilities"))
        ),
        Some("server/discover") => format!(
            "discover versions={} caps={}",
            compact(object.get("supportedVersions").unwrap_or(&Value::Null)),
            key_set(object.get("capabilities"))
        ),
        Some("tools/list") => {
            let names: Vec<&str> = object
                .get("tools")
                .and_then(Value::as_array)
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(|tool| tool.get("name")?.as_str())
                        .collect()
                })
                .unwrap_or_default();
            format!("tools [{}]", names.join(", "))
        }
        Some("tasks/list") => {
            let tasks: Vec<String> = object
                .get("tasks")
                .and_then(Value::as_array)
                .map(|tasks| tasks.iter().map(task_summary).collect())
                .unwrap_or_default();
            format!("tasks [{}]", tasks.join(", "))
        }
        Some("elicitation/create") => {
            let mut text = str_field(object, "action").to_owned();
            if let Some(content) = object.get("content") {
                text.push(' ');
                text.push_str(&compact(content));
            }
            text
        }
        _ if object.contains_key("taskId") && object.contains_key("status") => {
            format!("task {}", task_summary(result))
        }
        _ if object.get("content").is_some_and(Value::is_array) => content_summary(object),
        _ => {
            let mut rest = without_meta(object);
            rest.remove("resultType");
            if rest.is_empty() {
                "ok".to_owned()
            } else {
                compact(&Value::Object(rest))
            }
        }
    }
}

fn task_summary(task: &Value) -> String {
    let mut text = format!(
        "{} {}",
        task.get("taskId").and_then(Value::as_str).unwrap_or("?"),
        task.get("status").and_then(Value::as_str).unwrap_or("?")
    );
    if let Some(result) = task.get("result").and_then(Value::as_object) {
        text.push(' ');
        text.push_str(&content_summary(result));
    }
    text
}

fn content_summary(result: &Map<String, Value>) -> String {
    let texts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .map(|block| match block.get("text").and_then(Value::as_str) {
                    Some(text) => quote(text),
                    None => compact(block),
                })
                .collect()
        })
        .unwrap_or_default();
    let kind = if result.get("isError") == Some(&Value::Bool(true)) {
        "error-result"
    } else {
        "result"
    };
    format!("{kind} {}", texts.join(", "))
}

fn str_field<'a>(object: &'a Map<String, Value>, key: &str) -> &'a str {
    object.get(key).and_then(Value::as_str).unwrap_or("?")
}

fn implementation(info: Option<&Value>) -> String {
    let name = info
        .and_then(|info| info.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("?");
    match info
        .and_then(|info| info.get("version"))
        .and_then(Value::as_str)
    {
        Some(version) => format!("{name}/{version}"),
        None => name.to_owned(),
    }
}

/// `{a,b}`: the sorted keys of an object, so capabilities stay short.
fn key_set(value: Option<&Value>) -> String {
    let mut keys: Vec<&str> = value
        .and_then(Value::as_object)
        .map(|object| object.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    format!("{{{}}}", keys.join(","))
}

fn without_meta(object: &Map<String, Value>) -> Map<String, Value> {
    let mut rest = object.clone();
    rest.remove("_meta");
    rest
}

/// A JSON string literal of `text`, shortened to `TEXT_LIMIT` characters with `…`.
pub(crate) fn quote(text: &str) -> String {
    Value::String(shorten(text, TEXT_LIMIT)).to_string()
}

/// Compact JSON, shortened to `JSON_LIMIT` characters with `…`.
pub(crate) fn compact(value: &Value) -> String {
    shorten(&value.to_string(), JSON_LIMIT)
}

fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(limit - 1).collect();
    short.push('…');
    short
}
