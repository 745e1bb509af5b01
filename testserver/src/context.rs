//! Binding contexts: who a transcript entry, a gate or a task belongs to. The 2025-11-25 spec
//! asks a receiver to bind tasks to the requestor's context where it has one ("If context-binding
//! is available, receivers MUST reject `tasks/get`, `tasks/result`, and `tasks/cancel` requests
//! for tasks that do not belong to the same authorization context as the requestor",
//! basic/utilities/tasks, *Task Isolation and Access Control*); this server has no
//! authorization, so its context is the connection: a stdio or in-process connection, or a
//! 2025-11-25 HTTP session, each its own. A 2026-07-28 request over Streamable HTTP has no
//! session (SEP-2567), so those requests share [`Context::STATELESS`]: there a task id is a
//! bearer handle, unguessable (see `server/task_id.rs`). What the server records about itself
//! (its shutdown) is [`Context::SERVER`], which no client's tools show.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// One binding context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Context(u64);

impl Context {
    /// The server itself: its own events, the gates the in-process API opens (open for every
    /// context), anything no client's tool shows.
    pub const SERVER: Context = Context(0);
    /// Every 2026-07-28 request over Streamable HTTP: no session ties them to a client.
    pub const STATELESS: Context = Context(1);

    /// Whether this context outlives any one connection (the server's, the stateless one), so
    /// a connection closing must not free what it holds.
    pub fn is_shared(self) -> bool {
        self == Context::SERVER || self == Context::STATELESS
    }
}

/// Hands out a fresh context per connection or session.
#[derive(Debug)]
pub struct Contexts {
    next: AtomicU64,
}

impl Default for Contexts {
    fn default() -> Contexts {
        Contexts {
            next: AtomicU64::new(2),
        }
    }
}

impl Contexts {
    /// A context no other connection has.
    pub fn fresh(&self) -> Context {
        Context(self.next.fetch_add(1, Ordering::Relaxed))
    }
}

/// Removes `context`'s entry from `map` (what a context that ended held), giving the map's
/// memory back once it is mostly empty, so a server that saw many connections does not keep
/// room for all of them.
pub(crate) fn forget<T>(map: &mut HashMap<Context, T>, context: Context) {
    map.remove(&context);
    if map.capacity() > 2 * map.len() + 64 {
        map.shrink_to(2 * map.len() + 64);
    }
}
