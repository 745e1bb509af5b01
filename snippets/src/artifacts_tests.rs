//! Unit tests of `artifacts.rs`.

use super::*;
use crate::transcript::Side;

fn registration(kind: &str) -> Registration {
    Registration {
        kind: kind.to_owned(),
        revision: Revision::V2025_11_25,
        transcript: Transcript::new(Side::Server),
        violations: ViolationLog::new(),
    }
}

#[test]
fn only_a_run_keeps_registrations() {
    register(registration("outside"));
    assert!(
        end_run().is_empty(),
        "outside a run the registry keeps nothing"
    );
    begin_run();
    register(registration("inside"));
    let kept: Vec<String> = end_run().into_iter().map(|r| r.kind).collect();
    assert_eq!(kept, ["inside"]);
    register(registration("after"));
    begin_run();
    assert!(end_run().is_empty(), "the run after starts empty");
}
