//! Tasks: a request answered at once with a task handle while its work goes on. 2025-11-25
//! (core): `tools/call` with `params.task` returns `{task}`; `tasks/get`, `tasks/result` (blocks
//! until terminal), `tasks/list`, `tasks/cancel` (the cancelled task; -32602 on a terminal one).
//! 2026-07-28 (extension `io.modelcontextprotocol/tasks`, SEP-2663, only for a request whose
//! `_meta` client capabilities declare it, else -32021): a flat `CreateTaskResult`
//! (`resultType: "task"`); `tasks/get` inlines the `result` of a completed task, the `error` of a
//! failed one and the `inputRequests` of one waiting for input; `tasks/update` delivers
//! `inputResponses`; `tasks/cancel` is an empty acknowledgement, also on a terminal task. A tool
//! result, even with `isError`, completes a task; only a JSON-RPC error fails it. An unknown task
//! id is -32602 everywhere. Timestamps count tokio time from the server's start on a fixed epoch,
//! so they are stable.
//!
//! A task belongs to the binding context of the connection that created it (`crate::context`):
//! "If context-binding is available, receivers MUST reject `tasks/get`, `tasks/result`, and
//! `tasks/cancel` requests for tasks that do not belong to the same authorization context as the
//! requestor. For `tasks/list` requests, receivers MUST ensure the returned task list includes
//! only tasks associated with the requestor's authorization context" (2025-11-25,
//! basic/utilities/tasks, *Task Isolation and Access Control*). Another context's task is
//! answered exactly as an unknown one (-32602), so its existence does not show either.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::calls::{Call, Outcome};
use super::mutants::Mutant;
use super::session::{CAPABILITIES_KEY, Core, Session, TASKS_EXTENSION};
use super::task_id;
use super::task_store::{End, Entry, OnEnd, Status, TaskStore, detailed_task, task_json};
use super::tools::Tool;
use crate::jsonrpc::{self, id_key};
use crate::revision::Revision;

/// A JSON-RPC error: code, message, data.
type RpcError = (i64, String, Option<Value>);
type Answer = Result<Value, RpcError>;

/// A task being run: what its body uses to wait for input and to notice a cancel.
pub(crate) struct TaskHandle {
    core: Arc<Core>,
    number: u64,
    id: String,
    /// Cancelled by `tasks/cancel`.
    pub token: CancellationToken,
}

/// Whether a request's client capabilities declare the 2026-07-28 tasks extension.
pub(crate) fn declares_extension(params: &Map<String, Value>) -> bool {
    params
        .get("_meta")
        .and_then(|meta| meta.get(CAPABILITIES_KEY))
        .and_then(|capabilities| capabilities.get("extensions"))
        .and_then(|extensions| extensions.get(TASKS_EXTENSION))
        .is_some()
}

/// The -32021 error for a request that needs the tasks extension its client did not declare.
pub(crate) fn extension_required(what: &str) -> RpcError {
    (
        jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("Missing required client capability: {what} needs the {TASKS_EXTENSION} extension"),
        Some(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})),
    )
}

