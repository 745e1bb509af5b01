//! Gates: named one-way latches. `wait_gate` blocks until its gate is opened; opening is
//! idempotent and later waits pass at once. They let a snippet order events without timing luck.
//!
//! A gate belongs to the binding context whose `open_gate` opened it ([`crate::context`]): a
//! `wait_gate` passes only for a gate of its own context (or one the server opened through the
//! in-process API, [`Gates::open`], which every context sees), so one client cannot release
//! another's wait. A client names gates, so what it can make the server hold is bounded: a name
//! is at most [`MAX_GATE_NAME_BYTES`], at most [`MAX_OPEN_GATES`] gates of one context are open
//! at once (a context's own cap, so one client cannot use up another's), and the gates of a
//! connection or 2025-11-25 HTTP session are closed again when it ends ([`Gates::release`]).
//! The stateless context's (2026-07-28 over HTTP) stay open, under the one cap they share.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use tokio::sync::watch;

use crate::context::Context;

/// The longest gate name the tools accept, in bytes.
pub const MAX_GATE_NAME_BYTES: usize = 256;

/// The most gates one binding context has open at once (its `open_gate` refuses to open more).
pub const MAX_OPEN_GATES: usize = 1000;

/// Why a client's gate name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateError {
    /// The name is longer than [`MAX_GATE_NAME_BYTES`]; holds its length.
    NameTooLong(usize),
    /// [`MAX_OPEN_GATES`] gates of the context are open already.
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
    opened: Mutex<Opened>,
    changes: watch::Sender<u64>,
}

/// The open gates, and how many each context has open.
#[derive(Debug, Default)]
struct Opened {
    gates: HashSet<(Context, String)>,
    per_context: HashMap<Context, usize>,
}

impl Opened {
    fn insert(&mut self, key: (Context, String)) -> bool {
        let context = key.0;
        let newly = self.gates.insert(key);
        if newly {
            *self.per_context.entry(context).or_default() += 1;
        }
        newly
    }
}

impl Default for Gates {
    fn default() -> Gates {
        Gates {
            opened: Mutex::default(),
            changes: watch::Sender::new(0),
        }
    }
}

impl Gates {
    /// Opens `gate` for the server, so for every context (idempotent), whatever its length and
    /// however many are open: the in-process API a snippet calls directly. Returns whether it
    /// was closed before.
    pub fn open(&self, gate: &str) -> bool {
        let mut opened = self.lock();
        let newly = opened.insert((Context::SERVER, gate.to_owned()));
        drop(opened);
        self.changes.send_modify(|generation| *generation += 1);
        newly
    }

    /// Opens `gate` for `context` within the limits (what the `open_gate` tool does).
    /// Reopening an open gate changes nothing, so it never counts against the limit. Returns
    /// whether it was closed before.
    pub fn try_open(&self, gate: &str, context: Context) -> Result<bool, GateError> {
        check_name(gate)?;
        let mut opened = self.lock();
        let key = (context, gate.to_owned());
        if opened.gates.contains(&key) {
            return Ok(false);
        }
        if opened.per_context.get(&context).copied().unwrap_or(0) >= MAX_OPEN_GATES {
            return Err(GateError::TooMany);
        }
        opened.insert(key);
        drop(opened);
        self.changes.send_modify(|generation| *generation += 1);
        Ok(true)
    }

    /// Whether `gate` is open for some context.
    pub fn is_open(&self, gate: &str) -> bool {
        self.lock().gates.iter().any(|(_, name)| name == gate)
    }

    /// Whether `gate` is open for `context`: opened by it, or by the server.
    pub fn is_open_for(&self, gate: &str, context: Context) -> bool {
        let opened = self.lock();
        let key = |context| (context, gate.to_owned());
        opened.gates.contains(&key(context)) || opened.gates.contains(&key(Context::SERVER))
    }

    /// How many gates are open.
    pub fn len(&self) -> usize {
        self.lock().gates.len()
    }

    /// Whether no gate is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Closes every gate `context` opened (its connection or session ended), freeing their
    /// names; the shared contexts' gates stay.
    pub fn release(&self, context: Context) {
        if context.is_shared() {
            return;
        }
        let mut opened = self.lock();
        if opened.per_context.remove(&context).is_none() {
            return;
        }
        opened.gates.retain(|(opener, _)| *opener != context);
        let kept = opened.gates.len();
        opened.gates.shrink_to(kept * 2);
    }

    /// Resolves once `gate` is open for `context`.
    pub async fn wait(&self, gate: &str, context: Context) {
        let mut changes = self.changes.subscribe();
        // `wait_for` checks the current value first, so an open gate passes at once.
        let _ = changes.wait_for(|_| self.is_open_for(gate, context)).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Opened> {
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
