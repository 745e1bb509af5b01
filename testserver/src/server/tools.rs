//! The fixed tool contract (`echo`, `slow`, `wait_gate`, `open_gate`, `ignore_cancel`, `fail`,
//! `ask`, `violations`, `transcript`, `handler_log`): argument parsing (bad arguments are -32602 before any
//! handler runs) and the handlers themselves.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::calls::{Call, Outcome, text_result};
use crate::gates;
use crate::jsonrpc;
use crate::transcript::Direction;

/// Upper bound on `steps`, so a typo cannot keep a handler busy for ever.
const MAX_STEPS: u64 = 100_000;
/// Upper bound on `step_ms` (one hour).
const MAX_STEP_MS: u64 = 3_600_000;

/// A tool call with validated arguments.
#[derive(Clone, Debug)]
pub(crate) enum Tool {
    Echo {
        text: String,
    },
    Slow {
        steps: u64,
        step_ms: u64,
    },
    WaitGate {
        gate: String,
    },
    OpenGate {
        gate: String,
    },
    IgnoreCancel {
        steps: u64,
        step_ms: u64,
    },
    Fail {
        message: String,
    },
    /// With `gate`: url mode (2026-07-28), the gate standing for the out-of-band interaction.
    Ask {
        question: String,
        gate: Option<String>,
    },
    Violations,
    Transcript,
    HandlerLog,
}

/// The `tools/list` entries.
pub(crate) fn definitions() -> Vec<Value> {
    let string = |name: &str, what: &str| json!({name: {"type": "string", "description": what}});
    let steps = json!({
        "steps": {"type": "integer", "minimum": 0, "maximum": MAX_STEPS, "description": "how many steps"},
        "step_ms": {"type": "integer", "minimum": 0, "maximum": MAX_STEP_MS, "description": "milliseconds per step"}
    });
    let tool = |name: &str, description: &str, properties: Value, task: bool| {
        let required: Vec<&String> = properties
            .as_object()
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        let mut tool = json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": required, "additionalProperties": false}
        });
        if task {
            tool["execution"] = json!({"taskSupport": "optional"});
        }
        tool
    };
    vec![
        tool(
            "echo",
            "Returns `text` unchanged.",
            string("text", "the text to echo"),
            false,
        ),
        tool(
            "slow",
            "Sleeps `step_ms` per step, reporting progress after each step; honours cancellation.",
            steps.clone(),
            true,
        ),
        tool(
            "wait_gate",
            "Blocks until the gate is opened; honours cancellation.",
            string("gate", "gate name"),
            false,
        ),
        tool(
            "open_gate",
            "Opens a gate (idempotent).",
            string("gate", "gate name"),
            false,
        ),
        tool(
            "ignore_cancel",
            "Like slow, but keeps working after a cancel and still responds.",
            steps,
            true,
        ),
        tool(
            "fail",
            "Returns a tool error (isError: true) with `message`.",
            string("message", "the error message"),
            false,
        ),
        {
            let properties = json!({
                "question": {"type": "string", "description": "the question"},
                "gate": {"type": "string", "description": "2026-07-28 only: ask in url mode; the out-of-band interaction completes when this gate opens"}
            });
            let mut ask = tool(
                "ask",
                "Asks the client a question (elicitation / input_required); with `gate`, a url-mode input request whose retry is answered when the gate opens, or after 1 s with a state-only input_required (\"still waiting\").",
                properties,
                false,
            );
            ask["inputSchema"]["required"] = json!(["question"]);
            ask
        },
        tool(
            "violations",
            "The protocol violations recorded from the client so far, as JSON.",
            json!({}),
            false,
        ),
        tool(
            "transcript",
            "The wire transcript so far, as JSON.",
            json!({}),
            false,
        ),
        tool(
            "handler_log",
            "What the tool handlers did so far, one line each (`wait_gate#2 stopped by cancel`), without this tool's own calls.",
            json!({}),
            false,
        ),
    ]
}

