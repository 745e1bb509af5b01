//! The wire transcript: every JSON-RPC message seen on one connection, in order, in both
//! directions. A `Transcript` is a cheap shared handle; the server (or the `Driver`) records into
//! it while a snippet reads it. Plain data: rendering it (compact text in [`crate::render`],
//! sequence diagrams in [`crate::svg`]) depends on this module and never the reverse.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{Value, json};

use crate::context::Context;
use crate::record::Record;

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

/// One entry of a transcript, in the order the owner saw it. Serialised as
/// `{"direction": "in"|"out", "message": ...}`, where `message` is the JSON-RPC message, a JSON
/// string for a line that was not JSON, or an object without `jsonrpc` for a transport event (a
/// client's disconnect, the server's shutdown) or the dropped-entries marker (the JSON the `transcript` tool and `interop/` read).
#[derive(Clone, Debug, PartialEq)]
pub struct WireMessage {
    /// Which way it went, seen from the owner.
    pub direction: Direction,
    /// What it was.
    pub entry: Entry,
}

/// What a transcript entry records.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A JSON value read or sent as one message (a JSON-RPC message, or JSON that is not one).
    Message(Value),
    /// A line that was not JSON (possibly shortened), so a transcript holds every line.
    Unparseable(String),
    /// Something the transport did that is no message but matters to a reader.
    Transport(TransportEvent),
    /// The server stopped serving on its own (a signal, its stdin closing): whatever is still
    /// unanswered was cut off by the server, not abandoned by the client.
    Shutdown(Shutdown),
    /// Stands for the `dropped` earlier entries a bounded transcript no longer keeps.
    Dropped {
        /// How many entries were dropped, so a reader knows the transcript is not the whole
        /// conversation and by how much.
        dropped: u64,
        /// The limit in force ([`Transcript::set_limit`]): the most entries kept after this
        /// marker, and the number to raise for a whole transcript (0: none).
        limit: usize,
        /// The byte limit in force ([`Transcript::set_byte_limit`]), if any: the most bytes of
        /// compact JSON kept after this marker (the newest entry is kept whatever its size).
        byte_limit: Option<usize>,
    },
}

/// A transport event: so far, a Streamable HTTP client closing a request's response stream.
#[derive(Clone, Debug, PartialEq)]
pub struct TransportEvent {
    /// The request whose response stream was closed.
    pub request_id: Value,
    /// Whether closing it cancels the request (2026-07-28) or only loses the stream (2025-11-25).
    pub cancels: bool,
}

impl TransportEvent {
    /// The value of the `transport` key.
    pub const TRANSPORT: &str = "http";
    /// The value of the `event` key.
    pub const DISCONNECT: &str = "disconnect";
}

/// The server's own shutdown, the last entry of a transcript that ends with one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shutdown {
    /// The transport that stopped: `stdio` or `http`.
    pub transport: String,
    /// Why: `SIGTERM`, `SIGINT`, `stdin closed`.
    pub reason: String,
    /// The length of a line the client had begun but not finished (stdio), recorded just
    /// before as [`Entry::Unparseable`].
    pub partial_line_bytes: Option<usize>,
}

impl Shutdown {
    /// The value of the `event` key.
    pub const SHUTDOWN: &str = "shutdown";

    fn detail(&self) -> String {
        let mut detail = format!(
            "the server stopped ({}): requests still running got no response",
            self.reason
        );
        if let Some(bytes) = self.partial_line_bytes {
            detail.push_str(&format!(
                "; the {bytes} bytes after the last complete line (recorded above) were cut off"
            ));
        }
        detail
    }
}

impl Entry {
    /// The JSON form (the `message` of a serialised entry).
    pub fn to_json(&self) -> Value {
        match self {
            Entry::Message(message) => message.clone(),
            Entry::Unparseable(line) => Value::String(line.clone()),
            Entry::Transport(event) => {
                let detail = if event.cancels {
                    "the client closed the response stream: the request is cancelled"
                } else {
                    "the client closed the response stream: not a cancel under 2025-11-25; the request runs on"
                };
                json!({"transport": TransportEvent::TRANSPORT, "event": TransportEvent::DISCONNECT,
                       "requestId": event.request_id, "cancels": event.cancels, "detail": detail})
            }
            Entry::Shutdown(shutdown) => json!({
                "transport": shutdown.transport,
                "event": Shutdown::SHUTDOWN,
                "reason": shutdown.reason,
                "detail": shutdown.detail(),
            }),
            Entry::Dropped {
                dropped,
                limit,
                byte_limit,
            } => {
                let mut marker = json!({
                    "transcript": "dropped",
                    "dropped": dropped,
                    "limit": limit,
                    "detail": format!("{dropped} earlier messages dropped: the transcript keeps {}", kept_phrase(*limit, *byte_limit)),
                });
                if let Some(bytes) = byte_limit {
                    marker["byteLimit"] = json!(bytes);
                }
                marker
            }
        }
    }

