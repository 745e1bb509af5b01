//! Unit tests of `violations.rs`.

use super::ViolationLog;

#[test]
fn a_report_lists_the_first_violations_and_counts_the_rest_by_rule() {
    let log = ViolationLog::new();
    assert!(log.report(2).is_empty());
    for index in 0..5 {
        log.record("parse-error", format!("line {index}"));
    }
    log.record("null-id", "a request with id null");
    assert_eq!(
        log.report(2),
        [
            "violation parse-error: line 0",
            "violation parse-error: line 1",
            "4 more violations: parse-error ×3, null-id ×1",
        ]
    );
    assert_eq!(log.report(6).len(), 6, "all shown, no summary");
}
