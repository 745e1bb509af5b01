//! Gates: named one-way latches. `wait_gate` blocks until its gate is opened; opening is
//! idempotent and later waits pass at once. They let a snippet order events without timing luck.

use std::collections::HashSet;
use std::sync::Mutex;

use tokio::sync::watch;

/// The set of opened gates of one server.
#[derive(Debug)]
pub struct Gates {
    opened: Mutex<HashSet<String>>,
    changes: watch::Sender<u64>,
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
    /// Opens `gate` (idempotent). Returns whether it was closed before.
    pub fn open(&self, gate: &str) -> bool {
        let newly = self.lock().insert(gate.to_owned());
        self.changes.send_modify(|generation| *generation += 1);
        newly
    }

    /// Whether `gate` is open.
    pub fn is_open(&self, gate: &str) -> bool {
        self.lock().contains(gate)
    }

    /// Resolves once `gate` is open.
    pub async fn wait(&self, gate: &str) {
        let mut changes = self.changes.subscribe();
        // `wait_for` checks the current value first, so an open gate passes at once.
        let _ = changes.wait_for(|_| self.is_open(gate)).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.opened
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}
