//! The tasks of one server as data: each task's id, binding context, status, timestamps, what
//! it ended with and the input it waits on, numbered in creation order, and how the revisions
//! spell a task (`task_json`). What the protocol does with them is `tasks.rs`. Timestamps count
//! tokio time from the server's start on a fixed epoch, so they are stable.
//!
//! Bounded, as 2025-11-25 asks ("Receivers SHOULD: Enforce maximum `ttl` durations ... Clean up
//! expired tasks promptly", basic/utilities/tasks, *Resource Management*): a task lives
//! [`DEFAULT_TTL_MS`] unless asked for less, never more than [`MAX_TTL_MS`] ("Receivers MAY
//! override the requested `ttl` duration"); a finished task is freed once its `ttl` has elapsed
//! ("After a task's `ttl` lifetime has elapsed, receivers MAY delete the task and its results"),
//! and at most [`MAX_FINISHED_TASKS`] finished tasks are kept (the oldest go first). A task is
//! found only by its own context ([`TaskStore::find`]); a context's tasks go when it ends.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::task_id::TaskIds;
use crate::context::Context;
use crate::revision::Revision;

/// Suggested polling interval, in milliseconds.
const POLL_INTERVAL_MS: u64 = 100;

/// A task's lifetime when its request names none (2026-07-28 never does): one hour.
pub const DEFAULT_TTL_MS: u64 = 3_600_000;
/// The longest lifetime a task gets, whatever its request asks: one day.
pub const MAX_TTL_MS: u64 = 86_400_000;
/// The most finished tasks kept at once, over all contexts: the oldest go first.
pub const MAX_FINISHED_TASKS: usize = 1000;
/// The most tasks one context may have running at once ("Enforce limits on concurrent tasks per
/// requestor", 2025-11-25 *Resource Management*); the stateless context's clients share it.
pub const MAX_RUNNING_TASKS: usize = 1000;
/// How often (store time) the expired tasks are looked for.
const SWEEP_EVERY_MS: u64 = 250;

/// The tasks of one server.
#[derive(Debug)]
pub(crate) struct TaskStore {
    entries: Mutex<Tasks>,
    pub(crate) changes: watch::Sender<u64>,
    origin: tokio::time::Instant,
    ids: TaskIds,
}

/// The tasks by number (creation order), and the number behind each id.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    by_number: BTreeMap<u64, Entry>,
    numbers: HashMap<String, u64>,
    last_number: u64,
    finished: usize,
    /// How many tasks each context has running (a context with none has no entry).
    running: HashMap<Context, usize>,
    next_sweep_ms: u64,
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
    /// The task's id, as the client sees it.
    pub(crate) id: String,
    /// The context that created it, the only one that finds it.
    pub(crate) context: Context,
    /// When it was created, in store milliseconds (for its `ttl`).
    pub(crate) created_ms: u64,
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

impl Entry {
    fn expired(&self, now_ms: u64) -> bool {
        self.ttl
            .is_some_and(|ttl| now_ms >= self.created_ms.saturating_add(ttl))
    }
}

impl TaskStore {
    /// A store whose task ids come from `ids`.
    pub(crate) fn new(ids: TaskIds) -> TaskStore {
        TaskStore {
            entries: Mutex::default(),
            changes: watch::Sender::new(0),
            origin: tokio::time::Instant::now(),
            ids,
        }
    }

