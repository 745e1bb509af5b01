//! Gates: named one-way latches. `wait_gate` blocks until its gate is opened; opening is
//! idempotent and later waits pass at once. They let a snippet order events without timing luck.
//!
//! A client names gates, so what it can make the server hold is bounded: a name is at most
//! [`MAX_GATE_NAME_BYTES`], at most [`MAX_OPEN_GATES`] gates are open at once, and the gates a
//! 2025-11-25 HTTP session opened are closed again when that session ends ([`Gates::release`]).
//! Gates opened without a session (a 2026-07-28 request, stdio, the harness's `open_gate`)
//! belong to the server and stay open.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::watch;

/// The longest gate name the tools accept, in bytes.
pub const MAX_GATE_NAME_BYTES: usize = 256;

/// The most gates open at once on one server (the tools refuse to open more).
pub const MAX_OPEN_GATES: usize = 1000;

/// Who opened a gate: the server itself, or the session with this number (see
/// [`Gates::new_owner`]), whose end closes it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GateOwner {
    /// The server: the gate stays open for the server's life.
    Server,
    /// One session: the gate closes when [`Gates::release`] is called for it.
    Session(u64),
}

/// Why a client's gate name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateError {
    /// The name is longer than [`MAX_GATE_NAME_BYTES`]; holds its length.
    NameTooLong(usize),
    /// [`MAX_OPEN_GATES`] gates are open already.
    TooMany,
}

impl std::fmt::Display for GateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GateError::NameTooLong(length) => write!(
                f,
                "a gate name is at most {MAX_GATE_NAME_BYTES} bytes; this one has {length}"
            ),
            GateError::TooMany => write!(
                f,
                "{MAX_OPEN_GATES} gates are open already (the limit); reuse a gate name, or end the session that opened them"
            ),
        }
    }
}

/// The set of opened gates of one server.
#[derive(Debug)]
pub struct Gates {
    opened: Mutex<HashMap<String, GateOwner>>,
    changes: watch::Sender<u64>,
    next_owner: AtomicU64,
}

impl Default for Gates {
    fn default() -> Gates {
        Gates {
            opened: Mutex::default(),
            changes: watch::Sender::new(0),
            next_owner: AtomicU64::new(1),
        }
    }
}

impl Gates {
    /// Opens `gate` for the server (idempotent), whatever its length and however many are
    /// open: the in-process API a snippet calls directly. Returns whether it was closed before.
    pub fn open(&self, gate: &str) -> bool {
        let mut opened = self.lock();
        let newly = !opened.contains_key(gate);
        if newly {
            opened.insert(gate.to_owned(), GateOwner::Server);
        }
        drop(opened);
        self.changes.send_modify(|generation| *generation += 1);
        newly
    }

    /// Opens `gate` on behalf of `owner` within the limits (what the `open_gate` tool does).
    /// Reopening an open gate changes nothing, so it never counts against the limit; the gate
    /// keeps its first owner. Returns whether it was closed before.
    pub fn try_open(&self, gate: &str, owner: GateOwner) -> Result<bool, GateError> {
        check_name(gate)?;
        let mut opened = self.lock();
        if opened.contains_key(gate) {
            return Ok(false);
        }
        if opened.len() >= MAX_OPEN_GATES {
            return Err(GateError::TooMany);
        }
        opened.insert(gate.to_owned(), owner);
        drop(opened);
        self.changes.send_modify(|generation| *generation += 1);
        Ok(true)
    }

    /// Whether `gate` is open.
    pub fn is_open(&self, gate: &str) -> bool {
        self.lock().contains_key(gate)
    }

    /// How many gates are open.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no gate is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A fresh owner for one session's gates.
    pub fn new_owner(&self) -> GateOwner {
        GateOwner::Session(self.next_owner.fetch_add(1, Ordering::Relaxed))
    }

    /// Closes every gate `owner` opened (its session ended), freeing their names.
    pub fn release(&self, owner: GateOwner) {
        if owner == GateOwner::Server {
            return;
        }
        let mut opened = self.lock();
        opened.retain(|_, opener| *opener != owner);
        let kept = opened.len();
        opened.shrink_to(kept * 2);
    }

    /// Resolves once `gate` is open.
    pub async fn wait(&self, gate: &str) {
        let mut changes = self.changes.subscribe();
        // `wait_for` checks the current value first, so an open gate passes at once.
        let _ = changes.wait_for(|_| self.is_open(gate)).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, GateOwner>> {
        self.opened
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// Refuses a gate name longer than [`MAX_GATE_NAME_BYTES`] (checked before any handler runs, for
/// `wait_gate` too, so a waiting call cannot hold a long name either).
pub fn check_name(gate: &str) -> Result<(), GateError> {
    if gate.len() > MAX_GATE_NAME_BYTES {
        return Err(GateError::NameTooLong(gate.len()));
    }
    Ok(())
}
