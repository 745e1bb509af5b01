//! Which tool handlers are running, and a log of what each did ("slow#3 started",
//! "slow#3 stopped by cancel after step 2", ...). Snippets wait on it to know that a call is
//! provably in flight, or that the server went idle.
//!
//! Each line belongs to the binding context whose request it is about ([`crate::context`]): a
//! client's `handler_log` tool shows its own context's lines only ([`Handlers::entries_of`]),
//! never another client's; the in-process API shows the server's whole log
//! ([`Handlers::entries`]).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::watch;

use crate::context::Context;

/// How long `in_flight` and `idle` wait (in tokio time, so free under a paused clock) before
/// giving up with a panic that says what was awaited.
const WAIT_LIMIT: Duration = Duration::from_secs(3600);

/// Running handlers per tool, and the handler log.
#[derive(Debug)]
pub struct Handlers {
    running: watch::Sender<BTreeMap<String, usize>>,
    log: Mutex<HandlerLog>,
}

/// The handler log: every line, or the last `limit` lines of a long-running server, each with
/// its binding context.
#[derive(Debug, Default)]
struct HandlerLog {
    lines: VecDeque<(Context, String)>,
    limit: Option<usize>,
    dropped: u64,
    /// How many lines of each context were dropped (a context is forgotten when it ends).
    dropped_by_context: HashMap<Context, u64>,
    /// `--handler-log-all`: `handler_log` shows every client's lines.
    every_client: bool,
}

impl HandlerLog {
    fn trim(&mut self) {
        while self.limit.is_some_and(|limit| self.lines.len() > limit) {
            if let Some((context, _)) = self.lines.pop_front() {
                *self.dropped_by_context.entry(context).or_default() += 1;
            }
            self.dropped += 1;
        }
    }
}

/// The lines as shown: when `dropped` earlier ones are gone, first a line saying how many.
fn with_marker(dropped: u64, lines: impl Iterator<Item = String>) -> Vec<String> {
    let marker = (dropped > 0).then(|| format!("... {dropped} earlier lines dropped"));
    marker.into_iter().chain(lines).collect()
}

impl Default for Handlers {
    fn default() -> Handlers {
        Handlers {
            running: watch::Sender::new(BTreeMap::new()),
            log: Mutex::default(),
        }
    }
}

impl Handlers {
    /// Marks one handler of `tool` as running.
    pub fn start(&self, tool: &str) {
        self.running
            .send_modify(|running| *running.entry(tool.to_owned()).or_default() += 1);
    }

    /// Marks one handler of `tool` as finished.
    pub fn stop(&self, tool: &str) {
        self.running.send_modify(|running| {
            if let Some(count) = running.get_mut(tool) {
                *count -= 1;
                if *count == 0 {
                    running.remove(tool);
                }
            }
        });
    }

    /// Appends a line of the server's own ([`Context::SERVER`]: no client's `handler_log` shows
    /// it) to the handler log; see [`Handlers::log_for`].
    pub fn log(&self, line: String) {
        self.log_for(Context::SERVER, line);
    }

    /// Appends a line that belongs to `context` to the handler log (dropping the oldest past the
    /// limit, if one is set), cut to [`MAX_DETAIL_BYTES`](crate::violations::MAX_DETAIL_BYTES).
    pub fn log_for(&self, context: Context, line: String) {
        let line = crate::violations::shorten(line);
        let mut log = self.lock_log();
        log.lines.push_back((context, line));
        log.trim();
    }

    /// From now on, every client's `handler_log` tool shows the lines of every client context
    /// (`--handler-log-all`): an operator's view, for a test that watches a client it does not
    /// control (an agent framework opening sessions of its own) through a session of its own.
    /// The server's own lines stay out of it.
    pub fn show_every_client(&self) {
        self.lock_log().every_client = true;
    }

    /// What a `handler_log` call from `context` shows: its own lines ([`Handlers::entries_of`]),
    /// or every client's after [`Handlers::show_every_client`].
    pub fn entries_for(&self, context: Context) -> Vec<String> {
        let log = self.lock_log();
        if !log.every_client {
            drop(log);
            return self.entries_of(context);
        }
        let clients = log
            .lines
            .iter()
            .filter(|(owner, _)| *owner != Context::SERVER);
        with_marker(log.dropped, clients.map(|(_, line)| line.clone()))
    }

    /// Keeps only the last `limit` lines of the handler log from now on.
    pub fn set_log_limit(&self, limit: usize) {
        let mut log = self.lock_log();
        log.limit = Some(limit);
        log.trim();
    }

    /// The handler log so far; when earlier lines were dropped, the first line says how many
    /// (`... N earlier lines dropped`).
    pub fn entries(&self) -> Vec<String> {
        let log = self.lock_log();
        with_marker(log.dropped, log.lines.iter().map(|(_, line)| line.clone()))
    }

    /// The lines of `context` so far (what its `handler_log` tool shows): never another
    /// context's; when earlier lines of it were dropped, the first line says how many.
    pub fn entries_of(&self, context: Context) -> Vec<String> {
        let log = self.lock_log();
        let dropped = log.dropped_by_context.get(&context).copied().unwrap_or(0);
        let own = log.lines.iter().filter(|(owner, _)| *owner == context);
        with_marker(dropped, own.map(|(_, line)| line.clone()))
    }

    /// Forgets how many lines `context` lost (it ended, so no one asks any more); its kept
    /// lines stay in the server's log.
    pub fn forget(&self, context: Context) {
        crate::context::forget(&mut self.lock_log().dropped_by_context, context);
    }

    fn lock_log(&self) -> std::sync::MutexGuard<'_, HandlerLog> {
        self.log.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// Resolves once a handler of `tool` is running.
    pub async fn wait_in_flight(&self, tool: &str) {
        let mut running = self.running.subscribe();
        let wait = running.wait_for(|running| running.contains_key(tool));
        if tokio::time::timeout(WAIT_LIMIT, wait).await.is_err() {
            panic!("no handler of `{tool}` started within {WAIT_LIMIT:?} (tokio time)");
        }
    }

    /// Resolves once no handler is running.
    pub async fn wait_idle(&self) {
        let mut running = self.running.subscribe();
        let wait = running.wait_for(BTreeMap::is_empty);
        if tokio::time::timeout(WAIT_LIMIT, wait).await.is_err() {
            let still: Vec<String> = self.running.borrow().keys().cloned().collect();
            panic!("handlers still running after {WAIT_LIMIT:?} (tokio time): {still:?}");
        }
    }
}
