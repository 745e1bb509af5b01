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
mod tests {
    use super::*;

    #[test]
    fn every_revision_has_the_rmcp_version_of_the_same_date() {
        for revision in Revision::ALL {
            assert_eq!(revision.protocol_version().as_str(), revision.as_str());
        }
    }
}