/// Validates a call's arguments; the error text becomes a -32602 message.
pub(crate) fn parse(name: &str, arguments: &Value) -> Result<Tool, String> {
    let Some(arguments) = arguments.as_object() else {
        return Err(format!(
            "Invalid params: arguments of `{name}` must be an object"
        ));
    };
    let args = Args {
        tool: name,
        arguments,
    };
    let tool = match name {
        "echo" => Tool::Echo {
            text: args.string("text")?,
        },
        "slow" => Tool::Slow {
            steps: args.integer("steps", MAX_STEPS)?,
            step_ms: args.integer("step_ms", MAX_STEP_MS)?,
        },
        "wait_gate" => Tool::WaitGate { gate: args.gate()? },
        "open_gate" => Tool::OpenGate { gate: args.gate()? },
        "ignore_cancel" => Tool::IgnoreCancel {
            steps: args.integer("steps", MAX_STEPS)?,
            step_ms: args.integer("step_ms", MAX_STEP_MS)?,
        },
        "fail" => Tool::Fail {
            message: args.string("message")?,
        },
        "ask" => Tool::Ask {
            question: args.string("question")?,
            gate: match args.arguments.contains_key("gate") {
                true => Some(args.gate()?),
                false => None,
            },
        },
        "violations" => Tool::Violations,
        "transcript" => Tool::Transcript,
        "handler_log" => Tool::HandlerLog,
        "" => return Err("Invalid params: tools/call needs a tool `name`".to_owned()),
        _ => return Err(format!("Invalid params: unknown tool `{name}`")),
    };
    args.no_extra(&tool)?;
    Ok(tool)
}

struct Args<'a> {
    tool: &'a str,
    arguments: &'a Map<String, Value>,
}

impl Args<'_> {
    fn string(&self, key: &str) -> Result<String, String> {
        match self.arguments.get(key) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(_) => Err(format!(
                "Invalid params: `{}.{key}` must be a string",
                self.tool
            )),
            None => Err(format!("Invalid params: `{}` needs `{key}`", self.tool)),
        }
    }

    /// The `gate` argument, refused when longer than a gate name may be.
    fn gate(&self) -> Result<String, String> {
        let gate = self.string("gate")?;
        gates::check_name(&gate)
            .map_err(|error| format!("Invalid params: `{}.gate`: {error}", self.tool))?;
        Ok(gate)
    }

    fn integer(&self, key: &str, max: u64) -> Result<u64, String> {
        match self.arguments.get(key).map(Value::as_u64) {
            Some(Some(number)) if number <= max => Ok(number),
            Some(_) => Err(format!(
                "Invalid params: `{}.{key}` must be an integer from 0 to {max}",
                self.tool
            )),
            None => Err(format!("Invalid params: `{}` needs `{key}`", self.tool)),
        }
    }

    fn no_extra(&self, tool: &Tool) -> Result<(), String> {
        let known: &[&str] = match tool {
            Tool::Echo { .. } => &["text"],
            Tool::Slow { .. } | Tool::IgnoreCancel { .. } => &["steps", "step_ms"],
            Tool::WaitGate { .. } | Tool::OpenGate { .. } => &["gate"],
            Tool::Fail { .. } => &["message"],
            Tool::Ask { .. } => &["question", "gate"],
            Tool::Violations | Tool::Transcript | Tool::HandlerLog => &[],
        };
        match self
            .arguments
            .keys()
            .find(|key| !known.contains(&key.as_str()))
        {
            Some(extra) => Err(format!(
                "Invalid params: `{}` has no argument `{extra}`",
                self.tool
            )),
            None => Ok(()),
        }
    }
}