/// Creates a task for the request `id` (its `ttl` under 2025-11-25) and answers the request with
/// its handle; the task exists before the answer is sent, so a `tasks/get` right after it finds
/// it. `on_end` runs once, when the task becomes terminal (or at once, if no task is created).
/// `None` (and an error answer) when this server has created all the tasks it can number.
pub(crate) fn create(
    session: &Arc<Session>,
    id: Value,
    revision: Revision,
    params: &Map<String, Value>,
    on_end: Option<OnEnd>,
) -> Option<TaskHandle> {
    let store = &session.core.tasks;
    // 2026-07-28 removed the `task` parameter: a server must ignore it.
    let ttl = match revision {
        Revision::V2025_11_25 => params
            .get("task")
            .and_then(|task| task.get("ttl"))
            .and_then(Value::as_u64),
        Revision::V2026_07_28 => None,
    };
    let ttl = TaskStore::ttl(ttl);
    let token = CancellationToken::new();
    let now = store.now();
    let entry = Entry {
        id: String::new(),
        context: session.context(),
        created_ms: 0,
        status: Status::Working,
        created: now.clone(),
        updated: now,
        ttl: Some(ttl),
        end: None,
        pending: Map::new(),
        responses: Map::new(),
        token: token.clone(),
        on_end,
    };
    session.lock().task_requests.insert(id_key(&id));
    let (number, tasks) = match store.insert(session.context(), entry) {
        Ok(inserted) => inserted,
        Err((on_end, why)) => {
            if let Some(on_end) = on_end {
                on_end();
            }
            let error = (
                jsonrpc::INTERNAL_ERROR,
                format!("Internal error: {why}"),
                None,
            );
            session.answer(id, revision, Err(error));
            return None;
        }
    };
    let entry = tasks.get(number);
    let task_id = entry.id.clone();
    let mut task = task_json(entry, revision);
    // The `task-id-integer` mutant names the task by its number, a JSON integer; the store and
    // every later answer keep the real id.
    if session.core.breaks(Mutant::TaskIdInteger) {
        task.insert("taskId".into(), json!(number));
    }
    // The `task-id-from-request` mutant names it by the id of the request that created it.
    if session.core.breaks(Mutant::TaskIdFromRequest) {
        let request_id = id.as_str().map_or_else(|| id.to_string(), str::to_owned);
        task.insert("taskId".into(), json!(request_id));
    }
    // The `task-ids-repeat` mutant names every task by the first task's id.
    if session.core.breaks(Mutant::TaskIdsRepeat) {
        task.insert("taskId".into(), json!(task_id::encode(1)));
    }
    let handle = match revision {
        Revision::V2025_11_25 => json!({"task": task}),
        Revision::V2026_07_28 => {
            task.insert("resultType".into(), json!("task"));
            Value::Object(task)
        }
    };
    // Answered under the store's lock, so the task is not seen before its handle is sent.
    session.answer(id, revision, Ok(handle));
    drop(tasks);
    Some(TaskHandle {
        core: session.core.clone(),
        number,
        id: task_id,
        token,
    })
}

impl TaskHandle {
    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Parks the task in `input_required` with `requests` (by key, each a server-to-client
    /// request) until `tasks/update` has answered every one; the responses by key, or `None`
    /// when the task was cancelled meanwhile.
    pub(crate) async fn input(&self, requests: Map<String, Value>) -> Option<Map<String, Value>> {
        let store = &self.core.tasks;
        let now = store.now();
        let parked = store.with(self.number, |entry| {
            if entry.status != Status::Working {
                return false;
            }
            entry.status = Status::InputRequired;
            entry.pending = requests;
            entry.updated = now;
            true
        });
        if parked != Some(true) {
            return None;
        }
        let mut changes = store.changes.subscribe();
        let answered = changes.wait_for(|_| {
            store
                .with_quiet(self.number, |entry| entry.pending.is_empty())
                .unwrap_or(true)
        });
        tokio::select! {
            _ = self.token.cancelled() => None,
            _ = answered => store.with_quiet(self.number, |entry| std::mem::take(&mut entry.responses)),
        }
    }

    /// Records how the task's work ended, unless the task is already terminal (cancelled); the
    /// status it reached, `None` if it was already terminal.
    pub(crate) fn settle(&self, outcome: Outcome) -> Option<&'static str> {
        let store = &self.core.tasks;
        let now = store.now();
        store
            .with(self.number, |entry| {
                // The `cancelled-task-completes` mutant lets the work's end replace `cancelled`.
                let reopen = entry.status == Status::Cancelled
                    && self.core.breaks(Mutant::CancelledTaskCompletes);
                if entry.status.is_terminal() && !reopen {
                    return None;
                }
                let (status, end) = match outcome {
                    Outcome::Result(result) | Outcome::Late(result) => {
                        (Status::Completed, Some(End::Result(result)))
                    }
                    Outcome::Error(code, message, data) => {
                        let mut error = json!({"code": code, "message": message});
                        if let Some(data) = data {
                            error["data"] = data;
                        }
                        (Status::Failed, Some(End::Error(error)))
                    }
                    Outcome::Cancelled => (Status::Cancelled, None),
                };
                entry.end = end;
                entry.end_as(status, now);
                Some(status.as_str())
            })
            .flatten()
    }
}

