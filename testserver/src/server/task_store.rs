//! The tasks of one server as data: each task's status, timestamps, what it ended with and the
//! input it waits on, numbered in creation order, and how the revisions spell a task
//! (`task_json`). What the protocol does with them is `tasks.rs`. Timestamps count tokio time
//! from the server's start on a fixed epoch, so they are stable.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::task_id;
use crate::revision::Revision;

/// Suggested polling interval, in milliseconds.
const POLL_INTERVAL_MS: u64 = 100;

/// The tasks of one server.
#[derive(Debug)]
pub(crate) struct TaskStore {
    entries: Mutex<BTreeMap<u32, Entry>>,
    pub(crate) changes: watch::Sender<u64>,
    origin: tokio::time::Instant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// What a terminal task carries.
pub(crate) enum End {
    /// The request's result (`completed`).
    Result(Value),
    /// The JSON-RPC error object (`failed`).
    Error(Value),
}

/// What runs once, when a task first becomes terminal: under 2025-11-25 it frees the progress
/// token of the request that created the task.
pub(crate) type OnEnd = Box<dyn FnOnce() + Send>;

pub(crate) struct Entry {
    pub(crate) status: Status,
    pub(crate) created: String,
    pub(crate) updated: String,
    pub(crate) ttl: Option<u64>,
    pub(crate) end: Option<End>,
    /// The input requests the task waits on, by key.
    pub(crate) pending: Map<String, Value>,
    /// Responses `tasks/update` delivered that the task has not taken yet.
    pub(crate) responses: Map<String, Value>,
    pub(crate) token: CancellationToken,
    /// Taken and run by [`Entry::end_as`], so at most once.
    pub(crate) on_end: Option<OnEnd>,
}

impl Entry {
    /// Moves the task to the terminal `status` (at `now`), waiting on no input any more, and
    /// runs its `on_end` the first time it becomes terminal, under the store's lock, so no one
    /// sees the task terminal before it has run.
    pub(crate) fn end_as(&mut self, status: Status, now: String) {
        debug_assert!(status.is_terminal(), "{} is not terminal", status.as_str());
        self.status = status;
        self.pending.clear();
        self.updated = now;
        if let Some(on_end) = self.on_end.take() {
            on_end();
        }
    }
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
    pub(crate) fn is_running(&self, number: u32) -> bool {
        self.lock()
            .get(&number)
            .is_some_and(|entry| !entry.status.is_terminal())
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, BTreeMap<u32, Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    pub(crate) fn now(&self) -> String {
        timestamp(self.origin.elapsed().as_millis() as u64)
    }

    /// Runs `f` on a task and announces a change to those waiting on tasks.
    pub(crate) fn with<T>(&self, number: u32, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let value = self.with_quiet(number, f)?;
        self.changes.send_modify(|generation| *generation += 1);
        Some(value)
    }

    /// Like `with`, without announcing a change.
    pub(crate) fn with_quiet<T>(&self, number: u32, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        self.lock().get_mut(&number).map(f)
    }
}

/// The `Task` fields as the revision spells them.
pub(crate) fn task_json(number: u32, entry: &Entry, revision: Revision) -> Map<String, Value> {
    let mut task = Map::new();
    task.insert("taskId".into(), json!(task_id::encode(number)));
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

/// The `tasks/get` answer: the task, and under 2026-07-28 what its status carries inline.
pub(crate) fn detailed_task(number: u32, entry: &Entry, revision: Revision) -> Value {
    let mut task = task_json(number, entry, revision);
    if revision == Revision::V2026_07_28 {
        match (&entry.end, entry.status) {
            (Some(End::Result(result)), _) => {
                task.insert("result".into(), result.clone());
            }
            (Some(End::Error(error)), _) => {
                task.insert("error".into(), error.clone());
            }
            (None, Status::InputRequired) => {
                task.insert("inputRequests".into(), Value::Object(entry.pending.clone()));
            }
            (None, _) => {}
        }
    }
    Value::Object(task)
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
#[path = "task_store_tests.rs"]
mod tests;