    /// The message, when the entry is one.
    pub fn message(&self) -> Option<&Value> {
        match self {
            Entry::Message(message) => Some(message),
            _ => None,
        }
    }
}

/// What a bounded transcript keeps, in words: `the last 4 messages`, `at most 1024 bytes`, or
/// both (`the last 4 messages, at most 1024 bytes`).
pub fn kept_phrase(limit: usize, byte_limit: Option<usize>) -> String {
    match (limit, byte_limit) {
        (0, Some(bytes)) => format!("at most {bytes} bytes"),
        (limit, None) => format!("the last {limit}"),
        (limit, Some(bytes)) => format!("the last {limit} messages, at most {bytes} bytes"),
    }
}

/// The size an entry counts for against a byte limit: the length of its compact JSON, the form
/// it has on the wire and in the `transcript` tool's reply (an estimate of the memory it holds,
/// which for large strings is close).
pub fn entry_bytes(entry: &Entry) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match entry {
        Entry::Message(message) => {
            serde_json::to_writer(&mut count, message).expect("counting never fails")
        }
        Entry::Unparseable(line) => count.0 = line.len() + 2,
        other => serde_json::to_writer(&mut count, &other.to_json()).expect("counting never fails"),
    }
    count.0
}

impl Serialize for WireMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut entry = serializer.serialize_struct("WireMessage", 2)?;
        entry.serialize_field("direction", &self.direction)?;
        entry.serialize_field("message", &self.entry.to_json())?;
        entry.end()
    }
}

impl WireMessage {
    /// The entry's JSON form (see [`Entry::to_json`]); `null`-safe to index, e.g.
    /// `wire.value()["method"]`.
    pub fn value(&self) -> Value {
        self.entry.to_json()
    }

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
/// to the last N messages and with [`Transcript::set_byte_limit`] to the last bytes (the
/// oldest go first, the newest always stays), and then says how many earlier ones it dropped.
#[derive(Clone, Debug)]
pub struct Transcript {
    side: Side,
    log: Arc<Mutex<Log>>,
}

#[derive(Debug, Default)]
struct Log {
    messages: VecDeque<WireMessage>,
    /// Each kept message's size ([`entry_bytes`]), in the same order; empty without a byte limit.
    sizes: VecDeque<usize>,
    /// Each kept message's binding context, in the same order.
    contexts: VecDeque<Context>,
    /// How many entries of each context were dropped (a context is forgotten when it ends).
    dropped_by_context: HashMap<Context, u64>,
    /// The sum of `sizes`.
    bytes: usize,
    limit: Option<usize>,
    byte_limit: Option<usize>,
    dropped: u64,
    /// The operator's record file, if any: every entry goes there too, unbounded.
    record: Option<Record>,
}

impl Log {
    fn push(&mut self, context: Context, message: WireMessage) {
        self.contexts.push_back(context);
        if self.byte_limit.is_some() {
            let size = entry_bytes(&message.entry);
            self.sizes.push_back(size);
            self.bytes += size;
        }
        self.messages.push_back(message);
        self.trim();
    }

