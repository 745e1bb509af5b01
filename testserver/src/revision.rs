//! The two live MCP revisions and which one the current snippet run is under.

use std::sync::atomic::{AtomicU8, Ordering};

/// A live revision of the MCP specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Revision {
    /// Stateful: `initialize`, `notifications/initialized`, `ping`, server-to-client requests,
    /// core tasks.
    V2025_11_25,
    /// Stateless: `server/discover`, a protocol version in each request's `_meta`, `resultType`,
    /// `input_required` results, the tasks extension.
    V2026_07_28,
}

impl Revision {
    /// Both revisions, oldest first.
    pub const ALL: [Revision; 2] = [Revision::V2025_11_25, Revision::V2026_07_28];

    /// The date string, e.g. `"2025-11-25"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether the revision opens a session with `initialize`.
    pub fn has_initialize(self) -> bool {
        self == Revision::V2025_11_25
    }

    /// The revision named by a date string, if it is one of the two live ones.
    pub fn parse(text: &str) -> Option<Revision> {
        Revision::ALL
            .into_iter()
            .find(|revision| revision.as_str() == text)
    }
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Revision {
    type Err = String;

    fn from_str(text: &str) -> Result<Revision, String> {
        Revision::parse(text)
            .ok_or_else(|| format!("unknown revision `{text}` (expected 2025-11-25 or 2026-07-28)"))
    }
}

/// 0 = not set (2025-11-25), 1 = 2025-11-25, 2 = 2026-07-28.
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// The revision this run of the snippet body is under. `snippet_main` sets it before each run;
/// outside `snippet_main` it is 2025-11-25.
pub fn current_revision() -> Revision {
    match CURRENT.load(Ordering::SeqCst) {
        2 => Revision::V2026_07_28,
        _ => Revision::V2025_11_25,
    }
}

/// Sets what [`current_revision`] returns, for the whole process.
pub fn set_current_revision(revision: Revision) {
    let code = match revision {
        Revision::V2025_11_25 => 1,
        Revision::V2026_07_28 => 2,
    };
    CURRENT.store(code, Ordering::SeqCst);
}
