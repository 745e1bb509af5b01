//! What a client may hold on to, and for how long: read timeouts for a request's head and body,
//! and how many 2025-11-25 sessions live at once and how long an idle one lives. Without them
//! anyone who can connect could keep connections (file descriptors) or sessions (memory) forever.

use std::time::Duration;

/// The limits one endpoint enforces. [`Limits::default`] is what the `mcp-testserver` binary
/// uses unless its flags say otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How long a connection may take to send a request's head, counted from when the server
    /// starts waiting for it (so an idle keep-alive connection is closed after it too); `None`:
    /// no limit. hyper's own `header_read_timeout`.
    pub header_read_timeout: Option<Duration>,
    /// How long a POST may take to send its body once its head arrived (408 after it); `None`:
    /// no limit.
    pub body_read_timeout: Option<Duration>,
    /// A 2025-11-25 session with no request for this long, and none running, ends (its id then
    /// gets 404, as for any ended session).
    pub session_idle_timeout: Duration,
    /// The most 2025-11-25 sessions alive at once. An `initialize` at the cap ends the least
    /// recently used idle sessions (a tenth of the cap at once, so a flood costs one scan per
    /// tenth); when every session has a request running it gets 503.
    pub max_sessions: usize,
}

impl Limits {
    /// The default read timeout for a request's head and body: hyper's own default for heads.
    pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default idle time after which a 2025-11-25 session ends.
    pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(600);
    /// The default cap on live 2025-11-25 sessions.
    pub const DEFAULT_MAX_SESSIONS: usize = 1000;

    /// The limits of an in-process server (the harness's `HttpServer`): the session limits of
    /// the binary, but no read timeouts, since the harness runs snippets on tokio's paused
    /// clock, which jumps past any timer while the runtime waits for a loopback socket.
    pub fn in_process() -> Limits {
        Limits {
            header_read_timeout: None,
            body_read_timeout: None,
            ..Limits::default()
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read_timeout: Some(Limits::DEFAULT_READ_TIMEOUT),
            body_read_timeout: Some(Limits::DEFAULT_READ_TIMEOUT),
            session_idle_timeout: Limits::DEFAULT_SESSION_IDLE_TIMEOUT,
            max_sessions: Limits::DEFAULT_MAX_SESSIONS,
        }
    }
}

/// How long the accept loop waits after the first failed `accept` that is not about one
/// connection (out of file descriptors, out of memory), doubling up to [`MAX_ACCEPT_BACKOFF`]:
/// the listener stays readable while connections wait in the backlog, so retrying at once spins.
pub(super) const MIN_ACCEPT_BACKOFF: Duration = Duration::from_millis(10);
/// The longest wait between two failed `accept`s.
pub(super) const MAX_ACCEPT_BACKOFF: Duration = Duration::from_millis(500);

/// Whether an `accept` error concerns only the connection being accepted (the peer reset or
/// aborted it): the next `accept` can follow at once.
pub(super) fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}
