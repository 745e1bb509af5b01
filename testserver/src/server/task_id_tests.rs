//! Unit tests of `task_id.rs`.

use super::*;

#[test]
fn ids_round_trip_and_look_nothing_like_counters() {
    assert_eq!(MULTIPLIER.wrapping_mul(INVERSE), 1);
    let ids: Vec<String> = (1..=1000).map(encode).collect();
    for (index, id) in ids.iter().enumerate() {
        let number = index as u32 + 1;
        assert_eq!(decode(id), Some(number), "{id}");
        let digits = &id[PREFIX.len()..];
        assert_ne!(digits.trim_start_matches('0'), number.to_string(), "{id}");
    }
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    // Stable across runs and builds: the book's transcripts show these (book/tasks.md).
    assert_eq!(encode(1), "tsk-a0565851");
    assert_eq!(encode(2), "tsk-c33d9190");
    assert_eq!(decode(&encode(u32::MAX)), Some(u32::MAX));
    assert_eq!(decode("task-1"), None);
    assert_eq!(decode("tsk-1"), None);
    assert_eq!(decode("tsk-zzzzzzzz"), None);
}