impl Tool {
    /// The tool's name.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Tool::Echo { .. } => "echo",
            Tool::Slow { .. } => "slow",
            Tool::WaitGate { .. } => "wait_gate",
            Tool::OpenGate { .. } => "open_gate",
            Tool::IgnoreCancel { .. } => "ignore_cancel",
            Tool::Fail { .. } => "fail",
            Tool::Ask { .. } => "ask",
            Tool::Violations => "violations",
            Tool::Transcript => "transcript",
            Tool::HandlerLog => "handler_log",
        }
    }

    /// Whether the tool may run as a task (`ignore_cancel`: a task whose work outlives its
    /// `tasks/cancel`).
    pub(crate) fn supports_tasks(&self) -> bool {
        matches!(self, Tool::Slow { .. } | Tool::IgnoreCancel { .. })
    }

    /// Runs the handler to its end (or its cancellation).
    pub(crate) async fn run(&self, call: &Call) -> Outcome {
        match self {
            Tool::Echo { text } => Outcome::Result(text_result(text.clone())),
            Tool::Slow { steps, step_ms } => slow(call, *steps, *step_ms).await,
            Tool::WaitGate { gate } => {
                tokio::select! {
                    _ = call.token.cancelled() => {
                        call.log("stopped by cancel");
                        Outcome::Cancelled
                    }
                    _ = call.session.core.gates.wait(gate, call.session.context()) => {
                        // "completed" is logged by the caller once the answer is sent.
                        Outcome::Result(text_result(format!("gate {gate} opened")))
                    }
                }
            }
            Tool::OpenGate { gate } => {
                let context = call.session.context();
                match call.session.core.gates.try_open(gate, context) {
                    Ok(_) => Outcome::Result(text_result(format!("opened {gate}"))),
                    Err(error) => Outcome::Error(
                        jsonrpc::INVALID_PARAMS,
                        format!("Invalid params: `open_gate.gate`: {error}"),
                        None,
                    ),
                }
            }
            Tool::IgnoreCancel { steps, step_ms } => ignore_cancel(call, *steps, *step_ms).await,
            Tool::Fail { message } => {
                let mut result = text_result(message.clone());
                result["isError"] = json!(true);
                Outcome::Result(result)
            }
            Tool::Ask { question, gate } => super::ask::ask(call, question, gate.as_deref()).await,
            Tool::Violations => {
                let session = &call.session;
                let own = session
                    .core
                    .violations_by_context
                    .reported(session.context());
                let violations = serde_json::to_string(&own).expect("violations serialize");
                Outcome::Result(text_result(violations))
            }
            Tool::Transcript => Outcome::Result(text_result(transcript_text(call))),
            Tool::HandlerLog => Outcome::Result(text_result(handler_log_text(call))),
        }
    }
}

async fn slow(call: &Call, steps: u64, step_ms: u64) -> Outcome {
    for step in 1..=steps {
        tokio::select! {
            _ = call.token.cancelled() => {
                call.log(&format!("stopped by cancel after step {}", step - 1));
                return Outcome::Cancelled;
            }
            _ = tokio::time::sleep(Duration::from_millis(step_ms)) => {}
        }
        call.progress(step, steps, format!("step {step} of {steps}"));
    }
    // "completed" is logged by the caller once the answer is sent.
    Outcome::Result(text_result(format!("completed {steps} steps")))
}

async fn ignore_cancel(call: &Call, steps: u64, step_ms: u64) -> Outcome {
    let mut noticed = false;
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(step_ms)).await;
        if call.token.is_cancelled() && !noticed {
            noticed = true;
            call.log(&format!("ignored cancel at step {step}"));
        }
        call.progress(step, steps, format!("step {step} of {steps}"));
    }
    // "completed" is logged by the caller once the answer is sent.
    let result = text_result(format!("completed {steps} steps"));
    if call.token.is_cancelled() {
        Outcome::Late(result)
    } else {
        Outcome::Result(result)
    }
}

/// The transcript as JSON text, with earlier `transcript` replies elided so replies do not grow
/// geometrically.
/// The caller's context's handler log (never another's, unless the operator asked for every
/// client's with `--handler-log-all`), without the `handler_log` calls' own
/// lines, so that asking (and asking again, until something happened) leaves the answer
/// unchanged.
fn handler_log_text(call: &Call) -> String {
    let own = format!("{}#", Tool::HandlerLog.name());
    let session = &call.session;
    let lines: Vec<String> = session
        .core
        .handlers
        .entries_for(session.context())
        .into_iter()
        .filter(|line| !line.starts_with(&own))
        .collect();
    lines.join("\n")
}

/// The most `transcript` replies remembered for eliding.
const MAX_ELIDED_REPLIES: usize = 4096;

/// The caller's context's transcript (never another's), its earlier `transcript` replies elided.
fn transcript_text(call: &Call) -> String {
    let core = &call.session.core;
    let mut replies = core
        .transcript_replies
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let context = call.session.context();
    let messages: Vec<Value> = core
        .transcript
        .messages_of(context)
        .into_iter()
        .map(|wire| {
            let mut message = wire.value();
            let is_reply = wire.direction == Direction::Out
                && message.get("result").is_some()
                && message
                    .get("id")
                    .is_some_and(|id| replies.contains(&(context, jsonrpc::id_key(id))));
            if is_reply {
                message["result"] = json!({"elided": "an earlier transcript reply"});
            }
            json!({"direction": wire.direction, "message": message})
        })
        .collect();
    // Bounded: a flood of `transcript` calls (all stateless clients share one context) cannot
    // grow it; forgetting only shows an earlier reply in full again.
    if replies.len() >= MAX_ELIDED_REPLIES {
        replies.clear();
    }
    replies.insert((context, call.key.clone()));
    Value::Array(messages).to_string()
}
