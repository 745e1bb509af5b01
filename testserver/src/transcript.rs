//! The wire transcript: every JSON-RPC message seen on one connection, in order, in both
//! directions. A `Transcript` is a cheap shared handle; the server (or the `Driver`) records into
//! it while a snippet reads it. Rendering lives in `render` (compact text) and `svg` (diagram).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{Value, json};

/// Which way a message travelled, seen from the transcript's owner (see [`Side`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Received by the owner.
    In,
    /// Sent by the owner.
    Out,
}

/// The role of the party that records a transcript: the test server records as `Server`, the
/// harness client `Driver` as `Client`. Rendering uses it to draw client → server arrows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The transcript is recorded by the server: `In` means client → server.
    Server,
    /// The transcript is recorded by the client: `Out` means client → server.
    Client,
}

/// One message on the wire. Lines that were not JSON are kept as a JSON string holding the raw
/// text (possibly shortened), so a transcript always holds every line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WireMessage {
    /// Which way the message went, seen from the owner.
    pub direction: Direction,
    /// The message as parsed JSON, or a JSON string holding an unparseable line.
    pub message: Value,
}

impl WireMessage {
    /// Whether this message went from the client to the server, given who recorded it.
    pub fn is_client_to_server(&self, side: Side) -> bool {
        matches!(
            (side, self.direction),
            (Side::Server, Direction::In) | (Side::Client, Direction::Out)
        )
    }
}

/// A shared, append-only record of the messages on one connection (or on several connections of
/// the same server, interleaved in the order the server saw them). Unbounded by default, so a
/// snippet sees every message; a long-running server bounds it with [`Transcript::set_limit`]
/// to the last N messages, and then says how many earlier ones it dropped.
#[derive(Clone, Debug)]
pub struct Transcript {
    side: Side,
    log: Arc<Mutex<Log>>,
}

#[derive(Debug, Default)]
struct Log {
    messages: VecDeque<WireMessage>,
    limit: Option<usize>,
    dropped: u64,
}

impl Log {
    fn trim(&mut self) {
        if let Some(limit) = self.limit {
            while self.messages.len() > limit {
                self.messages.pop_front();
                self.dropped += 1;
            }
        }
    }
}

impl Transcript {
    /// An empty transcript recorded by `side`.
    pub fn new(side: Side) -> Transcript {
        Transcript {
            side,
            log: Arc::default(),
        }
    }

    /// Keeps only the last `limit` messages from now on (a ring), counting the ones dropped.
    pub fn set_limit(&self, limit: usize) {
        let mut log = self.lock();
        log.limit = Some(limit);
        log.trim();
    }

    /// How many earlier messages were dropped to stay within the limit (0 when unbounded).
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    /// Appends one message (dropping the oldest when a limit is set and reached).
    pub fn record(&self, direction: Direction, message: Value) {
        let mut log = self.lock();
        log.messages.push_back(WireMessage { direction, message });
        log.trim();
    }

    /// Who records this transcript.
    pub fn side(&self) -> Side {
        self.side
    }

    /// A snapshot of the messages so far, in order. When earlier messages were dropped (see
    /// [`Transcript::set_limit`]), the first entry is a marker saying how many: an `In` entry
    /// whose message is `{"transcript": "dropped", "dropped": N, "limit": L, "detail": ...}`, an
    /// object without `jsonrpc`, like the transport events.
    pub fn messages(&self) -> Vec<WireMessage> {
        let log = self.lock();
        let marker = (log.dropped > 0).then(|| WireMessage {
            direction: Direction::In,
            message: dropped_marker(log.dropped, log.limit.unwrap_or(0)),
        });
        marker
            .into_iter()
            .chain(log.messages.iter().cloned())
            .collect()
    }

    /// How many messages the transcript holds (without the dropped ones).
    pub fn len(&self) -> usize {
        self.lock().messages.len()
    }

    /// Whether nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The messages as a JSON array of `{"direction": "in"|"out", "message": ...}`.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.messages()).expect("wire messages serialize")
    }

    /// One stable, compact line per message, fit to print in a book, e.g.
    /// `→ req 2 tools/call slow {"step_ms":100,"steps":3} _meta.progressToken=1`.
    pub fn render(&self) -> String {
        crate::render::render_messages(&self.messages(), self.side)
    }

    /// A sequence diagram of the transcript as a self-contained SVG document.
    pub fn to_svg(&self) -> String {
        crate::svg::sequence_diagram(&self.messages(), self.side)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        // A panic while holding the lock cannot leave the log half-written.
        self.log.lock().unwrap_or_else(|poison| poison.into_inner())
    }
}

/// The marker standing for `dropped` messages no longer kept.
fn dropped_marker(dropped: u64, limit: usize) -> Value {
    json!({
        "transcript": "dropped",
        "dropped": dropped,
        "limit": limit,
        "detail": format!("{dropped} earlier messages dropped: the transcript keeps the last {limit}"),
    })
}
