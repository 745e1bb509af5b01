//! Unit tests of `rmcp_revision.rs`.

use super::*;

#[test]
fn every_revision_has_the_rmcp_version_of_the_same_date() {
    for revision in Revision::ALL {
        assert_eq!(revision.protocol_version().as_str(), revision.as_str());
    }
}
