//! The table of live 2025-11-25 sessions, by `Mcp-Session-Id`, bounded in time and number (see
//! [`Limits`]): a session idle past the idle timeout ends (never handed out once expired; swept
//! by the first HTTP request after a quarter of the timeout, and at the cap), and an
//! `initialize` at the cap ends the least recently used idle ones. No timer runs: the harness
//! serves snippets on tokio's paused clock, where a pending timer lets the clock jump while a
//! loopback socket is awaited. Memory stays bounded by the cap whether or not requests come.
//! An ended session's id is unknown from then on, which the endpoint answers with 404 (the spec:
//! "The server MAY terminate the session at any time, after which it MUST respond to requests
//! containing that session ID with HTTP 404 Not Found").

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::legacy::LegacySession;
use super::limits::Limits;

/// The live sessions.
pub(super) struct Sessions {
    table: Mutex<HashMap<String, Arc<LegacySession>>>,
    idle_timeout: Duration,
    max_sessions: usize,
    /// When the table was last swept.
    last_sweep: Mutex<Instant>,
}

/// Every session has a request running and the table is full: no room for a new one.
pub(super) struct Full;

impl Sessions {
    pub(super) fn new(limits: &Limits) -> Sessions {
        Sessions {
            table: Mutex::default(),
            idle_timeout: limits.session_idle_timeout,
            max_sessions: limits.max_sessions,
            last_sweep: Mutex::new(Instant::now()),
        }
    }

    /// Sweeps when a quarter of the idle timeout (at most 30 s) passed since the last sweep,
    /// so a session ends at most that late after its timeout while requests come.
    pub(super) fn sweep_when_due(&self) {
        let interval = (self.idle_timeout / 4).min(Duration::from_secs(30));
        {
            let mut last_sweep = self
                .last_sweep
                .lock()
                .unwrap_or_else(|poison| poison.into_inner());
            if last_sweep.elapsed() < interval {
                return;
            }
            *last_sweep = Instant::now();
        }
        self.sweep();
    }

    /// The session `session_id` names, unless it ended (or was never issued). One found idle
    /// past its timeout ends here, so it is never handed out after it expired.
    pub(super) fn get(&self, session_id: &str) -> Option<Arc<LegacySession>> {
        let mut table = self.lock();
        let session = table.get(session_id)?.clone();
        if self.expired(&session, Instant::now()) {
            table.remove(session_id);
            drop(table);
            session.end();
            return None;
        }
        Some(session)
    }

    /// Makes room for one more session. Below the cap, nothing to do. At the cap, ends the
    /// expired sessions and the least recently used idle ones, enough to free a tenth of the
    /// cap, so a flood of `initialize` costs one scan per tenth of the cap rather than one per
    /// session; [`Full`] when every session has a request running.
    pub(super) fn make_room(&self) -> Result<(), Full> {
        let mut table = self.lock();
        if table.len() < self.max_sessions {
            return Ok(());
        }
        let now = Instant::now();
        let mut idle: Vec<(Duration, String)> = table
            .iter()
            .filter_map(|(id, session)| Some((session.idle_for(now)?, id.clone())))
            .collect();
        if idle.is_empty() {
            return Err(Full);
        }
        idle.sort_unstable_by_key(|(idle, _)| std::cmp::Reverse(*idle));
        let room = (self.max_sessions / 10).max(1);
        let over = table.len() + room - self.max_sessions;
        let expired = idle
            .iter()
            .take_while(|(idle, _)| *idle >= self.idle_timeout)
            .count();
        let ending = over.max(expired).min(idle.len());
        let ended: Vec<_> = idle[..ending]
            .iter()
            .filter_map(|(_, id)| table.remove(id))
            .collect();
        drop(table);
        for session in ended {
            session.end();
        }
        Ok(())
    }

    /// Adds a session that answered its `initialize`.
    pub(super) fn insert(&self, session_id: String, session: Arc<LegacySession>) {
        self.lock().insert(session_id, session);
    }

    /// Removes a session (the client's `DELETE`); the caller ends it.
    pub(super) fn remove(&self, session_id: &str) -> Option<Arc<LegacySession>> {
        self.lock().remove(session_id)
    }

    /// Ends every session idle past the timeout; how many ended.
    pub(super) fn sweep(&self) -> usize {
        let now = Instant::now();
        let expired: Vec<_> = {
            let mut table = self.lock();
            let ids: Vec<String> = table
                .iter()
                .filter(|(_, session)| self.expired(session, now))
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| table.remove(id)).collect()
        };
        for session in &expired {
            session.end();
        }
        expired.len()
    }

    /// Removes every session, for the caller to end.
    pub(super) fn drain(&self) -> Vec<Arc<LegacySession>> {
        self.lock().drain().map(|(_, session)| session).collect()
    }

    fn expired(&self, session: &LegacySession, now: Instant) -> bool {
        session
            .idle_for(now)
            .is_some_and(|idle| idle >= self.idle_timeout)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<LegacySession>>> {
        self.table
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
