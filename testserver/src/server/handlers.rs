//! Which tool handlers are running, and a log of what each did ("slow#3 started",
//! "slow#3 stopped by cancel after step 2", ...). Snippets wait on it to know that a call is
//! provably in flight, or that the server went idle.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::watch;

/// How long `in_flight` and `idle` wait (in tokio time, so free under a paused clock) before
/// giving up with a panic that says what was awaited.
const WAIT_LIMIT: Duration = Duration::from_secs(3600);

/// Running handlers per tool, and the handler log.
#[derive(Debug)]
pub struct Handlers {
    running: watch::Sender<BTreeMap<String, usize>>,
    log: Mutex<HandlerLog>,
}

/// The handler log: every line, or the last `limit` lines of a long-running server.
#[derive(Debug, Default)]
struct HandlerLog {
    lines: VecDeque<String>,
    limit: Option<usize>,
    dropped: u64,
}

impl HandlerLog {
    fn trim(&mut self) {
        while self.limit.is_some_and(|limit| self.lines.len() > limit) {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }
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

    /// Appends a line to the handler log (dropping the oldest past the limit, if one is set),
    /// cut to [`MAX_DETAIL_BYTES`](crate::violations::MAX_DETAIL_BYTES).
    pub fn log(&self, line: String) {
        let line = crate::violations::shorten(line);
        let mut log = self.lock_log();
        log.lines.push_back(line);
        log.trim();
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
        let marker =
            (log.dropped > 0).then(|| format!("... {} earlier lines dropped", log.dropped));
        marker
            .into_iter()
            .chain(log.lines.iter().cloned())
            .collect()
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
