//! Unit tests of `harness.rs`.

use super::*;

#[test]
fn attributes_default_to_2025_and_accept_both_and_expected_violations() {
    let parsed = Attributes::parse("").unwrap();
    assert_eq!(parsed.revisions, vec![Revision::V2025_11_25]);
    let parsed =
        Attributes::parse("revision=2025-11-25, ignore, revision=both,expect_violation=reused-id")
            .unwrap();
    assert_eq!(parsed.revisions, Revision::ALL.to_vec());
    assert_eq!(parsed.expected_violations, vec!["reused-id".to_owned()]);
    assert!(Attributes::parse("revision=2024-01-01").is_err());
}
