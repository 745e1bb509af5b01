//! Tasks: `slow` run as a task. 2025-11-25 (core): `tools/call` with `params.task` returns
//! `{task}`; `tasks/get`, `tasks/result` (blocks until terminal), `tasks/list`, `tasks/cancel`.
//! 2026-07-28 (extension `io.modelcontextprotocol/tasks`, when the client declares it):
//! `resultType: "task"`; `tasks/get` (result inline), `tasks/update`, `tasks/cancel` (empty ack).
//! Timestamps count tokio time from the server's start on a fixed epoch, so they are stable.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::calls::{Call, Outcome};
use super::session::Session;
use super::tools::Tool;
use crate::jsonrpc::{self, id_key};
use crate::revision::Revision;

/// Suggested polling interval, in milliseconds.
const POLL_INTERVAL_MS: u64 = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Working,
    Completed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Completed => "completed",
            Status::Cancelled => "cancelled",
        }
    }

    fn is_terminal(self) -> bool {
        self != Status::Working
    }
}

struct Entry {
    status: Status,
    created: String,
    updated: String,
    ttl: Option<u64>,
    result: Option<Value>,
    token: CancellationToken,
}

/// The tasks of one server.
#[derive(Debug)]
pub struct TaskStore {
    entries: Mutex<BTreeMap<u64, Entry>>,
    changes: watch::Sender<u64>,
    origin: tokio::time::Instant,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Task({})", self.status.as_str())
    }
}

impl Default for TaskStore {
    fn default() -> TaskStore {
        TaskStore {
            entries: Mutex::default(),
            changes: watch::Sender::new(0),
            origin: tokio::time::Instant::now(),
        }
    }
}