    fn trim(&mut self) {
        let before = self.messages.len();
        let over_count = |log: &Log| log.limit.is_some_and(|limit| log.messages.len() > limit);
        // The newest message stays whatever its size, so the transcript ends with what
        // happened last.
        let over_bytes = |log: &Log| {
            log.byte_limit
                .is_some_and(|limit| log.bytes > limit && log.messages.len() > 1)
        };
        while over_count(self) || over_bytes(self) {
            self.messages.pop_front();
            self.bytes -= self.sizes.pop_front().unwrap_or(0);
            self.dropped += 1;
            if let Some(context) = self.contexts.pop_front() {
                *self.dropped_by_context.entry(context).or_default() += 1;
            }
        }
        if self.messages.len() < before && self.messages.capacity() > 2 * self.messages.len() + 64 {
            // A burst of large messages may have grown the rings; give that memory back.
            self.messages.shrink_to(2 * self.messages.len() + 64);
            self.sizes.shrink_to(2 * self.sizes.len() + 64);
            self.contexts.shrink_to(2 * self.contexts.len() + 64);
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

    /// Keeps at most `bytes` bytes of messages (as compact JSON, see [`entry_bytes`]) from now
    /// on, dropping the oldest first and counting them; the newest message is kept even when it
    /// alone is larger.
    pub fn set_byte_limit(&self, bytes: usize) {
        let mut log = self.lock();
        if log.byte_limit.is_none() {
            let sizes: VecDeque<usize> =
                log.messages.iter().map(|m| entry_bytes(&m.entry)).collect();
            log.bytes = sizes.iter().sum();
            log.sizes = sizes;
        }
        log.byte_limit = Some(bytes);
        log.trim();
    }

    /// How many bytes the kept messages count for against the byte limit (0 without one).
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// How many earlier messages were dropped to stay within the limit (0 when unbounded).
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    /// Appends one message (dropping the oldest when a limit is set and reached).
    pub fn record(&self, direction: Direction, message: Value) {
        self.record_entry(direction, Entry::Message(message));
    }

    /// Appends one entry of any kind, as the server's own ([`Context::SERVER`]).
    pub fn record_entry(&self, direction: Direction, entry: Entry) {
        self.record_entry_for(Context::SERVER, direction, entry);
    }

    /// Appends one message that belongs to `context`.
    pub fn record_for(&self, context: Context, direction: Direction, message: Value) {
        self.record_entry_for(context, direction, Entry::Message(message));
    }

    /// Appends one entry that belongs to `context`: [`Transcript::messages_of`] shows it to that
    /// context only; [`Transcript::messages`] to the server's operator (the artifacts).
    pub fn record_entry_for(&self, context: Context, direction: Direction, entry: Entry) {
        let mut log = self.lock();
        // Under the log's lock, so the file holds the entries in the transcript's order.
        if let Some(record) = &log.record {
            let direction = match direction {
                Direction::In => "in",
                Direction::Out => "out",
            };
            record.append(direction, &entry.to_json());
        }
        log.push(context, WireMessage { direction, entry });
    }

    /// Appends every entry recorded from now on to `record` as well (`--record FILE`), whatever
    /// the limits drop.
    pub fn set_record(&self, record: Record) {
        self.lock().record = Some(record);
    }

    /// Who records this transcript.
    pub fn side(&self) -> Side {
        self.side
    }

    /// A snapshot of the entries so far, in order. When earlier ones were dropped (see
    /// [`Transcript::set_limit`]), the first is an `In` [`Entry::Dropped`] saying how many.
    pub fn messages(&self) -> Vec<WireMessage> {
        let log = self.lock();
        let marker = (log.dropped > 0).then(|| WireMessage {
            direction: Direction::In,
            entry: Entry::Dropped {
                dropped: log.dropped,
                limit: log.limit.unwrap_or(0),
                byte_limit: log.byte_limit,
            },
        });
        marker
            .into_iter()
            .chain(log.messages.iter().cloned())
            .collect()
    }

    /// The entries of `context` so far, in order (what its `transcript` tool shows): never
    /// another context's. When earlier ones of it were dropped, the first is an `In`
    /// [`Entry::Dropped`] saying how many.
    pub fn messages_of(&self, context: Context) -> Vec<WireMessage> {
        let log = self.lock();
        let dropped = log.dropped_by_context.get(&context).copied().unwrap_or(0);
        let marker = (dropped > 0).then(|| WireMessage {
            direction: Direction::In,
            entry: Entry::Dropped {
                dropped,
                limit: log.limit.unwrap_or(0),
                byte_limit: log.byte_limit,
            },
        });
        let own = log
            .messages
            .iter()
            .zip(&log.contexts)
            .filter(|(_, owner)| **owner == context)
            .map(|(message, _)| message.clone());
        marker.into_iter().chain(own).collect()
    }

    /// Forgets how many entries `context` lost (it ended, so no one asks any more); its kept
    /// entries stay in the server's transcript.
    pub fn forget(&self, context: Context) {
        crate::context::forget(&mut self.lock().dropped_by_context, context);
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        // A panic while holding the lock cannot leave the log half-written.
        self.log.lock().unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
