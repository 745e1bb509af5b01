//! Unit tests of `violations.rs`.

use super::{MAX_DETAIL_BYTES, ViolationLog, shorten};

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

/// A peer that floods violations cannot make the log grow without bound: the first
/// `KEPT_VIOLATIONS` are kept in full, the rest counted by rule, and what is reported (the
/// stderr summary, the `violations` tool's list) still accounts for every one.
#[test]
fn a_flood_keeps_the_first_violations_in_full_and_counts_the_rest_by_rule() {
    use std::time::{Duration, Instant};

    use super::KEPT_VIOLATIONS;
    const FLOOD: usize = 100_000;
    let log = ViolationLog::new();
    let started = Instant::now();
    for index in 0..FLOOD {
        let rule = if index % 3 == 0 {
            "parse-error"
        } else {
            "null-id"
        };
        log.record(rule, format!("flood {index}"));
    }
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "{FLOOD} records took {took:?}"
    );
    let kept = log.list();
    assert_eq!(kept.len(), KEPT_VIOLATIONS, "entries kept");
    assert_eq!(kept[0].detail, "flood 0");
    assert_eq!(
        kept[KEPT_VIOLATIONS - 1].detail,
        format!("flood {}", KEPT_VIOLATIONS - 1)
    );
    // 1000 kept: 334 parse-error (indices divisible by 3), 666 null-id.
    assert_eq!(
        log.not_kept(),
        [
            ("null-id".to_owned(), 66_000),
            ("parse-error".to_owned(), 33_000)
        ]
    );
    assert_eq!(log.total(), FLOOD);
    assert_eq!(
        log.report(2),
        [
            "violation parse-error: flood 0",
            "violation null-id: flood 1",
            "99998 more violations: null-id ×66665, parse-error ×33333",
        ]
    );
    let reported = log.reported();
    assert_eq!(reported.len(), KEPT_VIOLATIONS + 2);
    assert_eq!(
        reported[KEPT_VIOLATIONS].to_string(),
        "null-id: and 66000 more, not kept (the log keeps the first 1000 in full)"
    );
    assert_eq!(
        reported[KEPT_VIOLATIONS + 1].to_string(),
        "parse-error: and 33000 more, not kept (the log keeps the first 1000 in full)"
    );
}

#[test]
fn below_the_cap_the_log_keeps_everything_and_reports_nothing_more() {
    let log = ViolationLog::new();
    log.record("reused-id", "request id 1 reused");
    assert_eq!(log.not_kept(), []);
    assert_eq!(log.total(), 1);
    assert_eq!(log.reported(), log.list());
    assert_eq!(log.report(20), ["violation reused-id: request id 1 reused"]);
}

/// A client chooses the ids and names a detail quotes: a detail is cut to `MAX_DETAIL_BYTES`,
/// at a character boundary, saying how much was cut, so 1000 kept violations stay near 1 MiB.
#[test]
fn a_long_detail_is_cut_with_a_note() {
    let log = ViolationLog::new();
    let long = format!("request id \"{}\" reused", "é".repeat(2_000_000));
    log.record("reused-id", long.clone());
    let kept = &log.list()[0].detail;
    assert!(
        kept.len() < MAX_DETAIL_BYTES + 40,
        "{} bytes kept",
        kept.len()
    );
    let cut = long.len() - kept.split('…').next().unwrap().len();
    assert!(kept.ends_with(&format!("… ({cut} bytes cut)")), "{kept}");
    assert!(kept.starts_with("request id \"éé"));
    let short = "request id 1 reused".to_owned();
    assert_eq!(
        shorten(short.clone()),
        short,
        "a short detail is kept whole"
    );
}
