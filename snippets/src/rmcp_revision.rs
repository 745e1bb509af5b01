//! The revisions as rmcp names them. The server package knows no SDK, so its `Revision` has no
//! rmcp conversion; snippets and the harness get one here (in the prelude).

use rmcp::model::ProtocolVersion;

use crate::revision::Revision;

/// rmcp's name for a [`Revision`].
pub trait RmcpRevision {
    /// rmcp's `ProtocolVersion` for the revision.
    fn protocol_version(self) -> ProtocolVersion;
}

impl RmcpRevision for Revision {
    fn protocol_version(self) -> ProtocolVersion {
        match self {
            Revision::V2025_11_25 => ProtocolVersion::V_2025_11_25,
            Revision::V2026_07_28 => ProtocolVersion::V_2026_07_28,
        }
    }
}

#[cfg(test)]
#[path = "rmcp_revision_tests.rs"]
mod tests;