impl TaskStore {
    /// Whether task `number` exists and is not terminal.
    pub fn is_running(&self, number: u64) -> bool {
        self.lock()
            .get(&number)
            .is_some_and(|entry| !entry.status.is_terminal())
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn now(&self) -> String {
        timestamp(self.origin.elapsed().as_millis() as u64)
    }

    /// Runs `f` on a task and announces a change to `tasks/result` waiters.
    fn with<T>(&self, number: u64, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let value = self.with_quiet(number, f)?;
        self.changes.send_modify(|generation| *generation += 1);
        Some(value)
    }

    /// Like `with`, without announcing a change.
    fn with_quiet<T>(&self, number: u64, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        self.lock().get_mut(&number).map(f)
    }
}

fn task_id(number: u64) -> String {
    // Numbers count tasks created by one server: far below 2^32.
    super::task_id::encode(number as u32)
}

fn parse_task_id(text: &str) -> Option<u64> {
    super::task_id::decode(text).map(u64::from)
}

/// The `Task` fields as the revision spells them.
fn task_json(number: u64, entry: &Entry, revision: Revision) -> Map<String, Value> {
    let mut task = Map::new();
    task.insert("taskId".into(), json!(task_id(number)));
    task.insert("status".into(), json!(entry.status.as_str()));
    task.insert("createdAt".into(), json!(entry.created));
    task.insert("lastUpdatedAt".into(), json!(entry.updated));
    match revision {
        Revision::V2025_11_25 => {
            task.insert("ttl".into(), json!(entry.ttl));
            task.insert("pollInterval".into(), json!(POLL_INTERVAL_MS));
        }
        Revision::V2026_07_28 => {
            task.insert("ttlMs".into(), json!(entry.ttl));
            task.insert("pollIntervalMs".into(), json!(POLL_INTERVAL_MS));
        }
    }
    task
}

/// Starts `tool` as a task and answers the `tools/call` with the task handle.
pub fn start(mut call: Call, tool: Tool) {
    let store = &call.session.core.tasks;
    let ttl = call
        .params
        .get("task")
        .and_then(|task| task.get("ttl"))
        .and_then(Value::as_u64);
    let now = store.now();
    let entry = Entry {
        status: Status::Working,
        created: now.clone(),
        updated: now,
        ttl,
        result: None,
        token: call.token.clone(),
    };
    let number = {
        let mut entries = store.lock();
        let number = entries.len() as u64 + 1;
        let handle = match call.revision {
            Revision::V2025_11_25 => json!({"task": task_json(number, &entry, call.revision)}),
            Revision::V2026_07_28 => {
                let mut handle = task_json(number, &entry, call.revision);
                handle.insert("resultType".into(), json!("task"));
                Value::Object(handle)
            }
        };
        entries.insert(number, entry);
        call.session
            .answer(call.id.clone(), call.revision, Ok(handle));
        number
    };
    call.task_number = Some(number);
    let session = call.session.clone();
    session.core.handlers.start(tool.name());
    call.log(&format!("started as {}", task_id(number)));
    tokio::spawn(async move {
        let outcome = tool.run(&call).await;
        let store = &call.session.core.tasks;
        let now = store.now();
        let completed = store.with(number, |entry| {
            if let (Status::Working, Outcome::Result(result) | Outcome::Late(result)) =
                (entry.status, outcome)
            {
                entry.status = Status::Completed;
                entry.result = Some(result);
                entry.updated = now;
                true
            } else {
                false
            }
        });
        if completed == Some(true) {
            call.log(&format!("completed as {}", task_id(number)));
        }
        call.session.core.handlers.stop(tool.name());
    });
}

type Answer = Result<Value, (i64, String, Option<Value>)>;

/// Handles `tasks/get|result|list|cancel|update`.
pub fn handle(
    session: &Arc<Session>,
    id: Value,
    method: &str,
    revision: Revision,
    params: &Map<String, Value>,
) {
    let store = &session.core.tasks;
    if method == "tasks/list" {
        let tasks: Vec<Value> = store
            .lock()
            .iter()
            .map(|(number, entry)| Value::Object(task_json(*number, entry, revision)))
            .collect();
        session.answer(id, revision, Ok(json!({"tasks": tasks})));
        return;
    }
    let number = match params.get("taskId").and_then(Value::as_str) {
        None => {
            return session.answer(
                id,
                revision,
                Err(invalid("`taskId` (a string) is required")),
            );
        }
        Some(text) => {
            match parse_task_id(text).filter(|number| store.lock().contains_key(number)) {
                Some(number) => number,
                None => {
                    return session.answer(
                        id,
                        revision,
                        Err(invalid(&format!("unknown task `{text}`"))),
                    );
                }
            }
        }
    };
    let answer: Answer = match method {
        "tasks/get" => Ok(store
            .with(number, |entry| {
                let mut task = task_json(number, entry, revision);
                if revision == Revision::V2026_07_28
                    && let Some(result) = &entry.result
                {
                    task.insert("result".into(), result.clone());
                }
                Value::Object(task)
            })
            .expect("the task exists")),
        "tasks/cancel" => cancel(store, number, revision),
        "tasks/update" => Ok(json!({})),
        "tasks/result" => return wait_for_result(session.clone(), id, number),
        _ => unreachable!("routed by the session"),
    };
    session.answer(id, revision, answer);
}

fn cancel(store: &TaskStore, number: u64, revision: Revision) -> Answer {
    let now = store.now();
    let outcome = store
        .with(number, |entry| {
            if entry.status.is_terminal() {
                return Err(entry.status);
            }
            entry.status = Status::Cancelled;
            entry.updated = now;
            entry.token.cancel();
            Ok(task_json(number, entry, revision))
        })
        .expect("the task exists");
    match (outcome, revision) {
        (Ok(task), Revision::V2025_11_25) => Ok(Value::Object(task)),
        (Err(status), Revision::V2025_11_25) => Err(invalid(&format!(
            "task {} is already {}",
            task_id(number),
            status.as_str()
        ))),
        // 2026-07-28: an empty acknowledgement, whatever the state.
        (_, Revision::V2026_07_28) => Ok(json!({})),
    }
}

/// `tasks/result` (2025-11-25): answers once the task is terminal; cancellable like any request.
fn wait_for_result(session: Arc<Session>, id: Value, number: u64) {
    let key = id_key(&id);
    let token = session.begin(&key, None);
    tokio::spawn(async move {
        let mut changes = session.core.tasks.changes.subscribe();
        let terminal = changes.wait_for(|_| {
            session
                .core
                .tasks
                .with_quiet(number, |entry| entry.status.is_terminal())
                .unwrap_or(true)
        });
        let outcome = tokio::select! {
            _ = token.cancelled() => Outcome::Cancelled,
            _ = terminal => {
                let related = json!({"io.modelcontextprotocol/related-task": {"taskId": task_id(number)}});
                session.core.tasks.with_quiet(number, |entry| match (&entry.status, &entry.result) {
                    (Status::Completed, Some(result)) => {
                        let mut result = result.clone();
                        result["_meta"] = related;
                        Outcome::Result(result)
                    }
                    _ => Outcome::Error(jsonrpc::INVALID_PARAMS, format!("task {} was cancelled", task_id(number)), None),
                })
                .unwrap_or(Outcome::Cancelled)
            }
        };
        session.finish(&key, id, Revision::V2025_11_25, outcome);
    });
}

fn invalid(message: &str) -> (i64, String, Option<Value>) {
    (
        jsonrpc::INVALID_PARAMS,
        format!("Invalid params: {message}"),
        None,
    )
}

/// ISO 8601 for `elapsed_ms` after 2026-01-01T00:00:00Z.
fn timestamp(elapsed_ms: u64) -> String {
    // Days since 1970-01-01 of the epoch, then the civil date (Howard Hinnant's algorithm).
    const EPOCH_DAYS: i64 = 20_454;
    let days = EPOCH_DAYS + (elapsed_ms / 86_400_000) as i64;
    let of_day = elapsed_ms % 86_400_000;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3_600_000,
        of_day / 60_000 % 60,
        of_day / 1000 % 60,
        of_day % 1000
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_start_at_the_fixed_epoch() {
        assert_eq!(super::timestamp(0), "2026-01-01T00:00:00.000Z");
        assert_eq!(
            super::timestamp(86_400_000 * 59 + 1_500),
            "2026-03-01T00:00:01.500Z"
        );
    }
}
