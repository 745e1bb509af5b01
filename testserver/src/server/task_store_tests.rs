//! Unit tests of `task_store.rs`.

#[test]
fn timestamps_start_at_the_fixed_epoch() {
    assert_eq!(super::timestamp(0), "2026-01-01T00:00:00.000Z");
    assert_eq!(
        super::timestamp(86_400_000 * 59 + 1_500),
        "2026-03-01T00:00:01.500Z"
    );
}