    /// Whether task `number` exists and is not terminal.
    pub(crate) fn is_running(&self, number: u64) -> bool {
        self.lock()
            .by_number
            .get(&number)
            .is_some_and(|entry| !entry.status.is_terminal())
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Tasks> {
        self.entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn now_ms(&self) -> u64 {
        self.origin.elapsed().as_millis() as u64
    }

    pub(crate) fn now(&self) -> String {
        timestamp(self.now_ms())
    }

    /// The `ttl` a task gets when its request asks for `requested` (milliseconds).
    pub(crate) fn ttl(requested: Option<u64>) -> u64 {
        requested.unwrap_or(DEFAULT_TTL_MS).min(MAX_TTL_MS)
    }

    /// Stores `entry` (its `id`, `context` and `created_ms` are set here) under a fresh number
    /// and id, with the store still locked; the entry's `on_end` back, and why, when `context` has
    /// [`MAX_RUNNING_TASKS`] running or the ids ran out. Frees the expired and the surplus
    /// finished tasks first.
    pub(crate) fn insert(
        &self,
        context: Context,
        entry: Entry,
    ) -> Result<(u64, MutexGuard<'_, Tasks>), (Option<OnEnd>, String)> {
        let now_ms = self.now_ms();
        let mut tasks = self.lock();
        tasks.sweep(now_ms, true);
        if tasks.running.get(&context).copied().unwrap_or(0) >= MAX_RUNNING_TASKS {
            let why = format!(
                "{MAX_RUNNING_TASKS} tasks are running already (the limit); cancel one, or wait for one to end"
            );
            return Err((entry.on_end, why));
        }
        let number = tasks.last_number + 1;
        let Some(id) = self.ids.id(number) else {
            return Err((entry.on_end, "no task ids left".to_owned()));
        };
        *tasks.running.entry(context).or_default() += 1;
        tasks.last_number = number;
        tasks.numbers.insert(id.clone(), number);
        let entry = Entry {
            id,
            context,
            created_ms: now_ms,
            ..entry
        };
        tasks.by_number.insert(number, entry);
        Ok((number, tasks))
    }

    /// The number of the task `id` names, if it exists, belongs to `context` and has not
    /// expired: a task of another context is as unknown as one that never was.
    pub(crate) fn find(&self, context: Context, id: &str) -> Option<u64> {
        let now_ms = self.now_ms();
        let mut tasks = self.lock();
        tasks.sweep(now_ms, false);
        let number = *tasks.numbers.get(id)?;
        let entry = tasks.by_number.get(&number)?;
        (entry.context == context && !(entry.status.is_terminal() && entry.expired(now_ms)))
            .then_some(number)
    }

    /// `f` on each live task of `context`, in creation order.
    pub(crate) fn list<T>(&self, context: Context, f: impl Fn(u64, &Entry) -> T) -> Vec<T> {
        let now_ms = self.now_ms();
        let mut tasks = self.lock();
        tasks.sweep(now_ms, false);
        tasks
            .by_number
            .iter()
            .filter(|(_, entry)| entry.context == context)
            .filter(|(_, entry)| !(entry.status.is_terminal() && entry.expired(now_ms)))
            .map(|(number, entry)| f(*number, entry))
            .collect()
    }

    /// Ends every task of `context` (its connection or session ended, so no one can reach them
    /// any more): running ones are cancelled, all are freed.
    pub(crate) fn end_context(&self, context: Context) {
        let now = self.now();
        let mut tasks = self.lock();
        let ended: Vec<u64> = tasks
            .by_number
            .iter()
            .filter(|(_, entry)| entry.context == context)
            .map(|(number, _)| *number)
            .collect();
        for number in ended {
            tasks.remove(number, |entry| {
                entry.token.cancel();
                if !entry.status.is_terminal() {
                    entry.end_as(Status::Cancelled, now.clone());
                }
            });
        }
        drop(tasks);
        self.changes.send_modify(|generation| *generation += 1);
    }

    /// How many tasks the store holds (running and finished).
    pub(crate) fn len(&self) -> usize {
        self.lock().by_number.len()
    }

    /// Runs `f` on a task and announces a change to those waiting on tasks.
    pub(crate) fn with<T>(&self, number: u64, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let value = self.with_quiet(number, f)?;
        self.changes.send_modify(|generation| *generation += 1);
        Some(value)
    }

    /// Like `with`, without announcing a change.
    pub(crate) fn with_quiet<T>(&self, number: u64, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let mut tasks = self.lock();
        let entry = tasks.by_number.get_mut(&number)?;
        let was_terminal = entry.status.is_terminal();
        let value = f(entry);
        if !was_terminal && entry.status.is_terminal() {
            let context = entry.context;
            tasks.finished += 1;
            tasks.stopped_running(context);
            tasks.keep_finished(MAX_FINISHED_TASKS);
        }
        Some(value)
    }
}

impl Tasks {
    /// Task `number`, which the caller holds (just inserted, under the same lock).
    pub(crate) fn get(&self, number: u64) -> &Entry {
        &self.by_number[&number]
    }

    /// Frees the finished tasks whose `ttl` has elapsed (at most every [`SWEEP_EVERY_MS`]), and,
    /// when `making_room`, the oldest finished ones beyond [`MAX_FINISHED_TASKS`] - 1.
    fn sweep(&mut self, now_ms: u64, making_room: bool) {
        if now_ms >= self.next_sweep_ms {
            self.next_sweep_ms = now_ms + SWEEP_EVERY_MS;
            let expired: Vec<u64> = self
                .by_number
                .iter()
                .filter(|(_, entry)| entry.status.is_terminal() && entry.expired(now_ms))
                .map(|(number, _)| *number)
                .collect();
            for number in expired {
                self.remove(number, |_| {});
            }
        }
        if making_room {
            self.keep_finished(MAX_FINISHED_TASKS - 1);
        }
        if self.by_number.is_empty() {
            self.numbers.shrink_to(64);
        }
    }

    /// Counts one task of `context` less as running.
    fn stopped_running(&mut self, context: Context) {
        if let Some(count) = self.running.get_mut(&context) {
            *count -= 1;
            if *count == 0 {
                self.running.remove(&context);
            }
        }
    }

    /// Frees the oldest finished tasks until at most `limit` are left.
    fn keep_finished(&mut self, limit: usize) {
        while self.finished > limit {
            let oldest = self
                .by_number
                .iter()
                .find(|(_, entry)| entry.status.is_terminal())
                .map(|(number, _)| *number);
            match oldest {
                Some(number) => self.remove(number, |_| {}),
                None => break,
            }
        }
    }

    /// Removes task `number` after `f` has seen it.
    fn remove(&mut self, number: u64, f: impl FnOnce(&mut Entry)) {
        if let Some(mut entry) = self.by_number.remove(&number) {
            let was_terminal = entry.status.is_terminal();
            f(&mut entry);
            if was_terminal {
                self.finished -= 1;
            } else {
                self.stopped_running(entry.context);
            }
            self.numbers.remove(&entry.id);
        }
    }
}

/// The `Task` fields as the revision spells them.
pub(crate) fn task_json(entry: &Entry, revision: Revision) -> Map<String, Value> {
    let mut task = Map::new();
    task.insert("taskId".into(), json!(entry.id));
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
pub(crate) fn detailed_task(entry: &Entry, revision: Revision) -> Value {
    let mut task = task_json(entry, revision);
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