/// Starts the built-in `tool` as a task and answers the `tools/call` with the task handle;
/// `on_end` runs once the task is terminal.
pub(crate) fn start(call: Call, tool: Tool, on_end: Option<OnEnd>) {
    let Some(task) = create(
        &call.session,
        call.id.clone(),
        call.revision,
        &call.params,
        on_end,
    ) else {
        return;
    };
    let session = call.session.clone();
    session.core.handlers.start(tool.name());
    call.log(&format!("started as {}", task.id()));
    // The tool watches the call's token; a `tasks/cancel` cancels the task's. The task's
    // status bounds the call's progress (see `Call::progress`).
    let call = Call {
        token: task.token.clone(),
        task_number: Some(task.number),
        ..call
    };
    tokio::spawn(async move {
        let outcome = tool.run(&call).await;
        if let Some(status) = task.settle(outcome)
            && status != "cancelled"
        {
            call.log(&format!("{status} as {}", task.id()));
        }
        call.session.core.handlers.stop(tool.name());
    });
}

/// Handles `tasks/get|result|list|cancel|update` (routed here for the methods the revision has).
pub(crate) fn handle(
    session: &Arc<Session>,
    id: Value,
    method: &str,
    revision: Revision,
    params: &Map<String, Value>,
) {
    if revision == Revision::V2026_07_28 && !declares_extension(params) {
        return session.answer(id, revision, Err(extension_required(method)));
    }
    let store = &session.core.tasks;
    let context = session.context();
    if method == "tasks/list" {
        let tasks = store.list(context, |_, entry| {
            Value::Object(task_json(entry, revision))
        });
        return session.answer(id, revision, Ok(json!({"tasks": tasks})));
    }
    let unknown = |text: &str| invalid(&format!("unknown task `{text}`"));
    let number = match params.get("taskId").and_then(Value::as_str) {
        None => Err(invalid("`taskId` (a string) is required")),
        Some(text) => store.find(context, text).ok_or_else(|| unknown(text)),
    };
    let number = match number {
        Ok(number) => number,
        // The `unknown-task-cancel-acked` mutant acknowledges a 2026-07-28 `tasks/cancel` for a
        // task it does not know.
        Err(_)
            if method == "tasks/cancel"
                && revision == Revision::V2026_07_28
                && session.core.breaks(Mutant::UnknownTaskCancelAcked) =>
        {
            return session.answer(id, revision, Ok(json!({})));
        }
        Err(error) => return session.answer(id, revision, Err(error)),
    };
    let answer = match method {
        "tasks/get" => store.with_quiet(number, |entry| Ok(detailed_task(entry, revision))),
        "tasks/cancel" => cancel(store, number, revision, &session.core),
        "tasks/update" => update(store, number, params),
        "tasks/result" => return wait_for_result(session.clone(), id, number),
        _ => unreachable!("routed by the session"),
    };
    // `None`: the task was freed (its context ended) between finding it and now.
    let text = params
        .get("taskId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    session.answer(id, revision, answer.unwrap_or_else(|| Err(unknown(text))));
}

fn cancel(store: &TaskStore, number: u64, revision: Revision, core: &Core) -> Option<Answer> {
    let now = store.now();
    // The `task-cancel-terminal-accepted` mutant answers with the terminal task as it is.
    let accept_terminal = core.breaks(Mutant::TaskCancelTerminalAccepted);
    // The `task-cancelled-after-response` mutant answers with the task as it was before the
    // transition (still `working`), as if it moved to `cancelled` after the response.
    let answer_before = core.breaks(Mutant::TaskCancelledAfterResponse);
    let outcome = store.with(number, |entry| {
        if entry.status.is_terminal() && accept_terminal {
            return Ok(task_json(entry, revision));
        }
        if entry.status.is_terminal() {
            return Err((entry.id.clone(), entry.status));
        }
        let before = answer_before.then(|| task_json(entry, revision));
        entry.end_as(Status::Cancelled, now);
        entry.token.cancel();
        Ok(before.unwrap_or_else(|| task_json(entry, revision)))
    })?;
    Some(match (outcome, revision) {
        (Ok(task), Revision::V2025_11_25) => Ok(Value::Object(task)),
        (Err((id, status)), Revision::V2025_11_25) => Err(invalid(&format!(
            "task {id} is already {}",
            status.as_str()
        ))),
        // 2026-07-28: an empty acknowledgement, whatever the state.
        (_, Revision::V2026_07_28) => Ok(json!({})),
    })
}

/// `tasks/update` (2026-07-28): hands the responses to keys the task is waiting on to it and
/// ignores the rest (keys never issued or already answered), as SEP-2663 says a server should.
fn update(store: &TaskStore, number: u64, params: &Map<String, Value>) -> Option<Answer> {
    let responses = match params.get("inputResponses") {
        Some(Value::Object(responses)) => responses,
        Some(_) => return Some(Err(invalid("`inputResponses` must be an object"))),
        None => return Some(Err(invalid("`inputResponses` is required"))),
    };
    let now = store.now();
    store
        .with(number, |entry| {
            for (key, response) in responses {
                if entry.pending.remove(key).is_some() {
                    entry.responses.insert(key.clone(), response.clone());
                }
            }
            if entry.status == Status::InputRequired && entry.pending.is_empty() {
                entry.status = Status::Working;
                entry.updated = now;
            }
        })
        .map(|()| Ok(json!({})))
}

/// `tasks/result` (2025-11-25): answers once the task is terminal; cancellable like any request.
fn wait_for_result(session: Arc<Session>, id: Value, number: u64) {
    // The `task-result-not-final` mutant answers for a task already terminal with the task
    // itself, as `tasks/get` would.
    if session.core.breaks(Mutant::TaskResultNotFinal) {
        let terminal = session.core.tasks.with_quiet(number, |entry| {
            (entry.status.is_terminal()).then(|| task_json(entry, Revision::V2025_11_25))
        });
        if let Some(Some(task)) = terminal {
            return session.answer(id, Revision::V2025_11_25, Ok(Value::Object(task)));
        }
    }
    let key = id_key(&id);
    let token = session.begin(&key, None);
    tokio::spawn(async move {
        let store = &session.core.tasks;
        let mut changes = store.changes.subscribe();
        let terminal = changes.wait_for(|_| {
            store
                .with_quiet(number, |entry| entry.status.is_terminal())
                .unwrap_or(true)
        });
        let outcome = tokio::select! {
            _ = token.cancelled() => Outcome::Cancelled,
            _ = terminal => store.with_quiet(number, |entry| result_of(entry)).unwrap_or(Outcome::Cancelled),
        };
        // The `task-result-left-waiting` mutant does not answer for a cancelled task: the
        // request waits until it is cancelled itself (or the session ends).
        let cancelled = store
            .with_quiet(number, |entry| entry.status == Status::Cancelled)
            .unwrap_or(false);
        let outcome = if cancelled && session.core.breaks(Mutant::TaskResultLeftWaiting) {
            token.cancelled().await;
            Outcome::Cancelled
        } else {
            outcome
        };
        session.finish(&key, id, Revision::V2025_11_25, outcome);
    });
}

/// What `tasks/result` answers for a terminal task: its result (with the related-task `_meta`),
/// its error, or -32602 for a cancelled task.
fn result_of(entry: &Entry) -> Outcome {
    let id = &entry.id;
    match &entry.end {
        Some(End::Result(result)) => {
            let mut result = result.clone();
            result["_meta"] = json!({"io.modelcontextprotocol/related-task": {"taskId": id}});
            Outcome::Result(result)
        }
        Some(End::Error(error)) => Outcome::Error(
            error["code"].as_i64().unwrap_or(jsonrpc::INTERNAL_ERROR),
            error["message"].as_str().unwrap_or_default().to_owned(),
            error.get("data").cloned(),
        ),
        None => Outcome::Error(
            jsonrpc::INVALID_PARAMS,
            format!("task {id} was cancelled"),
            None,
        ),
    }
}

fn invalid(message: &str) -> RpcError {
    (
        jsonrpc::INVALID_PARAMS,
        format!("Invalid params: {message}"),
        None,
    )
}
